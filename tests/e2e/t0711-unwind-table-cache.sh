#!/bin/bash
# SPDX-License-Identifier: MIT
# t0711: unwind tables are kept on disk between recordings (record
# --table-cache). A second recording of the same compile builds no table:
# each comes from the cache (cc1's 479k rows in tens of ms instead of
# about 0.4 s, so fewer stacks wait for it), and cc1 is whole from its
# first tick. Entries are root's 0600 files; one that is damaged,
# not root's, or another file's is refused and built again; a cache
# directory that a user could change is not used at all.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd gcc

cache="$TMP/cache"
awk 'BEGIN { for (i = 0; i < 150; i++)
	printf "int f%d(int *a, int n) { int s = %d; for (int j = 0; j < n; j++) { if (a[j] > %d) s += a[j] * %d; else s ^= a[(j + %d) %% n]; } return s; }\n", i, i, i, i + 1, i }' \
	>"$TMP/gen.c"

# run NAME [DIR]: records the compile with the cache in DIR (default $cache)
run() {
	"$EPROF" record -F 999 --table-cache "${2:-$cache}" -o "$TMP/$1.eprof" -- \
		gcc -O2 -c "$TMP/gen.c" -o "$TMP/gen.o" 2>"$TMP/$1.err" ||
		{ cat "$TMP/$1.err"; fail "$1: record failed"; }
	"$EPROF" info "$TMP/$1.eprof" >"$TMP/$1.info" 2>&1 || { cat "$TMP/$1.info"; fail "$1: info failed"; }
	"$EPROF" report -i "$TMP/$1.eprof" --fold >"$TMP/$1.fold" 2>/dev/null || fail "$1: report failed"
}
meta() { awk -v k="$2" 'index($0, k) == 1 { print $NF; exit }' "$TMP/$1.info"; }
entries() { find "$cache" -maxdepth 1 -name '*.tab' -type f | wc -l; }

run cold
stored=$(meta cold "tables stored in it")
cold_copies=$(meta cold "raw stack samples")
say "cold: $stored tables stored, $cold_copies stack copies, $(entries) entries"
[ "${stored:-0}" -ge 3 ] || { cat "$TMP/cold.info"; fail "only ${stored:-0} tables stored in the cache"; }
[ "$(entries)" -ge "$stored" ] || fail "$stored tables stored, $(entries) entries in $cache"
bad=$(find "$cache" -mindepth 1 \( ! -user root -o ! -perm 600 -o ! -type f \) | head -3)
[ -z "$bad" ] || fail "cache entries that are not root's 0600 files: $bad"
[ "$(stat -c %a "$cache")" = 700 ] || fail "the cache directory is $(stat -c %a "$cache"), not 700"

run warm
# the mmap hook the kernel took is kept too: no probing loads the next time
"$EPROF" record -vv --table-cache "$cache" -o "$TMP/true.eprof" -- true 2>"$TMP/true.err" ||
	{ cat "$TMP/true.err"; fail "record -- true failed"; }
grep -q 'mmap hook .* as the table cache says' "$TMP/true.err" ||
	{ grep -i hook "$TMP/true.err"; fail "the mmap hook was probed again with a warm cache"; }
hits=$(meta warm "tables from the cache")
copies=$(meta warm "raw stack samples")
say "warm: $hits tables from the cache, $copies stack copies"
# as's libraries are mapped last, as the compile ends: a table no sample
# needed may not be reached before the recording stops (libsframe, in 6 of
# 68 runs beside other work), so one may be missing; none is built again
[ "${hits:-0}" -ge $((stored - 1)) ] || fail "warm: $hits tables from the cache, $stored were stored"
# every table came from the cache: none was built again
[ "$(meta warm "tables stored in it")" = 0 ] || fail "warm: tables were built again"
check_complete "warm: cc1 from its first tick" "$TMP/warm.fold" cc1 99

# Planted entries: the largest (cc1's) damaged, the next not root's, the
# third holding the smallest one's bytes (another file's key).
mapfile -t big < <(ls -S "$cache"/*.tab)
n=${#big[@]}
[ "$n" -ge 4 ] || fail "only $n entries"
size=$(stat -c %s "${big[0]}")
printf '\xff\xff\xff\xff' | dd of="${big[0]}" bs=1 seek=$((size - 40)) conv=notrunc status=none
cp "${big[0]}" "$TMP/damaged"
chown nobody "${big[1]}"
cp "${big[n - 1]}" "${big[2]}"
run planted
restored=$(meta planted "tables stored in it")
say "planted: $(meta planted "tables from the cache") tables from the cache, $restored built and stored again"
[ "${restored:-0}" -ge 3 ] || fail "planted: only ${restored:-0} tables built again (3 entries were bad)"
! cmp -s "${big[0]}" "$TMP/damaged" || fail "the damaged entry is still there"
bad=$(find "$cache" -mindepth 1 \( ! -user root -o ! -perm 600 \) | head -3)
[ -z "$bad" ] || fail "planted: entries not root's 0600 files: $bad"
check_complete "planted: cc1 from its first tick" "$TMP/planted.fold" cc1 99

# A directory a user could change is not used: the recording goes on without it.
chmod 777 "$cache"
run open
grep -q "cannot keep unwind tables in '$cache'" "$TMP/open.err" ||
	{ cat "$TMP/open.err"; fail "no warning for a cache directory anyone can write"; }
[ "$(meta open "tables from the cache")" = - ] || fail "a world-writable cache was used"
chmod 700 "$cache"
ln -s "$cache" "$TMP/link"
run link "$TMP/link"
grep -q "cannot keep unwind tables" "$TMP/link.err" || fail "a symbolic link to the cache was followed"
exit 0
