#!/bin/bash
# SPDX-License-Identifier: MIT
# t1101: the HTML report against names and files that could break it: a
# program named "<!--<script>&'\"" (the opening of a comment and a script tag
# inside the data would end the data early in a careless page) shows its name
# verbatim and the page runs without errors; a recording whose samples span
# more than a day is refused in one line with a way out, and leaves no file;
# one of 11 hours is drawn and selected in;
# option misuse is refused.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser

name="<!--<script>&'\""
ln -s "$WORKLOADS/phases" "$TMP/$name" || fail "cannot make the symlink"
"$EPROF" record -F 499 -o "$TMP/n.eprof" -- "$TMP/$name" 600 >/dev/null 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/n.eprof" --html "$TMP/n.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }
grep -qF "$name" "$TMP/n.html" && fail "the name is in the page unescaped"
drive "$TMP/n.html" names top >"$TMP/names" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
cut -f2 "$TMP/names" | grep -qxF "$name" || { cat "$TMP/names"; fail "the comm '$name' is not a frame"; }
grep -q $'^top-self\tphase_a' "$TMP/names" || fail "no phase_a in the top table"

# more than a day between samples (an unfinished recording has no end to check them against)
"$WORKLOADS/gen_hostile" "$TMP/late.eprof" unfinished late=200000 || fail "gen_hostile failed"
"$EPROF" report -i "$TMP/late.eprof" --html "$TMP/late.html" 2>"$TMP/err" && fail "a span of days was accepted"
grep -q 'error: .*more than a day.*--from/--to' "$TMP/err" || { cat "$TMP/err"; fail "no error with a way out"; }
[ "$(grep -c 'error' "$TMP/err")" -eq 1 ] || { cat "$TMP/err"; fail "more than one error line"; }
[ -e "$TMP/late.html" ] && fail "a refused report left a file"
"$EPROF" report -i "$TMP/late.eprof" --to 10 --html "$TMP/late.html" 2>/dev/null ||
	fail "a window of the same recording was refused"
drive "$TMP/late.html" top >/dev/null 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }

# 11 hours between samples: the heat map's columns hold several seconds (a canvas
# more than 32767 pixels wide is not drawn), and selecting on it still works
"$WORKLOADS/gen_hostile" "$TMP/long.eprof" unfinished late=40000 || fail "gen_hostile failed"
"$EPROF" report -i "$TMP/long.eprof" --html "$TMP/long.html" 2>/dev/null || fail "an 11-hour span was refused"
drive "$TMP/long.html" heat 0 2 top >"$TMP/long" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
grep -q $'^top-self\tmain' "$TMP/long" || { cat "$TMP/long"; fail "the first seconds of an 11-hour page lack main"; }

# misuse
"$EPROF" report -i "$TMP/n.eprof" --html "$TMP/x.html" -o "$TMP/y" 2>"$TMP/err" && fail "--html with -o accepted"
grep -q 'drop -o' "$TMP/err" || fail "no hint for --html -o"
"$EPROF" report --diff "$TMP/n.eprof" "$TMP/n.eprof" --html "$TMP/x.html" -o "$TMP/y" 2>/dev/null &&
	fail "--diff --html with -o accepted"
"$EPROF" report -i "$TMP/n.eprof" --html '' 2>/dev/null && fail "an empty file name accepted"
"$EPROF" report -i "$TMP/n.eprof" --html "$TMP/x.html" --top 2>/dev/null && fail "two outputs accepted"
[ -e "$TMP/x.html" ] && fail "a refused report left a file"
exit 0
