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
