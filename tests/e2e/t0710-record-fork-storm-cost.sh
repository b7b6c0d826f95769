#!/bin/bash
# SPDX-License-Identifier: MIT
# t0710: a fork storm of short processes under `record -p`: their stacks
# are whole from the first tick, and the recorder's CPU stays below 30% of
# the workload's over the same stretch of steady state (/proc/PID/stat
# of both; the workload is not the recorder's child here, and its reaped
# children count). Each fork copies its parent's mappings through an
# index, whatever the number kept (record/session.c).
. "$E2E_DIR/lib.sh"
require_root; require_btf

# a shell that forks a 5 ms process again and again (bounded: 3000 of them)
sh -c 'i=0; while [ $i -lt 3000 ]; do "$1" 5; i=$((i + 1)); done' sh "$WORKLOADS/short_lived" &
loop=$!
"$EPROF" record -F 999 -d 12 -p "$loop" -o "$TMP/s.eprof" 2>"$TMP/err" &
rec=$!
trap 'kill $loop $rec 2>/dev/null; rm -rf "$TMP"' EXIT
# CPU ticks of a process, its threads and reaped children included
ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"; }
# The steady state, from the first commit (the BPF program is loaded),
# until the workload has run 100 ticks (1 s of CPU) or 8 s have passed: a
# loaded machine gives it less CPU, and the recorder's fixed cost (its
# commits and timers, a few ticks a second) must not count for more.
wait_committed "$TMP/s.eprof" 1 >/dev/null
r0=$(ticks "$rec"); w0=$(ticks "$loop")
for _ in $(seq 16); do
	sleep 0.5
	[ $(($(ticks "$loop") - w0)) -ge 100 ] && break
done
r1=$(ticks "$rec"); w1=$(ticks "$loop")
kill -INT "$rec" 2>/dev/null
wait "$rec" || { cat "$TMP/err"; fail "record -p failed"; }
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null
rec_t=$((r1 - r0)); work_t=$((w1 - w0))
[ "$work_t" -gt 20 ] || fail "the loop ran only $work_t ticks of CPU in 8 s"
say "in steady state: recorder $rec_t ticks of CPU, workload $work_t"
awk -v r="$rec_t" -v w="$work_t" 'BEGIN { exit !(r < 0.3 * w) }' ||
	fail "the recorder used $rec_t ticks of CPU for $work_t of the workload's (want < 30%)"

"$EPROF" report -i "$TMP/s.eprof" --fold >"$TMP/all.fold" 2>/dev/null || fail "report failed"
# (entry_counts leaves out stacks in an exec, and takes ld.so's
# _dl_start_user as an entry.)
say "$(grep -c ';bprm_execve_\[k\]' "$TMP/all.fold") stack lines in an exec left out"
n=$(samples "$TMP/all.fold" '^short_lived;')
[ "$n" -ge 100 ] || fail "too few samples of the short processes ($n)"
check_complete "short processes from their first tick" "$TMP/all.fold" short_lived 99
# The shell forks with vfork (glibc's keeps its return address in rdi
# across the syscall), and its vfork children walk the parent's memory:
# their stacks are whole too.
n=$(samples "$TMP/all.fold" '^sh;')
[ "$n" -ge 10 ] || fail "too few samples of the forking shell ($n)"
check_complete "the forking shell and its vfork children" "$TMP/all.fold" sh 95
exit 0
