#!/bin/bash
# SPDX-License-Identifier: MIT
# t1202: lock contention under record --off-cpu (issue 12). A holder thread
# sleeps with a mutex held while a waiter asks for it, ROUNDS times: the
# waiter's blocked time is in futex_wait under pthread_mutex_lock, as long
# as the holder kept the lock off the CPU (within 10%): asleep, then
# runnable until a CPU let it unlock (`--wall`'s [runnable] after its
# sleep; on a loaded machine that wait is a sixth of the hold), and a
# longer hold gives as many times more blocked time as the holder lived
# (within 10%).
. "$E2E_DIR/lib.sh"
require_root; require_btf

# futex_us HOLD_MS: records 15 rounds; prints "waiter_futex_us holder_held_us"
futex_us() {
	local w wr
	"$EPROF" record -q --off-cpu -o "$TMP/m$1.eprof" -- "$WORKLOADS/offcpu_split" mutex 15 "$1" \
		2>"$TMP/rec$1.err" || { cat "$TMP/rec$1.err" >&2; fail "record --off-cpu failed"; }
	"$EPROF" report -i "$TMP/m$1.eprof" --wall --fold >"$TMP/m$1.fold" 2>"$TMP/rep$1.err" ||
		{ cat "$TMP/rep$1.err" >&2; fail "report --wall failed"; }
	# by thread (waiter, holder): a stack taken before the recorder built
	# libc's unwind table takes a frame-pointer step that skips the caller.
	# The waiter blocked (its [runnable] after the unlock left out); the
	# holder asleep and [runnable] after, both with the lock.
	w=$(samples "$TMP/m$1.fold" ';waiter;.*;futex_wait[a-z_]*_\[k\]')
	wr=$(samples "$TMP/m$1.fold" ';waiter;.*;futex_wait[a-z_]*_\[k\].*;\[runnable\]')
	echo "$((w - wr)) $(samples "$TMP/m$1.fold" ';holder;.*;do_nanosleep_\[k\]')"
}

read -r w10 h10 < <(futex_us 10)
read -r w30 h30 < <(futex_us 30)
say "hold 10 ms x 15: waiter in futex_wait $w10 us, holder off the CPU with the lock $h10 us"
say "hold 30 ms x 15: waiter in futex_wait $w30 us, holder off the CPU with the lock $h30 us"
cut -c1-300 "$TMP/m30.fold"
for p in "$w10 $h10" "$w30 $h30"; do
	set -- $p
	[ "$1" -gt 0 ] || fail "no blocked time in futex_wait in the waiter"
	awk -v w="$1" -v h="$2" 'BEGIN { d = w - h; if (d < 0) d = -d; exit !(h > 0 && d <= h / 10) }' ||
		fail "waiter blocked $1 us in the futex, the holder held the lock off the CPU $2 us: not within 10%"
done
# The holds are sleeps: a loaded machine wakes the holder late and
# stretches them, so the ratio to expect is the one the holder lived.
awk -v a="$w10" -v b="$w30" -v c="$h10" -v d="$h30" \
	'BEGIN { r = (b / a) / (d / c); exit !(r >= 0.9 && r <= 1.1) }' ||
	fail "the longer hold gave x$(awk -v a="$w10" -v b="$w30" 'BEGIN { printf "%.2f", b / a }') the blocked time, the holds differ x$(awk -v a="$h10" -v b="$h30" 'BEGIN { printf "%.2f", b / a }')"
say "blocked time follows the contention: x$(awk -v a="$w10" -v b="$w30" 'BEGIN { printf "%.2f", b / a }') for holds x$(awk -v a="$h10" -v b="$h30" 'BEGIN { printf "%.2f", b / a }')"
exit 0
