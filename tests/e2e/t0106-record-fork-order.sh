#!/bin/bash
# SPDX-License-Identifier: MIT
# t0106: a process loads a library on one CPU and forks on the other; the
# child, which spins in that library, is symbolized. (Each CPU's side-band
# records arrive in their own buffer: the fork must not be applied before
# the parent's mmap that precedes it in time.)
. "$E2E_DIR/lib.sh"
require_root; require_btf
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

for run in 1 2 3; do
	"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$WORKLOADS/fork_after_dlopen" \
		"$WORKLOADS/libhotlib.so" 400 2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record failed"; }
	"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" || fail "report failed"
	total=$(samples "$TMP/fold" '.')
	hot=$(samples "$TMP/fold" ';main;hotlib_spin( |;|$)')
	say "run $run: $hot of $total samples in main;hotlib_spin"
	[ "$total" -ge 200 ] || fail "only $total samples"
	[ $((hot * 100)) -ge $((total * 90)) ] || { sort -t' ' -k2 -nr "$TMP/fold" | head -5; fail "the child's library frames are not named"; }
done
exit 0
