#!/bin/bash
# SPDX-License-Identifier: MIT
# overhead.sh - the overhead benchmark (issue 7, part 5) in one command, on
# a machine with an NVIDIA GPU, CUDA and PyTorch: builds, then runs
# test/gpu/check_overhead.py, which prints one verdict per measurement and
# the table for docs/validation.md (also written to $OUT/overhead.md).
#
#   bash test/bench/overhead.sh          (GT_BENCH_ROUNDS=3, GT_BENCH_QUICK=1)
set -u
cd "$(dirname "$0")/../.."
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
OUT=${OUT:-/tmp/gputrace-gpu}
mkdir -p "$OUT"
make -s all >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; echo "FAIL build"; exit 1; }
exec python3 -u test/gpu/check_overhead.py "$OUT"
