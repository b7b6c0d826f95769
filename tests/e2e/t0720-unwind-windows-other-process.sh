#!/bin/bash
# SPDX-License-Identifier: MIT
# t0720: a big binary's windows are read through any process that maps it
# (issue 19). libbigcfi.so has more CFI than an eighth of `--unwind-budget
# 1M`, so it goes by windows, built from its file opened again for each
# batch. The first process that maps it exits without running it; a
# second maps it, its directory is moved away (the path no longer opens,
# the file is the same: its inode and ctime unchanged), and only then
# does it run big_run -> big_inner (no frame pointers). Before, windows
# were read only through the first mapping: that process was gone, the
# path too, so the binary's windows were left out for good ("cannot be
# read by windows") and frame-pointer steps from big_inner skipped big_run
# and main. Now the batch opens the file through the second process's
# mapping, checked to be the same file: at least 90% of big_inner's
# stacks hold main;big_run;big_inner, and no window is left out.
. "$E2E_DIR/lib.sh"
require_root; require_btf
mkdir -p "$TMP/d1"
cp "$WORKLOADS/libbigcfi.so" "$TMP/d1/" || fail "no libbigcfi.so"
cp "$WORKLOADS/bigcfi_run" "$TMP/" || fail "no bigcfi_run"
# the section must be over an eighth of 1M for the test to mean anything
eh=$(readelf -SW "$TMP/d1/libbigcfi.so" | awk '{ for (i = 1; i < NF; i++) if ($i == ".eh_frame") print $(i + 4) }')
[ "$((16#${eh:-0}))" -gt 131072 ] || fail "libbigcfi.so has only ${eh:-no} bytes of .eh_frame"

cat >"$TMP/run.sh" <<EOS
"$TMP/bigcfi_run" "$TMP/d1/libbigcfi.so" || exit 1
sleep 0.3
"$TMP/bigcfi_run" "$TMP/d1/libbigcfi.so" "$TMP/go" 1500 & pid=\$!
sleep 0.5
mv "$TMP/d1" "$TMP/d2" && touch "$TMP/go"
wait \$pid; rc=\$?
mv "$TMP/d2" "$TMP/d1"
exit \$rc
EOS
timeout 60 "$EPROF" record -F 999 --unwind-budget 1M --table-cache none -o "$TMP/o.eprof" -- \
	sh "$TMP/run.sh" 2>"$TMP/o.err" || { cat "$TMP/o.err"; fail "record failed"; }
grep -q "cannot be read by windows" "$TMP/o.err" && { cat "$TMP/o.err"; fail "the binary's windows were left out"; }
"$EPROF" info "$TMP/o.eprof" >"$TMP/o.info" 2>&1 || fail "info failed"
grep -E 'windows' "$TMP/o.info" | sed 's/^/# /'
windows=$(awk '/^windows of code loaded into them/ { print $NF }' "$TMP/o.info")
out=$(awk '/^windows left out/ { print $NF }' "$TMP/o.info")
[ "${windows:-0}" -ge 1 ] || fail "no window was loaded"
[ "${out:-0}" -eq 0 ] || fail "$out windows were left out"

"$EPROF" report -i "$TMP/o.eprof" --fold >"$TMP/o.fold" 2>/dev/null || fail "report failed"
read -r whole inner < <(awk '$1 ~ /^bigcfi_run;/ && /;big_inner( |;)/ {
		n = $NF; inner += n; if ($0 ~ /;main;big_run;big_inner/) whole += n }
	END { print whole + 0, inner + 0 }' "$TMP/o.fold")
[ "$inner" -ge 200 ] || fail "only $inner samples in big_inner"
check_at_least "big_inner's stacks through big_run and main" "$whole" "$inner" 90
