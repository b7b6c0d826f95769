#!/bin/bash
# SPDX-License-Identifier: MIT
# t0502: two threads pinned to CPU 0 and CPU 1 run on_cpu0 and on_cpu1:
# --per-cpu and --cpu each put at least 90% of each function's samples on
# its CPU; --per-node shows the recording's nodes.
. "$E2E_DIR/lib.sh"
require_root; require_btf
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

"$EPROF" record -F 499 -o "$TMP/c.eprof" -- "$WORKLOADS/pinned" 2000 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/c.eprof" --per-cpu >"$TMP/percpu" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --per-cpu failed"; }
cat "$TMP/percpu"
# "cpu N SAMPLES SHARE", then "    COUNT SHARE FUNCTION BINARY" rows
count() { # count CPU FUNCTION
	awk -v cpu="cpu $1" -v fn="$2" '/^cpu / { cur = $1 " " $2; next }
		/^ / && cur == cpu && $3 == fn { s += $1 } END { print s + 0 }' "$TMP/percpu"
}
for f in 0 1; do
	mine=$(count $f on_cpu$f); other=$(count $((1 - f)) on_cpu$f)
	say "on_cpu$f: cpu $f $mine, cpu $((1 - f)) $other"
	[ "$mine" -ge 300 ] || fail "on_cpu$f: only $mine samples on cpu $f"
	[ $((mine * 100)) -ge $(((mine + other) * 90)) ] || fail "on_cpu$f is not on cpu $f"
done

for f in 0 1; do
	"$EPROF" report -i "$TMP/c.eprof" --cpu $f --fold >"$TMP/cpu$f.fold" 2>/dev/null ||
		fail "report --cpu $f failed"
done
"$EPROF" report -i "$TMP/c.eprof" --fold >"$TMP/all.fold" 2>/dev/null
for f in 0 1; do
	all=$(samples "$TMP/all.fold" ";on_cpu$f( |;|\$)")
	here=$(samples "$TMP/cpu$f.fold" ";on_cpu$f( |;|\$)")
	there=$(samples "$TMP/cpu$((1 - f)).fold" ";on_cpu$f( |;|\$)")
	say "--cpu: on_cpu$f $here of $all on cpu $f, $there on the other"
	[ "$all" -gt 0 ] && [ $((here * 100)) -ge $((all * 90)) ] || fail "--cpu $f misses on_cpu$f"
	[ $((here + there)) -eq "$all" ] || fail "--cpu 0 and --cpu 1 do not add up to all samples"
done

"$EPROF" report -i "$TMP/c.eprof" --per-node >"$TMP/pernode" 2>/dev/null || fail "--per-node failed"
cat "$TMP/pernode"
# the nodes of this machine whose CPUs ran the workload (cpu 0 and cpu 1)
nodes=$(for c in 0 1; do ls -d /sys/devices/system/cpu/cpu$c/node* 2>/dev/null || echo none; done |
	sed 's/.*node//' | sort -u | wc -l)
grep -q "^# $nodes NUMA node" "$TMP/pernode" || fail "--per-node does not show $nodes node(s)"
exit 0
