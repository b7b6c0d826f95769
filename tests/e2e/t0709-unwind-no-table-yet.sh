#!/bin/bash
# SPDX-License-Identifier: MIT
# t0709: no stack is lost to "no table yet". gcc's cc1 is a large binary
# whose table takes longer to build than a short compile's first second:
# its samples before the table is in come with a copy of the stack
# (events.h, ev_raw), and the recorder walks them again with that table
# before their chunk is written. info says how many were finished so.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd gcc

# a C file that keeps cc1 busy about a second (bounded: 150 small functions)
awk 'BEGIN { for (i = 0; i < 150; i++)
	printf "int f%d(int *a, int n) { int s = %d; for (int j = 0; j < n; j++) { if (a[j] > %d) s += a[j] * %d; else s ^= a[(j + %d) %% n]; } return s; }\n", i, i, i, i + 1, i }' \
	>"$TMP/gen.c"
# (without the table cache, which would have cc1's table in from the start: t0711)
"$EPROF" record -F 999 --table-cache none -o "$TMP/cc.eprof" -- gcc -O2 -c "$TMP/gen.c" -o "$TMP/gen.o" \
	2>"$TMP/cc.err" || { cat "$TMP/cc.err"; fail "record of gcc failed"; }
"$EPROF" info "$TMP/cc.eprof" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed"; }
meta() { awk -v k="$1" 'index($0, k) == 1 { print $NF; exit }' "$TMP/info"; }
finished=$(meta "raw stacks finished")
complete=$(meta "raw stacks complete")
copies=$(meta "raw stack samples")
bytes=$(meta "raw stack bytes")
grep -q "^  no table yet .* finished from stack copies" "$TMP/info" ||
	fail "info does not say how many stacks were finished from stack copies"
[ "${finished:-0}" -gt 0 ] || { cat "$TMP/info"; fail "no stack was finished from a stack copy"; }
say "$finished stacks finished from $copies stack copies ($bytes bytes, not stored)"
# every copy was finished: the table came in time (none left as walked)
[ "$finished" -eq "$copies" ] || fail "$copies stack copies, only $finished finished"
# Copies are taken most at a process's start and end, where some stacks
# cannot be whole (a sample inside execve or exit_group holds the old
# image's registers or a torn-down stack): 98-99% alone, 94-97% with
# three CPU-bound loops beside it. The whole recording's share is below.
check_at_least "finished stacks that are complete" "$complete" "$finished" 90

# the copies are not in the file: it stays the size of PCs (< 1 KiB a
# sample), and under half their bytes when there are enough of them to
# tell (cc1's table now builds in tens of ms: 9 copies, 53 KB, in one run)
size=$(stat -c %s "$TMP/cc.eprof")
samples=$(meta "samples")
[ "$size" -lt $((${samples:-0} * 1024)) ] || fail "the recording ($size bytes) is over 1 KiB a sample (${samples:-none})"
[ "$copies" -lt 30 ] || [ "$size" -lt $((bytes / 2)) ] ||
	fail "the recording ($size bytes) holds the stack copies ($bytes)"

# and the report shows them whole, down to cc1's entry
"$EPROF" report -i "$TMP/cc.eprof" --fold >"$TMP/cc.fold" 2>/dev/null || fail "report failed"
check_complete "cc1 from its first tick" "$TMP/cc.fold" cc1 99
exit 0
