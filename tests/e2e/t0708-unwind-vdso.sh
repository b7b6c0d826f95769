#!/bin/bash
# SPDX-License-Identifier: MIT
# t0708: clock_gettime runs in the vDSO, which has no file behind it. Its
# table is built from the recorder's own vDSO image, so stacks sampled
# there are unwound by table through __clock_gettime to read_clocks, run,
# main and _start (a frame-pointer step there skips read_clocks whenever
# the vDSO function has not pushed rbp yet, or has popped it).
. "$E2E_DIR/lib.sh"
require_root; require_btf

grep -q '\[vdso\]' /proc/self/maps || skip "no vDSO on this kernel"
"$EPROF" record -F 999 --call-graph dwarf -o "$TMP/v.eprof" -- "$WORKLOADS/vdso_clock" 1000 \
	2>"$TMP/v.err" || { cat "$TMP/v.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/v.eprof" --fold >"$TMP/v.fold" 2>/dev/null || fail "report failed"
vdso='(__vdso_[a-z_]+|\[vdso\][^;]*)( |;|$)'
in_vdso=$(samples "$TMP/v.fold" ";$vdso")
full=$(samples "$TMP/v.fold" "^vdso_clock;_start;(.*;)?main;run;read_clocks;[_a-z]*clock_gettime;$vdso")
[ "$in_vdso" -ge 300 ] || fail "too few samples in the vDSO ($in_vdso)"
check_at_least "vDSO stacks with every frame down to main and _start" "$full" "$in_vdso" 99

# The vDSO frames were unwound by table, not by frame-pointer steps for lack of CFI.
"$EPROF" info --json "$TMP/v.eprof" >"$TMP/info.json" || fail "info failed"
read -r walks no_cfi < <(python3 -c 'import json, sys
u = json.load(sys.stdin)["unwind"]
print(u["walks"], u["fallback"]["no_cfi"])' <"$TMP/info.json") || fail "info --json has no unwind counts"
say "walks $walks, frame-pointer steps for want of CFI $no_cfi"
[ "$((no_cfi * 100))" -le "$walks" ] ||
	fail "$no_cfi of $walks walks took a frame-pointer step for want of CFI (the vDSO has no table?)"
exit 0
