#!/bin/bash
# SPDX-License-Identifier: MIT
# t0718: a binary whose whole unwind table does not fit the memory limit
# is never built whole (issue 19): Debian's clang compiling one of our C
# files under `--mem-limit 192M` maps libLLVM-14 (about 950k rows, 15 MiB
# of table, and its whole build holds 5 MiB of .eh_frame, 12 MiB of rows
# and its FDEs besides), which before this change was refused there
# ("tables refused 2", 24-30% of clang's stacks complete). Now libLLVM and
# libclang-cpp are loaded by the 64 KiB windows their walks meet, built
# by range from their CFI: at least 99% of the compile's user stacks
# reach the entry from a cold cache, info says tables were loaded by
# windows, and no table was refused.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd clang
llvm=/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
[ -r "$llvm" ] || skip "needs $llvm (Debian's clang-14)"
repo=$(cd "$E2E_DIR/../.." && pwd)

"$EPROF" record -F 999 --mem-limit 192M --table-cache none -o "$TMP/w.eprof" -- \
	clang -O2 -I"$repo" -c "$repo/report/output/svg.c" -o "$TMP/svg.o" 2>"$TMP/w.err" ||
	{ cat "$TMP/w.err"; fail "record failed"; }
say "$(grep -o 'user stacks: [^;]*' "$TMP/w.err")"
"$EPROF" info "$TMP/w.eprof" >"$TMP/w.info" 2>&1 || fail "info failed"
grep -E 'windows|refused \(|peak memory|^  tables|^  no table|^  frame-p|^raw stack' "$TMP/w.info" | sed 's/^/# /'
partial=$(awk '/^tables loaded by windows/ { print $NF }' "$TMP/w.info")
windows=$(awk '/^windows of code loaded into them/ { print $NF }' "$TMP/w.info")
refused=$(awk '/^tables refused/ { print $NF }' "$TMP/w.info")
[ "${partial:-0}" -ge 2 ] 2>/dev/null || fail "libLLVM and libclang-cpp were not loaded by windows (${partial:-none})"
[ "${windows:-0}" -ge 10 ] 2>/dev/null || fail "only ${windows:-no} windows were loaded"
[ "${refused:--}" = - ] || fail "$refused tables were refused"
rows=$(awk -v p="$llvm" '$NF == p { print $(NF - 1) }' "$TMP/w.info" | head -1)
say "libLLVM: ${rows:-?} rows in its map (the windows the compile ran)"

"$EPROF" report -i "$TMP/w.eprof" --fold >"$TMP/w.fold" 2>/dev/null || fail "report failed"
comm=$(awk -F';' '{ n = $NF; sub(/.* /, "", n); c[$1] += n } END { for (k in c) if (c[k] > m) { m = c[k]; b = k } print b }' "$TMP/w.fold")
case "$comm" in clang*) ;; *) fail "the compile's samples are not clang's ('$comm')" ;; esac
check_complete "clang within --mem-limit 192M" "$TMP/w.fold" "$comm" 99
exit 0
