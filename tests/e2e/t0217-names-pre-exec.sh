#!/bin/bash
# SPDX-License-Identifier: MIT
# t0217: with `record -- CMD`, nothing the command's process does before
# its exec is the command's (issue 23). Until then it is the recorder's
# fork (record/target.c): its ticks in fork's child half, at the start-up
# gate and in execve were kept as the command's, under the recorder's
# frames (eprof;...;cmd_record;target__fork;fork;...) and named eprof,
# and in the --wall view one such tick named the whole thread eprof,
# the program's own [runnable] rows included. The recorder runs pinned to
# one CPU (taskset; its fork and the command inherit it), as in t1206:
# before the fix every recording here had 2-6 such ticks.
#  - the command is recorded, under its own name, in its own code;
#  - no on-CPU or --wall stack of the command holds the recorder's frames
#    (target__fork, child_run, cmd_record);
#  - no on-CPU or --wall row of the command is named eprof.
# Three recordings, each judged alone; names and counts only.
. "$E2E_DIR/lib.sh"
require_root; require_btf
command -v taskset >/dev/null || skip "needs taskset (util-linux)"

gate='(^|;)(target__fork|child_run|cmd_record)(;| )'
cpu=$(taskset -pc $$ | awk -F': ' '{ split($2, a, /[,-]/); print a[1] }')
for run in 1 2 3; do
	r="$TMP/r$run.eprof"
	taskset -c "$cpu" "$EPROF" record --off-cpu -F 999 -o "$r" -- \
		"$WORKLOADS/known_split" 200 >/dev/null 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "run $run: record failed"; }
	"$EPROF" report -i "$r" --fold >"$TMP/cpu$run" 2>"$TMP/rep.err" &&
		"$EPROF" report -i "$r" --wall --fold >"$TMP/wall$run" 2>>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "run $run: report failed"; }
	own=$(samples "$TMP/cpu$run" '^known_split;.*;main;run_workload;dispatch;work_[abc]')
	g=$(samples "$TMP/cpu$run" "$gate")
	e=$(samples "$TMP/cpu$run" '^eprof;')
	wg=$(grep -Ec "$gate" "$TMP/wall$run")
	we=$(grep -c '^eprof;' "$TMP/wall$run")
	say "run $run: $own samples in known_split's work, $g with the recorder's frames," \
		"$e named eprof; --wall: $wg rows with the recorder's frames, $we named eprof"
	[ "$own" -ge 20 ] || { head -5 "$TMP/cpu$run"; fail "run $run: only $own samples of the program's work"; }
	[ "$g" = 0 ] && [ "$e" = 0 ] || {
		grep -E "$gate|^eprof;" "$TMP/cpu$run" | cut -c1-300 >&2
		fail "run $run: $g samples of the command hold the recorder's frames, $e are named eprof"
	}
	[ "$wg" = 0 ] && [ "$we" = 0 ] || {
		grep -E "$gate|^eprof;" "$TMP/wall$run" | cut -c1-300 >&2
		fail "run $run: --wall: $wg rows hold the recorder's frames, $we are named eprof"
	}
done
exit 0
