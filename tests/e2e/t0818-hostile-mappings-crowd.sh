#!/bin/bash
# SPDX-License-Identifier: MIT
# t0818: one user's processes with tens of thousands of mappings fill the
# memory budget with them, but cannot take the mappings of the processes
# started after them (issue 24). Four unprivileged processes hold 60,000
# executable mappings each; `record -a --mem-limit 96M` keeps what the
# budget holds of them and refuses the rest with a warning that says why,
# and known_split, started afterwards, is still named: its mappings come
# from the reserve a process past its first 4,096 cannot draw from, and
# its symbols from the part of the budget such processes' mappings cannot
# take. Before: the crowding processes took both, and work_a/b/c went
# unnamed (0 of 518 samples).
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody

[ "$(cat /proc/sys/vm/max_map_count)" -ge 61000 ] || skip "vm.max_map_count is under 61,000"
mappers_setup
"$EPROF" record -a -F 499 --mem-limit 96M -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/r.eprof" 1 >/dev/null
# mapped while recording: the side-band brings each mapping (a scan at the
# start may skip a process whose map takes long to read)
for i in 1 2 3 4; do
	as_nobody "$WORKLOADS/mapmany" 90 60000 "$TMP/one" "$TMP/w/ready$i" &
	pids+=($!)
done
for i in $(seq 900); do
	[ "$(ls "$TMP"/w/ready* 2>/dev/null | wc -l)" -eq 4 ] && break
	sleep 0.1
done
[ "$(ls "$TMP"/w/ready* 2>/dev/null | wc -l)" -eq 4 ] || fail "the mapping processes did not get ready"
sleep 1		# the side-band's records are read
"$WORKLOADS/known_split" 1000 || fail "known_split failed"
kill -INT $rpid
wait $rpid || { cat "$TMP/rec.err"; fail "record -a failed"; }
grep -q "a process keeps no more than 4096 mappings" "$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "no warning that the crowding processes' mappings were not kept"; }
"$EPROF" info "$TMP/r.eprof" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed"; }
refused=$(awk '/^mappings not kept \(memory budget\)/ { print $NF }' "$TMP/info")
say "mappings not kept: ${refused:-none}"
[ "${refused:-0}" -ge 1000 ] 2>/dev/null || { cat "$TMP/info"; fail "the budget kept every mapping: the test did not crowd it"; }
"$EPROF" report -i "$TMP/r.eprof" --fold --comm known_split >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
total=$(samples "$TMP/fold" .)
check_at_least "known_split's samples in work_a/b/c" "$(samples "$TMP/fold" ';work_[abc](;| |$)')" "$total" 90
exit 0
