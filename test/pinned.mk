# test/pinned.mk - pinned memory tests: a fake shared libcudart.so.13 with
# the pinned-memory calls, and the workload that copies every host memory
# kind (test/t/170-pinned.t).

$(FAKE_B)/libcudart.so.13: test/fake_cudart/fake_cudart.c $(FAKE_B)/libcuda.so
	@mkdir -p $(@D)
	$(Q)$(CC) $(FAKE_CFLAGS) -shared -o $@ $< -Wl,-soname,libcudart.so.13 \
		-L$(FAKE_B) -lcuda

$(FAKE_B)/libcudart.so: $(FAKE_B)/libcudart.so.13
	$(Q)ln -sf libcudart.so.13 $@

$(TEST_B)/w_pinned: test/workloads/w_pinned.c $(FAKE_B)/libcudart.so
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -L$(FAKE_B) -lcudart -lcuda

TEST_DEPS += $(FAKE_B)/libcudart.so $(TEST_B)/w_pinned
