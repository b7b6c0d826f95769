#!/bin/bash
# SPDX-License-Identifier: MIT
# t0813: known_split with a sparse 2 GiB .eh_frame and a 40 M-entry .symtab
# (its real entries first), a few KB on disk (tests/workloads/gen_bigsect):
# the recorder reads neither section whole. Its peak memory, which the
# recording stores, stays under the ceiling it states (512 MiB); the binary
# is unwound with frame pointers and named from the first 2 Mi entries of
# its .symtab; one warning of each kind names it.
. "$E2E_DIR/lib.sh"
require_root; require_btf

bin="$TMP/ks_big"
"$WORKLOADS/gen_bigsect" "$WORKLOADS/known_split" "$bin" 2048 40 || fail "cannot build the binary"
say "on disk: $(du -k "$bin" | cut -f1) KiB, apparent $(du -k --apparent-size "$bin" | cut -f1) KiB"
"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$bin" 1500 2>"$TMP/rec.err" ||
	{ cat -v "$TMP/rec.err"; fail "record failed"; }
cat -v "$TMP/rec.err"
[ "$(grep -c "unwind table of '$bin' is over eprof's bounds" "$TMP/rec.err")" -eq 1 ] ||
	fail "not one warning about the unwind table of $bin"
[ "$(grep -c "'$bin': its symbol tables are over eprof's bounds" "$TMP/rec.err")" -eq 1 ] ||
	fail "not one warning about the symbol tables of $bin"

"$EPROF" info -i "$TMP/r.eprof" >"$TMP/info" || fail "info failed"
ceiling=$(awk '/^memory ceiling \(bytes\)/ { print $NF }' "$TMP/info")
peak=$(awk '/^peak memory \(bytes\)/ { print $NF }' "$TMP/info")
[ "$ceiling" = 536870912 ] || fail "info states the ceiling '$ceiling', not 536870912"
[ -n "$peak" ] && [ "$peak" -gt 0 ] || fail "info states no peak memory"
[ "$peak" -lt "$ceiling" ] || fail "the recorder peaked at $peak bytes, over its ceiling $ceiling"
say "recorder peak $((peak >> 20)) MiB of a $((ceiling >> 20)) MiB ceiling"

"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" || fail "report failed"
total=$(samples "$TMP/fold" '^ks_big;')
a=$(samples "$TMP/fold" '^ks_big;(.*;)?work_a([; ]|$)')
[ "$total" -ge 100 ] || fail "only $total samples of ks_big"
check_share work_a "$(share_pct "$a" "$total")" 60 15
grep -q ';dispatch;work_b' "$TMP/fold" || fail "no dispatch;work_b stack (frame pointers)"
exit 0
