#!/bin/bash
# SPDX-License-Identifier: MIT
# t0902: on a saturated machine (BUSY CPU-bound loops beside it, default 20
# on this 2-CPU host), `record -a -d 2` keeps its duration: it ends within
# 2 + 1 s of its start, plus 1.5 s of slack for the shell's own fork and
# exec under that load. And it accounts for every expected tick: taken, or
# lost with a reason; never "0 lost" when samples are missing.
. "$E2E_DIR/lib.sh"
require_root; require_btf
busy=${BUSY:-20}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq "$busy"); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
sleep 1

t0=$(date +%s%N)
"$EPROF" record -a -F 999 -d 2 -o "$TMP/s.eprof" 2>"$TMP/rec.err"
rc=$?
t1=$(date +%s%N)
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()
cat "$TMP/rec.err"
[ "$rc" = 0 ] || fail "record failed ($rc)"
ms=$(((t1 - t0) / 1000000))
say "record -a -d 2 with $busy busy loops took $ms ms"
[ "$ms" -le 4500 ] || fail "record -a -d 2 took $ms ms with $busy busy loops (limit 2000 + 1000 + 1500 slack)"

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
# -a: every expected tick is a sample taken or a sample lost with its reason.
[ $((taken + lost)) -eq "$exp_info" ] ||
	fail "$taken taken + $lost lost is not the $exp_info ticks expected"
# A 2 s window at 999 Hz on every CPU: the clock was enabled for most of it.
cpus=$(awk '/^CPU +EXPECTED/ { t = 1; next } t && NF == 0 { t = 0 } t { n++ } END { print n + 0 }' "$TMP/info")
[ "$cpus" -ge 1 ] || fail "info has no per-CPU rows"
[ "$exp_info" -ge $((cpus * 999)) ] || fail "only $exp_info ticks expected on $cpus CPUs in 2 s at 999 Hz"
awk '/^CPU +EXPECTED/ { t = 1; next } t && NF == 0 { t = 0 }
	t && $2 != $3 + $4 + $5 + $6 + $7 + $8 { print; bad = 1 } END { exit bad }' "$TMP/info" ||
	fail "a CPU's expected ticks do not add up"
exit 0
