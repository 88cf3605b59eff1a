# test/analyzer.mk - the analyzer's cmocka unit tests, one program per
# test/unit/test_analyzer_*.c, linked with every analyzer object except
# main.o (and the Perfetto schema's generated code, where it is built).
# Included by the top Makefile.

ANALYZER_UNIT_SRC := $(wildcard test/unit/test_analyzer_*.c)
ANALYZER_UNIT_BIN := $(ANALYZER_UNIT_SRC:test/unit/%.c=$(TEST_B)/%)
ANALYZER_LIB_OBJ := $(filter-out $(B)/analyzer/cmd/main.o,$(ANALYZER_OBJ)) $(PROTO_OBJ)

$(TEST_B)/test_analyzer_%: test/unit/test_analyzer_%.c $(ANALYZER_LIB_OBJ) \
		$(wildcard analyzer/*/*.h test/unit/*.h) include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $< $(ANALYZER_LIB_OBJ) \
		$(CMOCKA_LIBS) $(ANALYZER_LIBS) -lstdc++ -lm

TEST_DEPS += $(ANALYZER)
TEST_BINS += $(ANALYZER_UNIT_BIN)

# docs/format.md's table of event kinds, made from format.h (event_docs.c).
$(TEST_B)/event_docs: test/tools/event_docs.c include/gputrace/format.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

TEST_DEPS += $(TEST_B)/event_docs

format-docs: $(TEST_B)/event_docs
	$(Q)perl -0pi -e 'BEGIN { $$t = `$(TEST_B)/event_docs` } \
		s/(<!-- event kinds: [^\n]*-->\n).*?(<!-- end of event kinds -->)/$$1$$t$$2/s' \
		docs/format.md

.PHONY: format-docs
