#!/bin/bash
# SPDX-License-Identifier: MIT
# t1411: the HTML report of a Python program (Debian's python3.11) in
# chromium: Python frames take a colour of their own (violet), apart from
# native and kernel frames; the search finds them by qualname, matching
# the fold's share; a long qualname (nested classes, <locals>, a list
# comprehension) loses its front, not its end, in the flame graph's label
# and in the top table, so the innermost function is what shows; the
# tooltip holds the whole name. The tables list a Python function once,
# "qualname_[py]", whatever line ran (as --top), its total the fold's
# share through any of its lines, and its cell's tooltip names each line
# that ran. Screenshot: tests/artifacts/t1411.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's $PY"
require_browser
ART=$(artifacts t1411)

cat >"$TMP/deep.py" <<'PY'
import sys
class OuterClassWithAFairlyLongNameForTheTest:
    class InnerClassWithAnEvenLongerNameThanTheOuterOne:
        def method_with_a_rather_long_descriptive_name(self, n):
            def local_helper_inside_the_method(k):
                return sum([i * i for i in range(k)])
            x = 0
            for _ in range(n):
                x += local_helper_inside_the_method(2000)
            return x
def spin(n):
    x = 0
    for i in range(n):
        x += i
    return x
obj = OuterClassWithAFairlyLongNameForTheTest.InnerClassWithAnEvenLongerNameThanTheOuterOne()
for _ in range(int(sys.argv[1])):
    obj.method_with_a_rather_long_descriptive_name(100)
    spin(60000)
PY
"$EPROF" record -F 999 -o "$TMP/t.eprof" -- "$PY" "$TMP/deep.py" 25 >/dev/null 2>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/t.eprof" --html "$TMP/t.html" 2>>"$TMP/rec.err" &&
	"$EPROF" report -i "$TMP/t.eprof" --fold >"$TMP/t.fold" 2>>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record or report failed"; }
LC=$(grep -o ';[^;]*<listcomp> (deep\.py:[0-9]*)_\[py\]' "$TMP/t.fold" | head -1 | cut -c2-)
[ -n "$LC" ] || fail "the fold has no <listcomp> frame"
SPIN=$(grep -o ';spin (deep\.py:1[34])_\[py\]' "$TMP/t.fold" | head -1 | cut -c2-)
want=$(awk '{ n = $NF; t += n } /<listcomp>/ { s += n } END { printf "%.2f\n", t ? 100 * s / t : 0 }' "$TMP/t.fold")
say "the fold: $LC in $want% of the samples"
awk -v w="$want" 'BEGIN { exit !(w > 20) }' || fail "the list comprehension ran in only $want% of the samples"

drive "$TMP/t.html" frame "$LC" frame "$SPIN" frame PyEval_EvalCode texts fncells top hover "$LC" \
	search '<listcomp>' matched screenshot "$ART/python.png" >"$TMP/p" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
grep -E $'^(frame|matched|hover)' "$TMP/p" | cut -c1-300
grep -F '_[py]' "$TMP/p" | grep -E $'^(text|fncell)' | cut -f1,3- | head -8

# colours: Python frames violet (red and blue over green, blue highest), a native one not
violet() { awk -F'\t' -v n="$1" '$1 == "frame" && $2 == n { exit !($5 > $3 && $3 > $4 && $5 >= 200) }
	END { if (NR == 0) exit 1 }' "$TMP/p"; }
violet "$LC" || fail "the <listcomp> frame is not violet"
[ -z "$SPIN" ] || violet "$SPIN" || fail "the spin frame is not violet"
violet PyEval_EvalCode && fail "the native PyEval_EvalCode frame is violet too"

# the search finds the Python frames: its share is the fold's
got=$(awk -F'\t' '$1 == "matched" { printf "%.2f\n", 100 * $2 }' "$TMP/p")
awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(g != "" && d < 0.5 && d > -0.5) }' ||
	fail "search '<listcomp>' matched ${got:-nothing}%, the fold $want%"

# labels: the widest <listcomp> frame's is cut at the front and ends with the function and its place
# (how many of the parts before it fit depends on the frame's width, the
# share of the samples: at 421 px the label was '..<listcomp> (deep.py:6)_[py]',
# at 442 px '..local_helper_inside_the_method.<locals>.<listcomp> (deep.py:6)_[py]')
tail="<listcomp> (deep.py:${LC##*deep.py:}"
lab=$(awk -F'\t' -v n="$LC" '$1 == "text" && $2 == n && $3 > w { w = $3; l = $4 } END { print l }' "$TMP/p")
[[ "$lab" == ..* && "$lab" == *"$tail" ]] || fail "the <listcomp> frame reads '$lab', not '..*$tail'"
# no Python label is cut at its end while a whole last part and place would fit
awk -F'\t' '$1 == "text" && $2 ~ /_\[py\]$/ && $4 != $2 && $4 !~ /_\[py\]$/ && length($4) > 60 { print; bad = 1 }
	END { exit bad }' "$TMP/p" || fail "a wide Python frame's label lost its end"
# the top table's cell: the same, for the function (no line)
LCF="${LC% (deep.py:*}_[py]"
cell=$(awk -F'\t' -v n="$LCF" '$1 == "fncell" && $2 == n { print $3 }' "$TMP/p")
[[ "$cell" == ..* && "$cell" == *".<locals>.<listcomp>_[py]" && ${#cell} -le 78 ]] ||
	fail "the top table's <listcomp> cell reads '$cell'"
# the tables: a Python function once, whatever line ran; its total the fold's share
awk -F'\t' '($1 == "fncell" || $1 == "top-self" || $1 == "top-total") && $2 ~ /\(deep\.py:[0-9]+\)_\[py\]$/ { print; bad = 1 }
	END { exit bad }' "$TMP/p" || fail "a table lists a Python function by line"
# fn_check FUNCTION QUALNAME: listed once in top-total, its total the fold's share of the
# samples through any of its lines, its cell's tooltip naming each of those lines (NLINES)
fn_check() {
	local rows tot want tip sum l lines
	rows=$(awk -F'\t' -v n="$1" '$1 == "top-total" && $2 == n { k++ } END { print k + 0 }' "$TMP/p")
	[ "$rows" = 1 ] || fail "top-total lists $1 $rows times, not once"
	tot=$(awk -F'\t' -v n="$1" '$1 == "top-total" && $2 == n { sub(/%$/, "", $3); print $3 }' "$TMP/p")
	want=$(awk -v q="$2 (deep.py:" '{ n = $NF; t += n } index($0, q) { s += n } END { printf "%.2f\n", t ? 100 * s / t : 0 }' "$TMP/t.fold")
	awk -v g="$tot" -v w="$want" 'BEGIN { d = g - w; exit !(g != "" && d < 0.02 && d > -0.02) }' ||
		fail "top-total: $1 ${tot:-?}%, the fold $want% through its lines"
	tip=$(awk -F'\t' -v n="$1" '$1 == "fncell" && $2 == n { print $4 }' "$TMP/p")
	say "${1##*.}: total $tot%; tooltip: ${tip#*_\[py\] | }"
	lines=$(awk -v q="$2 (deep.py:" '{ while ((i = index($0, q))) {
		$0 = substr($0, i + length(q)); l = $0; sub(/\).*/, "", l); print l } }' "$TMP/t.fold" | sort -un)
	for l in $lines; do
		[[ "$tip" == *"| line $l: self "* ]] || fail "the tooltip of $1 does not name line $l"
	done
	sum=$(echo "$tip" | grep -o 'total [0-9.]*%' | sed 's/total //; s/%//' | awk '{ s += $1 } END { printf "%.2f\n", s }')
	awk -v g="$sum" -v w="$tot" 'BEGIN { d = g - w; exit !(d < 0.05 && d > -0.05) }' ||
		fail "the tooltip's lines of $1 total $sum%, the function $tot%"
	NLINES=$(echo "$lines" | wc -w)
}
fn_check "$LCF" "${LC% (deep.py:*}"
# spin runs two lines (for, body): still one row
[ -n "$SPIN" ] || fail "the fold has no spin frame"
fn_check 'spin_[py]' spin
[ "$NLINES" -ge 2 ] || fail "spin ran at $NLINES lines in the fold, not its loop's two"
# the tooltip: the whole name
grep -qF "$(printf 'hover\t%s\t' "$LC")" "$TMP/p" || fail "the tooltip does not hold the whole name"
exit 0
