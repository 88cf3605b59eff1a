# test/golden.mk - the golden test of the analyzer's outputs
# (test/t/29-analyzer-golden.t, run by make test):
#
#   make golden         that test alone
#   make golden-elsewhere  that test in a copy of the checkout elsewhere
#   make golden-update  write test/golden/expected/ again from what the
#                       analyzer prints now, after an intended change of an
#                       output (then read the diff of test/golden/expected/)

GOLDEN_T := test/t/29-analyzer-golden.t

golden: $(ANALYZER)
	GT_BUILD=$(abspath $(B)) prove -v $(GOLDEN_T)

golden-update: $(ANALYZER)
	GT_GOLDEN_UPDATE=1 GT_BUILD=$(abspath $(B)) prove $(GOLDEN_T)

.PHONY: golden golden-update

# The golden test in a copy of the checkout at another path (.ci/run): what
# git would commit (tracked and new files, not the ignored ones) copied to
# a temporary folder and tested there with this build's analyzer, so that
# an output that depends on where the checkout sits, or on a file the
# repository does not hold, fails.
golden-elsewhere: $(ANALYZER)
	@tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/gputrace-elsewhere.XXXXXX") && \
	trap 'rm -rf "$$tmp"' EXIT && \
	git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null | \
		tar -C "$$tmp" -xf - && \
	echo "golden test in a copy at $$tmp" && \
	cd "$$tmp" && GT_BUILD=$(abspath $(B)) prove $(GOLDEN_T)

.PHONY: golden-elsewhere
