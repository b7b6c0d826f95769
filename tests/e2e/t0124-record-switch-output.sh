#!/bin/bash
# SPDX-License-Identifier: MIT
# t0124: record --switch-output (perf's spelling) closes the file and goes
# on in FILE.0001, FILE.0002, ... without losing a sample between them:
# - by time (1s) on the 60/30/10 workload: several files, each finished and
#   reported on its own; their samples add up to what record said it
#   recorded and to the clock's own account summed over the files (kept
#   ticks less ring-buffer losses: a sample dropped at a switch would break
#   it); -i with all of them merges back to exactly the sum of the files'
#   folded stacks, with the single recording's 60/30/10 shares;
# - by size (1K, below an empty file: a switch at each commit that has
#   samples), never a file without samples (a last one the end left
#   empty is removed),
#   and a bad value is one usage error.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd python3

"$EPROF" record -F 999 --switch-output 1s -o "$TMP/r.eprof" -- "$WORKLOADS/known_split" 3000 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"
recorded=$(sed -n 's/^eprof: recorded \([0-9]*\) samples.*/\1/p' "$TMP/rec.err")
files=("$TMP/r.eprof")
for f in "$TMP"/r.eprof.[0-9][0-9][0-9][0-9]; do [ -e "$f" ] && files+=("$f"); done
say "${#files[@]} files"
[ "${#files[@]}" -ge 3 ] || fail "only ${#files[@]} files for 3 s of CPU time at --switch-output 1s"

args=()
sum=0
: >"$TMP/each.fold"
for f in "${files[@]}"; do
	"$EPROF" report -i "$f" --fold >"$TMP/one.fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "$(basename "$f") does not report on its own"; }
	grep -q 'not finished\|unfinished' "$TMP/rep.err" && fail "$(basename "$f") was not finished"
	n=$(samples "$TMP/one.fold" '.')
	[ "$n" -gt 0 ] || fail "$(basename "$f") has no samples"
	cat "$TMP/one.fold" >>"$TMP/each.fold"
	sum=$((sum + n))
	"$EPROF" info --json "$f" >"$TMP/$(basename "$f").json" || fail "info $(basename "$f") failed"
	args+=(-i "$f")
done
say "samples: $sum in the files, record said $recorded"
[ "$sum" = "$recorded" ] || fail "the files hold $sum samples, record recorded $recorded"

# the clock's account over all files: every kept tick is a sample or a counted loss
read -r kept lost <<<"$(python3 -c '
import json, sys
k = l = 0
for p in sys.argv[1:]:
    d = json.load(open(p))
    k += d["ticks"]["fired"] - d["ticks"]["other_tasks"]
    l += d["lost_ring_buffer_full"]
print(k, l)' "$TMP"/*.json)"
say "ticks kept over the files: $kept, ring buffer full: $lost"
[ "$((sum + lost))" = "$kept" ] || fail "$kept ticks kept but $sum samples and $lost losses"

"$EPROF" report "${args[@]}" --fold >"$TMP/merged.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report of all files merged failed"; }
awk '{ n = $NF; $NF = ""; c[$0] += n } END { for (k in c) print k c[k] }' "$TMP/each.fold" | sort >"$TMP/a"
awk '{ n = $NF; $NF = ""; c[$0] += n } END { for (k in c) print k c[k] }' "$TMP/merged.fold" | sort >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" || { diff "$TMP/a" "$TMP/b" | head >&2; fail "the merged report is not the sum of the files"; }
a=$(samples "$TMP/merged.fold" ';work_a( |;|$)')
b=$(samples "$TMP/merged.fold" ';work_b( |;|$)')
c=$(samples "$TMP/merged.fold" ';work_c( |;|$)')
total=$((a + b + c))
[ "$total" -ge 1500 ] || fail "only $total samples in the three functions"
check_share work_a "$(share_pct "$a" "$total")" 60 3
check_share work_b "$(share_pct "$b" "$total")" 30 3
check_share work_c "$(share_pct "$c" "$total")" 10 3

"$EPROF" record -F 999 --switch-output 1K -o "$TMP/s.eprof" -- "$WORKLOADS/known_split" 1500 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record by size failed"; }
n=0
for f in "$TMP"/s.eprof*; do
	n=$((n + 1))
	[ "$(committed_samples "$f")" -gt 0 ] || fail "$(basename "$f") has no samples"
done
say "--switch-output 1K: $n files"
[ "$n" -ge 2 ] || fail "--switch-output 1K wrote $n file(s)"

"$EPROF" record --switch-output 10x -o "$TMP/x.eprof" -- true 2>"$TMP/bad.err" && fail "--switch-output 10x was taken"
grep -q "^eprof: error: invalid --switch-output '10x'" "$TMP/bad.err" || { cat "$TMP/bad.err"; fail "no usage error for 10x"; }
exit 0
