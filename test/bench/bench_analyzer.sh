#!/bin/bash
# SPDX-License-Identifier: MIT
# bench_analyzer.sh - how fast the analyzer reads, and how much memory it
# takes, for each output, on synthetic launch-heavy dumps of several sizes
# (test/bench/make_big_dump.c, 8 threads).  Events per second of CPU time
# (user + system of the analyzer process) and its peak RSS, measured by
# test/bench/rusage.c; the size of what it wrote.  Then several dumps (the
# ranks of a job, RANKS of RANK_EVENTS events) read together by the ranks
# report, which reads them on all cores: its wall time, CPU time and their
# ratio (the cores it kept busy) beside the number of CPUs.  CPU only, no
# GPU.
#
#   make bench-analyzer     (SIZES="1000000 10000000 50000000"
#                            OUTPUTS="text json trace perfetto sqlite html"
#                            RANKS=4 RANK_EVENTS=10000000; RANKS=0: none)
set -eu
B=${B:-build}
SIZES=${SIZES:-1000000 10000000 50000000}
OUTPUTS=${OUTPUTS:-text json trace perfetto sqlite html}
RANKS=${RANKS:-4}
RANK_EVENTS=${RANK_EVENTS:-10000000}
AN=$B/gputrace-analyze
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# The analyzer's arguments for output $1, writing to $TMP/out.
args_for() {
	case $1 in
	text) echo "" ;;
	json) echo "--json" ;;
	*) echo "--$1 $TMP/out" ;;
	esac
}

one() {     # $1 events, $2 output
	local u s rss rc bytes

	rm -f "$TMP/ru" "$TMP/out"
	# shellcheck disable=SC2046
	"$B/rusage" "$TMP/ru" "$AN" $(args_for "$2") "$TMP/d.bin" \
		>"$TMP/stdout" 2>"$TMP/stderr"
	read -r u s rss rc _ <"$TMP/ru"
	if [ "$rc" != 0 ]; then
		printf '%10s %-8s failed (status %s): %s\n' "$1" "$2" "$rc" \
			"$(head -c 200 "$TMP/stderr" | tr '\n' ' ')"
		return
	fi
	bytes=$(stat -c %s "$TMP/out" 2>/dev/null || stat -c %s "$TMP/stdout")
	awk -v n="$1" -v o="$2" -v u="$u" -v s="$s" -v rss="$rss" -v b="$bytes" \
		'BEGIN { cpu = u + s; if (cpu <= 0) cpu = 0.001;
			 printf "%10d %-8s %8.2f s %8.2f M/s %7d MB %8.1f B/event\n",
				n, o, cpu, n / cpu / 1e6, rss / 1024, b / n }'
}

echo "$($AN --version | head -1) on $(nproc) CPUs," \
     "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
printf '%10s %-8s %10s %12s %10s %16s\n' events output cpu rate peak_rss output
for n in $SIZES; do
	"$B/make_big_dump" "$TMP/d.bin" "$n" 8
	for o in $OUTPUTS; do
		one "$n" "$o"
	done
	rm -f "$TMP/d.bin"
done

# The ranks report on $RANKS dumps of $RANK_EVENTS events in one folder.
ranks() {
	local u s rss rc wall

	[ "$RANKS" -gt 0 ] || return 0
	mkdir -p "$TMP/ranks"
	for i in $(seq 1 "$RANKS"); do
		"$B/make_big_dump" "$TMP/ranks/rank$i.bin" "$RANK_EVENTS" 8
	done
	rm -f "$TMP/ru"
	"$B/rusage" "$TMP/ru" "$AN" "$TMP/ranks" >"$TMP/stdout" 2>"$TMP/stderr"
	read -r u s rss rc wall <"$TMP/ru"
	if [ "$rc" != 0 ]; then
		printf 'ranks: failed (status %s): %s\n' "$rc" \
			"$(head -c 200 "$TMP/stderr" | tr '\n' ' ')"
		return
	fi
	awk -v k="$RANKS" -v n="$RANK_EVENTS" -v u="$u" -v s="$s" -v w="$wall" \
		-v rss="$rss" -v cpus="$(nproc)" \
		'BEGIN { cpu = u + s; if (w <= 0) w = 0.001;
			 printf "ranks: %d dumps of %d events: wall %.2f s, cpu " \
				"%.2f s, speedup %.2f (cpu / wall) on %d CPUs, " \
				"%.2f M events/s of wall time, peak %d MB\n",
				k, n, w, cpu, cpu / w, cpus, k * n / w / 1e6,
				rss / 1024 }'
	rm -rf "$TMP/ranks"
}
ranks
