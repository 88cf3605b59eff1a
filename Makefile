# gputrace - see README.md.
#
#   make              build build/libgputrace.so and build/gputrace-analyze
#   make test         build the fakes and workloads, run every test (TAP, prove)
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
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
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
ANALYZER_SRC := $(wildcard analyzer/*.c)
ANALYZER_OBJ := $(ANALYZER_SRC:%.c=$(B)/%.o)
ANALYZER := $(B)/gputrace-analyze

$(B)/analyzer/%.o: analyzer/%.c $(wildcard analyzer/*.h) include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(ANALYZER): $(ANALYZER_OBJ)
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ -lstdc++ -lm

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

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libgputrace.so
	install -m 0755 $(ANALYZER) $(DESTDIR)$(PREFIX)/bin/gputrace-analyze

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libgputrace.so \
	      $(DESTDIR)$(PREFIX)/bin/gputrace-analyze

clean:
	rm -rf $(B)

.PHONY: all install uninstall clean test
