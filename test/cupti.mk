# test/cupti.mk - the fake libcupti and the workload of the CUPTI tests
# (test/t/5*-cupti*.t); included by the top Makefile.
#
#   $(TEST_B)/fake_cupti/libcupti.so.13   the fake (soname libcupti.so.13)
#   $(TEST_B)/w_gpu                        the workload, linked with it

FAKE_CUPTI_B   := $(TEST_B)/fake_cupti
FAKE_CUPTI_LIB := $(FAKE_CUPTI_B)/libcupti.so.13
FAKE_CUPTI_SRC := test/fake_cupti/fakecupti.c
FAKE_CUPTI_HDR := test/fake_cupti/fake_cupti.h

# Every exported name must be one CUPTI has, or fake_cupti_* for tests.
$(FAKE_CUPTI_LIB): $(FAKE_CUPTI_SRC) $(FAKE_CUPTI_HDR)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) -fPIC -fvisibility=hidden -shared \
		-o $@ $(FAKE_CUPTI_SRC) -Wl,-soname,libcupti.so.13 -lpthread

$(FAKE_CUPTI_B)/libcupti.so: $(FAKE_CUPTI_LIB)
	$(Q)ln -sf libcupti.so.13 $@

$(TEST_B)/w_gpu: test/fake_cupti/w_gpu.c $(FAKE_CUPTI_HDR) $(FAKE_HDR) \
		$(FAKE_CUPTI_B)/libcupti.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CUDA_INC) -o $@ $< -L$(FAKE_CUPTI_B) -lcupti \
		-Wl,-rpath,'$$ORIGIN/fake_cupti' -ldl -lpthread

TEST_DEPS += $(FAKE_CUPTI_LIB) $(FAKE_CUPTI_B)/libcupti.so $(TEST_B)/w_gpu

test-cupti: $(FAKE_CUPTI_LIB) $(TEST_B)/w_gpu

.PHONY: test-cupti
