#!/bin/bash
# SPDX-License-Identifier: MIT
# t0702: a hot leaf without a frame (-O2 -fno-omit-frame-pointer
# -momit-leaf-frame-pointer), called 70/30 from caller_a and caller_b, is
# attributed to each caller within 3 points, with the chain down to main
# and _start. A frame-pointer walk (--call-graph fp) loses the caller: it
# never shows caller_a or caller_b under the leaf.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/d.eprof" -- "$WORKLOADS/frameless" 300 2>"$TMP/d.err" ||
	{ cat "$TMP/d.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/d.eprof" --fold >"$TMP/d.fold" 2>/dev/null || fail "report failed"
leaf=$(samples "$TMP/d.fold" ';leaf_mix( |$)')
a=$(samples "$TMP/d.fold" '^frameless;_start;.*;main;run;caller_a;leaf_mix( |$)')
b=$(samples "$TMP/d.fold" '^frameless;_start;.*;main;run;caller_b;leaf_mix( |$)')
say "leaf_mix: $leaf samples, under caller_a $a, under caller_b $b"
[ "$leaf" -ge 100 ] || fail "too few samples in leaf_mix ($leaf)"
check_share "caller_a -> leaf_mix" "$(share_pct "$a" "$leaf")" 70 3
check_share "caller_b -> leaf_mix" "$(share_pct "$b" "$leaf")" 30 3

"$EPROF" record -F 999 --call-graph fp -o "$TMP/f.eprof" -- "$WORKLOADS/frameless" 100 \
	2>"$TMP/f.err" || { cat "$TMP/f.err"; fail "record --call-graph fp failed"; }
"$EPROF" report -i "$TMP/f.eprof" --fold >"$TMP/f.fold" 2>/dev/null || fail "report failed"
fleaf=$(samples "$TMP/f.fold" ';leaf_mix( |$)')
fcaller=$(samples "$TMP/f.fold" ';caller_[ab];leaf_mix( |$)')
say "fp mode: leaf_mix $fleaf samples, $fcaller of them under their caller"
[ "$fleaf" -gt 0 ] || fail "fp mode: no samples in leaf_mix"
[ "$fcaller" -eq 0 ] || fail "fp mode was expected to skip the caller of a frameless leaf"
exit 0
