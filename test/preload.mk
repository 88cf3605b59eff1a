# test/preload.mk - cmocka unit tests of the preload library's pure parts
# (no interposition in these programs: only the named objects are linked).

PRELOAD_UNIT_OBJ_output := $(B)/preload/output_path.o
PRELOAD_UNIT_OBJ_codec := $(B)/preload/idmap.o
PRELOAD_UNIT_OBJ_tsc := $(B)/preload/tsc.o

$(TEST_B)/unit_preload_%: test/unit/test_preload_%.c $(B)/preload/output_path.o \
		$(B)/preload/idmap.o $(B)/preload/tsc.o
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $< $(PRELOAD_UNIT_OBJ_$*) $(CMOCKA_LIBS)

# The settings (config.c, settings.c; gt_log and the call-site settings
# stubbed).
$(TEST_B)/unit_preload_config: $(B)/preload/config.o $(B)/preload/settings.o \
		preload/settings.def
PRELOAD_UNIT_OBJ_config := $(B)/preload/config.o $(B)/preload/settings.o

# The fork guard of the walks over loaded objects (dl_guard.c).
$(TEST_B)/unit_preload_dl_guard: $(B)/preload/dl_guard.o
PRELOAD_UNIT_OBJ_dl_guard := $(B)/preload/dl_guard.o -lpthread

TEST_BINS += $(TEST_B)/unit_preload_output $(TEST_B)/unit_preload_codec \
	     $(TEST_B)/unit_preload_tsc $(TEST_B)/unit_preload_config \
	     $(TEST_B)/unit_preload_dl_guard
