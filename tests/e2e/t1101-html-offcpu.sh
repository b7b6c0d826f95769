#!/bin/bash
# SPDX-License-Identifier: MIT
# t1101: the HTML report of a recording with off-CPU time (record --off-cpu)
# switches between on-CPU samples, off-CPU (blocked) time and wall time, as
# report --off-cpu and --wall count them: a thread that spins, sleeps in
# nanosleep, then waits in read() on a pipe has spin_phase alone in the
# on-CPU tables (but for the odd sample of a thread switched back in),
# sleep_phase and wait_phase (not spin_phase) in the off-CPU
# ones, and the search's matched share of each phase in each view is the
# share --fold gives with the same weighing; --off-cpu opens the page on
# its off-CPU view, a plain --html on wall; a recording without off-CPU time has no switch.
. "$E2E_DIR/lib.sh"
. "$E2E_DIR/../browser/lib.sh"
require_root; require_btf
require_browser

"$EPROF" record --off-cpu -F 499 -o "$TMP/r.eprof" -- "$WORKLOADS/offcpu_split" split 300 400 300 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record --off-cpu failed"; }
"$EPROF" report -i "$TMP/r.eprof" --html "$TMP/r.html" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --html failed"; }
has() { awk -F'\t' -v t="$2" -v f="$3" '$1 == t && $2 == f { ok = 1 } END { exit !ok }' "$1"; }
# share FILE TABLE FUNC: its share in that table, in percent (0 when absent)
share() { awk -F'\t' -v t="$2" -v f="$3" '$1 == t && $2 == f { s = $3 + 0 } END { print s + 0 }' "$1"; }

# the switch; the page opens on wall (issue 21), --off-cpu opens it on the off-CPU view
drive "$TMP/r.html" views >"$TMP/v" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
grep -qx $'views\ton off wall\\*' "$TMP/v" || { cat "$TMP/v"; fail "no on-CPU/off-CPU/wall switch on wall"; }
"$EPROF" report -i "$TMP/r.eprof" --off-cpu --html "$TMP/off.html" 2>/dev/null || fail "report --off-cpu --html failed"
drive "$TMP/off.html" views >"$TMP/v" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
grep -qx $'views\ton off\\* wall' "$TMP/v" || { cat "$TMP/v"; fail "--off-cpu does not open the off-CPU view"; }

# which functions each view holds
drive "$TMP/r.html" view on top >"$TMP/on" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
drive "$TMP/r.html" view off top >"$TMP/off" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
head -3 "$TMP/on" "$TMP/off"
has "$TMP/on" top-self spin_phase || fail "on-CPU: spin_phase is not in top-self"
awk -v s="$(share "$TMP/on" top-total spin_phase)" 'BEGIN { exit !(s >= 80) }' ||
	fail "on-CPU: spin_phase has only $(share "$TMP/on" top-total spin_phase)% in top-total"
# A thread that blocks still runs a little on the CPU: entering the syscall,
# and right after it is switched back in, where a tick held back while the
# scheduler ran lands (finish_task_switch). On a busy machine that can be a
# sample or two in the on-CPU view; a few percent at most, not absent.
for f in sleep_phase wait_phase; do
	awk -v s="$(share "$TMP/on" top-total $f)" 'BEGIN { exit !(s < 5) }' ||
		fail "on-CPU: $f (which blocks) has $(share "$TMP/on" top-total $f)% in top-total"
	has "$TMP/off" top-total $f || fail "off-CPU: no $f in top-total"
done
has "$TMP/off" top-total spin_phase && fail "off-CPU: spin_phase (which never blocks) is in top-total"

# the matched share of each phase, as --fold weighs it (microseconds there, ns here)
"$EPROF" report -i "$TMP/r.eprof" --off-cpu --fold >"$TMP/off.fold" 2>/dev/null || fail "--off-cpu --fold failed"
"$EPROF" report -i "$TMP/r.eprof" --wall --fold >"$TMP/wall.fold" 2>/dev/null || fail "--wall --fold failed"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/on.fold" 2>/dev/null || fail "--fold failed"
for v in on off wall; do
	drive "$TMP/r.html" view "$v" search '^spin_phase$' matched search '^sleep_phase$' matched \
		search '^wait_phase$' matched >"$TMP/m" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
	k=0
	for f in spin_phase sleep_phase wait_phase; do
		k=$((k + 1))
		want=$(awk -v f="$f" '{ n = $NF; t += n; if ($0 ~ (";" f "(;| )")) m += n }
			END { printf "%.6f\n", t ? m / t : 0 }' "$TMP/$v.fold")
		got=$(awk -F'\t' -v k=$k '/^matched/ && ++n == k { print $2 }' "$TMP/m")
		say "$v: $f ${got} of the page, $want of --fold"
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(g != "" && g != "none" && d < 0.0005 && d > -0.0005) }' ||
			fail "$v view: $f has a share of $got on the page, $want in --fold"
	done
done

# a recording without off-CPU time has no switch
"$EPROF" record -F 499 -o "$TMP/p.eprof" -- "$WORKLOADS/phases" 300 >/dev/null 2>&1 || fail "record failed"
"$EPROF" report -i "$TMP/p.eprof" --html "$TMP/p.html" 2>/dev/null || fail "report --html failed"
drive "$TMP/p.html" views >"$TMP/v" 2>"$TMP/drv.err" || { cat "$TMP/drv.err"; fail "page errors"; }
grep -qx $'views\t' "$TMP/v" || { cat "$TMP/v"; fail "a switch without off-CPU data"; }
"$EPROF" report -i "$TMP/p.eprof" --off-cpu --html "$TMP/x.html" 2>"$TMP/err" && fail "--off-cpu --html of a recording without off-CPU time accepted"
grep -q "has no off-CPU time" "$TMP/err" || { cat "$TMP/err"; fail "no reason given"; }
exit 0
