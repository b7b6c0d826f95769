#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/long.sh BUILD [WORK]: a long `record -a --switch-output` run and
# `report` over all its files (issue 14, "long and continuous recordings").
#
# 1. Records the whole machine (-a -F 99) for LONG_SECONDS (default 3600)
#    with --switch-output LONG_SWITCH (default 150s: 24 files an hour),
#    and logs the recorder's VmRSS, VmHWM and CPU time every 10 s to
#    WORK/rss.csv. Prints RSS first/middle/last/max, the recorder's CPU
#    share, bytes and samples per hour. Run it beside the machine's usual
#    work: a quiet machine proves nothing here.
# 2. bench/report-many.sh over its files: the peak RSS of each view over
#    all of them against the largest file alone (a file the recorder left
#    damaged is named and left out).
# LONG_SECONDS=600 LONG_SWITCH=25s gives a quick run of the same shape.
set -u
BUILD=${1:?usage: bench/long.sh BUILD [WORK]}
WORK=${2:-/tmp/eprof-long}
E="$BUILD/eprof"
SECS=${LONG_SECONDS:-3600}
SW=${LONG_SWITCH:-150s}
mkdir -p "$WORK"
rm -f "$WORK"/l.eprof*
[ "$(id -u)" = 0 ] || { echo "long.sh: run as root" >&2; exit 1; }

"$E" record -a -F 99 -q --switch-output "$SW" -o "$WORK/l.eprof" -d "$SECS" 2>"$WORK/rec.err" &
rec=$!
hz=$(getconf CLK_TCK)
echo "elapsed_s,vmrss_kb,vmhwm_kb,cpu_ticks" >"$WORK/rss.csv"
t0=$(date +%s)
while kill -0 "$rec" 2>/dev/null; do
	st=/proc/$rec/status
	rss=$(awk '/^VmRSS/ { print $2 }' "$st" 2>/dev/null)
	hwm=$(awk '/^VmHWM/ { print $2 }' "$st" 2>/dev/null)
	cpu=$(cut -d')' -f2 "/proc/$rec/stat" 2>/dev/null | awk '{ print $12 + $13 }')
	[ -n "$rss" ] && echo "$(($(date +%s) - t0)),$rss,$hwm,$cpu" >>"$WORK/rss.csv"
	sleep 10
done
wait "$rec" || { cat "$WORK/rec.err"; echo "long.sh: record failed" >&2; exit 1; }
wall=$(($(date +%s) - t0))

files=()
for f in "$WORK/l.eprof" "$WORK"/l.eprof.[0-9][0-9][0-9][0-9]; do
	[ -e "$f" ] || continue
	if "$E" report -i "$f" --top >/dev/null 2>"$WORK/rep.err"; then
		files+=("$f")
	else
		echo "left out: $(tail -1 "$WORK/rep.err")"
	fi
done
bytes=$(cat "${files[@]}" | wc -c)
samples=0
for f in "${files[@]}"; do
	samples=$((samples + $("$E" info "$f" 2>/dev/null | awk '/^samples / { print $2 }')))
done
awk -F, -v hz="$hz" -v wall="$wall" -v bytes="$bytes" -v samples="$samples" -v n="${#files[@]}" '
NR > 1 { r[++k] = $2; if ($3 > hwm) hwm = $3; cpu = $4 }
END {
	printf "recorder RSS MB: first %.0f, middle %.0f, last %.0f; VmHWM %.0f\n",
		r[2] / 1024, r[int(k / 2)] / 1024, r[k] / 1024, hwm / 1024
	printf "recorder CPU: %.1f s in %d s, %.1f%% of one CPU\n", cpu / hz, wall, 100 * cpu / hz / wall
	printf "%d files, %.1f MB, %.1f MB per hour; %d samples, %.0f per hour\n", n,
		bytes / 1e6, bytes / 1e6 * 3600 / wall, samples, samples * 3600 / wall
}' "$WORK/rss.csv"

bash "$(dirname "$0")/report-many.sh" "$BUILD" "${files[@]}"
