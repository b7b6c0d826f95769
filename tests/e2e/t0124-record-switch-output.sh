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
#   and a bad value is one usage error;
# - with --off-cpu, while a spinner makes switches go on: the sleep and the
#   wait of offcpu_split span switches, so some file holds an interval that
#   began before it (offcpu_since_ns), named (stacks and thread name stored
#   again after the switch); every file reports --off-cpu on its own, the
#   files merged are exactly the sum of the files, and the main thread's
#   blocked time splits between sleep and wait within 5 points of what the
#   workload measured, its total within 10% (none lost, none counted twice).
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd python3; require_cmd sqlite3

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
	# every file reads back whole: a tick fired in one and kept in the next would damage it
	"$EPROF" info "$f" >"$TMP/info.out" 2>"$TMP/info.err" ||
		{ cat "$TMP/info.err"; fail "info $(basename "$f") failed"; }
	[ "$(awk '/^samples / { print $2 }' "$TMP/info.out")" -gt 0 ] || fail "$(basename "$f") has no samples"
done
say "--switch-output 1K: $n files"
[ "$n" -ge 2 ] || fail "--switch-output 1K wrote $n file(s)"

"$EPROF" record --switch-output 10x -o "$TMP/x.eprof" -- true 2>"$TMP/bad.err" && fail "--switch-output 10x was taken"
grep -q "^eprof: error: invalid --switch-output '10x'" "$TMP/bad.err" || { cat "$TMP/bad.err"; fail "no usage error for 10x"; }

WL="$WORKLOADS/offcpu_split"
"$EPROF" record --off-cpu -F 499 --switch-output 1s -o "$TMP/o.eprof" -- \
	sh -c "\"$WL\" split 300 1500 1500 & \"$WORKLOADS/known_split\" 4000; wait" \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record --off-cpu --switch-output failed"; }
cat "$TMP/rec.err"
grep -q '^eprof: recorded [0-9]* off-CPU intervals (0 lost)' "$TMP/rec.err" ||
	fail "no off-CPU summary line, or intervals lost"
tid=$(awk '$1 == "main" && $2 == "tid" { print $3 }' "$TMP/rec.err")
slp=$(awk '$1 == "phase" && $2 == "sleep" { print $3 }' "$TMP/rec.err")
wait=$(awk '$1 == "phase" && $2 == "wait" { print $3 }' "$TMP/rec.err")
[ -n "$tid" ] && [ -n "$slp" ] && [ -n "$wait" ] || fail "the workload did not say its phases"
args=()
since=0
: >"$TMP/each.fold"
for f in "$TMP/o.eprof" "$TMP"/o.eprof.[0-9][0-9][0-9][0-9]; do
	[ -e "$f" ] || continue
	"$EPROF" report -i "$f" --off-cpu --fold >"$TMP/one.fold" 2>"$TMP/rep.err" ||
		{ cat "$TMP/rep.err"; fail "$(basename "$f") does not report --off-cpu on its own"; }
	cat "$TMP/one.fold" >>"$TMP/each.fold"
	# the main thread's sleep or wait, begun before the file, named in it
	[ -n "$(sqlite3 "$f" "SELECT value FROM meta WHERE key = 'offcpu_since_ns'")" ] &&
		grep -q '^offcpu_split;.*;main;\(sleep\|wait\)_phase;' "$TMP/one.fold" &&
		since=$((since + 1))
	args+=(-i "$f")
done
say "--off-cpu: $((${#args[@]} / 2)) files, $since with the sleep or wait begun before them"
[ "${#args[@]}" -ge 6 ] || fail "only $((${#args[@]} / 2)) files with --off-cpu --switch-output 1s"
[ "$since" -ge 1 ] || fail "no file holds the main thread's sleep or wait begun before it"
"$EPROF" report "${args[@]}" --off-cpu --fold >"$TMP/omerged.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report --off-cpu of all files merged failed"; }
awk '{ n = $NF; $NF = ""; c[$0] += n } END { for (k in c) print k c[k] }' "$TMP/each.fold" | sort >"$TMP/a"
awk '{ n = $NF; $NF = ""; c[$0] += n } END { for (k in c) print k c[k] }' "$TMP/omerged.fold" | sort >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" || { diff "$TMP/a" "$TMP/b" | head >&2; fail "the merged off-CPU report is not the sum of the files"; }
"$EPROF" report "${args[@]}" --off-cpu --tid "$tid" --fold >"$TMP/main.fold" 2>/dev/null ||
	fail "report --off-cpu --tid failed"
s=$(samples "$TMP/main.fold" '^offcpu_split;.*;main;sleep_phase;.*;do_nanosleep_\[k\]')
w=$(samples "$TMP/main.fold" '^offcpu_split;.*;main;wait_phase;.*(^|;|_)pipe_read_\[k\]')
say "blocked over the files: sleep_phase $s us, wait_phase $w us; measured $((slp / 1000)) and $((wait / 1000)) us"
[ "$s" -gt 0 ] && [ "$w" -gt 0 ] || fail "no named sleep or wait over the files"
check_share "sleep_phase (of blocked, over the files)" "$(share_pct "$s" "$((s + w))")" \
	"$(share_pct "$slp" "$((slp + wait))")" 5
truth_us=$(((slp + wait) / 1000))
awk -v m="$((s + w))" -v t="$truth_us" 'BEGIN { d = m - t; if (d < 0) d = -d; exit !(d <= t / 10) }' ||
	fail "blocked time $((s + w)) us over the files is not within 10% of the measured $truth_us us"
exit 0
