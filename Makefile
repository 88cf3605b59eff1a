# gputrace - see README.md and docs/.
#
#   make              build build/libgputrace.so, build/gputrace-analyze and
#                     build/gputrace (the CUDA toolkit's and NCCL's headers
#                     are needed for the library only)
#   make analyzer     build the two commands alone: no CUDA headers needed
#   make demo         trace an example on this GPU and analyze it (no GPU:
#                     analyze the sample dump recorded on an H200; no CUDA
#                     headers needed then)
#   make deps         install the Debian packages the tests need (only those
#                     missing, without recommended packages)
#   make test         build the fakes and workloads, run every test (TAP, prove)
#   make golden-update  write the golden test's expected outputs again after
#                     an intended change of an output (test/golden/README.md)
#   make test-safety  the same under ASan+UBSan, the recording path under
#                     TSan, and a bounded fuzzing run of each output mode
#                     (test/safety.mk; make fuzz-long: a million runs each)
#   make install      install into $(DESTDIR)$(PREFIX): the library, the two
#                     commands, their man pages, the format headers and
#                     gputrace.pc; make uninstall removes them
#   make clean
#
# Knobs: CUDA_HOME=/usr/local/cuda  PREFIX=/usr/local  DESTDIR=  V=1 (verbose)
#        SANITIZE=address,undefined (analyzer and tests)

all::

VERSION   := 0.9.0
CUDA_HOME ?= /usr/local/cuda
PREFIX    ?= /usr/local
B         ?= build
CC        ?= cc

ifneq ($(V),1)
Q = @
endif

WARN      := -Wall -Wextra -Wstrict-prototypes -Wshadow -Wno-unused-parameter
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 $(WARN) -D_GNU_SOURCE -iquote . -Iinclude
ifdef SANITIZE
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
CUDA_INC  := -isystem $(CUDA_HOME)/include
# Each object's headers, as the compiler found them, go to its .d file,
# included at the end: a changed header rebuilds what includes it.
DEPFLAGS  := -MMD -MP

# ---- the CUDA headers the library (and the tests' fakes) are built with -----
# HEADER:where-it-comes-from; each is looked for where the compiler looks.
CUDA_HEADERS := cuda.h:cuda-driver-dev cudaTypedefs.h:cuda-cudart-dev \
		cupti.h:cuda-cupti-dev nccl.h:libnccl-dev \
		nvtx3/nvToolsExt.h:cuda-nvtx
cuda-headers:
	@for hp in $(CUDA_HEADERS); do h=$${hp%%:*}; p=$${hp#*:}; \
		printf '\043include <%s>\n' "$$h" | $(CC) $(CUDA_INC) -E -x c - \
			>/dev/null 2>&1 && continue; \
		echo "$$h not found under CUDA_HOME=$(CUDA_HOME): install the CUDA" \
		     "toolkit ($$p) or set CUDA_HOME (make analyzer builds the" \
		     "commands without it)" >&2; exit 1; \
	done

# The same check, once per CUDA_HOME, for what is built from the headers:
# a stamp, so that a built tree is up to date (make -q).
CUDA_OK := $(B)/cuda-headers$(subst /,_,$(CUDA_HOME)).ok
$(CUDA_OK):
	@$(MAKE) --no-print-directory cuda-headers
	@mkdir -p $(@D) && touch $@

# ---- the preloaded library -------------------------------------------------
PRELOAD_SRC := $(wildcard preload/*/*.c)
PRELOAD_OBJ := $(PRELOAD_SRC:%.c=$(B)/%.o)
PRELOAD_CFLAGS := $(CFLAGS) $(CUDA_INC) -fPIC -fvisibility=hidden \
		  -fno-omit-frame-pointer -ftls-model=initial-exec
LIB := $(B)/libgputrace.so

$(B)/preload/%.o: preload/%.c | $(CUDA_OK)
	@mkdir -p $(@D)
	$(Q)$(CC) $(PRELOAD_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LIB): $(PRELOAD_OBJ)
	$(Q)$(CC) -shared -o $@ $^ -Wl,--no-undefined -Wl,-z,nodelete \
		-ldl -lpthread

# ---- the analyzer ----------------------------------------------------------
# SQLite for --sqlite where its headers and library are (libsqlite3-dev);
# without them the analyzer builds and says so when asked for a database.
HAVE_SQLITE := $(shell printf '\043include <sqlite3.h>\nint main(void){return !sqlite3_libversion();}\n' | \
		 $(CC) -x c - -o /dev/null -lsqlite3 2>/dev/null && echo 1)
ifeq ($(HAVE_SQLITE),1)
ANALYZER_CFLAGS += -DHAVE_SQLITE
ANALYZER_LIBS += -lsqlite3
endif

# C++ names are demangled by libstdc++'s demangler through its callback
# form where the static libstdc++ has it (libstdc++-dev): its output is then
# cut at a bound (analyzer/lib/demangle.c); without it, names whose
# expansion could pass the bound stay mangled.
LIBSTDCXX_A := $(shell $(CC) -print-file-name=libstdc++.a)
HAVE_DEMANGLE_CALLBACK := $(shell printf '\043include <stddef.h>\nint __gcclibcxx_demangle_callback(const char *, void (*)(const char *, size_t, void *), void *);\nstatic void cb(const char *s, size_t n, void *o) { (void)s; (void)n; (void)o; }\nint main(void){return __gcclibcxx_demangle_callback("_Z1fv", cb, NULL);}\n' | \
		 $(CC) -x c - -x none -o /dev/null $(LIBSTDCXX_A) 2>/dev/null && echo 1)
ifeq ($(HAVE_DEMANGLE_CALLBACK),1)
ANALYZER_CFLAGS += -DHAVE_DEMANGLE_CALLBACK
ANALYZER_LIBS += $(LIBSTDCXX_A)
endif

# Perfetto's protobuf trace for --perfetto where protobuf-c is
# (libprotobuf-c-dev, protobuf-c-compiler): the C code of the schema kept
# in analyzer/export/proto/ is generated into $(B)/proto; without it the
# analyzer builds and says so when asked for that export.
PROTOC_C  ?= protoc-c
HAVE_PROTOBUF_C := $(shell command -v $(PROTOC_C) >/dev/null 2>&1 && \
		 printf '\043include <protobuf-c/protobuf-c.h>\nint main(void){return !protobuf_c_version();}\n' | \
		 $(CC) -x c - -o /dev/null -lprotobuf-c 2>/dev/null && echo 1)
ifeq ($(HAVE_PROTOBUF_C),1)
PROTO_B   := $(B)/proto
PROTO_OBJ := $(PROTO_B)/perfetto_trace.pb-c.o
ANALYZER_CFLAGS += -DHAVE_PROTOBUF_C -I$(PROTO_B)
ANALYZER_LIBS += -lprotobuf-c

$(PROTO_B)/perfetto_trace.pb-c.c: analyzer/export/proto/perfetto_trace.proto
	@mkdir -p $(@D)
	$(Q)$(PROTOC_C) --c_out=$(@D) -Ianalyzer/export/proto $<
$(PROTO_B)/perfetto_trace.pb-c.h: $(PROTO_B)/perfetto_trace.pb-c.c
$(PROTO_OBJ): $(PROTO_B)/perfetto_trace.pb-c.c
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -c -o $@ $<
$(B)/analyzer/export/export_perfetto.o: $(PROTO_B)/perfetto_trace.pb-c.h
endif

# The version both commands print; the launcher also knows where the
# library is installed.
ANALYZER_CFLAGS += -DGT_VERSION='"$(VERSION)"' -DGT_PREFIX='"$(PREFIX)"'

LAUNCHER_SRC := $(wildcard analyzer/cmd/launcher*.c)
ANALYZER_SRC := $(filter-out $(LAUNCHER_SRC),$(wildcard analyzer/*/*.c))
ANALYZER_OBJ := $(ANALYZER_SRC:%.c=$(B)/%.o)
LAUNCHER_OBJ := $(LAUNCHER_SRC:%.c=$(B)/%.o)
ANALYZER := $(B)/gputrace-analyze
LAUNCHER := $(B)/gputrace

# The analyzer is optimized across its files (a record goes through a
# dozen passes, each in its own file) where the compiler can link that way:
# ANALYZER_OPT= turns it off; the sanitized builds go without it.
HAVE_LTO := $(shell printf 'int main(void){return 0;}\n' | \
		 $(CC) -x c -O2 -flto=auto -ffat-lto-objects - -o /dev/null \
		 2>/dev/null && echo 1)
ANALYZER_OPT ?= $(if $(SANITIZE),,-O3 $(if $(HAVE_LTO),-flto=auto -ffat-lto-objects))

$(B)/analyzer/%.o: analyzer/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(ANALYZER_OPT) $(ANALYZER_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(ANALYZER): $(ANALYZER_OBJ) $(PROTO_OBJ)
	$(Q)$(CC) $(CFLAGS) $(ANALYZER_OPT) $(SAN_FLAGS) -o $@ $^ $(ANALYZER_LIBS) -lstdc++ -lm

# The launcher makes the folder of the program's dump where the library
# will name it: with the library's own expansion of the template.
LAUNCHER_OBJ += $(B)/launcher/output_path.o
$(B)/launcher/output_path.o: preload/base/output_path.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(LAUNCHER): $(LAUNCHER_OBJ)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^

analyzer: $(ANALYZER) $(LAUNCHER)

all:: $(LIB) $(ANALYZER) $(LAUNCHER)

# ---- tests (no GPU: a fake driver built from the real cuda.h) -------------
# Each test/*.mk adds what it builds to TEST_DEPS and its cmocka programs to
# TEST_BINS; prove runs those and every test/t/*.t (TAP).
TEST_B    := $(B)/test
TEST_DEPS :=
TEST_BINS :=
CMOCKA_LIBS := -lcmocka
-include $(wildcard test/*.mk)

# The fakes and workloads are built from the CUDA headers too.
$(filter-out $(ANALYZER),$(TEST_DEPS)) $(TEST_BINS): | $(CUDA_OK)

test: all $(TEST_DEPS) $(TEST_BINS)
	CMOCKA_MESSAGE_OUTPUT=TAP GT_BUILD=$(abspath $(B)) \
		prove -f $(TEST_BINS) test/t/*.t

# Debian packages the build and the tests need (CUDA comes from CUDA_HOME),
# in groups, each with what needs it: make deps installs the missing ones
# and says, one line per group, which and why.
DEB_GROUPS := build tests sqlite perfetto html safety
DEB_build    := build-essential pkg-config
WHY_build    := the compiler and make: the library and the commands
DEB_tests    := perl libcmocka-dev time
WHY_tests    := the tests: prove, the cmocka unit tests, /usr/bin/time (CPU time and memory of the analyzer)
DEB_sqlite   := libsqlite3-dev sqlite3
WHY_sqlite   := gputrace-analyze --sqlite, and the tests that read its database
DEB_perfetto := libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
WHY_perfetto := gputrace-analyze --perfetto, and the test that decodes its trace (protoc)
DEB_html     := chromium
WHY_html     := test/t/840-html.t renders the --html report in headless Chromium (skipped without it)
DEB_safety   := clang libclang-rt-dev
WHY_safety   := make test-safety: the fuzzer (libFuzzer) and the sanitizer builds
DEB_DEPS := $(foreach g,$(DEB_GROUPS),$(DEB_$(g)))

deps:
	@missing=; \
	$(foreach g,$(DEB_GROUPS),m=$$(for p in $(DEB_$(g)); do \
		dpkg-query -W -f '$${Status}' $$p 2>/dev/null | \
			grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$m" ]; then echo "installing" $$m: '$(WHY_$(g))'; \
		missing="$$missing $$m"; fi;) \
	if [ -n "$$missing" ]; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		$$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@$(MAKE) --no-print-directory cuda-headers

demo: analyzer
	B=$(B) MAKE=$(MAKE) examples/demo.sh

# ---- install ---------------------------------------------------------------
MAN_PAGES := docs/man/gputrace.1 docs/man/gputrace-analyze.1
HEADERS   := include/gputrace/format.h include/gputrace/varint.h
INSTALLED := lib/libgputrace.so bin/gputrace bin/gputrace-analyze \
	     $(MAN_PAGES:docs/man/%=share/man/man1/%) \
	     $(HEADERS:include/%=include/%) lib/pkgconfig/gputrace.pc

# gputrace.pc, for the prefix installed to.
PC_LINES := 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' \
	    'libdir=$${prefix}/lib' '' 'Name: gputrace' \
	    'Description: dump format of gputrace (format.h, varint.h); libgputrace.so is preloaded, not linked' \
	    'Version: $(VERSION)' 'Cflags: -I$${includedir}'

install: all
	install -d $(addprefix $(DESTDIR)$(PREFIX)/,lib bin share/man/man1 \
		include/gputrace lib/pkgconfig)
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libgputrace.so
	install -m 0755 $(ANALYZER) $(LAUNCHER) $(DESTDIR)$(PREFIX)/bin/
	for m in $(MAN_PAGES); do \
		sed 's/@VERSION@/$(VERSION)/' $$m > $(DESTDIR)$(PREFIX)/share/man/man1/$${m##*/}; \
	done
	install -m 0644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/gputrace/
	printf '%s\n' $(PC_LINES) > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gputrace.pc

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))
	-rmdir $(DESTDIR)$(PREFIX)/include/gputrace 2>/dev/null

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

.PHONY: all analyzer cuda-headers install uninstall clean test deps demo
