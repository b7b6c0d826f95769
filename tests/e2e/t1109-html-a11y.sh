#!/bin/bash
# SPDX-License-Identifier: MIT
# t1109: the HTML report's accessibility and HiDPI canvases (issue 21), on an
# off-CPU recording (every canvas: heat map, strips, lanes, flame graph):
#  - each canvas has role img, an accessible name and a place in the Tab
#    order; the arrows move a cursor on the heat map, strips and lanes,
#    a live region reads out what is under it, Enter selects it;
#  - every piece of text on the page, and every frame label of the flame
#    graph in each view and with a search lit, is at WCAG AA contrast
#    (4.5:1), computed from the colours the browser reports;
#  - the threads table lists every lane's thread;
#  - at devicePixelRatio 2 every canvas has twice the pixels of its CSS
#    size, and its frames are still drawn where the page says they are.
# Screenshots: tests/artifacts/t1109.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser
ART=$(artifacts t1109)

# a short off-CPU recording (every canvas, the cool palette) and its page
{ "$EPROF" record --off-cpu -F 499 -o "$TMP/r.eprof" -- "$WORKLOADS/offcpu_split" split 200 300 200 >/dev/null &&
	"$EPROF" report -i "$TMP/r.eprof" --html "$TMP/r.html"; } 2>"$TMP/err" || { cat "$TMP/err"; fail "record or report failed"; }

drive "$TMP/r.html" canvases contrast labels view on labels search '_phase$' labels key Escape \
	lanes sort threads 5 focus heat key ArrowRight readout key Enter state focus lanes key ArrowDown readout \
	focus cpus key ArrowDown readout screenshot "$ART/keyboard.png" \
	dpr 2 all view wall canvases frame sleep_phase screenshot "$ART/dpr2.png" >"$TMP/p" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
grep -v '^label' "$TMP/p" | cut -c1-200

# the canvases: named, in the Tab order; their pixels at devicePixelRatio 1, then 2
for id in heat cpus lanes flame; do
	n=0
	while IFS=$'\t' read -r _ cid w css role tab label; do
		[ "$cid" = "$id" ] || continue
		n=$((n + 1))
		[ "$role" = img ] && [ "$tab" = 0 ] && [ ${#label} -gt 20 ] ||
			fail "canvas $id: role '$role', tabindex '$tab', name '$label'"
		# the canvas's box has a 1 px border each side
		awk -v w="$w" -v c="$css" -v k=$n 'BEGIN { r = w / (c - 2); exit !(r > k - 0.02 && r < k + 0.02) }' ||
			fail "canvas $id: $w pixels for $css CSS pixels at devicePixelRatio $n"
	done < <(grep '^canvas' "$TMP/p")
	[ "$n" -eq 2 ] || fail "canvas $id: seen $n times, not twice"
done
awk -F'\t' '$1 == "frame" && $2 == "sleep_phase" { ok = $5 > $3 } END { exit !ok }' "$TMP/p" ||
	fail "at devicePixelRatio 2 the pixel under sleep_phase is not its (cool) colour"

# contrast: the page's text, then the frame labels of every view drawn
checked=$(awk -F'\t' '$1 == "contrast" { print $2 }' "$TMP/p")
[ "${checked:-0}" -gt 50 ] || fail "only ${checked:-0} pieces of text checked"
grep '^lowcontrast' "$TMP/p" && fail "text under 4.5:1"
n=$(grep -c '^label' "$TMP/p")
[ "$n" -gt 10 ] || fail "only $n frame label colours seen"
awk -F'\t' '$1 == "label" && $4 < 4.5 { print; bad = 1 } END { exit bad }' "$TMP/p" || fail "frame labels under 4.5:1"
grep -q $'^label\trgb(230,0,230)' "$TMP/p" || fail "no label on a frame lit by the search"

# the keyboard: the heat map's cell, Enter selects its second; a lane's split; a strip
grep -q $'^readout\t[0-9.]* s - [0-9.]* s' "$TMP/p" || fail "the heat map's cursor reads out nothing"
# (the second column, or the first of a recording under two seconds)
sec=$(awk -F'\t' '$1 == "readout" { split($2, t, " "); print int(t[1]); exit }' "$TMP/p")
grep -q "\"sel\":\"$sec.000 s - $((sec + 1)).000 s\"" "$TMP/p" ||
	fail "Enter on the heat map's column of second $sec does not select that second"
grep '^readout' "$TMP/p" | grep -q 'on-CPU .*runnable .*blocked' || fail "a lane's cursor does not read out its split"
grep -q $'^readout\tcpu 1' "$TMP/p" || fail "the strips' cursor does not read out cpu 1"
# the threads table holds every lane
lanes=$(grep -c '^lane' "$TMP/p")
rows=$(awk -F'\t' '$1 == "sorted" && $2 == "threads" { print NF - 2 }' "$TMP/p")
[ "$lanes" -gt 0 ] && [ "$rows" = "$lanes" ] || fail "$lanes lanes, ${rows:-no} rows in the threads table"
say "$checked texts and $n label colours at 4.5:1 or more; canvases named, keyboard, HiDPI"
