#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/gen_cfi_seeds.sh OUTDIR FILE... - the seed corpus of fuzz_cfi
# (input layout in fuzz_cfi.c), cut from real binaries: each small file
# whole (mode 0), its .eh_frame at its own address (mode 1), its
# .eh_frame_hdr through .eh_frame (mode 3), its .debug_frame (mode 2).
# Sections over 60 KB are left out (run-short.sh caps inputs at 64 KiB).
set -eu
out=$1
shift
mkdir -p "$out"

le() {	# le VALUE BYTES: VALUE as BYTES little-endian bytes
	local v=$1 n=$2 i
	for ((i = 0; i < n; i++)); do
		printf "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"
	done
}

# section FILE NAME: "address offset size" in decimal, or nothing
section() {
	local a o s
	read -r a o s <<<"$(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk -v n="$2" '$1 == n { print $3, $4, $5 }')"
	[ -n "$s" ] && echo $((16#$a)) $((16#$o)) $((16#$s))
}

bytes() { tail -c +$(($2 + 1)) "$1" | head -c "$3"; }

# mini FILE: FILE with its .symtab packed into .gnu_debugdata as Fedora's
# find-debuginfo does (then stripped), whole (mode 0); and with the xz
# stream cut in half, a damaged one.
mini() {
	local t
	t=$(mktemp -d)
	nm "$1" --format=posix --defined-only | awk '$2 ~ /^[TtWw]$/ { print $1 }' >"$t/keep"
	objcopy --only-keep-debug "$1" "$t/debug" &&
	objcopy -S --keep-symbols="$t/keep" "$t/debug" "$t/mini" && xz -f "$t/mini" &&
	head -c $(($(stat -c %s "$t/mini.xz") / 2)) "$t/mini.xz" >"$t/bad.xz" &&
	strip --strip-all -o "$t/bin" "$1" && cp "$t/bin" "$t/badbin" &&
	objcopy --add-section .gnu_debugdata="$t/mini.xz" "$t/bin" &&
	objcopy --add-section .gnu_debugdata="$t/bad.xz" "$t/badbin" &&
	if [ "$(stat -c %s "$t/bin")" -le 60000 ]; then
		{ printf '\x00'; cat "$t/bin"; } >"$out/$(basename "$1")-minidebuginfo"
		{ printf '\x00'; cat "$t/badbin"; } >"$out/$(basename "$1")-minidebuginfo-damaged"
	fi
	rm -rf "$t"
}
command -v xz >/dev/null && command -v objcopy >/dev/null && mini "$1"

for f in "$@"; do
	name=$(basename "$f")
	if [ "$(stat -L -c %s "$f")" -le 60000 ]; then
		{ printf '\x00'; cat "$f"; } >"$out/$name-file"
	fi
	read -r eh_addr eh_off eh_size <<<"$(section "$f" .eh_frame)" || true
	if [ -n "${eh_size:-}" ] && [ "$eh_size" -le 60000 ]; then
		{ printf '\x01'; le "$eh_addr" 4; bytes "$f" "$eh_off" "$eh_size"; } >"$out/$name-eh"
		read -r hdr_addr hdr_off hdr_size <<<"$(section "$f" .eh_frame_hdr)" || true
		if [ -n "${hdr_size:-}" ] && [ "$eh_off" -gt "$hdr_off" ]; then
			len=$((eh_off + eh_size - hdr_off))
			{ printf '\x03'; le "$hdr_addr" 4; le $((eh_off - hdr_off)) 2
			  bytes "$f" "$hdr_off" "$len"; } >"$out/$name-hdr"
		fi
	fi
	read -r dbg_addr dbg_off dbg_size <<<"$(section "$f" .debug_frame)" || true
	if [ -n "${dbg_size:-}" ] && [ "$dbg_size" -le 60000 ]; then
		{ printf '\x02'; le 0 4; bytes "$f" "$dbg_off" "$dbg_size"; } >"$out/$name-debug"
	fi
	unset eh_addr eh_off eh_size hdr_addr hdr_off hdr_size dbg_addr dbg_off dbg_size
done
