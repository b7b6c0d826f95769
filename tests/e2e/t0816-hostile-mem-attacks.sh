#!/bin/bash
# SPDX-License-Identifier: MIT
# t0816: the memory ceiling holds whatever users do at once. Under
# `record -a --mem-limit 128M`, an unprivileged user runs together: four
# JIT processes whose perf maps are 60 MB each (their code running, so the
# maps are read), a thread renaming itself in a loop, a fork storm of
# short processes, and a process holding 1,500 executable mappings of
# distinct files. The recorder's peak resident set, read from /proc while
# it runs and as the recording states it, stays under the ceiling; what
# did not fit is counted in info (JIT maps cut), and a warning names it
# once; the renames make a bounded number of name rows.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd sqlite3; require_nobody
[ "$(uname -m)" = x86_64 ] || skip "the JIT workload carries x86-64 machine code"

LIMIT_MIB=128
SECS=8

mkdir -p "$TMP/many" "$TMP/w"
for i in $(seq 0 1499); do printf "\177ELF%4092s" "" >"$TMP/many/$i"; done
awk 'BEGIN { for (i = 0; i < 1200000; i++)
	printf "%x 10 attacker_padding_function_%09d_xxxx\n", 1099511627776 + i * 16, i }' >"$TMP/pad"
chmod -R a+rX "$TMP"; chmod 777 "$TMP/w"

# the attacks, as nobody, bounded in time; stopped by the recorder's end at the latest
cat >"$TMP/attack.sh" <<SH
#!/bin/bash
for i in 1 2 3 4; do
	"$WORKLOADS/jit" 1500 "$TMP/w/go" & echo \$! >>"$TMP/w/jits"
done
for pid in \$(cat "$TMP/w/jits"); do
	for t in \$(seq 100); do [ -s /tmp/perf-\$pid.map ] && break; sleep 0.05; done
	cat "$TMP/pad" >>/tmp/perf-\$pid.map
done
"$WORKLOADS/mapmany" $SECS 1500 "$TMP/many" "$TMP/w/ready" &
"$WORKLOADS/renamer" $SECS 1000 >"$TMP/w/renames" &
end=\$((SECONDS + $SECS)); while [ \$SECONDS -lt \$end ] && [ ! -e "$TMP/w/stop" ]; do "$WORKLOADS/short_lived" 1; done &
touch "$TMP/w/go"
wait
SH
chmod +x "$TMP/attack.sh"
cleanup() {
	touch "$TMP/w/stop" 2>/dev/null
	[ -n "${apid:-}" ] && pkill -P "$apid" 2>/dev/null
	for pid in $(cat "$TMP/w/jits" 2>/dev/null); do kill "$pid" 2>/dev/null; rm -f "/tmp/perf-$pid.map"; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

"$EPROF" record -a -F 499 -d $((SECS + 3)) --mem-limit ${LIMIT_MIB}M -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/r.eprof" 1 >/dev/null
as_nobody "$TMP/attack.sh" &
apid=$!
hwm=$(peak_rss_kib "$rpid")
wait "$rpid" || { cat "$TMP/rec.err"; fail "record -a failed"; }
touch "$TMP/w/stop"
wait "$apid"
cat "$TMP/rec.err"

"$EPROF" info "$TMP/r.eprof" >"$TMP/info" || fail "info failed"
ceiling=$(awk '/^memory ceiling \(bytes\)/ { print $NF }' "$TMP/info")
peak=$(awk '/^peak memory \(bytes\)/ { print $NF }' "$TMP/info")
cut=$(awk '/^JIT maps cut/ { print $NF }' "$TMP/info")
folded=$(awk '/^name rows folded/ { print $NF }' "$TMP/info")
renames=$(cat "$TMP/w/renames")
rows=$(sqlite3 "$TMP/r.eprof" "SELECT coalesce(sum(nr_comms), 0) FROM comm_chunk")
say "peak $((hwm >> 10)) MiB (/proc), $((peak >> 20)) MiB (recording), ceiling $LIMIT_MIB MiB;" \
	"JIT maps cut: $cut; $renames renames, $rows name rows in all, $folded folded"
check_under_ceiling "$LIMIT_MIB" "$ceiling" "$peak" "$hwm"
# the perf maps did not fit: cut, counted, and the first one named in one warning
[ "${cut:-0}" -ge 1 ] || fail "info counts '$cut' JIT maps cut"
n=$(grep -c "warning: '/tmp/perf-[0-9]*\.map' is [0-9]* bytes: read" "$TMP/rec.err")
[ "$n" -eq 1 ] || fail "$n warnings name a cut perf map, not one"
# a name row per rename would be hundreds of thousands
[ "$renames" -gt 10000 ] || fail "only $renames renames"
[ "$rows" -le 5000 ] || fail "$rows name rows for $renames renames"
[ "${folded:-0}" -gt 0 ] || fail "info counts '$folded' name rows folded"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
exit 0
