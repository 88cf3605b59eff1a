# test/callsite.mk - the call site tests: the w_stack workload (waits from
# functions with known names; symbols and frame pointers kept so that
# every unwinder and the analyzer can see them), and the cmocka test of
# the preload library's stack parts, linked alone with stand-ins for the
# writer.  Included by the top Makefile.

CALLSITE_UNIT_OBJ := $(addprefix $(B)/preload/,record/stack_table.o \
	stack/stack_unwind.o stack/callsite.o record/modules.o stack/pyframes.o \
	stack/pyframes_raw.o base/settings.o base/dl_guard.o)

# (read before fake.mk: name its outputs in full)
$(TEST_B)/w_stack: test/workloads/w_stack.c $(wildcard test/fake/*.h) \
		$(TEST_B)/fake/libcuda.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -O0 -g -fno-omit-frame-pointer -rdynamic -o $@ $< \
		-L$(TEST_B)/fake -lcuda -ldl -lpthread

$(TEST_B)/unit_callsite_table: test/unit/test_callsite_table.c \
		$(CALLSITE_UNIT_OBJ) $(wildcard preload/*/*.h) include/gputrace/*.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) -fno-omit-frame-pointer -rdynamic -o $@ \
		$< $(CALLSITE_UNIT_OBJ) $(CMOCKA_LIBS) -ldl -lpthread

TEST_DEPS += $(TEST_B)/w_stack
TEST_BINS += $(TEST_B)/unit_callsite_table
