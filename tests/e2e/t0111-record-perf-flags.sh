#!/bin/bash
# SPDX-License-Identifier: MIT
# t0111: record takes perf users' habits: -g (stacks are always recorded),
# -e cpu-clock (any other event is one error line naming what is
# supported), -C LIST as --cpu, -q (nothing on stderr), and --no-inherit
# (the processes -- CMD starts are not sampled, where by default they are).
. "$E2E_DIR/lib.sh"
require_root; require_btf

# -g -e cpu-clock -C 0 -q: a normal recording, silent, on CPU 0 only. The
# workload has a thread pinned to each CPU (on_cpu0, on_cpu1), so there is
# work on CPU 1 that -C 0 must leave out, whatever the scheduler does.
"$EPROF" record -q -g -e cpu-clock -C 0 -F 999 -o "$TMP/c.eprof" -- "$WORKLOADS/pinned" 500 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record -q -g -e cpu-clock -C 0 failed"; }
[ -s "$TMP/rec.err" ] && { cat "$TMP/rec.err"; fail "record -q printed on stderr"; }
"$EPROF" report -i "$TMP/c.eprof" --per-cpu >"$TMP/percpu" 2>/dev/null || fail "report --per-cpu failed"
cat "$TMP/percpu"
cpus=$(awk '/^cpu [0-9]+ / { print $2 }' "$TMP/percpu" | sort -u | tr '\n' ' ')
say "-C 0: samples on CPUs: $cpus"
[ "$cpus" = "0 " ] || fail "-C 0 sampled CPUs '$cpus', expected only 0"
"$EPROF" report -i "$TMP/c.eprof" --fold >"$TMP/c.fold" 2>/dev/null || fail "report --fold failed"
[ "$(samples "$TMP/c.fold" ';on_cpu0( |;|$)')" -gt 0 ] || fail "-C 0 has no samples of on_cpu0"
[ "$(samples "$TMP/c.fold" ';on_cpu1( |;|$)')" -eq 0 ] || fail "-C 0 has samples of on_cpu1 (CPU 1)"
"$EPROF" info "$TMP/c.eprof" >"$TMP/info" 2>/dev/null || fail "info failed"
grep -Eq '^event +cpu-clock$' "$TMP/info" || { cat "$TMP/info"; fail "info does not show event cpu-clock"; }

# other events: one error line that names cpu-clock, usage status 2
for ev in cycles cpu-clock:u; do
	"$EPROF" record -e "$ev" -o "$TMP/e.eprof" -- true >/dev/null 2>"$TMP/err1"
	rc=$?
	one_line_error "$TMP/err1"
	say "-e $ev: $(cat "$TMP/err1") (exit $rc)"
	[ $rc -eq 2 ] || fail "-e $ev exited $rc, expected 2"
	grep -q "'cpu-clock'" "$TMP/err1" || fail "-e $ev: the error does not say that cpu-clock is supported"
	[ -e "$TMP/e.eprof" ] && fail "-e $ev left a recording behind"
done

# --no-inherit: forker's children (child_work) are not sampled; by default they are
for inherit in yes no; do
	flag=""; [ $inherit = no ] && flag=--no-inherit
	"$EPROF" record $flag -F 999 -o "$TMP/f.eprof" -- "$WORKLOADS/forker" 1000 >/dev/null 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "record $flag -- forker failed"; }
	"$EPROF" report -i "$TMP/f.eprof" --fold >"$TMP/f.fold" 2>/dev/null || fail "report failed"
	parent=$(samples "$TMP/f.fold" ';main;parent_work;spin_for( |;|$)')
	child=$(samples "$TMP/f.fold" ';main;child_work;spin_for( |;|$)')
	say "inherit $inherit: parent_work $parent, child_work $child"
	# 10 rounds: 1 s of CPU time in the parent, 10 x 20 ms in the children
	[ "$parent" -ge 300 ] || fail "inherit $inherit: only $parent samples in parent_work"
	if [ $inherit = yes ]; then
		[ "$child" -ge 50 ] || fail "the children were not followed ($child samples)"
	else
		[ "$child" -eq 0 ] || fail "--no-inherit: $child samples of the children"
	fi
done
exit 0
