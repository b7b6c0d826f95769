#!/bin/bash
# SPDX-License-Identifier: MIT
# t0713: a program that maps more CFI than the unwind budget still gets
# whole stacks for the code it runs (issue 19). Debian's clang compiling a
# C++ file maps about 2.5 M rows (40 MiB of tables); with
# `--unwind-budget 8M` the tables over an eighth of it (libLLVM,
# libclang-cpp) load only the 64 KiB windows of code the walks meet,
# and samples taken before a window is in are finished from their stack
# copies with the whole table. From a cold table cache, at least 99% of
# the compile's stacks reach the entry (8M without windows: 14%), info
# states the partial tables and their windows, and the budget holds.
# Also: --unwind-budget refuses what is not a size in range.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd clang++

for bad in 0 12 1K 5G 2s x; do
	"$EPROF" record --unwind-budget "$bad" -o "$TMP/bad.eprof" -- true 2>"$TMP/bad.err" &&
		fail "--unwind-budget $bad was taken"
	grep -q "invalid --unwind-budget" "$TMP/bad.err" || { cat "$TMP/bad.err"; fail "no one-line error for --unwind-budget $bad"; }
done

cp "$E2E_DIR/../workloads/clang_input.cc" "$TMP/big.cc" || fail "no clang_input.cc"
mkdir -m 700 "$TMP/cache"
"$EPROF" record -F 999 --unwind-budget 8M --table-cache "$TMP/cache" -o "$TMP/p.eprof" -- \
	clang++ -O2 -c "$TMP/big.cc" -o "$TMP/big.o" 2>"$TMP/p.err" || { cat "$TMP/p.err"; fail "record failed"; }
say "$(grep -o 'user stacks: [^;]*' "$TMP/p.err")"
"$EPROF" info "$TMP/p.eprof" >"$TMP/p.info" 2>&1 || fail "info failed"
grep -E 'budget|windows|^  tables' "$TMP/p.info" | sed 's/^/# /'
grep -q '^unwind budget (bytes) *8388608$' "$TMP/p.info" || fail "info does not state the 8M budget"
partial=$(awk '/^tables loaded by windows/ { print $NF }' "$TMP/p.info")
windows=$(awk '/^windows of code loaded into them/ { print $NF }' "$TMP/p.info")
[ "${partial:-0}" -ge 2 ] || fail "libLLVM and libclang-cpp were not loaded by windows (${partial:-none})"
[ "${windows:-0}" -ge 10 ] || fail "only ${windows:-no} windows were loaded"
# the kernel's tables stayed within the budget
awk '/^  tables .* MiB at most of a/ { for (i = 1; i <= NF; i++) if ($i == "MiB" && $(i + 1) == "at") { exit !($(i - 1) <= 8.0) } }' \
	"$TMP/p.info" || fail "the tables went over the 8M budget"

"$EPROF" report -i "$TMP/p.eprof" --fold >"$TMP/p.fold" 2>/dev/null || fail "report failed"
comm=$(awk -F';' '{ n = $NF; sub(/.* /, "", n); c[$1] += n } END { for (k in c) if (c[k] > m) { m = c[k]; b = k } print b }' "$TMP/p.fold")
case "$comm" in clang*) ;; *) fail "the compile's samples are not clang's ('$comm')" ;; esac
check_complete "clang within an 8M budget" "$TMP/p.fold" "$comm" 99
exit 0
