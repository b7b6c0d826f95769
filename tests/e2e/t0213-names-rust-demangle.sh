#!/bin/bash
# SPDX-License-Identifier: MIT
# t0213: Rust names are demangled, legacy and v0 alike: the rust_names
# workload, built here with rustc in both manglings, splits its time 67/33
# between Spinner<u32>::spin and Spinner<u16>::spin. Legacy names lose
# their ::h<hash> and cannot tell the two apart (rs::hot::Spinner<T>::spin,
# as perf shows them); v0 names can (<rs::hot::Spinner<u32>>::spin).
. "$E2E_DIR/lib.sh"
require_root; require_btf
# Debian's rustc (.ci/deps.sh) first: its default mangling is legacy, and
# a newer toolchain may want unstable options to ask for legacy.
RUSTC=/usr/bin/rustc
[ -x "$RUSTC" ] || RUSTC=$(command -v rustc) || skip "needs rustc"

src="$E2E_DIR/../workloads/rust_names.rs"
for m in legacy v0; do
	flags=()
	[ $m = v0 ] && flags=(-C symbol-mangling-version=v0)
	"$RUSTC" --crate-name rs -O -g -C force-frame-pointers=yes "${flags[@]}" -o "$TMP/rs_$m" "$src" \
		2>"$TMP/rustc.err" || { cat "$TMP/rustc.err"; fail "rustc ($m) failed"; }
	# 1.4 s of its CPU time, whatever the load
	"$EPROF" record -F 999 -o "$TMP/$m.eprof" -- "$TMP/rs_$m" 1400 2>"$TMP/rec.err" ||
		{ cat "$TMP/rec.err"; fail "$m: record failed"; }
	"$EPROF" report -i "$TMP/$m.eprof" --fold >"$TMP/$m.fold" 2>/dev/null || fail "$m: report failed"
	"$EPROF" report -i "$TMP/$m.eprof" --fold --no-demangle >"$TMP/$m.raw" 2>/dev/null ||
		fail "$m: --no-demangle failed"
	awk '{ print $NF "\t" $0 }' "$TMP/$m.fold" | sort -n | tail -2 | cut -f2
	total=$(samples "$TMP/$m.fold" "^rs_$m;")
	[ "$total" -ge 700 ] || fail "$m: only $total samples (expected ~1400)"
	# no frame keeps a mangled name or a hash (mawk: no {n} in regexes)
	[ "$(samples "$TMP/$m.fold" ';(_ZN|_R[A-Z])')" -eq 0 ] || fail "$m: mangled names left in --fold"
	[ "$(samples "$TMP/$m.fold" '::h[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+(;| )')" -eq 0 ] || fail "$m: a legacy hash is shown"
done

legacy=$(samples "$TMP/legacy.fold" ';rs::main;rs::hot::Spinner<T>::spin( |;|$)')
total=$(samples "$TMP/legacy.fold" '^rs_legacy;')
say "legacy: rs::hot::Spinner<T>::spin $legacy of $total"
[ $((legacy * 100)) -ge $((total * 90)) ] || fail "legacy: Spinner<T>::spin has only $legacy of $total samples"
any=$(samples "$TMP/legacy.fold" ';rs::hot::Spinner<T>::spin( |;|$)')
raw=$(samples "$TMP/legacy.raw" ';_ZN2rs3hot16Spinner[$]LT[$]T[$]GT[$]4spin17h[0-9a-f]+E( |;|$)')
[ "$raw" -eq "$any" ] || fail "legacy: --no-demangle shows $raw samples under the mangled name, not $any"

w32=$(samples "$TMP/v0.fold" ';rs::main;<rs::hot::Spinner<u32>>::spin( |;|$)')
w16=$(samples "$TMP/v0.fold" ';rs::main;<rs::hot::Spinner<u16>>::spin( |;|$)')
say "v0: Spinner<u32>::spin $w32, Spinner<u16>::spin $w16"
check_share 'Spinner<u32>' "$(share_pct "$w32" $((w32 + w16)))" 67 5
check_share 'Spinner<u16>' "$(share_pct "$w16" $((w32 + w16)))" 33 5
any=$(samples "$TMP/v0.fold" ';<rs::hot::Spinner<u32>>::spin( |;|$)')
raw=$(samples "$TMP/v0.raw" ';_RNvMNtCs[0-9A-Za-z_]*2rs3hotINtB[0-9a-z_]*7SpinnermE4spinB[0-9a-z_]*( |;|$)')
[ "$raw" -eq "$any" ] || fail "v0: --no-demangle shows $raw samples under the _R name, not $any"
exit 0
