#!/bin/bash
# SPDX-License-Identifier: MIT
# t1111: diffs that colour only what passes the noise test, and recordings
# told apart (issue 21). Two recordings of ratio: work_x's share doubles
# (25% -> 50%), work_z's falls (37.5% -> 12.5%), work_y's stays (37.5%).
#  - report --diff BASE NEW --html: the page (in chromium) opens in its diff
#    mode, BASE then NEW on its time axis as its two selections: work_x is
#    drawn red, work_z blue, and work_y coloured exactly when --diff --top
#    calls its change significant (|z| >= 3; the expected case, a change
#    within the noise, leaves it pale), with a legend that says so;
#  - report --diff BASE NEW --svg: the same colours for the same frames;
#  - report -i BASE -i NEW --by file: each file a root of its own in --fold
#    (with that file's samples), --top and the HTML page's flame graph.
# Screenshot: tests/artifacts/t1111.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser
ART=$(artifacts t1111)

cd "$TMP" || fail "no $TMP"
"$EPROF" record -F 499 -o base.eprof -- "$WORKLOADS/ratio" 1500 2 3 3 2>/dev/null || fail "record base failed"
"$EPROF" record -F 499 -o new.eprof -- "$WORKLOADS/ratio" 1500 4 3 1 2>/dev/null || fail "record new failed"
"$EPROF" report --diff base.eprof new.eprof --top 500 >top 2>/dev/null || fail "--diff --top failed"
head -12 top
sig() {	# SIG of FUNCTION in the total-share table of --diff --top
	awk -v f="$1" '/^# largest changes of total/ { on = 1; next } /^# largest/ { on = 0 }
		on && $7 == f { print $6; exit }' top
}
[ "$(sig work_x)" = yes ] && [ "$(sig work_z)" = yes ] || fail "--diff --top does not call work_x and work_z significant"
ysig=$(sig work_y)
[ -n "$ysig" ] || fail "--diff --top has no row for work_y"
say "work_y's change significant: $ysig (expected: no)"

# colour R G B: red, blue or pale
kind() {
	if [ "$1" -eq 255 ] && [ "$2" -lt 220 ] && [ "$2" = "$3" ]; then echo red
	elif [ "$3" -eq 255 ] && [ "$1" -lt 220 ] && [ "$1" = "$2" ]; then echo blue
	elif [ "$1" -ge 240 ] && [ "$2" -ge 240 ] && [ "$3" -ge 240 ]; then echo pale
	else echo "other($1,$2,$3)"; fi
}
want_y=$([ "$ysig" = yes ] && echo coloured || echo pale)

"$EPROF" report --diff base.eprof new.eprof --html d.html 2>err || { cat err; fail "--diff --html failed"; }
drive d.html frame work_x frame work_y frame work_z legend state screenshot "$ART/diff.png" >d 2>drv.err ||
	{ cat d drv.err; fail "the diff page fails in chromium"; }
grep -v '^diff-' d
for f in work_x work_y work_z; do
	set -- $(awk -F'\t' -v f="$f" '$1 == "frame" && $2 == f { print $3, $4, $5 }' d)
	[ $# = 3 ] || fail "the page draws no $f"
	eval "k_$f=$(kind "$@")"
done
[ "$k_work_x" = red ] || fail "the page draws work_x $k_work_x, not red"
[ "$k_work_z" = blue ] || fail "the page draws work_z $k_work_z, not blue"
if [ "$want_y" = pale ]; then
	[ "$k_work_y" = pale ] || fail "the page colours work_y ($k_work_y) though its change is within the noise"
else
	[ "$k_work_y" != pale ] || fail "the page leaves work_y pale though its change is significant"
fi
grep -q '^legend	.*share grew.*share shrank.*within the noise' d || fail "the diff page has no colour legend"
grep -q '"hash":"#a=[0-9]*,[0-9]*&b=[0-9]*,[0-9]*"' d || fail "the page does not open with two selections (base, new)"

"$EPROF" report --diff base.eprof new.eprof --svg d.svg 2>/dev/null || fail "--diff --svg failed"
svgkind() {
	kind $(grep -o "<title>$1 ([^<]*</title><rect [^>]*fill=\"rgb([0-9,]*)\"" d.svg | head -1 |
		sed 's/.*fill="rgb(\([0-9,]*\))"/\1/' | tr , ' ')
}
[ "$(svgkind work_x)" = red ] && [ "$(svgkind work_z)" = blue ] || fail "the SVG diff does not draw work_x red, work_z blue"
if [ "$want_y" = pale ]; then
	[ "$(svgkind work_y)" = pale ] || fail "the SVG diff colours work_y ($(svgkind work_y)) within the noise"
fi
grep -q 'id="legend"' d.svg || fail "the SVG diff has no legend"

# --by file: the two recordings apart
"$EPROF" report -i base.eprof -i new.eprof --by file --fold >byfile.fold 2>/dev/null || fail "--by file --fold failed"
for f in base new; do
	"$EPROF" report -i $f.eprof --fold >$f.fold 2>/dev/null || fail "--fold of $f failed"
	want=$(awk '{ s += $NF } END { print s }' $f.fold)
	got=$(awk -v r="$f.eprof" '{ split($1, a, ";") } a[1] == r { s += $NF } END { print s + 0 }' byfile.fold)
	[ "$got" = "$want" ] || fail "--by file puts $got samples under $f.eprof, which has $want"
	say "--by file: $f.eprof at the root with its $want samples"
done
[ "$(cut -d';' -f1 byfile.fold | sort -u | tr '\n' ' ')" = "base.eprof new.eprof " ] ||
	fail "--by file has other roots than the two files"
"$EPROF" report -i base.eprof -i new.eprof --by file --top 3 >byfile.top 2>/dev/null || fail "--by file --top failed"
grep -q '^## new.eprof: ' byfile.top && grep -q '^## base.eprof: ' byfile.top || fail "--by file --top has no table per file"
"$EPROF" report -i base.eprof -i new.eprof --by file --html f.html 2>/dev/null || fail "--by file --html failed"
drive f.html names screenshot "$ART/by-file.png" >f 2>drv.err || { cat drv.err; fail "the --by file page fails in chromium"; }
grep -qx 'name	base.eprof' f && grep -qx 'name	new.eprof' f || fail "the --by file page does not draw a frame per file"
say "diffs coloured by significance with a legend; --by file tells recordings apart"
