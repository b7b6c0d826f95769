#!/bin/bash
# SPDX-License-Identifier: MIT
# t0505: `go tool pprof -top` reads the --pprof output and agrees with --fold
# on every function's total (cum) samples; the labels are there. `-raw`
# shows the program as mapping 1 with its real range, the kernel mapping
# after it, and frames eprof could not name as bare addresses in their
# mapping (no made-up "lib.so+0x1234" functions) for pprof to symbolize.
# With --lines, functions keep their names and `-lines` shows file:line.
. "$E2E_DIR/lib.sh"
require_root; require_btf
require_cmd go

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$WORKLOADS/known_split" 1500 2>/dev/null || fail "record failed"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "--fold failed"
"$EPROF" report -i "$TMP/r.eprof" --pprof "$TMP/p.pb.gz" 2>"$TMP/err" || { cat "$TMP/err"; fail "--pprof failed"; }
gzip -t "$TMP/p.pb.gz" || fail "--pprof output is not gzip"

export HOME=${HOME:-/root} GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
go tool pprof -top -symbolize=none -sample_index=samples -nodecount=1000000 -nodefraction=0 -edgefraction=0 \
	"$TMP/p.pb.gz" >"$TMP/top" 2>"$TMP/err" || { cat "$TMP/err"; fail "go tool pprof cannot read it"; }
head -15 "$TMP/top"

# fold totals: each function once per line (the comm is not a function), "_[k]" dropped;
# unresolved frames ("[unknown]", "lib.so+0x1234") are pprof's to name, so left out
awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); delete seen
       for (i = 2; i <= k; i++) { name = f[i]; sub(/_\[k\]$/, "", name)
         if (name == "[unknown]" || name ~ /\+0x[0-9a-f]+$/) continue
         if (!(name in seen)) { seen[name] = 1; tot[name] += n } } }
     END { for (x in tot) print x, tot[x] }' "$TMP/fold" | sort >"$TMP/want"
# pprof -top rows: flat flat% sum% cum cum% name; "<unknown>" and "[lib.so]" are unnamed
awk 'f && NF >= 6 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i
       if (name != "<unknown>" && name !~ /^\[.*\]$/) print name, $4 }
     /flat%/ { f = 1 }' "$TMP/top" | sort >"$TMP/got"
if ! diff "$TMP/want" "$TMP/got" >"$TMP/diff"; then
	head -20 "$TMP/diff"
	fail "go tool pprof totals differ from --fold"
fi
say "$(wc -l <"$TMP/want") functions agree"

# mappings: "N: start/limit/offset file build-id [FN]"
go tool pprof -raw -symbolize=none "$TMP/p.pb.gz" >"$TMP/raw" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "go tool pprof -raw cannot read it"; }
sed -n '/^Mappings/,$p' "$TMP/raw"
grep -Eq "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $WORKLOADS/known_split [0-9a-f]{40}" "$TMP/raw" ||
	fail "mapping 1 is not the program known_split with its range and build-id"
grep -Eq '^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\.kallsyms\]' "$TMP/raw" ||
	fail "no kernel mapping with a range"
grep -q '^1: .*\[kernel\.kallsyms\]' "$TMP/raw" && fail "the kernel is mapping 1"
grep -q 'File: known_split' "$TMP/top" || fail "go tool pprof does not title the profile known_split"
# locations: "N: 0xADDR M=MAP function file:line s=0"; no function is a made-up "+0x" name
grep -Eq '^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ .*\+0x' "$TMP/raw" && fail "a location has a made-up function"
if grep -Eq ';[^;]*\+0x[0-9a-f]+(;| )' "$TMP/fold"; then
	grep -Eq '^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ *$' "$TMP/raw" ||
		fail "an unresolved frame is not a bare address in its mapping"
fi

# --lines: the native function keeps its name, the file and line go in pprof's own fields
"$EPROF" report -i "$TMP/r.eprof" --lines --pprof "$TMP/l.pb.gz" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "--lines --pprof failed"; }
go tool pprof -top -lines -symbolize=none -nodecount=1000000 "$TMP/l.pb.gz" >"$TMP/ltop" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "go tool pprof -lines cannot read it"; }
grep -E '(work_a|known_split\.c)' "$TMP/ltop" | head -5
grep -Eq ' work_a [^ ]*/known_split\.c:[0-9]+$' "$TMP/ltop" ||
	fail "--lines: go tool pprof -top -lines has no work_a at known_split.c:LINE"
grep -q 'work_a:known_split' "$TMP/ltop" && fail "--lines: a function name carries its file and line"

go tool pprof -tags "$TMP/p.pb.gz" >"$TMP/tags" 2>/dev/null || fail "go tool pprof -tags failed"
for l in pid tid comm cpu; do
	grep -q "^ *$l:" "$TMP/tags" || { cat "$TMP/tags"; fail "no $l label"; }
done
grep -q 'known_split' "$TMP/tags" || fail "the comm label lacks known_split"
exit 0
