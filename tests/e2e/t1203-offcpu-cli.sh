#!/bin/bash
# SPDX-License-Identifier: MIT
# t1203: the off-CPU options refuse what they cannot do with one line
# (issue 12): --off-cpu/--wall on a recording made without --off-cpu (the
# v1 fixture, and a v2 recording), together, or with a view that does not
# weigh by time; --off-cpu-thresh without --off-cpu or out of range. A
# recording made with --off-cpu still reports its samples as before, and
# info says what it holds.
. "$E2E_DIR/lib.sh"

fx="$E2E_DIR/../fixtures/v1/known_split.eprof"
for w in --off-cpu --wall; do
	"$EPROF" report -i "$fx" $w --fold >/dev/null 2>"$TMP/err" && fail "report $w on a v1 file succeeded"
	one_line_error "$TMP/err"
	grep -q "has no off-CPU time.*record --off-cpu" "$TMP/err" || { cat "$TMP/err"; fail "report $w does not say what to do"; }
done
"$EPROF" report -i "$fx" --off-cpu --wall --fold >/dev/null 2>"$TMP/err" && fail "--off-cpu with --wall succeeded"
grep -q "^eprof: error: --off-cpu and --wall exclude each other" "$TMP/err" || { cat "$TMP/err"; fail "no message for --off-cpu --wall"; }
"$EPROF" report -i "$fx" --wall --samples >/dev/null 2>"$TMP/err" && fail "--wall --samples succeeded"
grep -q "^eprof: error: --wall weighs stacks by time" "$TMP/err" || { cat "$TMP/err"; fail "no message for --wall --samples"; }
"$EPROF" record --off-cpu-thresh 500 -o "$TMP/x.eprof" -- true 2>"$TMP/err" && fail "--off-cpu-thresh alone succeeded"
grep -q "^eprof: error: --off-cpu-thresh needs --off-cpu" "$TMP/err" || { cat "$TMP/err"; fail "no message for --off-cpu-thresh alone"; }
"$EPROF" record --off-cpu --off-cpu-thresh 0 -o "$TMP/x.eprof" -- true 2>"$TMP/err" && fail "--off-cpu-thresh 0 succeeded"
grep -q "^eprof: error: invalid off-CPU threshold '0'" "$TMP/err" || { cat "$TMP/err"; fail "no message for --off-cpu-thresh 0"; }
[ -e "$TMP/x.eprof" ] && fail "a refused record left a file"

require_root; require_btf
"$EPROF" record -q -o "$TMP/plain.eprof" -- "$WORKLOADS/offcpu_split" split 50 50 50 2>/dev/null ||
	fail "record failed"
"$EPROF" report -i "$TMP/plain.eprof" --wall --top >/dev/null 2>"$TMP/err" && fail "--wall on a recording without --off-cpu succeeded"
one_line_error "$TMP/err"
"$EPROF" info "$TMP/plain.eprof" | grep -q "off-CPU" && fail "info speaks of off-CPU time that was not recorded"

"$EPROF" record -q --off-cpu --off-cpu-thresh 100000 -o "$TMP/oc.eprof" -- "$WORKLOADS/offcpu_split" split 50 300 50 \
	2>/dev/null || fail "record --off-cpu failed"
"$EPROF" info "$TMP/oc.eprof" >"$TMP/info" || fail "info failed"
grep "^off-CPU intervals" "$TMP/info" || fail "info does not show the off-CPU intervals"
# the 300 ms sleep is an interval >= 100 ms kept with its times (on a loaded
# machine a thread may also wait that long to run again); the rest is summed
grep -q "^off-CPU intervals *[1-9][0-9]* kept with their times (>= 100000 us), [0-9]* summed; .* 0 lost" "$TMP/info" ||
	fail "info's off-CPU line is not what the recording holds"
"$EPROF" report -i "$TMP/oc.eprof" --fold >"$TMP/cpu.fold" 2>/dev/null || fail "report (samples) failed"
grep -q ';spin_phase ' "$TMP/cpu.fold" || fail "the CPU samples of an --off-cpu recording are not reported"
# Counted as time, the 300 ms sleep would be most of it (several times the
# spin); as samples it is at most the odd tick that lands as the thread is
# switched back in, beside the spin's ~5 (the recorder's ticks before the
# exec, 0-6, are no longer among them: one odd tick failed "a tenth").
awk '{ n = $NF; t += n; if ($0 ~ /do_nanosleep/) s += n } END { exit !(t > 0 && s * 2 < t) }' "$TMP/cpu.fold" ||
	fail "the default report counts off-CPU time ($(grep -c do_nanosleep "$TMP/cpu.fold") stacks in do_nanosleep)"
"$EPROF" report -i "$TMP/oc.eprof" --wall --top 5 >"$TMP/top" 2>/dev/null || fail "report --wall --top failed"
grep -q '^# eprof top: [0-9.]* ms of wall time' "$TMP/top" || { cat "$TMP/top"; fail "--wall --top does not count ms"; }
grep -q 'SELF_MS' "$TMP/top" || fail "--wall --top has no ms columns"
# pprof: samples/count, cpu/nanoseconds and off_cpu/nanoseconds (the string table)
"$EPROF" report -i "$TMP/oc.eprof" --wall --pprof "$TMP/p.pb.gz" 2>/dev/null || fail "report --wall --pprof failed"
for s in samples count cpu nanoseconds off_cpu; do
	gzip -dc "$TMP/p.pb.gz" | grep -aq "$s" || fail "the pprof profile has no '$s' string"
done
if command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1; then
	go tool pprof -sample_index=off_cpu -top "$TMP/p.pb.gz" 2>&1 | head -5
fi
exit 0
