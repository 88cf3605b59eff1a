# test/nvtx.mk - what the NVTX, environment and sampler tests (test/t/6*.t)
# build; included by the top Makefile.
#
#   $(TEST_B)/fake_nvml/libnvidia-ml.so.1   a fake NVML (test/fake_nvml/)
#   $(TEST_B)/w_nvtx                         NVTX through the nvtx3 headers

FAKE_NVML_B   := $(TEST_B)/fake_nvml
FAKE_NVML_LIB := $(FAKE_NVML_B)/libnvidia-ml.so.1

$(FAKE_NVML_LIB): test/fake_nvml/fakenvml.c preload/env/nvml_api.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -shared -o $@ $< \
		-Wl,-soname,libnvidia-ml.so.1

$(TEST_B)/w_nvtx: test/workloads/w_nvtx.c $(FAKE_HDR)
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -ldl -lpthread

TEST_DEPS += $(FAKE_NVML_LIB) $(TEST_B)/w_nvtx

$(TEST_B)/w_nvtx_env: test/workloads/w_nvtx_env.c $(FAKE_HDR)
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -ldl

TEST_DEPS += $(TEST_B)/w_nvtx_env

# The NVTX message table alone (the writer stubbed in the test).
$(TEST_B)/unit_preload_nvtx: test/unit/test_preload_nvtx.c $(B)/preload/nvtx/nvtx_strings.o
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) $(SAN_FLAGS) -o $@ $< \
		$(B)/preload/nvtx/nvtx_strings.o $(CMOCKA_LIBS) -lpthread

TEST_BINS += $(TEST_B)/unit_preload_nvtx
