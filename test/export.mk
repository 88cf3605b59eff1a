# test/export.mk - what the tests of the exports need (test/t/8*.t): the
# big synthetic dump generator (test/bench/make_big_dump.c) for the size
# test; headless Chromium (DEB_DEPS: chromium) renders the HTML report.

$(TEST_B)/make_big_dump: test/bench/make_big_dump.c include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

TEST_DEPS += $(TEST_B)/make_big_dump
