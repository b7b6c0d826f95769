#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/offcpu-rows.sh - what 1 M off-CPU rows cost every view that reads
# them (issue 24: under 5 s each), as figures, never assertions: a
# recording made by tests/workloads/gen_hostile (offcpu=N: N intervals and
# N/4 sums, meta start_ns and end_ns far apart), then each view's wall and
# CPU time, peak RSS and the time cells it weighed the rows in (report -v).
# usage: bench/offcpu-rows.sh BUILD_DIR [ROWS]   (default 1000000; prints Markdown)
set -u
B=$(cd "${1:?usage: bench/offcpu-rows.sh BUILD_DIR [ROWS]}" && pwd)
N=${2:-1000000}
E=$B/eprof
T=$(mktemp -d /tmp/eprof-bench-offrows.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$B/tests/workloads/gen_hostile" "$T/r.eprof" offcpu="$N" meta=start_ns=1 \
	meta=end_ns=9000000000000000000 || { echo "gen_hostile failed" >&2; exit 1; }
echo "## $N off-CPU rows ($(du -k "$T/r.eprof" | cut -f1) KiB), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| view | wall s | CPU s | peak RSS MiB | rows | time cells |"
echo "|------|-------:|------:|-------------:|-----:|-----------:|"
for v in "info" "info --json" "report --off-cpu --fold" "report --wall --fold" \
	 "report --off-cpu --top" "report --off-cpu --per-cpu" "report --off-cpu --per-node" \
	 "report --off-cpu --timeline 0.01" "report --off-cpu --svg $T/o.svg" \
	 "report --off-cpu --pprof $T/o.pb" "report --off-cpu --speedscope $T/o.ss" \
	 "report --html $T/o.html"; do
	read -r cmd args <<<"$v"
	extra=
	[ "$cmd" = report ] && extra=-v
	# shellcheck disable=SC2086
	/usr/bin/time -f '%e %U %S %M' -o "$T/time" "$E" $cmd $extra -i "$T/r.eprof" $args \
		>/dev/null 2>"$T/err"
	rc=$?
	read -r wall user sys rss <"$T/time"
	cells=$(sed -nE 's/^eprof: off-CPU rows: ([0-9]+), weighed in ([0-9]+) time cells$/\1 | \2/p' "$T/err")
	[ $rc -eq 0 ] || cells="exit $rc: $(head -1 "$T/err")"
	printf '| %s | %s | %.2f | %d | %s |\n' "${v//$T\//}" "$wall" \
		"$(echo "$user + $sys" | bc)" $((rss / 1024)) "${cells:-- | -}"
done
