#!/bin/bash
# SPDX-License-Identifier: MIT
# sampler_cost.sh - what the host stack sampler's handler costs a real
# PyTorch program, on a machine with an NVIDIA GPU: the launch-bound loop
# (test/bench/bench_torch.py launch) traced with the default settings and
# GPUTRACE_HOST_NATIVE=N for each N asked, each run's handler time per
# sample and its share of the sampled CPU time as the run's own report
# measures it (host_sampler_cost); and the handler alone for a C thread
# under each unwinder (test/bench/host_handler_cost).  One verdict line
# per run: PASS when the share is within the design target (0.5%).
#
#   bash test/gpu/sampler_cost.sh [NATIVE...]      (default: 8 4 1 0)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gputrace-gpu}
mkdir -p "$OUT"
make -s -j"$(nproc)" all build/test/host_handler_cost >"$OUT/sampler-build.log" 2>&1 ||
	{ tail -20 "$OUT/sampler-build.log"; echo "FAIL build"; exit 1; }
TMP=$(mktemp -d /tmp/gt-sampler-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
GOAL=0.005
rc=0

for u in libgcc fp libunwind; do
	GPUTRACE_OUTPUT="$TMP/h-%p.bin" GPUTRACE_GPU=off GPUTRACE_SAMPLE_MS=0 \
	GPUTRACE_UNWIND=$u GPUTRACE_HOST_HZ=100 GPUTRACE_THREAD_BUFFER_KB=16384 \
		build/test/host_handler_cost 5 2>/dev/null |
		sed -n "s/^truth \(.*\)/INFO handler-c-thread-$u: \1/p"
done

for n in ${@:-8 4 1 0}; do
	for n1 in $n; do
		rm -f "$TMP"/t-*.bin
		env LD_PRELOAD="$PWD/build/libgputrace.so" GPUTRACE_OUTPUT="$TMP/t-%p.bin" \
			GPUTRACE_HOST_NATIVE="$n1" python3 test/bench/bench_torch.py launch \
			--steps 600 --warmup 5 >"$TMP/out" 2>"$TMP/err"
		d=$(ls "$TMP"/t-*.bin 2>/dev/null | head -1)
		line=$(build/gputrace-analyze --json "$d" 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
c = j.get("host_sampler_cost") or {}
print(c.get("samples", 0), c.get("handler_mean_ns", 0), c.get("share_of_sampled_cpu", 1))' 2>/dev/null)
		read -r samples mean share <<<"${line:-0 0 1}"
		ms=$(sed -n 's/.*ms_per_step=\([0-9.]*\).*/\1/p' "$TMP/out" | tail -1)
		ok=$(python3 -c "print('PASS' if $samples > 0 and $share <= $GOAL else 'FAIL')")
		[ "$ok" = PASS ] || rc=1
		printf '%s sampler-native-%s: %s samples, %.2f us in the handler per sample, %.3f%% of the sampled CPU time; %s ms/step\n' \
			"$ok" "$n1" "$samples" "$(python3 -c "print($mean / 1000)")" \
			"$(python3 -c "print(100 * $share)")" "${ms:-?}"
	done
done
exit $rc
