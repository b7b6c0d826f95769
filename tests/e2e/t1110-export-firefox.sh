#!/bin/bash
# SPDX-License-Identifier: MIT
# t1110: report --firefox (issue 21) checked against Firefox Profiler's
# processed profile format (version 70, as the profiler's source types
# document it) by tests/browser/firefox_check.js: required fields, table
# lengths, every index in range, sample times in order. Firefox Profiler is
# not on the npm registry, so its importer cannot be run here; the checker
# stands in for it. Then what the profiler would show:
#  - a recording built by construction (gen_busy): a track per thread with
#    its samples (app 480, swapper 100), spin the top self function; two of
#    them (-i twice): four tracks, each recording's processes apart;
#  - a real one (known_split): the top self function and its count are the
#    fold output's, and the tracks hold every sample the fold counts;
#  - an --off-cpu one (offcpu_split): the main thread's sleep and wait are
#    Blocked interval markers, their stacks through sleep_phase and
#    wait_phase, each within 10% of what the workload measured, and its
#    spin_phase samples lie before the sleep marker (samples and markers
#    on one clock).
. "$E2E_DIR/lib.sh"
require_cmd node
CHECK="$E2E_DIR/../browser/firefox_check.js"

# top_self FOLD: "NAME COUNT" of the leaf with the most samples
top_self() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n }
	     END { for (x in s) if (s[x] > best) { best = s[x]; name = x }; print name "\t" best }' "$1"
}

"$WORKLOADS/gen_busy" "$TMP/b.eprof" || fail "gen_busy failed"
"$EPROF" report -i "$TMP/b.eprof" --firefox "$TMP/b.json" 2>"$TMP/err" || { cat "$TMP/err"; fail "--firefox failed"; }
node "$CHECK" "$TMP/b.json" >"$TMP/b" 2>"$TMP/chk.err" || { cat "$TMP/chk.err"; fail "not Firefox Profiler's processed format"; }
cat "$TMP/b"
[ "$(grep '^thread' "$TMP/b")" = "$(printf 'thread\tapp\t100\t480\t0\nthread\tswapper\t0\t100\t0')" ] ||
	fail "the tracks are not app (480 samples) and swapper (100)"
grep -qx 'top	spin	480' "$TMP/b" || fail "spin is not the top self function of app with 480 samples"

# two recordings: each its own processes (pids 100 and 100:1), every sample kept
"$WORKLOADS/gen_busy" "$TMP/b2.eprof" || fail "gen_busy failed"
"$EPROF" report -i "$TMP/b.eprof" -i "$TMP/b2.eprof" --firefox "$TMP/b2.json" 2>/dev/null || fail "--firefox of two -i failed"
node "$CHECK" "$TMP/b2.json" >"$TMP/b2" 2>"$TMP/chk.err" || { cat "$TMP/chk.err"; fail "two -i: not the processed format"; }
[ "$(grep -c '^thread' "$TMP/b2")" = 4 ] && [ "$(awk -F'\t' '$1 == "thread" { s += $4 } END { print s }' "$TMP/b2")" = 1160 ] ||
	fail "two -i: not four tracks with 1160 samples"
node -e 'const p = require(process.argv[1]); const s = new Set(p.threads.map((t) => t.pid));
	process.exit(s.size === 4 ? 0 : 1)' "$TMP/b2.json" || fail "two -i: the recordings' processes share pids"

if [ "$(id -u)" != 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	say "not root or no BTF: the recorded halves are left out"
	exit 0
fi
"$EPROF" record -F 499 -o "$TMP/k.eprof" -- "$WORKLOADS/known_split" 1500 >/dev/null 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/k.eprof" --fold >"$TMP/k.fold" 2>/dev/null || fail "--fold failed"
"$EPROF" report -i "$TMP/k.eprof" --firefox "$TMP/k.json" 2>/dev/null || fail "--firefox failed"
node "$CHECK" "$TMP/k.json" >"$TMP/k" 2>"$TMP/chk.err" || { cat "$TMP/chk.err"; fail "not Firefox Profiler's processed format"; }
head -5 "$TMP/k"
want=$(top_self "$TMP/k.fold")
[ "${want%%	*}" = work_a ] || fail "the fold's top self function is '$want', not work_a"
got=$(awk -F'\t' '$1 == "top" { print $2 "\t" $3 }' "$TMP/k")
[ "$got" = "$want" ] || fail "the profile's top self function is '$got', the fold's '$want'"
total=$(awk '{ s += $NF } END { print s }' "$TMP/k.fold")
tracks=$(awk -F'\t' '$1 == "thread" { s += $4 } END { print s }' "$TMP/k")
[ "$tracks" = "$total" ] || fail "the tracks hold $tracks samples, the fold $total"

"$EPROF" record --off-cpu -F 499 -o "$TMP/o.eprof" -- "$WORKLOADS/offcpu_split" split 300 400 300 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record --off-cpu failed"; }
tid=$(awk '$1 == "main" && $2 == "tid" { print $3 }' "$TMP/rec.err")
slp=$(awk '$1 == "phase" && $2 == "sleep" { print $3 }' "$TMP/rec.err")
wait=$(awk '$1 == "phase" && $2 == "wait" { print $3 }' "$TMP/rec.err")
[ -n "$tid" ] && [ -n "$slp" ] && [ -n "$wait" ] || fail "the workload did not say its phases"
"$EPROF" report -i "$TMP/o.eprof" --firefox "$TMP/o.json" 2>/dev/null || fail "--firefox failed"
node "$CHECK" "$TMP/o.json" spin_phase >"$TMP/o" 2>"$TMP/chk.err" ||
	{ cat "$TMP/chk.err"; fail "not Firefox Profiler's processed format"; }
grep -v '^marker.*Runnable' "$TMP/o" | cut -c1-200
# marker_ms PHASE: the duration of the main thread's Blocked marker through PHASE
marker_ms() {
	awk -F'\t' -v t="$tid" -v f="$1" '$1 == "marker" && $2 == t && $3 == "Blocked" &&
		$7 ~ ("(^|;)" f ";") { print $4; n++ } END { if (n != 1) print "markers:" n }' "$TMP/o"
}
for ph in "sleep_phase $slp" "wait_phase $wait"; do
	set -- $ph
	ms=$(marker_ms "$1")
	awk -v ms="$ms" -v ns="$2" 'BEGIN { exit !(ms + 0 > 0 && ms * 1e6 > 0.9 * ns && ms * 1e6 < 1.1 * ns) }' ||
		fail "the Blocked marker through $1 lasts '$ms' ms, the workload measured $2 ns"
	say "$1: a Blocked marker of $ms ms (measured $2 ns)"
done
sleep_start=$(awk -F'\t' -v t="$tid" '$1 == "marker" && $2 == t && $3 == "Blocked" && $7 ~ /(^|;)sleep_phase;/ { print $5 }' "$TMP/o")
last_spin=$(awk -F'\t' -v t="$tid" '$1 == "range" && $2 == t && $3 == "spin_phase" { print $5 }' "$TMP/o")
[ -n "$last_spin" ] || fail "no spin_phase samples on the main thread's track"
# one sampling period (2 ms at 499 Hz) of slack at the edge
awk -v a="$last_spin" -v b="$sleep_start" 'BEGIN { exit !(a <= b + 2.1) }' ||
	fail "spin_phase sampled at $last_spin ms, after the sleep began at $sleep_start ms"
say "--firefox is Firefox Profiler's processed format, with the right top function and off-CPU markers"
