#!/bin/bash
# SPDX-License-Identifier: MIT
# t0809: /tmp/perf-PID.map is any user's to write. A map owned by another
# user than the process's (and not by root) is not read: root's JIT
# process whose map was handed to nobody gets no JIT names; nobody's own
# JIT process, with nobody's own map, is named.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody
[ "$(uname -m)" = x86_64 ] || skip "the JIT workload carries x86-64 machine code"

maps=()
cleanup() { rm -f "${maps[@]}"; rm -rf "$TMP"; }
trap cleanup EXIT
mkdir -p "$TMP/w" && chmod 777 "$TMP/w"

# jit_run WHO WHAT NAME: runs the JIT workload (as WHO: root or nobody) under
# record into NAME.eprof, its map given to nobody before it runs when WHAT is chown
jit_run() {
	local who=$1 what=$2 pid i run=()
	[ "$who" = nobody ] && run=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	rm -f "$TMP/w/go"
	"$EPROF" record -F 999 -o "$TMP/$3.eprof" -- "${run[@]}" "$WORKLOADS/jit" 500 "$TMP/w/go" \
		2>"$TMP/rec.err" &
	rec=$!
	for i in $(seq 600); do
		pid=$(pgrep -f "^$WORKLOADS/jit 500 $TMP/w/go\$" | head -1)
		[ -n "$pid" ] && [ -e "/tmp/perf-$pid.map" ] && break
		sleep 0.1
	done
	[ -e "/tmp/perf-$pid.map" ] || fail "$3: the JIT workload wrote no map"
	maps+=("/tmp/perf-$pid.map")
	[ "$what" = chown ] && chown nobody "/tmp/perf-$pid.map"
	touch "$TMP/w/go"
	wait $rec || { cat "$TMP/rec.err"; fail "$3: record failed"; }
	"$EPROF" report -i "$TMP/$3.eprof" --fold >"$TMP/$3.fold" 2>/dev/null || fail "$3: report failed"
}

jit_run root chown handed
jit=$(samples "$TMP/handed.fold" 'jit_hot_loop_\[j\]')
[ "$jit" = 0 ] || fail "root's JIT code named from a map another user owns ($jit samples)"
say "a map owned by nobody names none of root's JIT code"

jit_run nobody keep own
total=$(samples "$TMP/own.fold" .)
check_at_least "nobody's JIT code named from nobody's map" "$(samples "$TMP/own.fold" 'jit_hot_loop_\[j\]')" "$total" 80
exit 0
