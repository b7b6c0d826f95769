#!/bin/bash
# SPDX-License-Identifier: MIT
# t0716: JIT code takes a frame-pointer step by default. jit_fp calls, from
# main -> run_jit (C, with CFI), a stub in an anonymous executable page
# with a frame-pointer prologue and no CFI, which calls spin (C): at least
# 99% of spin's samples reach main through the anonymous frame, so the
# walker crossed it by its frame pointer. The stub keeps no locals: its
# rbp equals the stack pointer its callee returns to, the case that once
# stopped the walk ("no CFI").
. "$E2E_DIR/lib.sh"
require_root; require_btf
[ "$(uname -m)" = x86_64 ] || skip "jit_fp writes x86-64 code"

"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$WORKLOADS/jit_fp" 1500 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "report failed"
total=$(samples "$TMP/fold" '^jit_fp;(.*;)?spin([; ]|$)')
whole=$(samples "$TMP/fold" '^jit_fp;(.*;)?main;run_jit;anon\+[0-9a-fx]+;spin([; ]|$)')
[ "$total" -ge 200 ] || { head -5 "$TMP/fold"; fail "only $total samples in spin"; }
say "spin: $whole of $total samples reach main through the JIT frame ($(share_pct "$whole" "$total")%)"
[ $((whole * 100)) -ge $((total * 99)) ] ||
	{ sort -t' ' -k2 -nr "$TMP/fold" | head -5; fail "fewer than 99% of spin's stacks cross the JIT frame"; }
exit 0
