#!/bin/bash
# SPDX-License-Identifier: MIT
# t0702: a hot leaf without a frame (-O2 -fno-omit-frame-pointer
# -momit-leaf-frame-pointer), called 70/30 from caller_a and caller_b, is
# attributed to each caller within 4 points (about 2,000 samples: one
# standard deviation of the sampling is 1 point, more on a loaded machine
# whose late timers skip ticks in runs), with the chain down to main
# and _start for at least 90% of its stacks. A frame-pointer walk
# (--call-graph fp) loses the caller: it never shows caller_a or caller_b
# under the leaf.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/d.eprof" -- "$WORKLOADS/frameless" 1000 2>"$TMP/d.err" ||
	{ cat "$TMP/d.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/d.eprof" --fold >"$TMP/d.fold" 2>/dev/null || fail "report failed"
leaf=$(samples "$TMP/d.fold" ';leaf_mix( |$)')
a=$(samples "$TMP/d.fold" '^frameless;_start;.*;main;run;caller_a;leaf_mix( |$)')
b=$(samples "$TMP/d.fold" '^frameless;_start;.*;main;run;caller_b;leaf_mix( |$)')
say "leaf_mix: $leaf samples, under caller_a $a, under caller_b $b"
[ "$leaf" -ge 100 ] || fail "too few samples in leaf_mix ($leaf)"
# The split among whole stacks; the few a loaded machine leaves without
# their table (the process's first ticks) are judged apart, not as a caller.
check_share "caller_a -> leaf_mix" "$(share_pct "$a" $((a + b)))" 70 4
check_share "caller_b -> leaf_mix" "$(share_pct "$b" $((a + b)))" 30 4
[ $(((a + b) * 100)) -ge $((leaf * 90)) ] ||
	fail "only $((a + b)) of $leaf leaf_mix stacks reach _start through their caller"

"$EPROF" record -F 999 --call-graph fp -o "$TMP/f.eprof" -- "$WORKLOADS/frameless" 100 \
	2>"$TMP/f.err" || { cat "$TMP/f.err"; fail "record --call-graph fp failed"; }
"$EPROF" report -i "$TMP/f.eprof" --fold >"$TMP/f.fold" 2>/dev/null || fail "report failed"
fleaf=$(samples "$TMP/f.fold" ';leaf_mix( |$)')
fcaller=$(samples "$TMP/f.fold" ';caller_[ab];leaf_mix( |$)')
say "fp mode: leaf_mix $fleaf samples, $fcaller of them under their caller"
[ "$fleaf" -gt 0 ] || fail "fp mode: no samples in leaf_mix"
[ "$fcaller" -eq 0 ] || fail "fp mode was expected to skip the caller of a frameless leaf"
exit 0
