#!/bin/bash
# SPDX-License-Identifier: MIT
# t0507: `report --samples` lists every sample once, in time order, in perf
# script's layout, under the same filters as the other views: folding its
# stacks by hand gives exactly what --fold prints, with and without
# filters. `report` with no view prints the top table.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$WORKLOADS/known_split" 800 2>/dev/null ||
	fail "record failed"

# fold_samples FILE: perf script text -> folded stacks, as --fold writes them
fold_samples() {
	awk '
	/^#/ { next }
	/^[^\t]/ { comm = $1; frames = ""; next }
	/^\t/ {
		line = $0; sub(/^\t */, "", line)
		addr = line; sub(/ .*/, "", addr); sub(/^[0-9a-f]+ /, "", line)
		name = line; sub(/ \([^(]*\)$/, "", name)
		# kernel addresses are the top half; their frames fold with "_[k]"
		if (length(addr) == 16 && addr ~ /^ffff/) name = name "_[k]"
		frames = ";" name frames
		next
	}
	/^$/ { n[comm frames]++ }
	END { for (k in n) print k, n[k] }' "$1" | LC_ALL=C sort
}

check_filter() {
	"$EPROF" report -i "$TMP/r.eprof" "$@" --samples >"$TMP/samples" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "--samples $* failed"; }
	"$EPROF" report -i "$TMP/r.eprof" "$@" --fold >"$TMP/fold" 2>/dev/null ||
		fail "--fold $* failed"
	[ -s "$TMP/fold" ] || fail "--fold $* left nothing to compare"
	fold_samples "$TMP/samples" >"$TMP/refold"
	diff -u "$TMP/fold" "$TMP/refold" >"$TMP/diff" ||
		{ head -20 "$TMP/diff"; fail "--samples $* does not fold to what --fold prints"; }
	# header: comm pid/tid [cpu] seconds.micros: period cpu-clock:
	bad=$(grep -v '^#' "$TMP/samples" | grep -v $'^\t' | grep -v '^$' |
		grep -Evc '^[^ ]+ +[0-9]+/[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +[0-9]+ cpu-clock:$')
	[ "$bad" -eq 0 ] || fail "$bad sample headers are not in perf script's layout"
	# time order
	grep -Eo '\] +[0-9]+\.[0-9]{6}:' "$TMP/samples" | tr -d '] :' |
		awk 'NR > 1 && $1 < last { bad++ } { last = $1 } END { exit bad > 0 }' ||
		fail "--samples $* is not in time order"
	say "--samples $*: $(grep -c 'cpu-clock:$' "$TMP/samples") samples, fold matches"
}

check_filter
# a window over the middle half of the samples: taken from their times, not
# fixed seconds, since a loaded machine may run the workload at any time
read -r from to <<<"$(grep -Eo '\] +[0-9]+\.[0-9]{6}:' "$TMP/samples" | tr -d '] :' |
	awk '{ t[NR] = $1 } END { printf "%.3f %.3f\n", t[int(NR / 4) + 1], t[int(3 * NR / 4)] }')"
# the CPU of the first sample: the workload may have run on one CPU only
cpu=$(grep -m1 -Eo ' \[[0-9]{3}\] ' "$TMP/samples" | tr -d ' []' | sed 's/^0*\(.\)/\1/')
check_filter --cpu "$cpu"
check_filter --from "$from" --to "$to"
check_filter --user-only

# the first frame under each header is the leaf: work_a leads as many samples as
# --fold has stacks ending in work_a (the last run was --user-only)
n=$(grep -c 'cpu-clock:$' "$TMP/samples")
a=$(awk '/cpu-clock:$/ { getline; if ($2 == "work_a") s++ } END { print s + 0 }' "$TMP/samples")
want=$(samples "$TMP/fold" ';work_a *$')
[ "$a" -gt 0 ] && [ "$a" -eq "$want" ] ||
	fail "work_a is the first frame of $a samples; --fold has $want ending in it"
say "work_a leads $a of $n samples, as in --fold"

# several -i: each recording in turn, after a "# FILE" line
cp "$TMP/r.eprof" "$TMP/r2.eprof"
"$EPROF" report -i "$TMP/r.eprof" -i "$TMP/r2.eprof" --user-only --samples >"$TMP/two" 2>/dev/null ||
	fail "--samples with two -i failed"
[ "$(grep -c "^# $TMP/r.eprof\$" "$TMP/two")" -eq 1 ] && [ "$(grep -c "^# $TMP/r2.eprof\$" "$TMP/two")" -eq 1 ] ||
	fail "two -i do not give one '# FILE' line each"
[ "$(grep -c 'cpu-clock:$' "$TMP/two")" -eq $((2 * n)) ] || fail "two -i do not list each sample twice"

# no view: the top table
"$EPROF" report -i "$TMP/r.eprof" >"$TMP/default" 2>/dev/null || fail "report with no view failed"
"$EPROF" report -i "$TMP/r.eprof" --top >"$TMP/top" 2>/dev/null || fail "report --top failed"
cmp -s "$TMP/default" "$TMP/top" || fail "report with no view is not the top table"
exit 0
