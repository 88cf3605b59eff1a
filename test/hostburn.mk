# test/hostburn.mk - the workload of the analyzer's host sample tests
# (test/t/418-hostsample-report.t): CPU burnt between launches in
# functions with known shares, in the process and in a forked worker;
# frame pointers and dynamic symbols kept, so that the sampler's
# unwinder and the analyzer's symbols find the functions.  Included by
# the top Makefile.

$(TEST_B)/w_hostburn: test/workloads/w_hostburn.c test/workloads/launcher.h \
		test/fake/workload.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) -O1 -fno-omit-frame-pointer -rdynamic \
		-o $@ $< -ldl -lpthread

TEST_DEPS += $(TEST_B)/w_hostburn
