#!/bin/bash
# SPDX-License-Identifier: MIT
# t0901: ticks the kernel throttles are counted as lost, per CPU, in the
# record summary, in info and in the report's closing line. Throttling is
# forced by lowering kernel.perf_event_max_sample_rate to 1000 for a second
# while `record -a -F 9999` runs (the kernel then allows 4 interrupts per
# scheduler tick instead of 400); the old value is restored on any exit.
# Other recorders on the host see the lower limit for that second.
. "$E2E_DIR/lib.sh"
require_root; require_btf
knob=/proc/sys/kernel/perf_event_max_sample_rate
[ -w "$knob" ] || skip "cannot write $knob"
pct=$(cat /proc/sys/kernel/perf_cpu_time_max_percent 2>/dev/null || echo 0)
[ "$pct" -gt 0 ] && [ "$pct" -lt 100 ] || skip "throttling is off (perf_cpu_time_max_percent=$pct)"
orig=$(cat "$knob")
[ "$orig" -ge 9999 ] || skip "$knob is $orig: cannot record at 9999 Hz"
trap 'echo "$orig" >"$knob"; rm -rf "$TMP"' EXIT

# -v says "recording ..." once the clocks are open: lowering the limit
# before that would make opening them at 9999 Hz fail.
"$EPROF" record -v -a -F 9999 -d 4 -o "$TMP/t.eprof" 2>"$TMP/rec.err" &
rec=$!
wait_started "$rec" "$TMP/rec.err"
sleep 0.5
echo 1000 >"$knob" || fail "cannot lower $knob"
sleep 1
echo "$orig" >"$knob"
wait "$rec" || { cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"
[ "$(cat "$knob")" = "$orig" ] || fail "$knob was not restored"

# record: "(L lost, ...) ...; E ticks expected: T throttled, R ring buffer full[; M ticks
# did not fire (...)]": a tick that did not fire (an idle CPU's stopped timer) is no loss
line=$(grep '^eprof: recorded' "$TMP/rec.err") || fail "no summary line"
read -r taken lost expected throttled rbfull < <(echo "$line" | sed -n \
	's/^eprof: recorded \([0-9]*\) samples (\([0-9]*\) lost,.*; \([0-9]*\) ticks expected: \([0-9]*\) throttled, \([0-9]*\) ring buffer full\(;.*\)\{0,1\}$/\1 \2 \3 \4 \5/p')
[ -n "${rbfull:-}" ] || fail "the summary line does not break the loss down: $line"
missed=$(echo "$line" | sed -n 's/.*; \([0-9]*\) ticks did not fire (idle CPUs stop their timer; else a late timer)$/\1/p')
echo "$line" | grep -q 'missed\|did not fire' && [ -z "$missed" ] && fail "ticks that did not fire not said at the end: $line"
missed=${missed:-0}
say "taken $taken, lost $lost of $expected expected: $throttled throttled, $rbfull ring buffer full; $missed did not fire"
# A second at 1000/s allows ~5 of every 40 ticks on each CPU: thousands are throttled.
[ "$throttled" -ge 1000 ] || fail "only $throttled ticks throttled in a throttled second"
[ "$lost" -eq $((throttled + rbfull)) ] || fail "lost $lost is not throttled + ring buffer full"
[ $((taken + lost + missed)) -eq "$expected" ] || fail "taken + lost + not fired ($taken + $lost + $missed) is not the $expected expected"

"$EPROF" info "$TMP/t.eprof" >"$TMP/info" 2>"$TMP/info.err" || { cat "$TMP/info.err"; fail "info failed"; }
sed -n '/^lost samples/p;/^ticks:/,/^$/p' "$TMP/info"
grep -Eq "^lost samples +$lost \($throttled throttled, " "$TMP/info" || fail "info's lost samples differ from record's"
grep -Eq "^ticks: $expected expected, .* $throttled throttled \([1-9][0-9]* times\)" "$TMP/info" ||
	fail "info does not show the throttled ticks and how often"
# Per CPU, every expected tick is taken, throttled, missed, lost in the ring
# buffer or unaccounted; a throttled CPU says so in its GAP column.
awk '/^CPU +EXPECTED/ { t = 1; next } t && NF == 0 { t = 0 }
	t { if ($2 != $3 + $4 + $5 + $6 + $7 + $8) { print "CPU " $1 ": " $0; bad = 1 }
	    if ($4 > 0 && $0 !~ /throttled/) { print "CPU " $1 " gap does not say throttled"; bad = 1 }
	    n++ }
	END { exit bad || n < 1 }' "$TMP/info" || fail "a CPU's expected ticks do not add up"

"$EPROF" report -i "$TMP/t.eprof" --top 3 >/dev/null 2>"$TMP/rep.err" || { cat "$TMP/rep.err"; fail "report failed"; }
# report: ticks that did not fire are no lost samples (idle CPUs stop their timer), said apart
rlost=$lost
if [ "$missed" -gt 0 ]; then fired="$missed ticks did not fire"; else fired=""; fi
grep -Eq "^eprof: $taken samples, $rlost lost \($throttled throttled, $rbfull ring buffer full\), $fired" "$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report's closing line does not count the throttled ticks as lost"; }
exit 0
