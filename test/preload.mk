# test/preload.mk - cmocka unit tests of the preload library's pure parts
# (no interposition in these programs: only the named objects are linked).

PRELOAD_UNIT_OBJ_output := $(B)/preload/base/output_path.o
PRELOAD_UNIT_OBJ_codec := $(B)/preload/base/idmap.o
PRELOAD_UNIT_OBJ_tsc := $(B)/preload/base/tsc.o

$(TEST_B)/unit_preload_%: test/unit/test_preload_%.c $(B)/preload/base/output_path.o \
		$(B)/preload/base/idmap.o $(B)/preload/base/tsc.o
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $< $(PRELOAD_UNIT_OBJ_$*) $(CMOCKA_LIBS)

# The settings (config.c, settings.c, the dump's name it sets up in
# output_path.c; gt_log, the call-site and host-sampler settings stubbed).
$(TEST_B)/unit_preload_config: $(B)/preload/process/config.o $(B)/preload/base/settings.o \
		$(B)/preload/base/output_path.o preload/base/settings.def
PRELOAD_UNIT_OBJ_config := $(B)/preload/process/config.o $(B)/preload/base/settings.o \
		$(B)/preload/base/output_path.o

# The fork guard of the walks over loaded objects (dl_guard.c).
$(TEST_B)/unit_preload_dl_guard: $(B)/preload/base/dl_guard.o
PRELOAD_UNIT_OBJ_dl_guard := $(B)/preload/base/dl_guard.o -lpthread

# The library's own descriptors (own_fd.c).
$(TEST_B)/unit_preload_own_fd: $(B)/preload/base/own_fd.o
PRELOAD_UNIT_OBJ_own_fd := $(B)/preload/base/own_fd.o

TEST_BINS += $(TEST_B)/unit_preload_output $(TEST_B)/unit_preload_codec \
	     $(TEST_B)/unit_preload_tsc $(TEST_B)/unit_preload_config \
	     $(TEST_B)/unit_preload_dl_guard $(TEST_B)/unit_preload_own_fd
