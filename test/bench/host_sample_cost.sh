#!/bin/bash
# SPDX-License-Identifier: MIT
# host_sample_cost.sh - what the host stack sampler costs, on any machine
# (no GPU): (1) the handler's time per sample of a C thread under each
# unwinder, and the kernel's part of a signal beside it
# (test/bench/host_handler_cost.c); (2) the CPU time (user + system,
# test/bench/rusage.c) of a launch-bound loop on the fake driver (w_gpu,
# LAUNCHES launches in blocks of 50 with a sync after each) with
# GPUTRACE_HOST_HZ=0 and =HZ, interleaved, ROUNDS pairs.
#
#   make bench-host          (ROUNDS=9 HZ=100 LAUNCHES=4000000)
set -eu
B=${B:-build}
ROUNDS=${ROUNDS:-9}
HZ=${HZ:-100}
LAUNCHES=${LAUNCHES:-4000000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gt-host-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export GPUTRACE_OUTPUT="$TMP/d-%p.bin" GPUTRACE_SAMPLE_MS=0 GPUTRACE_GPU=off

echo "handler, per sample of a C thread (8 native frames; the kernel's part apart):"
for u in libunwind libgcc fp; do
	GPUTRACE_UNWIND=$u GPUTRACE_HOST_HZ=$HZ GPUTRACE_THREAD_BUFFER_KB=16384 \
		"$B/test/host_handler_cost" 9 2>/dev/null | sed -n 's/^truth ns_per_sample=\([0-9]*\) ns_per_signal=\([0-9]*\) unwinder=\(.*\)/  \3: \1 ns (a signal to an empty handler, raise() included: \2 ns)/p'
	rm -f "$TMP"/d-*.bin
done

one() {     # $1 GPUTRACE_HOST_HZ: CPU seconds
	rm -f "$TMP/ru" "$TMP"/d-*.bin
	env LD_LIBRARY_PATH="$B/test/fake" LD_PRELOAD="$PWD/$B/libgputrace.so" \
		GPUTRACE_HOST_HZ="$1" FAKE_CUDA_SYNC_NS=0 \
		"$B/rusage" "$TMP/ru" "$B/test/w_gpu" --blocks=50 $((LAUNCHES / 100)) \
		>/dev/null 2>&1
	awk '{ printf "%.6f\n", $1 + $2 }' "$TMP/ru"
}

for ((r = 0; r < ROUNDS; r++)); do
	echo "$(one 0) $(one "$HZ")"
done | python3 -c '
import statistics as st, sys
p = [tuple(map(float, l.split())) for l in sys.stdin if len(l.split()) == 2]
d = sorted(100 * (b - a) / a for a, b in p)
print("launch-bound loop, %d launches: %.1f ms CPU at GPUTRACE_HOST_HZ=0, %.1f ms at %s: "
      "%+.2f%% (median of %d interleaved pairs; the pairs from %+.2f%% to %+.2f%%)" % (
      int(sys.argv[1]), st.median(a for a, _ in p) * 1e3, st.median(b for _, b in p) * 1e3,
      sys.argv[2], st.median(d), len(p), d[0], d[-1]))' "$LAUNCHES" "$HZ"
