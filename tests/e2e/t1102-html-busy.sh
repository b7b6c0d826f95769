#!/bin/bash
# SPDX-License-Identifier: MIT
# t1102: busyness in the HTML report (issue 21), on a whole-system recording
# whose busy share is known by construction (workloads/gen_busy.c): the heat
# map's cells are shaded by the busy share of their samples, linear, within
# 5 points; missed ticks are hatched, never shaded as idle; the idle task is
# out of the flame graph and tables until the switch shows it; the readout
# of a cell names its time, samples and busy share; a search lights the
# cells of its matches. --exclude-pid and --exclude-comm leave them out of
# the text views. Screenshots go to the build tree's tests/artifacts/t1102.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_browser
ART=$(artifacts t1102)

"$WORKLOADS/gen_busy" "$TMP/b.eprof" || fail "gen_busy failed"
"$EPROF" report -i "$TMP/b.eprof" --html "$TMP/b.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }

# the cells of second 1: row r is (r % 5) / 4 busy; shade = 247 - 247 * share in green
cmds=()
for r in 0 1 2 3 4 5 6 7 8 9 10 23 49; do cmds+=(cell "$(awk -v r="$r" 'BEGIN { printf "%.3f", 1 + r * 0.02 + 0.01 }')"); done
drive "$TMP/b.html" "${cmds[@]}" cell 0.51 cell 2.51 cell 2.21 cell 2.29 cellhover 1.05 \
	screenshot "$ART/busy.png" >"$TMP/c" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/c"
awk -F'\t' '$1 == "cell" && $2 >= 1 && $2 < 2 {
		r = int(($2 - 1) / 0.02); want = (r % 5) / 4; got = (247 - $4) / 247
		n++; d = got - want; if (d < 0) d = -d
		if (d > 0.05 || $6 != 0) { print "row " r ": busy share " got ", want " want " (hatched " $6 ")"; bad++ }
	} END { exit !(n == 13 && !bad) }' "$TMP/c" || fail "the heat map's shades are not the busy shares"
awk -F'\t' '$1 == "cell" && ($2 == 0.51 || $2 == 2.51) { ok += $3 == 179 && $4 == 0 && $6 == 0 }
	END { exit ok != 2 }' "$TMP/c" || fail "all-busy cells are not the darkest shade"
awk -F'\t' '$1 == "cell" && ($2 == 2.21 || $2 == 2.29) { ok += $6 == 1 && $7 == 0 && $8 == 0 }
	END { exit ok != 2 }' "$TMP/c" || fail "the missed ticks of second 2 are not hatched"
grep -q '^cellhover	1.040 s - 1.060 s	busy 2 samples, idle 2 samples; busy share 50.00%	4 ticks due, 0 not sampled$' \
	"$TMP/c" || fail "the readout of a half-busy cell is not its time, samples and share"

# idle: out of the flame graph and tables until shown
drive "$TMP/b.html" names top idle names top screenshot "$ART/idle-shown.png" >"$TMP/i" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
first=$(awk -F'\t' '$1 == "name" && $2 == "all" { n++ } n == 1 && $1 == "name" { print $2 }' "$TMP/i" | tr '\n' ' ')
[ "$first" = "all app main spin " ] || fail "the first flame graph holds '$first', not app's frames alone"
grep -q '^name	do_idle_\[k\]$' "$TMP/i" || fail "the idle switch does not show the idle task"
grep -q '^top-self	spin	100.00%$' "$TMP/i" || fail "without idle, spin is not all of the self time"
grep -q '^top-self	spin	82.76%$' "$TMP/i" || fail "with idle, spin is not 480 of 580 samples"

# search: the cells with spin light up (magenta), the idle row of second 1 does not
drive "$TMP/b.html" search spin cell 1.01 cell 1.09 screenshot "$ART/search.png" >"$TMP/s" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
cat "$TMP/s"
awk -F'\t' '$1 == "cell" && $2 == 1.09 { exit !($3 > $4 + 60 && $5 > $4 + 60) }' "$TMP/s" ||
	fail "a cell of spin's is not lit by the search"
awk -F'\t' '$1 == "cell" && $2 == 1.01 { exit !($3 == 255 && $4 == 247) }' "$TMP/s" ||
	fail "an idle cell is lit by the search for spin"

# the text views: --exclude-pid 0 and --exclude-comm
"$EPROF" report -i "$TMP/b.eprof" --fold --exclude-pid 0 >"$TMP/x0" 2>/dev/null || fail "--exclude-pid failed"
[ "$(cat "$TMP/x0")" = "app;main;spin 480" ] || { cat "$TMP/x0"; fail "--exclude-pid 0 left the idle task in"; }
"$EPROF" report -i "$TMP/b.eprof" --fold --exclude-comm app >"$TMP/x1" 2>/dev/null || fail "--exclude-comm failed"
[ "$(cat "$TMP/x1")" = "swapper;cpu_startup_entry_[k];do_idle_[k] 100" ] ||
	{ cat "$TMP/x1"; fail "--exclude-comm app left app in"; }
"$EPROF" report -i "$TMP/b.eprof" --fold --exclude-pid 0 --exclude-comm app >"$TMP/x2" 2>"$TMP/x2.err" ||
	fail "both exclusions failed"
[ ! -s "$TMP/x2" ] && grep -q 'no samples match --exclude-pid 0 --exclude-comm app' "$TMP/x2.err" ||
	{ cat "$TMP/x2.err"; fail "excluding everything does not say which filters matched nothing"; }
"$EPROF" report -i "$TMP/b.eprof" --exclude-pid nope 2>"$TMP/e" && fail "--exclude-pid nope accepted"
one_line_error "$TMP/e"
say "busyness shades, hatching, idle switch, search and exclusions as built"
