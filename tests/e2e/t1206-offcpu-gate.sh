#!/bin/bash
# SPDX-License-Identifier: MIT
# t1206: record --off-cpu -- CMD does not count the command's wait at its
# start-up gate as the command's blocked time (issue 21). Until its exec the
# command is the recorder's fork, blocked in read() on a pipe until sampling
# is on (record/target.c): eprof's start-up, not the program's. The recorder
# runs pinned to one CPU (taskset; its fork and the command inherit it),
# where the recorder's real-time priority keeps its fork from reaching the
# gate before the switch hook is attached, as a loaded machine does: before
# the fix, this test failed 9 of 9 times, its first recording charging the
# command 21-49 ms blocked in read() under an [unknown] frame (the
# recorder's child_run).
#  - every blocked (off-CPU) stack of the command's main thread is the
#    program's own, under _start (ld.so's page faults, sleep_phase,
#    wait_phase, pthread_join): nothing outside it, by name;
#  - no blocked or runnable stack of the command (--off-cpu, and --wall's
#    [runnable] leaves) holds the recorder's gate frames (target__fork,
#    child_run, cmd_record);
#  - the blocked total is the program's: at most the measured sleep + wait
#    + 10%, and at least 90% of it in sleep_phase and wait_phase.
# Two recordings, each judged alone; shares and names only.
. "$E2E_DIR/lib.sh"
require_root; require_btf
command -v taskset >/dev/null || skip "needs taskset (util-linux)"

gate='(^|;)(target__fork|child_run|cmd_record)(;| )'
cpu=$(taskset -pc $$ | awk -F': ' '{ split($2, a, /[,-]/); print a[1] }')
for run in 1 2; do
	r="$TMP/r$run.eprof"
	taskset -c "$cpu" "$EPROF" record --off-cpu -F 499 -o "$r" -- \
		"$WORKLOADS/offcpu_split" split 100 150 150 >/dev/null 2>"$TMP/rec$run.err" ||
		{ cat "$TMP/rec$run.err"; fail "run $run: record --off-cpu failed"; }
	tid=$(awk '$1 == "main" && $2 == "tid" { print $3 }' "$TMP/rec$run.err")
	slp=$(awk '$1 == "phase" && $2 == "sleep" { print $3 }' "$TMP/rec$run.err")
	wait=$(awk '$1 == "phase" && $2 == "wait" { print $3 }' "$TMP/rec$run.err")
	[ -n "$tid" ] && [ -n "$slp" ] && [ -n "$wait" ] ||
		{ cat "$TMP/rec$run.err"; fail "run $run: the workload did not say its phases"; }

	"$EPROF" report -i "$r" --off-cpu --tid "$tid" --fold >"$TMP/main$run" 2>"$TMP/rep.err" &&
		"$EPROF" report -i "$r" --off-cpu --fold >"$TMP/off$run" 2>/dev/null &&
		"$EPROF" report -i "$r" --wall --fold >"$TMP/wall$run" 2>/dev/null ||
		{ cat "$TMP/rep.err"; fail "run $run: report failed"; }
	# the fold counts microseconds
	all=$(samples "$TMP/main$run" '')
	# (the thread's name is judged in t0217)
	own=$(samples "$TMP/main$run" '^[^;]*;_start;')
	s=$(samples "$TMP/main$run" ';main;sleep_phase;')
	w=$(samples "$TMP/main$run" ';main;wait_phase;')
	say "run $run: main thread $tid blocked $all us, $own us under _start" \
		"(sleep_phase $s, wait_phase $w); measured sleep $slp ns, wait $wait ns"
	[ "$own" -gt 0 ] || { cat "$TMP/main$run"; fail "run $run: no blocked time of the program's own"; }
	[ "$all" -eq "$own" ] || {
		awk '!/^[^;]*;_start;/' "$TMP/main$run" | cut -c1-300 >&2
		fail "run $run: $((all - own)) us of the main thread's blocked time is not under the program's _start"
	}
	# off-CPU rows only: blocked time (--off-cpu), runnable time (--wall's [runnable] leaves)
	grep ';\[runnable\] [0-9]*$' "$TMP/wall$run" | cat "$TMP/off$run" - >"$TMP/rows$run"
	[ -s "$TMP/rows$run" ] || fail "run $run: no off-CPU rows"
	! grep -Eq "$gate" "$TMP/rows$run" || {
		grep -E "$gate" "$TMP/rows$run" | cut -c1-300 >&2
		fail "run $run: an off-CPU stack of the command holds the recorder's gate"
	}
	# not inflated: at most the measured sleep + wait, and 90% of it in those phases
	truth_us=$(((slp + wait) / 1000))
	awk -v m="$all" -v p="$((s + w))" -v t="$truth_us" \
		'BEGIN { exit !(m <= t + t / 10 && 10 * p >= 9 * m) }' ||
		fail "run $run: blocked $all us ($((s + w)) us in the phases), measured $truth_us us"
done
exit 0
