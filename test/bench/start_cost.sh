#!/bin/bash
# SPDX-License-Identifier: MIT
# start_cost.sh - what the start window (GPUTRACE_GPU_START_CALLS) adds to
# a long launch-bound run on the fake driver and the fake CUPTI: the CPU
# time (user + system, test/bench/rusage.c) of w_gpu launching LAUNCHES
# kernels in blocks of 100 with a sync after each, traced with the start
# window and without it, interleaved; no other window opens (the clock's
# warm-up is longer than the run).  The difference of the medians is the
# attach, the calls timed, the records taken in and the detach, as the
# library does them (CUPTI's own cost on a GPU comes on top: see
# docs/how-it-works.md).  No GPU needed.
#
#   make bench-start         (ROUNDS=7 LAUNCHES=400000 CALLS=4096)
set -eu
B=${B:-build}
ROUNDS=${ROUNDS:-7}
LAUNCHES=${LAUNCHES:-400000}
CALLS=${CALLS:-4096}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gt-start-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

one() {     # $1 GPUTRACE_GPU_START_CALLS: CPU seconds
	rm -f "$TMP/ru" "$TMP"/d-*.bin
	env LD_LIBRARY_PATH="$B/test/fake" LD_PRELOAD="$PWD/$B/libgputrace.so" \
		GPUTRACE_OUTPUT="$TMP/d-%p.bin" GPUTRACE_SAMPLE_MS=0 GPUTRACE_GPU=windows \
		GPUTRACE_GPU_PLACE=clock GPUTRACE_GPU_WARMUP_MS=3600000 \
		GPUTRACE_GPU_START_CALLS="$1" FAKE_CUDA_SYNC_NS=0 \
		"$B/rusage" "$TMP/ru" "$B/test/w_gpu" --blocks=50 $((LAUNCHES / 100)) \
		>/dev/null 2>&1
	awk '{ printf "%.6f\n", $1 + $2 }' "$TMP/ru"
}

for ((r = 0; r < ROUNDS; r++)); do
	echo "$(one 0) $(one "$CALLS")"
done | python3 -c '
import statistics as st, sys
p = [tuple(map(float, l.split())) for l in sys.stdin if len(l.split()) == 2]
off, on = st.median(a for a, _ in p), st.median(b for _, b in p)
d = st.median(b - a for a, b in p)
n, calls = int(sys.argv[1]), int(sys.argv[2])
print("%d launches: %.1f ms CPU without the start window, %.1f ms with it (%d calls): "
      "%+.2f ms (medians of %d interleaved pairs; added: of the differences), "
      "%.0f ns per call timed" % (n, off * 1e3, on * 1e3, calls, d * 1e3, len(p),
      d * 1e9 / calls))' "$LAUNCHES" "$CALLS"
