#!/bin/bash
# SPDX-License-Identifier: MIT
# demo.sh - the main job in one command (make demo): trace a training loop
# on this machine's GPU and analyze the dump; without a GPU, analyze the
# dump recorded on an H200 that ships in examples/ (this needs neither a
# GPU nor the CUDA headers: only the analyzer is built).
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
ANALYZE=$B/gputrace-analyze
GPUTRACE=$B/gputrace
OUTDIR=${OUTDIR:-$B/demo}
mkdir -p "$OUTDIR"

if nvidia-smi -L >/dev/null 2>&1 && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	echo "== tracing examples/pytorch/train_mlp.py on $(nvidia-smi -L | head -1)"
	${MAKE:-make} --no-print-directory B="$B" "$B/libgputrace.so"
	rm -f "$OUTDIR"/demo-*.bin
	# A short run: GPU timing for every kernel, not in windows.
	"$GPUTRACE" record -o "$OUTDIR/demo-%p.bin" --gpu "${GPUTRACE_GPU:-all}" \
		-- python3 examples/pytorch/train_mlp.py --steps 50
	dump=$(ls -t "$OUTDIR"/demo-*.bin | head -1)
else
	echo "== no usable GPU here: analyzing examples/sample-pytorch.bin (recorded on an H200)"
	dump=examples/sample-pytorch.bin
fi
echo "== $ANALYZE $dump"
"$ANALYZE" "$dump"
