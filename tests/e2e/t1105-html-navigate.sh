#!/bin/bash
# SPDX-License-Identifier: MIT
# t1105: moving around the HTML report (issue 21) on a recording built by
# construction (gen_busy: all;app;main;spin): at 1280 x 720 labelled frames
# of the flame graph are in the window at load; '/' focuses the search and
# the search lands in the URL, Esc clears it, then resets the zoom; the
# arrows move a cursor between frames and Enter zooms to it, '-' zooms out;
# the view is in the URL hash, so Reload restores it and Back steps back;
# the wheel narrows the flame graph's span about the mouse, a drag slides it
# (and zooms nothing), Reload keeps the span; the window's title names what
# was recorded. Screenshots: tests/artifacts/t1105.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_browser
ART=$(artifacts t1105)

"$WORKLOADS/gen_busy" "$TMP/b.eprof" || fail "gen_busy failed"
"$EPROF" report -i "$TMP/b.eprof" --html "$TMP/b.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }

drive "$TMP/b.html" viewport 1280 720 reload inview state screenshot "$ART/load-720.png" \
	key Slash type spin state key Escape state \
	click main key ArrowUp state key ArrowUp state key Enter state key Minus state \
	reload state screenshot "$ART/reloaded.png" back state key Escape state >"$TMP/n" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/n"
# field N NAME: the JSON field NAME of the Nth state line
field() { awk -F'\t' -v n="$1" '$1 == "state" && ++k == n { print $2 }' "$TMP/n" |
	node -e 'let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => console.log(String(JSON.parse(s)[process.argv[1]])))' "$2"; }
n=$(awk -F'\t' '$1 == "inview" { print $2 }' "$TMP/n")
[ "${n:-0}" -ge 3 ] || fail "at 1280 x 720, $n labelled frames are in the window at load"
[ "$(field 1 title)" = "eprof: whole system on busy" ] || fail "the title is '$(field 1 title)'"
[ "$(field 2 focus)" = search ] && [ "$(field 2 search)" = spin ] && [ "$(field 2 hash)" = "#q=spin" ] ||
	fail "'/' and typing do not search spin with it in the URL"
[ "$(field 3 search)" = "" ] && [ "$(field 3 hash)" = "" ] || fail "Esc does not clear the search"
[ "$(field 4 zoom)" = main ] && [ "$(field 4 cursor)" = main ] || fail "clicking main and an arrow: not on main"
[ "$(field 5 cursor)" = spin ] || fail "the arrow towards the leaves does not move the cursor to spin"
[ "$(field 6 zoom)" = spin ] || fail "Enter does not zoom to the cursor"
[ "$(field 7 zoom)" = main ] || fail "'-' does not zoom out to main"
z=$(field 7 hash)
[ "$(field 8 zoom)" = main ] && [ "$(field 8 hash)" = "$z" ] || fail "Reload does not restore the zoom ($z)"
[ "$(field 9 zoom)" = spin ] || fail "Back does not return to the zoom on spin"
[ "$(field 10 zoom)" = all ] || fail "Esc does not reset the zoom"
# the wheel at a quarter of the width: the span narrows to exp(-0.75) of it about 0.25; a
# drag of 100 px slides it left by 100/width of the span; Reload keeps it
drive "$TMP/b.html" wheel 0.25 -500 state pan 100 state reload state screenshot "$ART/wheel.png" \
	>"$TMP/n" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/n"
span() { field "$1" span | tr ',' ' '; }
read -r a b <<<"$(span 1)"
awk -v a="$a" -v b="$b" 'BEGIN { w = exp(-0.75); exit !(b - a > w - 0.01 && b - a < w + 0.01 &&
	a > 0.25 - 0.25 * w - 0.01 && a < 0.25 - 0.25 * w + 0.01) }' || fail "the wheel gave the span $a..$b"
read -r c d <<<"$(span 2)"
awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN { s = (a - c) / (b - a) * 1280; exit !(s > 60 && s < 140 && d - c > b - a - 1e-6 && d - c < b - a + 1e-6) }' ||
	fail "dragging 100 px moved the span $a..$b to $c..$d"
[ "$(field 2 zoom)" = all ] || fail "a drag zoomed to a frame"
read -r e f <<<"$(span 3)"
awk -v c="$c" -v e="$e" 'BEGIN { exit !(e - c < 1e-5 && c - e < 1e-5) }' || fail "Reload lost the span ($c, now $e)"
say "keyboard, wheel, drag, URL hash, Reload, Back and the 720-line window as built"
