#!/bin/bash
# SPDX-License-Identifier: MIT
# detach_probe.sh - whether CUPTI is detached soon after each default GPU
# window, and what the steps just after a window cost against those just
# before it, on the launch-bound PyTorch loop (test/bench/bench_torch.py
# launch), in one command of about 4 minutes:
#
#   bash test/gpu/detach_probe.sh [OUTDIR]
#
# Three rounds of untraced / host-only / default (800 steps, windows at
# the 1/7.7 scale of check_overhead.py), one default run of 6000 steps
# (7 windows or so), one of 3000 steps with GPUTRACE_GPU_STEPS=1500-1600,
# and the same with GPUTRACE_GPU_SWITCH=disable (CUPTI stays attached with
# its kinds off between windows).  Prints each run's ms/step, a verdict
# line per traced run with windows (CUPTI off again within 1 s of each
# window's end), the report's cost lines; the dumps and reports are left
# in OUTDIR/w (default $OUT or /tmp/gputrace-detach).
set -u
cd "$(dirname "$0")/../.."
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
OUTDIR=${1:-${OUT:-/tmp/gputrace-detach}}
W=$OUTDIR/w
mkdir -p "$W"
make -s -j"$(nproc)" all >"$OUTDIR/build.log" 2>&1 || { tail "$OUTDIR/build.log"; echo "FAIL build"; exit 1; }
LIB=$PWD/build/libgputrace.so
AN=$PWD/build/gputrace-analyze
SCALED="GPUTRACE_GPU_WINDOW_MS=65 GPUTRACE_GPU_PERIOD_MS=3900"
fail=0

run() {         # name steps [traced ENV...]
	local name=$1 steps=$2
	shift 2
	[ $# -gt 0 ] && set -- LD_PRELOAD="$LIB" GPUTRACE_OUTPUT="$W/$name.bin" "$@"
	env "$@" python3 test/bench/bench_torch.py launch --steps "$steps" --warmup 5 \
		2>"$W/$name.err" | sed "s/^truth /$name /"
}

check() {       # name: CUPTI off within 1 s of each window's end
	local name=$1
	"$AN" "$W/$name.bin" >"$W/$name.txt" 2>&1
	"$AN" --json "$W/$name.bin" 2>/dev/null | python3 -c '
import json, sys
name = sys.argv[1]
w = json.load(sys.stdin).get("gpu_windows") or []
late = [x["seq"] for x in w if not x["off_ns"] or x["off_ns"] - x["end_ns"] > 1e9]
gaps = ["%.1f" % ((x["off_ns"] - x["end_ns"]) / 1e6) for x in w if x["off_ns"]]
print("%s detach-%s: %d windows, CUPTI off %s ms after each; late: %s"
      % ("FAIL" if late or not w else "PASS", name, len(w), gaps, late))
sys.exit(1 if late or not w else 0)' "$name" || fail=1
	grep -A8 "tracing cost in this run" "$W/$name.txt" | sed "s/^/  /"
}

for r in 1 2 3; do
	run "u$r" 800
	run "h$r" 800 GPUTRACE_GPU=off
	run "d$r" 800 $SCALED
done
run long 6000 $SCALED
run range 3000 GPUTRACE_GPU_STEPS=1500-1600
run attached 3000 GPUTRACE_GPU_STEPS=1500-1600 GPUTRACE_GPU_SWITCH=disable
for n in d1 d2 d3 long range; do
	check "$n"
done
"$AN" "$W/attached.bin" 2>/dev/null | grep -A8 "tracing cost in this run" | sed "s/^/  attached: /"
exit $fail
