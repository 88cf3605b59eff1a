# test/fake.mk - the fake driver and the workloads the end-to-end tests
# (test/t/1*.t) run under the tracer; included by the top Makefile.
#
#   $(TEST_B)/fake/libcuda.so.1   the fake driver (soname libcuda.so.1), and
#   $(TEST_B)/fake/libcuda.so     a symlink to it, for -lcuda
#   $(TEST_B)/w_*                 the workloads

FAKE_B      := $(TEST_B)/fake
FAKE_LIB    := $(FAKE_B)/libcuda.so.1
FAKE_SRC    := $(wildcard test/fake/*.c)
FAKE_HDR    := $(wildcard test/fake/*.h)
FAKE_CFLAGS := $(CFLAGS) $(CUDA_INC) -fPIC

# Export the cu* entry points (and the fake CUPTI's hook) only: the
# counters' section bounds stay inside.
$(FAKE_B)/libcuda.map: test/fake.mk
	@mkdir -p $(@D)
	$(Q)printf '{ global: cu*; fake_driver_set_tool; local: *; };\n' > $@

$(FAKE_LIB): $(FAKE_SRC) $(FAKE_HDR) $(FAKE_B)/libcuda.map
	@mkdir -p $(@D)
	$(Q)$(CC) $(FAKE_CFLAGS) -shared -o $@ $(FAKE_SRC) \
		-Wl,-soname,libcuda.so.1 \
		-Wl,--version-script,$(FAKE_B)/libcuda.map -lpthread

$(FAKE_B)/libcuda.so: $(FAKE_LIB)
	$(Q)ln -sf libcuda.so.1 $@

WL_CFLAGS := $(CFLAGS) $(CUDA_INC)
WL_NAMES  := cudart threads copies procaddr nocuda dlsym_other
WORKLOADS := $(WL_NAMES:%=$(TEST_B)/w_%) $(TEST_B)/w_direct \
	     $(TEST_B)/w_direct_ptsz $(TEST_B)/w_unload

$(WL_NAMES:%=$(TEST_B)/w_%): $(TEST_B)/w_%: test/workloads/w_%.c $(FAKE_HDR)
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -ldl -lpthread

$(TEST_B)/w_direct: test/workloads/w_direct.c $(FAKE_HDR) $(FAKE_B)/libcuda.so
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -L$(FAKE_B) -lcuda -ldl

$(TEST_B)/w_unload: test/workloads/w_unload.c $(FAKE_HDR) $(FAKE_B)/libcuda.so
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -L$(FAKE_B) -lcuda -ldl

$(TEST_B)/w_direct_ptsz: test/workloads/w_direct.c $(FAKE_HDR) \
		$(FAKE_B)/libcuda.so
	$(Q)$(CC) $(WL_CFLAGS) -DCUDA_API_PER_THREAD_DEFAULT_STREAM -o $@ $< \
		-L$(FAKE_B) -lcuda -ldl

TEST_DEPS += $(FAKE_LIB) $(FAKE_B)/libcuda.so $(WORKLOADS)

test-fake: $(FAKE_LIB) $(FAKE_B)/libcuda.so $(WORKLOADS)

.PHONY: test-fake
