#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/html.sh - the HTML report at scale (issue 13), measured, not asserted:
# for a 10-minute -a recording at 99 Hz, a 1-million-sample recording, and a
# recording of 100,000 distinct stacks, the file's size, the time eprof takes
# to write it, and in Debian's chromium (tests/browser/drive.js): the time to
# the first drawn view (performance.now() at the end of the first render,
# from navigation start) and the time to redraw after a heat-map selection,
# a second (diff) selection and a CPU strip. Goals: <= 10 MB, first view
# < 2 s, a selection < 200 ms.
#
# The big recordings are made by bench/gen_recording from a real -a
# recording of this machine (its samples repeated, shifted in time), so
# their stacks are those of real work. Run as root from the source tree:
#     bench/html.sh [BUILD_DIR]      (default: build)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
EPROF=$BUILD/eprof
WORK=$(mktemp -d /tmp/eprof-html-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
NCPU=$(nproc)
NODE_PATH=$SRC/tests/browser/node_modules
[ -d "$NODE_PATH/puppeteer-core" ] || { echo "html.sh: run .ci/deps.sh --tests (puppeteer-core)" >&2; exit 1; }
export NODE_PATH

gcc -O2 -g -I"$SRC" -o "$WORK/gen_recording" "$HERE/gen_recording.c" \
	"$BUILD/format/libeprof_format.a" "$BUILD/util/libeprof_util.a" -lsqlite3 -lzstd

# measure NAME RECORDING: one row of the table
measure() {
	local t0 t1 size out
	t0=$(date +%s.%N)
	"$EPROF" report -i "$2" --html "$WORK/$1.html" 2>/dev/null
	t1=$(date +%s.%N)
	size=$(stat -c %s "$WORK/$1.html")
	out=$(timeout 600 node "$SRC/tests/browser/drive.js" "$WORK/$1.html" timing \
		heat 1 3 timing heat2 4 6 timing strip "cpu 0" timing 2>&1) || { echo "$out" >&2; return 1; }
	echo "$out" | awk -v name="$1" -v size="$size" -v rep="$(echo "$t1 - $t0" | bc)" -F'\t' '
		/^timing/ { n++; split($3, f, " "); split($4, r, " "); first = f[2]; if (n > 1) red = red (red ? " / " : "") r[2] }
		END { printf "| %s | %.2f MB | %.1f s | %d ms | %s ms |\n", name, size / 1e6, rep, first, red }'
}

echo "# eprof report --html at scale: $(hostname), $NCPU CPUs, $(chromium --version 2>/dev/null | head -1)"
echo
echo "| recording | file | eprof report --html | first view | redraw: range / diff / CPU strip |"
echo "|---|---|---|---|---|"
"$EPROF" record -a -F 99 -d 20 -o "$WORK/a99.eprof" 2>/dev/null
"$WORK/gen_recording" "$WORK/a99.eprof" "$WORK/a99x.eprof" $((99 * NCPU * 600)) >/dev/null
measure "10 min -a at 99 Hz ($((99 * NCPU * 600)) samples)" "$WORK/a99x.eprof"
"$EPROF" record -a -F 999 -d 10 -o "$WORK/a999.eprof" 2>/dev/null
"$WORK/gen_recording" "$WORK/a999.eprof" "$WORK/m.eprof" 1000000 >/dev/null
measure "1,000,000 samples (-a at 999 Hz)" "$WORK/m.eprof"
"$BUILD/tests/workloads/gen_stacks" "$WORK/s.eprof" 100000 >/dev/null
measure "100,000 distinct stacks" "$WORK/s.eprof"
