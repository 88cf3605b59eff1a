# test/nccl.mk - NCCL tests: a fake libnccl.so.2 built from the real
# nccl.h (weak ncclX and strong pncclX exports, as NCCL has them, and a
# profiler plugin driver), the workloads that use it (test/t/3*-nccl*.t).

FAKE_NCCL     := $(FAKE_B)/libnccl.so.2
FAKE_NCCL_SRC := $(wildcard test/fake_nccl/*.c)

$(FAKE_B)/libnccl.map:
	@mkdir -p $(@D)
	$(Q)printf '{ global: nccl*; pnccl*; local: *; };\n' > $@

$(FAKE_NCCL): $(FAKE_NCCL_SRC) test/fake_nccl/fake_nccl.h \
		preload/nccl/nccl_profiler_abi.h $(FAKE_B)/libnccl.map $(FAKE_B)/libcuda.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(FAKE_CFLAGS) -iquote . -shared -o $@ $(FAKE_NCCL_SRC) \
		-Wl,-soname,libnccl.so.2 -Wl,--version-script,$(FAKE_B)/libnccl.map \
		-L$(FAKE_B) -lcuda -ldl -lpthread

$(FAKE_B)/libnccl.so: $(FAKE_NCCL)
	$(Q)ln -sf libnccl.so.2 $@

$(TEST_B)/w_nccl: test/workloads/w_nccl.c $(FAKE_B)/libnccl.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -L$(FAKE_B) -lnccl -lcuda

$(TEST_B)/w_nccl_dlopen: test/workloads/w_nccl_dlopen.c $(FAKE_B)/libnccl.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -ldl

TEST_DEPS += $(FAKE_B)/libnccl.so $(TEST_B)/w_nccl $(TEST_B)/w_nccl_dlopen

test-nccl: $(FAKE_B)/libnccl.so $(TEST_B)/w_nccl $(TEST_B)/w_nccl_dlopen

.PHONY: test-nccl
