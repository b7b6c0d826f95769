#!/bin/bash
# SPDX-License-Identifier: MIT
# t0814: the JIT budget is per process. Five JIT processes write 100 MB
# perf maps (each read up to the 64 MiB a map may hold: together more than
# the whole 256 MiB budget) and run their JIT code; then a sixth, the victim, runs
# its JIT code with a one-line map. Reading the victim's map releases the
# largest of the others (record/jitmap.c make_room): its code is named
# (jit_hot_loop_[j]) as in a recording of it alone, and so is each big
# map's first line.
. "$E2E_DIR/lib.sh"
require_root; require_btf
[ "$(uname -m)" = x86_64 ] || skip "the JIT workload carries x86-64 machine code"

awk 'BEGIN { for (i = 0; i < 1900000; i++)
	printf "%x 10 attacker_padding_function_%09d_xxxx\n", 1099511627776 + i * 16, i }' >"$TMP/pad"
say "padding: $(stat -c %s "$TMP/pad") bytes a map"
cat >"$TMP/drive.sh" <<SH
#!/bin/bash
# four big maps, their code running; then the victim
for i in 1 2 3 4 5; do
	"$WORKLOADS/jit" 1500 "$TMP/go" & echo \$! >>"$TMP/attackers"
done
for pid in \$(cat "$TMP/attackers"); do
	for t in \$(seq 100); do [ -s /tmp/perf-\$pid.map ] && break; sleep 0.05; done
	cat "$TMP/pad" >>/tmp/perf-\$pid.map
done
touch "$TMP/go"
sleep 1
"$WORKLOADS/jit" 600 & echo \$! >"$TMP/victim"
wait
SH
chmod +x "$TMP/drive.sh"
"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$TMP/drive.sh" 2>"$TMP/rec.err"
rc=$?
for pid in $(cat "$TMP/attackers" "$TMP/victim" 2>/dev/null); do rm -f "/tmp/perf-$pid.map"; done
cat "$TMP/rec.err"
[ $rc -eq 0 ] || fail "record exited $rc"
victim=$(cat "$TMP/victim")

"$EPROF" info -i "$TMP/r.eprof" >"$TMP/info" || fail "info failed"
"$EPROF" report -i "$TMP/r.eprof" --fold --pid "$victim" >"$TMP/v.fold" 2>/dev/null || fail "report failed"
total=$(samples "$TMP/v.fold" '')
jit=$(samples "$TMP/v.fold" ';jit_hot_loop_\[j\]( |$)')
say "victim $victim: $total samples, $jit in jit_hot_loop_[j]"
[ "$total" -ge 50 ] || fail "only $total samples of the victim"
check_share "victim's jit_hot_loop_[j]" "$(share_pct "$jit" "$total")" 90 20
grep -E '^JIT maps cut' "$TMP/info"
grep -Eq '^JIT maps cut +5$' "$TMP/info" || fail "not the five big maps cut"
for pid in $(cat "$TMP/attackers"); do
	"$EPROF" report -i "$TMP/r.eprof" --fold --pid "$pid" >"$TMP/a.fold" 2>/dev/null || fail "report failed"
	a=$(samples "$TMP/a.fold" ';jit_hot_loop_\[j\]( |$)')
	t=$(samples "$TMP/a.fold" '')
	say "attacker $pid: $t samples, $a in jit_hot_loop_[j]"
	[ "$a" -gt 0 ] || fail "attacker $pid's code is not named"
done
exit 0
