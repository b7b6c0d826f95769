#!/bin/bash
# SPDX-License-Identifier: MIT
# t1107: the HTML report's time views of an off-CPU recording (issue 21), on
# a thread that spins, sleeps in nanosleep, then waits in read() on a pipe
# (offcpu_split): the page opens on wall; each thread has a lane, the main
# thread's drawn in running (warm) and blocked (cool) colours (and so are
# its frames in the flame graph), its blocked
# time and its nanosleep wait reason at most 10% over the sleep + wait and
# the sleep the workload measured, and at least half of them (wake-up latency
# is runnable time, not blocked: a loaded machine takes it from blocked), its
# blocked + runnable time at least 90% of sleep + wait, and its whole time
# within 10% of the phases' wall time; a lane's tooltip splits
# on-CPU, runnable and blocked time; the top self function of the wall and
# off-CPU views (and of report --off-cpu --top) is a wait reason, not the
# scheduler's __schedule. Screenshots: tests/artifacts/t1107.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser
ART=$(artifacts t1107)

"$EPROF" record --off-cpu -F 499 -o "$TMP/r.eprof" -- "$WORKLOADS/offcpu_split" split 300 400 300 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record --off-cpu failed"; }
# the main thread's tid, its spin, sleep and wait phases (ns of wall time), as the workload measured them
read -r tid spin slp wait < <(awk '$1 == "main" && $2 == "tid" { t = $3 } $1 == "phase" { p[$2] = $3 }
	END { print t, p["spin"], p["sleep"], p["wait"] }' "$TMP/rec.err")
[ -n "$tid" ] && [ -n "$spin" ] && [ -n "$slp" ] && [ -n "$wait" ] || fail "the workload did not say its phases"
say "main thread $tid: spin $spin ns, sleep $slp ns, wait $wait ns (wall)"
"$EPROF" report -i "$TMP/r.eprof" --html "$TMP/r.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }

drive "$TMP/r.html" views lanes lanehover 0 0.5 frame sleep_phase frame spin_phase top screenshot "$ART/wall.png" \
	view off top screenshot "$ART/off.png" >"$TMP/p" 2>"$TMP/drv.err" ||
	{ cat "$TMP/drv.err"; fail "page errors"; }
cut -c1-200 "$TMP/p" | grep -v '^top-total'
grep -qx $'views\ton off wall\\*' "$TMP/p" || fail "the page does not open on wall"

# the main thread's lane: its times, and its pixels by colour
lane=$(awk -F'\t' -v t="$tid" '$1 == "lane" && $2 == t' "$TMP/p")
[ -n "$lane" ] || fail "no lane for the main thread $tid"
IFS=$'\t' read -r _ _ _ run rnb blk prun prnb pblk _ reasons <<<"$lane"
say "main lane: running $run, runnable $rnb, blocked $blk ns; pixels $prun running, $prnb runnable, $pblk blocked"
# the lane's time is the thread's life: running + runnable + blocked within 10% of the phases
awk -v l="$((run + rnb + blk))" -v w="$((spin + slp + wait))" 'BEGIN { exit !(l > 0.9 * w && l < 1.1 * w) }' ||
	fail "the main lane holds $((run + rnb + blk)) ns, its phases $((spin + slp + wait)) ns"
awk -v b="$blk" -v r="$rnb" -v w="$((slp + wait))" 'BEGIN { exit !(b < 1.1 * w && b > 0.5 * w && b + r > 0.9 * w) }' ||
	fail "the main lane's blocked time $blk ns (runnable $rnb ns) does not match sleep + wait $((slp + wait)) ns"
[ "$pblk" -gt 0 ] && [ "$((prun + prnb))" -gt 0 ] || fail "the main lane is not drawn both running and blocked"
# blocked about 700 of 1000 ms, running/runnable 300: the pixels follow within 15 points
awk -v b="$pblk" -v r="$((prun + prnb))" -v want="$(((slp + wait) * 100 / (spin + slp + wait)))" \
	'BEGIN { s = 100 * b / (b + r); d = s - want; exit !(d < 15 && d > -15) }' ||
	fail "the main lane is $pblk blocked pixels of $((pblk + prun + prnb)), the workload $(((slp + wait) * 100 / (spin + slp + wait)))% blocked"
nsl=$(node -e 'const r = JSON.parse(process.argv[1]); console.log(r.do_nanosleep || 0)' "$reasons")
awk -v n="$nsl" -v s="$slp" 'BEGIN { exit !(n > 0.5 * s && n < 1.1 * s) }' ||
	fail "the main lane's do_nanosleep wait is $nsl ns, the sleep $slp ns"
node -e 'const r = JSON.parse(process.argv[1]); process.exit(Object.keys(r).some((k) => /schedule/.test(k)) ? 1 : 0)' \
	"$reasons" || fail "a wait reason is the scheduler: $reasons"
grep '^lanehover' "$TMP/p" | grep -q 'on-CPU .*runnable .*blocked' || fail "the lane's tooltip does not split the time"

# in the flame graph, blocked frames are cool (blue above red), running ones warm
awk -F'\t' '$1 == "frame" && $2 == "sleep_phase" { ok = $5 > $3 } END { exit !ok }' "$TMP/p" ||
	fail "sleep_phase (blocked) is not drawn in a cool colour"
awk -F'\t' '$1 == "frame" && $2 == "spin_phase" { ok = $3 > $5 } END { exit !ok }' "$TMP/p" ||
	fail "spin_phase (running) is not drawn in a warm colour"

# the top self functions: wait reasons, not the scheduler
tops=$(awk -F'\t' '$1 == "top-self" && prev != "top-self" { print $2 } { prev = $1 }' "$TMP/p")
say "top self on wall, off-CPU: $(echo $tops)"
[ "$(echo "$tops" | wc -l)" -eq 2 ] || fail "not two top-self tables"
for top in $tops; do
	case "$top" in *schedule*|'') fail "the top self function is '$top'";; esac
done
"$EPROF" report -i "$TMP/r.eprof" --off-cpu --top 3 >"$TMP/top" 2>/dev/null || fail "report --off-cpu --top failed"
first=$(awk '/by self/ { getline; getline; print $5; exit }' "$TMP/top")
say "report --off-cpu --top: top self $first"
case "$first" in *schedule*|'') fail "report --off-cpu --top charges blocked time to '$first'";; esac
[ "${first}_[k]" = "$(echo "$tops" | tail -1)" ] || fail "report --off-cpu --top and the page's off-CPU view differ on the top self"
exit 0
