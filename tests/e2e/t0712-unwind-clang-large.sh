#!/bin/bash
# SPDX-License-Identifier: MIT
# t0712: Debian's clang (stripped, no frame pointers, libLLVM-14 and
# libclang-cpp: about 2.5 M unwind rows) compiling a C++ file: at least
# 98% of its stacks reach the entry from a cold table cache (tables built
# while it runs; samples taken before a table is in are finished from
# their stack copies) and 99% from a warm one. Recursive descent in its parser
# goes deeper than perf's 127 frames: those stacks are whole too.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd clang++

cp "$E2E_DIR/../workloads/clang_input.cc" "$TMP/big.cc" || fail "no clang_input.cc"

# run NAME MIN_PCT: records the compile with the cache in $TMP/cache
run() {
	"$EPROF" record -F 999 --table-cache "$TMP/cache" -o "$TMP/$1.eprof" -- \
		clang++ -O2 -c "$TMP/big.cc" -o "$TMP/big.o" 2>"$TMP/$1.err" ||
		{ cat "$TMP/$1.err"; fail "$1: record failed"; }
	"$EPROF" report -i "$TMP/$1.eprof" --fold >"$TMP/$1.fold" 2>/dev/null || fail "$1: report failed"
	"$EPROF" info --json "$TMP/$1.eprof" >"$TMP/$1.json" || fail "$1: info failed"
	"$EPROF" info "$TMP/$1.eprof" >"$TMP/$1.info" 2>&1 || fail "$1: info failed"
	comm=$(awk -F';' '{ n = $NF; sub(/.* /, "", n); c[$1] += n } END { for (k in c) if (c[k] > m) { m = c[k]; b = k } print b }' "$TMP/$1.fold")
	say "$1: $(grep -o 'user stacks: [^;]*' "$TMP/$1.err"), top command '$comm'"
	case "$comm" in clang*) ;; *) fail "$1: the compile's samples are not clang's ('$comm')" ;; esac
	grep -E '^raw stack|^tables' "$TMP/$1.info" 2>/dev/null | sed 's/^/# /'
	check_complete "$1: clang" "$TMP/$1.fold" "$comm" "$2"
}

# cold: 98.8-99.9% here (the few left are first ticks whose copy could not be
# finished); warm: 99.9%
run cold 98
rows=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["unwind"]["table_rows"])' \
	<"$TMP/cold.json" 2>/dev/null) || rows=
say "cold: ${rows:-?} unwind rows"
run warm 99
# the deepest stacks, past 127 user frames, reach the entry too
deep=$(awk '{ n = split($0, f, ";"); u = 0; for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]/) u++; if (u > 127) c += $NF } END { print c + 0 }' "$TMP/cold.fold" "$TMP/warm.fold")
say "stacks deeper than 127 user frames: $deep"
grep -Eq 'user stacks: .* 0 truncated' "$TMP/warm.err" ||
	{ cat "$TMP/warm.err"; fail "warm: stacks were cut at the depth limit"; }
exit 0
