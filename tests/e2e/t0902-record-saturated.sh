#!/bin/bash
# SPDX-License-Identifier: MIT
# t0902: on a saturated machine (BUSY CPU-bound loops beside it, default
# 100 on this 2-CPU host), `record -a -d 2` keeps its duration as far as
# eprof can: what runs before main() (exec, the dynamic loader) is the
# scheduler's business at the caller's priority, and -d counts it; from
# main() on, the start-up (BPF load, the /proc scan, which once waited
# 219 s for a starved process's memory-map lock) takes at most a second, the
# recording ends by the later of -d and that start-up, plus a second, and
# exiting takes no time (the unwind builders once kept a dead recorder a
# zombie for seconds). And it accounts for every expected tick: taken, or
# lost with a reason; never "0 lost" when samples are missing.
#
# The timing is taken by a real-time shell that starts eprof as an ordinary
# task (chrt -o 0), so the measurement itself is not starved.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd chrt
busy=${BUSY:-100}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq "$busy"); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
sleep 1

EPROF="$EPROF" OUT="$TMP/s.eprof" chrt -f 1 bash -c '
	t0=$EPOCHREALTIME
	chrt -o 0 "$EPROF" record -v -v -a -F 999 -d 2 -o "$OUT"
	rc=$?
	t1=$EPOCHREALTIME
	echo "wall ${t0/./} ${t1/./} $rc"' 2>"$TMP/rec.err" >"$TMP/wall" ||
	fail "cannot run a real-time shell (chrt -f 1)"
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()
grep -v '^eprof: debug: read \|^libbpf' "$TMP/rec.err" | grep -E 'since|loaded at|scanned at|released at|recorded|warning|error'
read -r _ t0 t1 rc <"$TMP/wall"
[ "$rc" = 0 ] || fail "record failed ($rc)"
at() { sed -n "s/^eprof: debug: $1 \([0-9.]*\) s.*/\1/p" "$TMP/rec.err" | head -1; }
main=$(sed -n "s/^eprof: debug: \([0-9.]*\) s since eprof's exec/\1/p" "$TMP/rec.err")
loaded=$(at "BPF sampler loaded at")
scanned=$(at "processes scanned at")
released=$(at "released at")
[ -n "$main" ] && [ -n "$loaded" ] && [ -n "$scanned" ] && [ -n "$released" ] ||
	fail "record -v -v does not time its steps"
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
say "$busy busy loops: main() at $main s, BPF loaded at $loaded s, /proc scanned at $scanned s, released at $released s, exit seen at $wall s"
awk -v m="$main" -v s="$scanned" -v r="$released" -v w="$wall" 'BEGIN {
	late = m + 1 > 2 ? m + 1 : 2
	if (s - m > 1) { print "start-up took " s - m " s after main()"; bad = 1 }
	if (r > late + 1) { print "released at " r " s, later than " late " + 1 s"; bad = 1 }
	if (w - r > 1) { print "exit took " w - r " s after the last step"; bad = 1 }
	exit bad }' || fail "record -a -d 2 did not keep its time with $busy busy loops"

line=$(grep '^eprof: recorded' "$TMP/rec.err") || fail "no summary line"
taken=$(echo "$line" | sed -n 's/^eprof: recorded \([0-9]*\) samples.*/\1/p')
lost=$(echo "$line" | sed -n 's/^eprof: recorded [0-9]* samples (\([0-9]*\) lost,.*/\1/p')
expected=$(echo "$line" | sed -n 's/.*; \([0-9]*\) ticks expected: .*/\1/p')
if [ -z "$expected" ]; then
	# Nothing lost: then nothing may be missing either, which info checks below.
	[ "$lost" = 0 ] || fail "lost $lost samples without saying why: $line"
fi
"$EPROF" info "$TMP/s.eprof" >"$TMP/info" 2>"$TMP/info.err" || { cat "$TMP/info.err"; fail "info failed"; }
sed -n '/^samples/,/^lost samples/p;/^ticks:/,/^$/p' "$TMP/info"
exp_info=$(sed -n 's/^ticks: \([0-9]*\) expected,.*/\1/p' "$TMP/info")
[ -n "$exp_info" ] || fail "info does not say how many ticks were expected"
[ -z "$expected" ] || [ "$expected" = "$exp_info" ] || fail "record expected $expected ticks, info $exp_info"
# -a: every expected tick is a sample taken, a sample lost with its reason, or
# a tick that did not fire (an idle CPU stops its timer: no loss, said apart).
missed=$(echo "$line" | sed -n 's/.*; \([0-9]*\) ticks did not fire (.*/\1/p')
[ $((taken + lost + ${missed:-0})) -eq "$exp_info" ] ||
	fail "$taken taken + $lost lost + ${missed:-0} not fired is not the $exp_info ticks expected"
cpus=$(awk '/^CPU +EXPECTED/ { t = 1; next } t && NF == 0 { t = 0 } t { n++ } END { print n + 0 }' "$TMP/info")
[ "$cpus" -ge 1 ] || fail "info has no per-CPU rows"
# The clock ran from the end of the start-up to the end: so many ticks at 999 Hz.
span=$(awk -v s="$scanned" -v r="$released" 'BEGIN { d = r - s - 0.5; print d > 0 ? int(d * 999) : 0 }')
[ "$exp_info" -ge $((cpus * span)) ] || fail "only $exp_info ticks expected on $cpus CPUs at 999 Hz"
awk '/^CPU +EXPECTED/ { t = 1; next } t && NF == 0 { t = 0 }
	t && $2 != $3 + $4 + $5 + $6 + $7 + $8 { print; bad = 1 } END { exit bad }' "$TMP/info" ||
	fail "a CPU's expected ticks do not add up"
exit 0
