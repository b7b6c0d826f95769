#!/bin/bash
# SPDX-License-Identifier: MIT
# t1204: runnable time is charged as runnable (issue 21). Two processes
# spin on one CPU (taskset), so each waits for the CPU about half of its
# wall time: record's sched_switch sees them preempted, still runnable.
# In --wall that time ends in a [runnable] leaf (within 1% of the runnable
# total report states), never in the frames where the thread was
# preempted (the timer interrupt's irqentry_exit_to_user_mode would read
# as a wait there); --off-cpu, blocked time only, has no [runnable]; the
# runnable time is a good part of the spinners' wall time (the workload
# forced it), so the test can fail.
. "$E2E_DIR/lib.sh"
require_root; require_btf
command -v taskset >/dev/null || skip "needs taskset (util-linux)"

cpu=$(taskset -pc $$ | awk -F': ' '{ split($2, a, /[,-]/); print a[1] }')
"$EPROF" record --off-cpu -F 499 -o "$TMP/r.eprof" -- taskset -c "$cpu" sh -c \
	"'$WORKLOADS/known_split' 400 & '$WORKLOADS/known_split' 400; wait" >/dev/null 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record --off-cpu failed"; }
"$EPROF" report -i "$TMP/r.eprof" --wall --fold --comm known_split >"$TMP/wall" 2>"$TMP/wall.err" &&
	"$EPROF" report -i "$TMP/r.eprof" --off-cpu --fold --comm known_split >"$TMP/off" 2>/dev/null &&
	"$EPROF" report -i "$TMP/r.eprof" --wall --top 5 --comm known_split >"$TMP/top" 2>/dev/null ||
	{ cat "$TMP/wall.err"; fail "report failed"; }
runnable=$(sed -n 's/.*runnable \([0-9.]*\) s$/\1/p' "$TMP/wall.err")
[ -n "$runnable" ] || { cat "$TMP/wall.err"; fail "report --wall states no runnable time"; }
# the fold counts microseconds
read -r all leaf preempt < <(awk '{ n = $NF; t += n } / \[runnable\] [0-9]+$/ || /;\[runnable\] [0-9]+$/ { r += n }
	/(irqentry_exit[a-z_]*|asm_sysvec[a-z_]*|exit_to_user_mode_loop)_\[k\] [0-9]+$/ { p += n }
	END { print t + 0, r + 0, p + 0 }' "$TMP/wall")
say "wall $all us, [runnable] leaves $leaf us, preemption frames as leaves $preempt us; report: runnable $runnable s"
awk -v l="$leaf" -v r="$runnable" 'BEGIN { r *= 1e6; exit !(r > 0 && l > 0.99 * r && l < 1.01 * r) }' ||
	fail "[runnable] leaves hold $leaf us, the runnable time is $runnable s"
awk -v l="$leaf" -v a="$all" 'BEGIN { exit !(l > 0.2 * a) }' ||
	fail "runnable is $leaf us of $all: the two spinners did not share a CPU"
# what is left at a preemption frame is on-CPU samples (the interrupt ran there), under 5% of wall time
awk -v p="$preempt" -v a="$all" 'BEGIN { exit !(p < 0.05 * a) }' ||
	fail "$preempt us of $all end where the thread was preempted"
grep -q '\[runnable\]' "$TMP/off" && fail "--off-cpu (blocked time only) has a [runnable] frame"
grep -q '\[runnable\]' "$TMP/top" || { cat "$TMP/top"; fail "[runnable] is not among the top 5 of --wall --top"; }
exit 0
