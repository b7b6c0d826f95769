#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/html.sh - the HTML report at scale (issue 13), measured, not asserted:
# for a 10-minute -a recording at 99 Hz, a 1-million-sample recording, and a
# recording of 100,000 distinct stacks, the file's size, the time eprof takes
# to write it, and in Debian's chromium (tests/browser/drive.js): the time to
# the first drawn view (performance.now() at the end of the first render,
# from navigation start) and the time to redraw after a heat-map range, a
# second (diff) range, a whole CPU, and a second whole CPU against it.
# Goals: <= 10 MB, first view < 2 s, a selection < 200 ms; at 1.2 M samples (issue 21):
# <= 5 MB and a first view <= 1 s, against speedscope loading the same data.
#
# The big recordings are made by bench/gen_recording from a real -a
# recording of this machine (its samples repeated, shifted in time), so
# their stacks are those of real work. Run as root from the source tree:
#     bench/html.sh [BUILD_DIR]      (default: build)
#     ONLY=million SAMPLES=1200000 REPS=1 bench/html.sh   (the big recording alone, and speedscope on it)
# FIRST_REPS=N: loads of the page and of speedscope for the first view (default 5).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
EPROF=$BUILD/eprof
WORK=$(mktemp -d /tmp/eprof-html-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
NCPU=$(nproc)
NODE_PATH=${NODE_PATH:-$SRC/tests/browser/node_modules}
[ -d "$NODE_PATH/puppeteer-core" ] || { echo "html.sh: run .ci/deps.sh --tests (puppeteer-core)" >&2; exit 1; }
export NODE_PATH

gcc -O2 -g -I"$SRC" -o "$WORK/gen_recording" "$HERE/gen_recording.c" \
	"$BUILD/format/libeprof_format.a" "$BUILD/util/libeprof_util.a" -lsqlite3 -lzstd

# measure NAME RECORDING SEARCH HOVER: one row of the table. Each selection is made REPS
# times (the machine is shared: the median says more than one run); "paint"
# is from the mouse-up to the frame that shows the result.
REPS=${REPS:-5}
measure() {
	local t0 t1 size out cmds=() r
	t0=$(date +%s.%N)
	"$EPROF" report -i "$2" --html "$WORK/$1.html" 2>/dev/null
	t1=$(date +%s.%N)
	size=$(stat -c %s "$WORK/$1.html")
	for ((r = 0; r < REPS; r++)); do
		cmds+=(all heat $((1 + r)) $((3 + r)) timing heat2 $((4 + r)) $((6 + r)) timing all strip "cpu 0" timing strip2 "cpu 1" timing)
	done
	# then, on the whole recording: a search typed (the last key's redraw) and a hover over
	# the root frame (found last: the longest scan of the frames drawn)
	cmds+=(all search "$3" hover "$4" timing)
	out=$(timeout 900 node "$SRC/tests/browser/drive.js" "$WORK/$1.html" timing "${cmds[@]}" 2>&1) ||
		{ echo "$out" >&2; return 1; }
	echo "$out" | awk -v name="$1" -v size="$size" -v rep="$(echo "$t1 - $t0" | bc)" -v reps="$REPS" -F'\t' '
		function field(s, k,   a) { split(s, a, " "); return a[2] }
		function median(kind,   n, i, j, t, v) {
			n = cnt[kind]
			for (i = 1; i <= n; i++) v[i] = val[kind, i]
			for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			return sprintf("%d/%d", v[int((n + 1) / 2)], v[n])
		}
		/^timing/ {
			if (!seen++) { first = field($3); next }
			search = field($6); hover = field($7)
			if (seen - 2 >= 4 * reps) next
			kind = (seen - 2) % 4
			r = field($4); p = field($5)
			val["r" kind, ++cnt["r" kind]] = r; cnt["p" kind] = cnt["r" kind]; val["p" kind, cnt["r" kind]] = p
		}
		END {
			printf "| %s | %.2f MB | %.1f s | %d ms |", name, size / 1e6, rep, first
			for (k = 0; k < 4; k++) printf " %s (%s) |", median("r" k), median("p" k)
			printf " %.0f / %.1f |\n", search, hover
		}'
}

echo "# eprof report --html at scale: $(hostname), $NCPU CPUs, $(chromium --version 2>/dev/null | head -1)"
echo
echo "Redraws in ms, median/worst of $REPS (paint: mouse-up to the frame that shows it, median/worst)"
echo
echo "| recording | file | eprof report --html | first view | 2 s range | diff of a 2 s range | whole CPU 0 | diff CPU 1 vs CPU 0 | search / hover |"
echo "|---|---|---|---|---|---|---|---|---|"
# ONLY=million: the big -a recording alone, of SAMPLES samples (default 1,000,000)
SAMPLES=${SAMPLES:-1000000}
if [ "${ONLY:-}" != million ]; then
	"$EPROF" record -a -F 99 -d 20 -o "$WORK/a99.eprof" 2>/dev/null
	"$WORK/gen_recording" "$WORK/a99.eprof" "$WORK/a99x.eprof" $((99 * NCPU * 600)) >/dev/null
	measure "10 min -a at 99 Hz ($((99 * NCPU * 600)) samples)" "$WORK/a99x.eprof" 'sched|irq' all
fi
"$EPROF" record -a -F 999 -d 10 -o "$WORK/a999.eprof" 2>/dev/null
"$WORK/gen_recording" "$WORK/a999.eprof" "$WORK/m.eprof" "$SAMPLES" >/dev/null
measure "$SAMPLES samples (-a at 999 Hz)" "$WORK/m.eprof" 'sched|irq' all
# The first view, page against speedscope (npm) on the same data as report --speedscope
# writes it, each loaded FIRST_REPS times (the machine is shared: medians). The page's
# from navigation start (reading and parsing the file included) to the flame graph drawn,
# and to its frame painted and everything (heat map, strips, tables) drawn; speedscope's
# from the file given to its chooser to the frame that shows its first view.
FIRST_REPS=${FIRST_REPS:-5}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
"$EPROF" report -i "$WORK/m.eprof" --html "$WORK/m.html" 2>/dev/null
for ((r = 0; r < FIRST_REPS; r++)); do
	{ timeout 900 node "$SRC/tests/browser/drive.js" "$WORK/m.html" timing || echo "html.sh: the page failed" >&2; } |
		awk -F'\t' '/^timing/ { split($3, a, " "); split($9, b, " "); split($10, c, " "); print a[2], b[2], c[2] }'
done >"$WORK/first"
"$EPROF" report -i "$WORK/m.eprof" --speedscope "$WORK/m.speedscope.json" 2>/dev/null
for ((r = 0; r < FIRST_REPS; r++)); do
	TIMING=1 timeout 900 node "$SRC/tests/browser/speedscope.js" "$NODE_PATH/speedscope/dist/release/index.html" \
		"$WORK/m.speedscope.json" >"$WORK/ss.out" 2>&1 || { grep -v '^row' "$WORK/ss.out" >&2; echo "html.sh: speedscope failed" >&2; }
	awk '/^timing/ { print $3 }' "$WORK/ss.out"
done >"$WORK/ss"
page=$(awk '{ print $1 }' "$WORK/first" | median)
ss=$(median <"$WORK/ss")
echo
echo "First view of the same $SAMPLES samples, median of $FIRST_REPS loads each (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
echo "- eprof page, $(stat -c %s "$WORK/m.html") bytes: flame graph drawn in ${page:-?} ms (painted" \
	"$(awk '{ print $2 }' "$WORK/first" | median) ms, everything $(awk '{ print $3 }' "$WORK/first" | median) ms);" \
	"runs: $(awk '{ print $1 }' "$WORK/first" | tr '\n' ' ')"
echo "- speedscope, $(stat -c %s "$WORK/m.speedscope.json") bytes: ${ss:-failed} ms; runs: $(tr '\n' ' ' <"$WORK/ss")"
[ -n "$page" ] && [ -n "$ss" ] && echo "- ratio eprof / speedscope: $(echo "scale=3; $page / $ss" | bc)"
[ "${ONLY:-}" = million ] && exit 0
"$BUILD/tests/workloads/gen_stacks" "$WORK/s.eprof" 100000 >/dev/null
measure "100,000 distinct stacks" "$WORK/s.eprof" 'fb_1' all
