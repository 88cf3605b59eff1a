#!/bin/bash
# SPDX-License-Identifier: MIT
# crash_matrix.sh - runs small programs under the tracer with CUPTI in each
# mode and prints, per run, the exit status, our log lines and, for a
# crash, the native stack (GPUTRACE_DEBUG=1) and the Python one
# (faulthandler).  For finding why a traced program dies; then
# check.sh proves the fix.
#
#   bash test/gpu/crash_matrix.sh            (on a machine with a GPU)
#   bash test/gpu/crash_matrix.sh jax        the JAX workload of the
#                                            diagnosis suite in the default
#                                            settings and with parts off
#   bash test/gpu/crash_matrix.sh start [N]  the suite's workloads that
#                                            died with the start window on
#                                            and those that need it, N
#                                            times each (default 3), with
#                                            GPUTRACE_GPU_START_CALLS=4096
set -u
cd "$(dirname "$0")/../.."
export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
OUT=${OUT:-/tmp/gputrace-crash}
W=$(mktemp -d)
mkdir -p "$OUT"
make -s -j16 all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
nvcc -O2 -arch=sm_90 -o "$W/vecadd" examples/cuda/vecadd.cu || exit 1
LIB=$PWD/build/libgputrace.so
TRAIN=examples/pytorch/train_mlp.py

case_run() {
	local name=$1 extra=$2; shift 2
	env GPUTRACE_OUTPUT="$W/$name-%p.bin" GPUTRACE_DEBUG=1 $extra \
		LD_PRELOAD="$LIB" timeout 150 "$@" >"$W/$name.out" 2>"$W/$name.err"
	local rc=$?
	local dump
	dump=$(sed -n 's/.*gputrace: wrote \([^ ]*\) .*/\1/p' "$W/$name.err" | tail -1)
	echo "== $name rc=$rc ($extra)"
	grep -E "gputrace: (wrote|crashed|no GPU|CUPTI|ignoring)|^(/|\[0x)|Fatal Python|File \"" \
		"$W/$name.err" | grep -v "cupti: .* not there" | head -45
	if [ -n "$dump" ] && [ -f "$dump" ]; then
		build/gputrace-analyze --json "$dump" 2>&1 | python3 -c '
import json, sys
try:
    j = json.load(sys.stdin)
except Exception as e:
    print("   analyzer:", e); sys.exit()
g = j.get("gpu") or {}
ks = j.get("kernels", [])
print("   events", j.get("events"), "launches", sum(k["calls"] for k in ks),
      "gpu_kernels", sum(k.get("gpu_calls", 0) or 0 for k in ks),
      "busy_ns", g.get("busy_ns"), "records", g.get("records"), "cupti", (j.get("env") or {}).get("cupti"))'
	fi
	cp "$W/$name.err" "$OUT/$name.err" 2>/dev/null
}

start_runs() {
	local n=${1:-3} d=examples/diagnose
	nvcc -O2 -arch=sm_90 -o "$W/launch_bound" $d/cuda/launch_bound.cu || exit 1
	nvcc -O2 -arch=sm_90 -o "$W/pageable" $d/cuda/pageable.cu || exit 1
	for i in $(seq "$n"); do
		case_run "grad-accum-$i" "GPUTRACE_GPU_START_CALLS=4096" \
			python3 -X faulthandler $d/tiny_batch.py --batch 16 --accum 32 --steps 80
		case_run "loader-io-w16-$i" "GPUTRACE_GPU_START_CALLS=4096" \
			python3 -X faulthandler $d/loader_cpu.py --io --sample-ms 2 --workers 16
		case_run "item-none-long-$i" "GPUTRACE_GPU_START_CALLS=4096" \
			python3 -X faulthandler $d/item_sync.py --batch 8192 --host-ms 3 --steps 150 --no-item
		case_run "jax-sync-$i" "GPUTRACE_GPU_START_CALLS=4096" \
			python3 -X faulthandler $d/jax_sync.py
		case_run "cuda-graph-$i" "GPUTRACE_GPU_START_CALLS=4096" "$W/launch_bound" --graph
		case_run "cuda-pinned-$i" "GPUTRACE_GPU_START_CALLS=4096" "$W/pageable" --pinned
	done
	echo "runs: $(ls "$W"/*.err | wc -l), died: $(grep -lE 'gputrace: crashed|corrupted|Fatal Python' "$W"/*.err | wc -l)"
	for b in "$W"/*.bin; do
		echo "$(basename "$b"): $(build/gputrace-analyze "$b" 2>&1 | grep -E '^GPU windows|GPU-timed steps|^  steps: the' | tr '\n' ' ' | cut -c1-200)"
	done
}

if [ "${1:-}" = start ]; then
	start_runs "${2:-3}"
	exit 0
fi

if [ "${1:-}" = jax ]; then
	JAX="python3 -X faulthandler examples/diagnose/jax_sync.py"
	case_run jax_default "" $JAX
	case_run jax_no_cupti "GPUTRACE_CUPTI=0" $JAX
	case_run jax_gpu_off "GPUTRACE_GPU=off" $JAX
	case_run jax_no_stacks "GPUTRACE_STACK_DEPTH=0" $JAX
	grep -h "^truth" "$W"/jax_*.out | sed 's/^/   /'
	cp "$W"/jax_default-*.bin "$OUT/" 2>/dev/null
	exit 0
fi

case_run vec_all "GPUTRACE_GPU=all" "$W/vecadd"
case_run torch_all "GPUTRACE_GPU=all" python3 -X faulthandler $TRAIN --steps 5
case_run torch_win "GPUTRACE_GPU=windows GPUTRACE_GPU_WARMUP_MS=0 GPUTRACE_GPU_WINDOW_MS=300 GPUTRACE_GPU_PERIOD_MS=1000" \
	python3 -X faulthandler $TRAIN --steps 300
case_run torch_win_fin "GPUTRACE_GPU=windows GPUTRACE_GPU_SWITCH=finalize GPUTRACE_GPU_WARMUP_MS=0 GPUTRACE_GPU_WINDOW_MS=300 GPUTRACE_GPU_PERIOD_MS=1000" \
	python3 -X faulthandler $TRAIN --steps 300

if grep -q "crashed" "$W/torch_all.err" 2>/dev/null && command -v cuda-gdb >/dev/null; then
	echo "== cuda-gdb torch_all"
	timeout 300 cuda-gdb -q -batch -ex "set environment LD_PRELOAD=$LIB" \
		-ex "set environment GPUTRACE_GPU=all" -ex "set environment GPUTRACE_OUTPUT=$W/gdb-%p.bin" \
		-ex run -ex "bt 30" -ex "info threads" --args python3 $TRAIN --steps 5 2>&1 |
		grep -vE "^\[(New|Thread|Detaching)|^warning" | tail -60
fi
