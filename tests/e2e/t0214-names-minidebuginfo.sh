#!/bin/bash
# SPDX-License-Identifier: MIT
# t0214: a binary stripped the way Fedora's find-debuginfo strips it keeps
# its local functions' names in MiniDebugInfo: a .symtab-only ELF file,
# xz-compressed into .gnu_debugdata. Record reads it (liblzma) and stores
# those names, so that a report with the binary gone names work_a, work_b
# and work_c in their known 60/30/10 split, and its stderr counts the
# frames .gnu_debugdata named; the counts per source add up to the frames
# the folded output shows. A damaged .gnu_debugdata is refused with one
# warning at record time, and the frames stay unresolved.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd objcopy; require_cmd nm; require_cmd xz; require_cmd strip

BIN="$WORKLOADS/known_split"
mkdir -p "$TMP/bin"
cd "$TMP" || fail "no $TMP"

# find-debuginfo's recipe: the functions .dynsym lacks, kept in a copy of
# the debug file with nothing but symbols, xz-packed into the stripped binary.
nm -D "$BIN" --format=posix --defined-only | awk '{ print $1 }' | sort >dynsyms
nm "$BIN" --format=posix --defined-only | awk '$2 ~ /^[TtWw]$/ { print $1 }' | sort >funcsyms
comm -13 dynsyms funcsyms >keep
grep -qx work_a keep || fail "work_a is not among the symbols to keep"
objcopy --only-keep-debug "$BIN" debug || fail "objcopy --only-keep-debug failed"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep debug mini ||
	fail "objcopy --keep-symbols failed"
xz -f mini || fail "xz failed"
strip --strip-all -R .comment -R .gnu_debuglink -o bin/known_split "$BIN" || fail "strip failed"
objcopy --add-section .gnu_debugdata=mini.xz bin/known_split || fail "objcopy --add-section failed"
readelf -S bin/known_split | grep -q '\.symtab' && fail "the test binary still has a .symtab"
readelf -S bin/known_split | grep -q '\.gnu_debugdata' || fail "the test binary has no .gnu_debugdata"

"$EPROF" record -F 999 -o r.eprof -- bin/known_split 1500 2>rec.err ||
	{ cat rec.err; fail "record failed"; }
grep -q 'gnu_debugdata' rec.err && { cat rec.err; fail "record warned about a good .gnu_debugdata"; }
rm bin/known_split	# the recording alone must name the frames

"$EPROF" report -i r.eprof --fold >r.fold 2>r.err || { cat r.err; fail "report failed"; }
cat r.err
all=$(samples r.fold '')
a=$(samples r.fold '^known_split;.*;work_a( |;|$)')
b=$(samples r.fold '^known_split;.*;work_b( |;|$)')
c=$(samples r.fold '^known_split;.*;work_c( |;|$)')
total=$((a + b + c))
[ "$total" -ge 700 ] || fail "only $total samples in the three functions (expected ~1500)"
check_share "work_a from .gnu_debugdata" "$(share_pct "$a" "$total")" 60 3
check_share "work_b from .gnu_debugdata" "$(share_pct "$b" "$total")" 30 3
check_share "work_c from .gnu_debugdata" "$(share_pct "$c" "$total")" 10 3
grep -q ';main;run_workload;dispatch;work_a ' r.fold || fail "no main;run_workload;dispatch;work_a chain"

line=$(grep '^eprof: frames named by:' r.err) || fail "report's stderr does not count frames per source"
named=$(sed -n 's/.*\.gnu_debugdata \([0-9]*\).*/\1/p' <<<"$line")
[ -n "$named" ] && [ "$named" -ge "$total" ] ||
	fail "'$line': .gnu_debugdata should name at least one frame per sample ($total of $all)"
sum=$(sed 's/^eprof: frames named by://' <<<"$line" | tr ',' '\n' | awk '{ s += $NF } END { print s }')
shown=$(awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); s += n * (k - 1) } END { print s }' r.fold)
[ "$sum" = "$shown" ] || fail "the counts per source ($sum) are not the frames shown ($shown)"
"$EPROF" info --json r.eprof 2>/dev/null | grep -Eq '"frames_by_source":\{[^}]*"gnu_debugdata":'"$named"'[,}]' ||
	fail "info --json does not count the frames .gnu_debugdata named ($named)"

# a damaged MiniDebugInfo: one warning, no crash, frames unresolved
head -c $(($(stat -c %s mini.xz) / 2)) mini.xz >bad.xz
strip --strip-all -R .comment -R .gnu_debuglink -o bin/bad "$BIN" || fail "strip failed"
objcopy --add-section .gnu_debugdata=bad.xz bin/bad || fail "objcopy failed"
"$EPROF" record -F 999 -o bad.eprof -- bin/bad 300 2>bad.err || { cat bad.err; fail "record of bad failed"; }
[ "$(grep -c "bin/bad': its MiniDebugInfo (.gnu_debugdata) is damaged: not used" bad.err)" = 1 ] ||
	{ cat bad.err; fail "no single warning about the damaged .gnu_debugdata"; }
rm bin/bad
"$EPROF" report -i bad.eprof --fold >bad.fold 2>/dev/null || fail "report of bad failed"
grep -q 'work_a' bad.fold && fail "work_a named from a damaged .gnu_debugdata"
exit 0
