# test/hostsample.mk - the host stack sampler's tests (test/t/415-*.t):
# the w_hostcpu workload, which burns CPU between launches in functions
# with known names (frame pointers and dynamic symbols kept, so that every
# unwinder and dladdr see them).  Included by the top Makefile.

$(TEST_B)/w_hostcpu: test/workloads/w_hostcpu.c test/workloads/launcher.h \
		test/fake/workload.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) -O1 -fno-omit-frame-pointer -rdynamic \
		-o $@ $< -ldl -lpthread

TEST_DEPS += $(TEST_B)/w_hostcpu

# The handler alone: the library's objects linked in (as the TSan stress
# test does), the libc interposers left out.
HOST_BENCH_OBJ := $(filter-out $(B)/preload/hooks/dlsym_hook.o \
	$(B)/preload/process/exec.o $(B)/preload/process/signals.o,$(PRELOAD_OBJ))

$(TEST_B)/host_handler_cost: test/bench/host_handler_cost.c $(HOST_BENCH_OBJ)
	@mkdir -p $(@D)
	$(Q)$(CC) $(PRELOAD_CFLAGS) -o $@ $< $(HOST_BENCH_OBJ) -ldl -lpthread

# make bench-host: what a sample costs (test/bench/host_sample_cost.sh:
# the handler, and a launch-bound loop with and without samples).
bench-host: $(LIB) $(B)/rusage $(TEST_B)/host_handler_cost $(TEST_B)/w_gpu
	B=$(B) test/bench/host_sample_cost.sh

.PHONY: bench-host
