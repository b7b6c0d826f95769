#!/bin/bash
# SPDX-License-Identifier: MIT
# t0215: Debian's xz and liblzma are stripped; a frame no symbol covers is
# spelled by the start of the function its FDE (.eh_frame) gives, so every
# address of one function makes one row and one tower:
# - each unresolved xz+0xOFF and liblzma+0xOFF name is an FDE start (file
#   offset), per `readelf --debug-dump=frames` and the PT_LOAD segments;
# - there are fewer distinct unresolved names than with the FDE rows taken
#   out of the recording (what report printed before: one per address);
# - pprof keeps the addresses and gets no function for these frames;
# - report's counts per source add up to the frames shown, and the stripped
#   code's frames count as unresolved.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd xz; require_cmd readelf; require_cmd sqlite3
require_cmd gzip

XZ=$(command -v xz)
LZMA=$(readlink -f "$(ldd "$XZ" | awk '/liblzma/ { print $3 }')")	# the mapped file
[ -r "$LZMA" ] || skip "xz does not link liblzma"
readelf -S "$XZ" | grep -q '\.symtab' && skip "this xz is not stripped"
cd "$TMP" || fail "no $TMP"
head -c 3000000 /dev/urandom | base64 >in.txt

"$EPROF" record -F 999 -o r.eprof -- "$XZ" -6 -k -c in.txt 2>rec.err >/dev/null ||
	{ cat rec.err; fail "record failed"; }
"$EPROF" report -i r.eprof --fold >r.fold 2>r.err || { cat r.err; fail "report failed"; }
cat r.err

# fde_offsets FILE: the file offsets of its FDEs, "start end" (decimal) a line
fde_offsets() {
	readelf -lW "$1" | awk '$1 == "LOAD" { print "L", $2, $3, $5 }' >segs
	readelf --debug-dump=frames "$1" | awk '/ FDE / { for (i = 1; i <= NF; i++)
		if ($i ~ /^pc=/) { split(substr($i, 4), r, "\\.\\."); print "F", r[1], r[2] } }' >fdes
	cat segs fdes | awk '
		function hex(s,  v, j) {
			s = tolower(s); sub(/^0x/, "", s); v = 0
			for (j = 1; j <= length(s); j++) v = v * 16 + index("0123456789abcdef", substr(s, j, 1)) - 1
			return v
		}
		$1 == "L" { off[n] = hex($2); va[n] = hex($3); sz[n] = hex($4); n++; next }
		{ pc = hex($2); for (i = 0; i < n; i++) if (pc >= va[i] && pc < va[i] + sz[i]) {
			printf "%d %d\n", pc - va[i] + off[i], hex($3) - va[i] + off[i]; break } }' | sort -u
}

# not_fde_starts FDES NAMES: the names (0xOFF) inside an FDE that are not its
# start. An address no FDE covers (the first instruction of .init, where a
# library's first page fault can land) is spelled by itself: not counted.
not_fde_starts() {
	awk 'function hex(s,  v, j) {
			s = tolower(s); sub(/^0x/, "", s); v = 0
			for (j = 1; j <= length(s); j++) v = v * 16 + index("0123456789abcdef", substr(s, j, 1)) - 1
			return v
		}
		NR == FNR { lo[n] = $1; hi[n] = $2; n++; next }
		{ v = hex($1); for (i = 0; i < n; i++) if (v >= lo[i] && v < hi[i] && v != lo[i]) { print $1; break } }' "$1" "$2"
}

# names FOLD BASE: the distinct unresolved names BASE+0xOFF in the folded stacks
names() {
	tr ' ;' '\n\n' <"$1" | grep -E "^$2\+0x[0-9a-f]+$" | sort -u
}

checked=0
for bin in "$XZ" "$LZMA"; do
	base=$(basename "$bin")
	fde_offsets "$bin" >"fde.$base"
	[ -s "fde.$base" ] || fail "readelf lists no FDE in $bin"
	names r.fold "$base" | sed "s/^$base+//" >"got.$base"
	bad=$(not_fde_starts "fde.$base" "got.$base" | head -3)
	[ -z "$bad" ] || fail "$base: names $bad are not FDE starts"
	checked=$((checked + $(wc -l <"got.$base")))
done
[ "$checked" -ge 3 ] || fail "only $checked unresolved names to check in xz and liblzma"
say "$checked unresolved names, each an FDE start"

# the recording without its FDE rows: one name per address, as before
cp r.eprof nofde.eprof
sqlite3 nofde.eprof "DELETE FROM binary WHERE source = '.eh_frame'; DELETE FROM binary_chunk WHERE source = '.eh_frame'" ||
	fail "sqlite3 failed"
"$EPROF" report -i nofde.eprof --fold >nofde.fold 2>/dev/null || fail "report without FDE rows failed"
before=$( (names nofde.fold xz; names nofde.fold "$(basename "$LZMA")") | wc -l)
after=$( (names r.fold xz; names r.fold "$(basename "$LZMA")") | wc -l)
say "distinct unresolved names: $before per address, $after per function"
[ "$after" -lt "$before" ] || fail "FDE starts did not merge any addresses ($before -> $after)"
[ "$(samples r.fold '')" = "$(samples nofde.fold '')" ] || fail "the sample counts differ"

# pprof: addresses kept, no function made up from an FDE start
"$EPROF" report -i r.eprof --pprof p.pb.gz 2>/dev/null || fail "report --pprof failed"
gzip -dc p.pb.gz >p.pb || fail "pprof output is not gzip"
grep -aq 'xz+0x\|liblzma.so[.0-9]*+0x' p.pb && fail "pprof has a function named by an FDE start"
grep -aq 'lzma_code' p.pb || fail "pprof lost the named functions"

# counts per source: they add up to the frames shown; stripped code is unresolved
line=$(grep '^eprof: frames named by:' r.err) || fail "report's stderr does not count frames per source"
sum=$(sed 's/^eprof: frames named by://' <<<"$line" | tr ',' '\n' | awk '{ s += $NF } END { print s }')
shown=$(awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); s += n * (k - 1) } END { print s }' r.fold)
[ "$sum" = "$shown" ] || fail "the counts per source ($sum) are not the frames shown ($shown)"
unres=$(sed -n 's/.*unresolved \([0-9]*\).*/\1/p' <<<"$line")
stripped=$(awk '{ n = $NF; $NF = ""; k = split($0, f, ";");
	for (i = 2; i <= k; i++) if (f[i] ~ /\+0x[0-9a-f]+ *$/ || f[i] ~ /^\[unknown\]/) s += n }
	END { print s + 0 }' r.fold)
[ "$unres" = "$stripped" ] || fail "unresolved $unres is not the stripped and unknown frames shown ($stripped)"
# eprof info symbolizes as report does: the same counts
"$EPROF" info r.eprof >info 2>/dev/null || fail "info failed"
grep -q "^frames named by  *${line#eprof: frames named by: }\$" info ||
	{ grep 'frames named' info; fail "info's counts per source are not report's ($line)"; }
grep -Eq '^symbols stored .* [1-9][0-9]* function starts of stripped code' info ||
	fail "info does not count the function starts stored"
exit 0
