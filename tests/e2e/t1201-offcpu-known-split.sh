#!/bin/bash
# SPDX-License-Identifier: MIT
# t1201: record --off-cpu on a thread that spins, sleeps in nanosleep, then
# waits in read() on a pipe another thread answers later (issue 12):
#  - --off-cpu charges the main thread's blocked time to the sleeping and
#    waiting stacks within 5 points of the split the workload measured,
#    and their total within 10% of the measured sleep + wait;
#  - the kernel frames say where: do_nanosleep_[k], pipe_read_[k];
#  - --wall splits the main thread's own tower (--by tid) between spinning
#    (on-CPU samples x period + runnable), sleeping and waiting within 5
#    points of the measured wall times;
#  - the thread's CPU samples never fall inside its own off-CPU intervals
#    beyond one sampling period at the edges (read from the file with
#    sqlite3, an independent client).
# The truth is what the workload measured with CLOCK_MONOTONIC, so a loaded
# machine (which stretches the spin and delays wake-ups) changes nothing.
. "$E2E_DIR/lib.sh"
require_root; require_btf

WL="$WORKLOADS/offcpu_split"
"$EPROF" record --off-cpu -F 499 -o "$TMP/r.eprof" -- "$WL" split 300 400 300 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record --off-cpu failed"; }
cat "$TMP/rec.err"
grep -q '^eprof: recorded [0-9]* off-CPU intervals (0 lost)' "$TMP/rec.err" ||
	fail "no off-CPU summary line, or intervals lost"
tid=$(awk '$1 == "main" && $2 == "tid" { print $3 }' "$TMP/rec.err")
spin=$(awk '$1 == "phase" && $2 == "spin" { print $3 }' "$TMP/rec.err")
slp=$(awk '$1 == "phase" && $2 == "sleep" { print $3 }' "$TMP/rec.err")
wait=$(awk '$1 == "phase" && $2 == "wait" { print $3 }' "$TMP/rec.err")
[ -n "$tid" ] && [ -n "$spin" ] && [ -n "$slp" ] && [ -n "$wait" ] || fail "the workload did not say its phases"
say "main thread $tid: spin $spin ns, sleep $slp ns, wait $wait ns (wall)"

# --off-cpu: blocked time of the main thread, in microseconds
"$EPROF" report -i "$TMP/r.eprof" --off-cpu --tid "$tid" --fold >"$TMP/off.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --off-cpu failed"; }
cat "$TMP/rep.err"
cut -c1-300 "$TMP/off.fold"
grep -q '^eprof: times: blocked ' "$TMP/rep.err" || fail "report --off-cpu does not say the blocked time"
s=$(samples "$TMP/off.fold" ';main;sleep_phase;.*;do_nanosleep_\[k\]')
w=$(samples "$TMP/off.fold" ';main;wait_phase;.*(^|;|_)pipe_read_\[k\]')
# after its exec, under _start (the wait of eprof's child at its gate before the exec is
# not recorded: t1206)
all=$(samples "$TMP/off.fold" '^offcpu_split;_start;')
say "blocked: sleep_phase/do_nanosleep $s us, wait_phase/pipe_read $w us, all $all us"
[ "$s" -gt 0 ] || fail "no blocked time in sleep_phase with do_nanosleep_[k]"
[ "$w" -gt 0 ] || fail "no blocked time in wait_phase with pipe_read_[k]"
check_share "sleep_phase (of blocked)" "$(share_pct "$s" "$all")" \
	"$(share_pct "$slp" "$((slp + wait))")" 5
check_share "wait_phase (of blocked)" "$(share_pct "$w" "$all")" \
	"$(share_pct "$wait" "$((slp + wait))")" 5
truth_us=$(((slp + wait) / 1000))
awk -v m="$((s + w))" -v t="$truth_us" 'BEGIN { d = m - t; if (d < 0) d = -d; exit !(d <= t / 10) }' ||
	fail "blocked time $((s + w)) us is not within 10% of the measured $truth_us us"
say "total blocked $((s + w)) us, measured $truth_us us"

# --wall: the main thread's tower, split by phase
"$EPROF" report -i "$TMP/r.eprof" --wall --by tid --fold >"$TMP/wall.fold" 2>"$TMP/wall.err" ||
	{ cat "$TMP/wall.err"; fail "report --wall failed"; }
cat "$TMP/wall.err"
grep -q '^eprof: times: on-CPU .* samples x .* the sampling period' "$TMP/wall.err" ||
	fail "report --wall does not say that samples were turned into time by the period"
grep -q "^tid $tid;" "$TMP/wall.fold" || fail "no tower for thread $tid"
grep -v "^tid $tid;" "$TMP/wall.fold" | grep -q '^tid [0-9]*;' || fail "the other thread has no tower of its own"
sp=$(samples "$TMP/wall.fold" "^tid $tid;.*;main;spin_phase( |;|\$)")
sl=$(samples "$TMP/wall.fold" "^tid $tid;.*;main;sleep_phase( |;|\$)")
wt=$(samples "$TMP/wall.fold" "^tid $tid;.*;main;wait_phase( |;|\$)")
tot=$((sp + sl + wt))
say "wall: spin $sp us, sleep $sl us, wait $wt us"
whole=$((spin + slp + wait))
check_share "spin_phase (of wall)" "$(share_pct "$sp" "$tot")" "$(share_pct "$spin" "$whole")" 5
check_share "sleep_phase (of wall)" "$(share_pct "$sl" "$tot")" "$(share_pct "$slp" "$whole")" 5
check_share "wait_phase (of wall)" "$(share_pct "$wt" "$tot")" "$(share_pct "$wait" "$whole")" 5

# Samples of the main thread against its own off-CPU intervals (with times).
require_cmd sqlite3
start=$(sqlite3 "$TMP/r.eprof" "SELECT value FROM meta WHERE key = 'start_ns'")
sqlite3 "$TMP/r.eprof" "SELECT time - $start, time - $start + duration FROM offcpu WHERE tid = $tid" \
	>"$TMP/intervals"
[ -s "$TMP/intervals" ] || fail "no off-CPU interval of thread $tid with its times"
"$EPROF" report -i "$TMP/r.eprof" --samples --tid "$tid" 2>/dev/null |
	awk '/cpu-clock:$/ { t = $(NF - 2); sub(/:$/, "", t); printf "%.0f\n", t * 1e9 }' >"$TMP/times"
n=$(wc -l <"$TMP/times")
[ "$n" -gt 50 ] || fail "only $n samples of thread $tid"
period=$((1000000000 / 499))
bad=$(awk -v p="$period" -F'|' 'NR == FNR { a[NR] = $1; b[NR] = $2; n = NR; next }
	{ for (i = 1; i <= n; i++) if ($1 > a[i] + p && $1 < b[i] - p) { print $1; break } }' \
	"$TMP/intervals" "$TMP/times" | wc -l)
say "$n samples of thread $tid, $(wc -l <"$TMP/intervals") intervals, $bad samples inside one"
[ "$bad" -eq 0 ] || fail "$bad samples of thread $tid fall inside its own off-CPU intervals"
exit 0
