#!/bin/bash
# SPDX-License-Identifier: MIT
# bench_ranks.sh - what the analysis of several ranks costs against one:
# RANKS synthetic rank dumps of EVENTS events each (make_big_dump's mix,
# 8 threads, the first thread's every 100th call an ncclAllReduce on the
# job's communicator, so that every all-reduce is matched across the
# ranks).  For the report of one rank's dump alone, then the ranks report
# on 2 and on RANKS of them (a folder): wall time, CPU time (user +
# system), CPU over wall (the cores the parallel read kept busy), peak
# resident memory, all from test/bench/rusage.c.  CPU only, no GPU.
#
#   make bench-ranks    (RANKS=8 EVENTS=5000000)
set -eu
B=${B:-build}
RANKS=${RANKS:-8}
EVENTS=${EVENTS:-5000000}
AN=$B/gputrace-analyze
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-ranks-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$TMP/job" "$TMP/two"
for r in $(seq 0 $((RANKS - 1))); do
	"$B/make_big_dump" "$TMP/job/rank$r.bin" "$EVENTS" 8 "$r" "$RANKS"
done
# two ranks of a job of two: the smallest ranks report
for r in 0 1; do
	"$B/make_big_dump" "$TMP/two/rank$r.bin" "$EVENTS" 8 "$r" 2
done

run() {     # $1 label, $2 dumps, then the analyzer's arguments
	local label=$1 k=$2 u s rss rc wall
	shift 2
	rm -f "$TMP/ru"
	"$B/rusage" "$TMP/ru" "$AN" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
	read -r u s rss rc wall <"$TMP/ru"
	if [ "$rc" != 0 ]; then
		printf '%-22s failed (status %s): %s\n' "$label" "$rc" \
			"$(head -c 200 "$TMP/stderr" | tr '\n' ' ')"
		return
	fi
	awk -v l="$label" -v k="$k" -v n="$EVENTS" -v u="$u" -v s="$s" -v w="$wall" \
		-v rss="$rss" \
		'BEGIN { cpu = u + s; if (w <= 0) w = 0.001;
			 printf "%-22s %5d %12d %8.2f s %8.2f s %6.2f %8d MB %8.1f MB\n",
				l, k, k * n, w, cpu, cpu / w, rss / 1024, rss / 1024 / k }'
}

echo "$($AN --version | head -1) on $(nproc) CPUs," \
     "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo "RANKS=$RANKS EVENTS=$EVENTS; dumps of $(stat -c %s "$TMP/job/rank0.bin") bytes each"
printf '%-22s %5s %12s %10s %10s %6s %11s %11s\n' run dumps events wall cpu \
	cpu/wall peak_rss per_dump
run "one rank, its report" 1 "$TMP/job/rank0.bin"
run "ranks report, 2" 2 "$TMP/two"
run "ranks report, $RANKS" "$RANKS" "$TMP/job"
sed -n 's/^Stragglers (\(.*\))$/the last run: \1/p' "$TMP/stdout"
