# test/analyzer.mk - the analyzer's cmocka unit tests, one program per
# test/unit/test_analyzer_*.c, linked with every analyzer object except
# main.o (and the Perfetto schema's generated code, where it is built).
# Included by the top Makefile.

ANALYZER_UNIT_SRC := $(wildcard test/unit/test_analyzer_*.c)
ANALYZER_UNIT_BIN := $(ANALYZER_UNIT_SRC:test/unit/%.c=$(TEST_B)/%)
ANALYZER_LIB_OBJ := $(filter-out $(B)/analyzer/main.o,$(ANALYZER_OBJ)) $(PROTO_OBJ)

$(TEST_B)/test_analyzer_%: test/unit/test_analyzer_%.c $(ANALYZER_LIB_OBJ) \
		$(wildcard analyzer/*.h) include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $< $(ANALYZER_LIB_OBJ) \
		$(CMOCKA_LIBS) $(ANALYZER_LIBS) -lstdc++ -lm

TEST_DEPS += $(ANALYZER)
TEST_BINS += $(ANALYZER_UNIT_BIN)
