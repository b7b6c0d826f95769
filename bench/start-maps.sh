#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/start-maps.sh BEFORE AFTER: what the BPF maps cost `record`'s start.
# For each eprof binary and mode (-- true, --call-graph fp -- true, -a -d 0.5):
# the median wall time of 5 runs, and the share of map_create in `perf record
# -g` of 3 runs (independent of the machine's load, unlike the wall time).
# Run as root.
set -eu
WORK=$(mktemp -d /tmp/eprof-startmaps.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
modes=("-- /bin/true" "--call-graph fp -- /bin/true" "-a -d 0.5")
for bin in "$@"; do
	for m in "${modes[@]}"; do
		# shellcheck disable=SC2086
		wall=$(for i in 1 2 3 4 5; do
			/usr/bin/time -f %e "$bin" record -q -o "$WORK/t.eprof" $m 2>&1 >/dev/null | tail -1
		done | sort -n | sed -n 3p)
		share=$(for i in 1 2 3; do
			# shellcheck disable=SC2086
			perf record -q -g -o "$WORK/p.data" -- "$bin" record -q -o "$WORK/t.eprof" $m \
				>/dev/null 2>&1
			perf report -i "$WORK/p.data" --children --sort sym --stdio -g none 2>/dev/null |
				awk '$NF == "map_create" { print $1 }'
		done | tr -d % | awk '{ s += $1 } END { printf "%.1f%%", s / NR }')
		printf '%s\t%-32s\twall %s s\tmap_create %s\n' "$bin" "$m" "$wall" "$share"
	done
done
