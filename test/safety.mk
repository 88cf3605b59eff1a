# test/safety.mk - proving the tracer safe: the workloads of the
# fork, exec, signal, kill and late-CUDA tests (test/t/7*.t), the unit test
# of the exec environment, and the sanitizer and fuzzing runs:
#
#   make test-asan    analyzer and unit tests built with AddressSanitizer and
#                     UndefinedBehaviorSanitizer (any report fails), then
#                     every test, in the build tree $(B)/asan
#   make test-tsan    the recording path (rings, writer, dump output) built
#                     with ThreadSanitizer and driven by test/tsan/stress.c
#   make fuzz         libFuzzer (clang) with a mutator that knows the
#                     chunks (test/fuzz/mutate.c) on each output mode: text,
#                     json, trace, sqlite, html, diff, ranks; FUZZ_RUNS
#                     (10000) runs each, sqlite half, from FUZZ_SEED (1129), within
#                     FUZZ_SECONDS (300) each: a mode stopped short of its
#                     count fails (test/fuzz/run)
#   make fuzz-long    FUZZ_LONG_RUNS (1000000) runs of each mode, random
#                     seeds, going on after a finding; the counts go to
#                     $(B)/fuzz/long-summary.txt
#   make test-safety  all three (what CI runs after make test)
#   make bench-analyzer  the analyzer's CPU time and peak memory for each
#                     output on synthetic dumps of 1M, 10M and 50M events
#                     (SIZES, OUTPUTS), then the ranks report on 4 dumps
#                     read on all cores (RANKS, RANK_EVENTS; CPU only)
#   make bench-ranks  the ranks report on 8 rank dumps of a job against the
#                     report of one: time and peak memory (RANKS, EVENTS)
#   make bench-launch the added time per launch on the fake driver, with
#                     the caches a driver would leave (CPU only)
#   make bench-start  the CPU time the start window adds to a long
#                     launch-bound run on the fake driver and CUPTI

SAFETY_WL := fork exec signal kill late hostile life res
SAFETY_WORKLOADS := $(SAFETY_WL:%=$(TEST_B)/w_%)

$(SAFETY_WORKLOADS): $(TEST_B)/w_%: test/workloads/w_%.c \
		test/workloads/launcher.h test/fake/workload.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) -o $@ $< -ldl -lpthread

# The same, linked with the library (as a setuid program would have to be:
# the loader ignores LD_PRELOAD and LD_LIBRARY_PATH paths there), finding
# it and the fake driver by absolute run paths.
$(TEST_B)/w_hostile_linked: test/workloads/w_hostile.c test/workloads/launcher.h \
		test/fake/workload.h $(LIB)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) -o $@ $< -L$(B) -lgputrace \
		-Wl,-rpath,$(abspath $(B)):$(abspath $(FAKE_B)) -ldl -lpthread

TEST_DEPS += $(TEST_B)/w_hostile_linked

$(TEST_B)/unit_preload_exec_env: $(B)/preload/base/exec_env.o
PRELOAD_UNIT_OBJ_exec_env := $(B)/preload/base/exec_env.o

TEST_DEPS += $(SAFETY_WORKLOADS)
TEST_BINS += $(TEST_B)/unit_preload_exec_env

# ---- sanitizers ---------------------------------------------------------
test-asan:
	$(MAKE) B=$(B)/asan SANITIZE=address,undefined test

# ThreadSanitizer: the library's code linked into one program (a preloaded
# library cannot bring TSan's runtime).  Its interposers of libc (dlsym,
# exec, signals) stay out, TSan has its own; test/tsan/stress.c stands in
# for what they define.
TSAN_B     := $(B)/tsan
TSAN_SRC   := $(filter-out preload/hooks/dlsym_hook.c preload/process/exec.c \
		preload/process/signals.c,$(PRELOAD_SRC))
TSAN_OBJ   := $(TSAN_SRC:%.c=$(TSAN_B)/%.o)
TSAN_FLAGS := -fsanitize=thread -O1 -g

$(TSAN_B)/preload/%.o: preload/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(PRELOAD_CFLAGS) $(TSAN_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(TSAN_B)/stress: test/tsan/stress.c $(TSAN_OBJ)
	$(Q)$(CC) $(PRELOAD_CFLAGS) $(TSAN_FLAGS) -o $@ $^ -ldl -lpthread

# The analyzer reads a ranks directory's dumps in threads: its ranks
# tests run on a TSan build of it too.
test-tsan: $(TSAN_B)/stress $(ANALYZER)
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 $(TSAN_OPTIONS)" \
		GT_ANALYZER=$(abspath $(ANALYZER)) $(TSAN_B)/stress
	$(MAKE) B=$(B)/tsan-analyzer SANITIZE=thread analyzer
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 $(TSAN_OPTIONS)" \
		GT_BUILD=$(abspath $(B)/tsan-analyzer) prove test/t/820-ranks.t \
		test/t/310-nccl-analyzer.t

# ---- fuzzing the dump reader (libFuzzer: clang) -------------------------
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_LONG_RUNS ?= 1000000
FUZZ_B       := $(B)/fuzz
FUZZ_SAN     := address,undefined
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -iquote . -Iinclude -g -O1 \
		-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_OBJ     := $(ANALYZER_OBJ:$(B)/%.o=$(FUZZ_B)/%.o)

$(FUZZ_B)/analyzer/%.o: analyzer/%.c
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) \
		$(filter -DHAVE_SQLITE -DHAVE_DEMANGLE_CALLBACK,$(ANALYZER_CFLAGS)) $(if $(filter %/main.o,$@),-Dmain=gt_analyzer_main) -c -o $@ $<

# SQLite's allocator (test/fuzz/sqlite_mem.c), without the fuzzer's coverage
FUZZ_SQLITE_MEM := $(if $(filter -DHAVE_SQLITE,$(ANALYZER_CFLAGS)),$(FUZZ_B)/sqlite_mem.o)

$(FUZZ_B)/sqlite_mem.o: test/fuzz/sqlite_mem.c
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=$(FUZZ_SAN) -c -o $@ $<

$(FUZZ_B)/fuzz_dump: test/fuzz/fuzz_dump.c test/fuzz/mutate.c $(FUZZ_SQLITE_MEM) \
		$(FUZZ_OBJ)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) \
		$(filter -DHAVE_SQLITE,$(ANALYZER_CFLAGS)) -o $@ $^ \
		$(ANALYZER_LIBS) -lstdc++ -lm

fuzz: $(FUZZ_B)/fuzz_dump
	FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run $(FUZZ_B)

fuzz-long: $(FUZZ_B)/fuzz_dump
	FUZZ_LONG=1 FUZZ_RUNS=$(FUZZ_LONG_RUNS) FUZZ_SECONDS=86400 \
		test/fuzz/run $(FUZZ_B)

test-safety: test-asan test-tsan fuzz

# ---- the analyzer's speed, for each output (test/bench/bench_analyzer.sh;
# the rest of the benchmark needs a GPU: test/bench/overhead.sh) -----------
$(B)/make_big_dump: test/bench/make_big_dump.c test/bench/dump_writer.h \
		include/gputrace/*.h
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(B)/rusage: test/bench/rusage.c
	$(Q)$(CC) $(CFLAGS) -o $@ $<

bench-analyzer: $(ANALYZER) $(B)/make_big_dump $(B)/rusage
	B=$(B) test/bench/bench_analyzer.sh

# ---- several ranks against one: time and peak memory (bench_ranks.sh) ---
bench-ranks: $(ANALYZER) $(B)/make_big_dump $(B)/rusage
	B=$(B) test/bench/bench_ranks.sh

# ---- the added time per launch on the fake driver, cold caches included
# (test/bench/launch_cost.sh; the real figure needs a GPU) -----------------
$(TEST_B)/launch_cost: test/bench/launch_cost.c $(FAKE_HDR) $(FAKE_B)/libcuda.so
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -L$(FAKE_B) -lcuda -ldl

bench-launch: $(LIB) $(TEST_B)/launch_cost
	B=$(B) test/bench/launch_cost.sh

# ---- what the start window adds (test/bench/start_cost.sh) ---------------
bench-start: $(LIB) $(B)/rusage $(TEST_B)/w_gpu $(FAKE_CUPTI_LIB)
	B=$(B) test/bench/start_cost.sh

.PHONY: test-asan test-tsan fuzz fuzz-long test-safety bench-analyzer bench-ranks \
	bench-launch bench-start
