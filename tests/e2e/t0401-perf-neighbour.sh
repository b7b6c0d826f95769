#!/bin/bash
# SPDX-License-Identifier: MIT
# t0401: eprof is a good neighbour to perf. Its side-band events once set
# attr.build_id; the kernel writes one mmap record for every listener and
# ORed PERF_RECORD_MISC_MMAP_BUILD_ID into what perf received too, so a
# plain `perf record -g` next to a running eprof wrote MMAP2 records that
# said "build-id" over an inode, and perf 6.1's `perf script` aborted
# ("assertion failed at util/build-id.c", "stack smashing detected").
# Here perf runs with its defaults (BPF events and build-ids on) beside
# `eprof record -a`: perf script must succeed and put known_split's work_a
# on top, and eprof must still store known_split's build-id and one for
# nearly every ELF file it mapped (read from the files now).
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd perf; require_cmd sqlite3; require_cmd readelf
W="$WORKLOADS/known_split"
perf record -q -e cpu-clock -o "$TMP/probe.data" true >/dev/null 2>&1 ||
	skip "perf cannot record here"

"$EPROF" record -a -F 99 -d 120 -o "$TMP/a.eprof" 2>"$TMP/eprof.err" &
EP=$!
wait_committed "$TMP/a.eprof" 1 >/dev/null
perf record -q -g -e cpu-clock -F 499 -o "$TMP/p.data" -- "$W" 1500 >"$TMP/perf.out" 2>&1 ||
	{ kill -INT $EP; cat "$TMP/perf.out"; fail "perf record failed beside eprof"; }
"$W" 800 >/dev/null		# sampled by eprof after perf's run too
kill -INT $EP
wait $EP || { cat "$TMP/eprof.err"; fail "eprof record -a failed"; }

timeout 120 perf script -i "$TMP/p.data" -F comm,ip,sym >"$TMP/script" 2>"$TMP/script.err" ||
	{ head -c 600 "$TMP/script.err"; fail "perf script failed on a file recorded beside eprof"; }
! grep -q -i -E "assertion|stack smashing" "$TMP/script.err" ||
	{ head -c 600 "$TMP/script.err"; fail "perf script complained"; }
# the innermost frame of each known_split sample: the line after its header
awk '/^ *known_split / { getline; print $2 }' "$TMP/script" | sed 's/+0x.*//' |
	sort | uniq -c | sort -rn >"$TMP/top"
n=$(awk '{ s += $1 } END { print s + 0 }' "$TMP/top")
top=$(awk 'NR == 1 { print $2 }' "$TMP/top")
say "perf: $n known_split samples, top function $top ($(head -3 "$TMP/top" | tr -s ' \n' ' '))"
[ "$n" -ge 100 ] || fail "perf recorded only $n samples of known_split"
[ "$top" = work_a ] || fail "perf's top function is '$top', not work_a"

# eprof's own recording: every stored ELF file with a build-id has it
sqlite3 "$TMP/a.eprof" "SELECT path, hex(build_id) FROM mapped_file WHERE path LIKE '/%'" |
	sort -u >"$TMP/files" || fail "cannot read mapped_file"
missing=0 checked=0
while IFS='|' read -r path id; do
	[ -f "$path" ] || continue
	want=$(readelf -n "$path" 2>/dev/null | awk '/Build ID/ { print toupper($3); exit }')
	[ -n "$want" ] || continue
	checked=$((checked + 1))
	[ -n "$id" ] || { say "no build-id stored for $path"; missing=$((missing + 1)); }
done <"$TMP/files"
say "eprof: $checked ELF files with build-ids stored, $missing without"
[ "$checked" -ge 2 ] || fail "eprof stored only $checked ELF files"
# other recorders starting beside it (their maps read while locked) may
# leave a few files of theirs without one: said, not judged here
[ "$missing" -le $((checked / 4)) ] || fail "$missing mapped files were stored without their build-id"
grep -q "^$W|" "$TMP/files" || fail "eprof stored no mapping of known_split"
# perf's build-id cache hard-links known_split into ~/.debug the first time,
# which changes its ctime: the second run's mapping is then of another
# file identity, recorded under an id derived from the build-id (t0806's
# rule), so the file's own build-id need only be among the stored ones.
grep "^$W|" "$TMP/files" | cut -d'|' -f2 | grep -qx "$(readelf -n "$W" | awk '/Build ID/ { print toupper($3) }')" ||
	fail "known_split's build-id is not among the stored ones"
exit 0
