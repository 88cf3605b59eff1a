# test/golden.mk - the golden test of the analyzer's outputs
# (test/t/29-analyzer-golden.t, run by make test):
#
#   make golden         that test alone
#   make golden-update  write test/golden/expected/ again from what the
#                       analyzer prints now, after an intended change of an
#                       output (then read the diff of test/golden/expected/)

GOLDEN_T := test/t/29-analyzer-golden.t

golden: $(ANALYZER)
	GT_BUILD=$(abspath $(B)) prove -v $(GOLDEN_T)

golden-update: $(ANALYZER)
	GT_GOLDEN_UPDATE=1 GT_BUILD=$(abspath $(B)) prove $(GOLDEN_T)

.PHONY: golden golden-update
