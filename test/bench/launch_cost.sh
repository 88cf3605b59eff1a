#!/bin/bash
# SPDX-License-Identifier: MIT
# launch_cost.sh - the tracer's added time per launch on the fake driver
# (test/bench/launch_cost.c), untraced and traced interleaved, for caches
# left as the driver would leave them (TOUCH_KB: KiB touched per launch).
# No GPU needed; the real figure comes from the H200 (check_overhead.py).
#
#   make bench-launch        (ROUNDS=5 TOUCH_KB="0 48 512")
set -eu
B=${B:-build}
ROUNDS=${ROUNDS:-5}
TOUCH_KB=${TOUCH_KB:-0 48 512}
EXE=$B/test/launch_cost
export LD_LIBRARY_PATH=$B/test/fake
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

one() {     # $1 touch, $2 traced?
	local env=()
	[ "$2" = 1 ] && env=(LD_PRELOAD="$PWD/$B/libgputrace.so"
			     GPUTRACE_OUTPUT="$OUT/d-%p.bin" GPUTRACE_SAMPLE_MS=0)
	env "${env[@]}" "$EXE" --touch-kb="$1" --launches="$(( $1 > 256 ? 4000 : $1 > 0 ? 50000 : 200000 ))" \
		--reps=5 2>/dev/null | sed -n 's/.*ns_per_launch=\([0-9.]*\).*/\1/p'
}

printf '%-10s %12s %12s %12s\n' touch_kb untraced traced added
for t in $TOUCH_KB; do
	for ((r = 0; r < ROUNDS; r++)); do     # interleaved pairs
		echo "$(one "$t" 0) $(one "$t" 1)"
		rm -f "$OUT"/d-*.bin
	done | python3 -c '
import statistics as st, sys
p = [tuple(map(float, l.split())) for l in sys.stdin if len(l.split()) == 2]
print("%-10s %9.1f ns %9.1f ns %+9.1f ns  (medians of %d pairs; added: of the differences)" % (
    sys.argv[1], st.median(u for u, _ in p), st.median(t for _, t in p),
    st.median(t - u for u, t in p), len(p)))' "$t"
done
