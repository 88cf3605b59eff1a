# test/writer.mk - the writer's throughput test (test/t/145-burst.t): one
# thread launching as fast as it can on the fake driver, which must lose
# no event with the default settings.

$(TEST_B)/w_burst: test/workloads/w_burst.c $(FAKE_HDR) $(FAKE_B)/libcuda.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -L$(FAKE_B) -lcuda -ldl

TEST_DEPS += $(TEST_B)/w_burst
