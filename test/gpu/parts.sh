#!/bin/bash
# SPDX-License-Identifier: MIT
# parts.sh - the real-GPU proof (check.sh) in parts that each fit in one
# command of at most 10 minutes, for machines lent by the call:
#
#   bash test/gpu/parts.sh core        CUDA, PyTorch, CUPTI, NVTX and environment
#   bash test/gpu/parts.sh diagnosis   the diagnosis suite
#   bash test/gpu/parts.sh overhead    the launch-bound PyTorch loop, 7 rounds
#   bash test/gpu/parts.sh compute     the compute-bound loop, 7 rounds, and
#                                      whether CUPTI leaves a cost once detached
#   bash test/gpu/parts.sh rest        the empty-kernel launch loop, pinned
#                                      copies, call sites, NCCL, ranks, CUPTI
#                                      state costs
#
# Each builds, runs its checks under a time limit (GT_PART_LIMIT seconds
# instead of the part's own), and leaves at most eight
# files in $OUT (the log, the tables, the sample dump, the diagnosis suite's
# reports and dumps in one archive); the verdict lines
# and the last table come last on stdout.  Exit status 0 only if all pass.
set -u
cd "$(dirname "$0")/../.."
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
OUT=${OUT:-/tmp/gputrace-gpu}
part=${1:-}
case $part in
core)
	checks=check_cuda,check_torch,check_frameworks,check_cupti,check_nvtx_env
	export GT_CUPTI_SKIP=${GT_CUPTI_SKIP:-probe,overhead}
	limit=420 ;;
diagnosis)
	checks=check_diagnosis
	limit=540 ;;
overhead)
	checks=check_overhead
	export GT_BENCH_SKIP=${GT_BENCH_SKIP:-analyzer-speed,overhead-launch,overhead-torch-compute,cupti-residue}
	limit=530 ;;
compute)
	checks=check_overhead
	export GT_BENCH_SKIP=${GT_BENCH_SKIP:-analyzer-speed,overhead-launch,overhead-torch-launch}
	limit=540 ;;
rest)
	checks=check_overhead,check_pinned,check_callsites,check_nccl,check_ranks,check_cupti_cost
	export GT_BENCH_SKIP=${GT_BENCH_SKIP:-analyzer-speed,overhead-torch-launch,overhead-torch-compute,cupti-residue}
	limit=540 ;;
*)
	echo "usage: $0 core|diagnosis|overhead|compute|rest" >&2
	exit 2 ;;
esac
limit=${GT_PART_LIMIT:-$limit}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/gputrace-parts.XXXXXX)
make -s -j"$(nproc)" all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; echo "FAIL build"; exit 1; }

GT_CHECKS=$checks timeout "$limit" python3 -u test/gpu/check.py "$WORK" >"$OUT/$part.log" 2>&1
rc=$?
[ $rc = 124 ] && echo "FAIL $part: over its $limit s (the log has what ran)" >>"$OUT/$part.log"
for f in sample-pytorch.bin sample-pytorch.txt overhead.md diagnose/table.md; do
	[ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUT/"
done
if [ -d "$WORK/diagnose" ]; then
	tar -C "$WORK" -cJf "$OUT/diagnose.tar.xz" diagnose
	[ "$(stat -c %s "$OUT/diagnose.tar.xz")" -gt 15000000 ] &&
		split -b 15000000 "$OUT/diagnose.tar.xz" "$OUT/diagnose.tar.xz." &&
		rm "$OUT/diagnose.tar.xz"
fi
grep -E '^(PASS|FAIL) ' "$OUT/$part.log"
sed -n '/^run  *launches/,$p' "$OUT/$part.log" | tail -25
[ -f "$OUT/overhead.md" ] && cat "$OUT/overhead.md"
[ -f "$OUT/table.md" ] && cat "$OUT/table.md"
exit $rc
