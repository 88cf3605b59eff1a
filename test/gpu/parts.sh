#!/bin/bash
# SPDX-License-Identifier: MIT
# parts.sh - the real-GPU proof (check.sh) in parts that each fit in one
# command of at most 10 minutes, for machines lent by the call:
#
#   bash test/gpu/parts.sh core        CUDA, PyTorch, CUPTI, NVTX and environment
#   bash test/gpu/parts.sh diagnosis   the diagnosis suite's core workloads
#   bash test/gpu/parts.sh diagnosis-frameworks
#                                      its workloads written with transformers,
#                                      timm, torchvision, Lightning and Flax
#   bash test/gpu/parts.sh overhead    the launch-bound PyTorch loop, 7 rounds
#   bash test/gpu/parts.sh compute     the compute-bound loop, 7 rounds, and
#                                      whether CUPTI leaves a cost once detached
#   bash test/gpu/parts.sh rest        the empty-kernel launch loop, pinned
#                                      copies, call sites, NCCL, ranks, CUPTI
#                                      state costs
#   bash test/gpu/parts.sh multi       the multi-GPU diagnosis suite, one
#                                      rank per GPU (2 to 8; with fewer it
#                                      says so in one line and checks nothing)
#
# Each builds, runs its checks under a time limit (GT_PART_LIMIT seconds
# instead of the part's own), and leaves at most eight
# files in $OUT (the log, the tables, the sample dump, the diagnosis suite's
# reports and dumps, or the multi-GPU suite's reports, in one archive); the
# verdict lines (and a SKIP line, for a check that cannot run here)
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
	export GT_DIAG_SET=${GT_DIAG_SET:-core}
	limit=540 ;;
diagnosis-frameworks)
	checks=check_diagnosis
	export GT_DIAG_SET=${GT_DIAG_SET:-frameworks}
	limit=560 ;;
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
multi)
	checks=check_multi
	# NVLink multicast off for everything the part starts
	export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
	limit=540 ;;
*)
	echo "usage: $0 core|diagnosis|diagnosis-frameworks|overhead|compute|rest|multi" >&2
	exit 2 ;;
esac
limit=${GT_PART_LIMIT:-$limit}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/gputrace-parts.XXXXXX)
make -s -j"$(nproc)" all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; echo "FAIL build"; exit 1; }

GT_CHECKS=$checks timeout "$limit" python3 -u test/gpu/check.py "$WORK" >"$OUT/$part.log" 2>&1
rc=$?
[ $rc = 124 ] && echo "FAIL $part: over its $limit s (the log has what ran)" >>"$OUT/$part.log"
for f in sample-pytorch.bin sample-pytorch.txt overhead.md diagnose/table.md multi/table.md; do
	[ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUT/"
done
for d in diagnose multi; do
	[ -d "$WORK/$d" ] || continue
	tar -C "$WORK" -cJf "$OUT/$d.tar.xz" "$d"
	[ "$(stat -c %s "$OUT/$d.tar.xz")" -gt 15000000 ] &&
		split -b 15000000 "$OUT/$d.tar.xz" "$OUT/$d.tar.xz." &&
		rm "$OUT/$d.tar.xz"
done
grep -E '^(PASS|FAIL|SKIP) ' "$OUT/$part.log"
sed -n '/^run  *launches/,$p' "$OUT/$part.log" | tail -25
[ -f "$OUT/overhead.md" ] && cat "$OUT/overhead.md"
[ -f "$OUT/table.md" ] && cat "$OUT/table.md"
exit $rc
