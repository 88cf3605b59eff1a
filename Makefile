# gputrace - see README.md.
#
#   make              build build/libgputrace.so and build/gputrace-analyze
#   make demo         trace an example on this GPU and analyze it (no GPU:
#                     analyze the sample dump recorded on an H200)
#   make deps         install the Debian packages the tests need
#   make test         build the fakes and workloads, run every test (TAP, prove)
#   make test-safety  the same under ASan+UBSan, the recording path under
#                     TSan, and a bounded fuzzing run of each output mode
#                     (test/safety.mk; make fuzz-long: a million runs each)
#   make install      install into $(DESTDIR)$(PREFIX)/{lib,bin}
#   make clean
#
# Knobs: CUDA_HOME=/usr/local/cuda  PREFIX=/usr/local  DESTDIR=  V=1 (verbose)
#        SANITIZE=address,undefined (analyzer and tests)

all::

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

# ---- the preloaded library -------------------------------------------------
PRELOAD_SRC := $(wildcard preload/*.c)
PRELOAD_OBJ := $(PRELOAD_SRC:%.c=$(B)/%.o)
PRELOAD_CFLAGS := $(CFLAGS) $(CUDA_INC) -fPIC -fvisibility=hidden \
		  -fno-omit-frame-pointer -ftls-model=initial-exec
LIB := $(B)/libgputrace.so

$(B)/preload/%.o: preload/%.c $(wildcard preload/*.h preload/*.def) include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(PRELOAD_CFLAGS) -c -o $@ $<

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

ANALYZER_SRC := $(wildcard analyzer/*.c)
ANALYZER_OBJ := $(ANALYZER_SRC:%.c=$(B)/%.o)
ANALYZER := $(B)/gputrace-analyze

$(B)/analyzer/%.o: analyzer/%.c $(wildcard analyzer/*.h) include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(ANALYZER_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(ANALYZER): $(ANALYZER_OBJ)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(ANALYZER_LIBS) -lstdc++ -lm

all:: $(LIB) $(ANALYZER)

# ---- tests (no GPU: a fake driver built from the real cuda.h) -------------
# Each test/*.mk adds what it builds to TEST_DEPS and its cmocka programs to
# TEST_BINS; prove runs those and every test/t/*.t (TAP).
TEST_B    := $(B)/test
TEST_DEPS :=
TEST_BINS :=
CMOCKA_LIBS := -lcmocka
-include $(wildcard test/*.mk)

test: all $(TEST_DEPS) $(TEST_BINS)
	CMOCKA_MESSAGE_OUTPUT=TAP GT_BUILD=$(abspath $(B)) \
		prove -f $(TEST_BINS) test/t/*.t

# Debian packages the build and the tests need (CUDA comes from CUDA_HOME).
DEB_DEPS := build-essential libcmocka-dev perl clang libclang-rt-dev \
	    libsqlite3-dev sqlite3 chromium time
deps:
	@missing=$$(for p in $(DEB_DEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; \
	fi
	@test -f $(CUDA_HOME)/include/cuda.h || \
		{ echo "no CUDA toolkit headers at CUDA_HOME=$(CUDA_HOME)"; exit 1; }

demo: all
	B=$(B) examples/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libgputrace.so
	install -m 0755 $(ANALYZER) $(DESTDIR)$(PREFIX)/bin/gputrace-analyze

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libgputrace.so \
	      $(DESTDIR)$(PREFIX)/bin/gputrace-analyze

clean:
	rm -rf $(B)

.PHONY: all install uninstall clean test deps demo
