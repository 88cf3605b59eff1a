#!/bin/bash
# SPDX-License-Identifier: MIT
# check.sh - the real-GPU proof: builds gputrace and the examples on a
# machine with an NVIDIA GPU, traces them and prints one verdict line per
# check (PASS/FAIL), then a table.  Exit status 0 only if all pass.
#
#   bash test/gpu/check.sh            (files it keeps go to $OUT or /tmp)
set -u
cd "$(dirname "$0")/../.."
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
OUT=${OUT:-/tmp/gputrace-gpu}
mkdir -p "$OUT"
make -s all >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; echo "FAIL build"; exit 1; }
exec python3 -u test/gpu/check.py "$OUT"
