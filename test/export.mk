# test/export.mk - what the tests of the exports need (test/t/8*.t): the
# big synthetic dump generator (test/bench/make_big_dump.c) for the size
# test and the generator of worst cases (make_worst_dump.c) for the scale
# test; headless Chromium (DEB_DEPS: chromium) renders the HTML report.

$(TEST_B)/make_big_dump $(TEST_B)/make_worst_dump: $(TEST_B)/%: \
		test/bench/%.c test/bench/dump_writer.h include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

TEST_DEPS += $(TEST_B)/make_big_dump $(TEST_B)/make_worst_dump
