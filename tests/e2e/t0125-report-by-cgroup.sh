#!/bin/bash
# SPDX-License-Identifier: MIT
# t0125: report --by cgroup. Two fixed amounts of CPU work, 1200 and 600 ms
# of their own CPU time (known_split counts its own clock), each in its own
# cgroup v2 directory, are recorded with -a; --by cgroup must name both
# cgroups by path and split their samples 2:1 (within 4 points) in the
# folded stacks, with the workload under each, and the same counts in the
# top table and the pprof labels (read back by go tool pprof where it is);
# the flame graph and the HTML page show both. record --cgroup A with both
# busy must give samples of A alone. A v1 file has no cgroup data: one
# warning line, everything under "[unknown cgroup]".
. "$E2E_DIR/lib.sh"
require_root; require_btf

mnt=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
[ -n "$mnt" ] || skip "no cgroup v2 file system mounted"
A=eprof-test-A-$$
B=eprof-test-B-$$
mkdir "$mnt/$A" "$mnt/$B" 2>/dev/null || skip "cannot create cgroups under $mnt"

pids=()
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do	# the last task may take a moment to leave
		rmdir "$mnt/$A" "$mnt/$B" 2>/dev/null
		[ -d "$mnt/$A" ] || [ -d "$mnt/$B" ] || break
		sleep 0.2
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# spin CGROUP MS: known_split for MS ms of its CPU time, moved into CGROUP before it execs
spin() {
	sh -c "echo \$\$ >'$mnt/$1/cgroup.procs' && exec '$WORKLOADS/known_split' $2" >/dev/null &
	pids+=($!)
}

# -a while the pair runs from start to end: the sampler runs before the work starts
"$EPROF" record -a -F 999 -d 300 -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
rec=$!
wait_committed "$TMP/r.eprof" 1 >/dev/null
spin "$A" 1200
spin "$B" 600
pair="${pids[0]},${pids[1]}"
wait "${pids[@]}" || fail "a workload failed"
pids=()
kill -INT "$rec"
wait "$rec" || { cat "$TMP/rec.err"; fail "record -a failed"; }

# the folded stacks: "CGROUP;COMM;frames count"
"$EPROF" report -i "$TMP/r.eprof" --fold --by cgroup >"$TMP/fold" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report --fold --by cgroup failed"; }
grep -q 'cgroup' "$TMP/err" && { cat "$TMP/err"; fail "report --by cgroup warned of the cgroups"; }
a=$(samples "$TMP/fold" "^/$A;known_split;")
b=$(samples "$TMP/fold" "^/$B;known_split;")
ao=$(samples "$TMP/fold" "^/$A;")
bo=$(samples "$TMP/fold" "^/$B;")
say "fold: /$A $a of known_split ($ao in all), /$B $b ($bo)"
[ "$a" -ge 300 ] && [ "$b" -ge 150 ] || fail "too few samples of the workloads in their cgroups"
check_at_least "known_split in /$A" "$a" "$ao" 95
check_at_least "known_split in /$B" "$b" "$bo" 95
# other tests may run known_split at the same time: the pair's own samples, by pid
"$EPROF" report -i "$TMP/r.eprof" --fold --by cgroup --pid "$pair" --comm known_split \
	>"$TMP/pair" 2>"$TMP/err" || { cat "$TMP/err"; fail "report --by cgroup --pid failed"; }
out=$(samples "$TMP/pair" '.')
[ "$out" -eq $((a + b)) ] || { cut -d';' -f1-2 "$TMP/pair" | sort | uniq -c >&2
	fail "$out samples of the pair, $((a + b)) of them in its cgroups"; }
check_share "fold: /$A of both" "$(share_pct "$a" $((a + b)))" 66.7 4
grep -Eq "^/$A;known_split;.*;work_a " "$TMP/fold" || fail "the workload's frames are not under its cgroup"

# the top table: a group per cgroup, "## PATH: N samples (P%)"
"$EPROF" report -i "$TMP/r.eprof" --top 5 --by cgroup >"$TMP/top" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report --top --by cgroup failed"; }
ta=$(awk -v p="## /$A:" 'index($0, p) == 1 { print $3 }' "$TMP/top")
tb=$(awk -v p="## /$B:" 'index($0, p) == 1 { print $3 }' "$TMP/top")
[ -n "$ta" ] && [ -n "$tb" ] || { cat "$TMP/top"; fail "the top table has no group of each cgroup"; }
say "top: /$A $ta samples, /$B $tb"
[ "$ta" -eq "$ao" ] && [ "$tb" -eq "$bo" ] || fail "top and fold count the cgroups differently"
grep -q '^## /: ' "$TMP/top" || fail "the root cgroup (everything else) has no group"
awk -v p="## /$A:" 'index($0, p) == 1 { f = 1; next } /^## / { f = 0 } f' "$TMP/top" |
	grep -q ' work_a  ' || fail "work_a is not in the top table of /$A"

# the flame graph: the cgroups are root-level frames
"$EPROF" report -i "$TMP/r.eprof" --svg "$TMP/r.svg" --by cgroup 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report --svg --by cgroup failed"; }
grep -q "/$A" "$TMP/r.svg" && grep -q "/$B" "$TMP/r.svg" || fail "the flame graph lacks the cgroups"

# info counts the names (the root, A, B at least) and the threads' rows
named=$("$EPROF" info "$TMP/r.eprof" | awk '/^cgroups / { print $2 }')
[ "${named:-0}" -ge 3 ] || { "$EPROF" info "$TMP/r.eprof" >&2; fail "info names ${named:-no} cgroups"; }

# the HTML page: the cgroups are its root-level frames
"$EPROF" report -i "$TMP/r.eprof" --html "$TMP/r.html" --by cgroup 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report --html --by cgroup failed"; }
html_arrays "$TMP/r.html" >"$TMP/r.names"
grep -aq "/$A" "$TMP/r.names" && grep -aq "/$B" "$TMP/r.names" || fail "the HTML page lacks the cgroups"

# pprof: every sample labelled with its cgroup; go tool pprof -tags gives the same split
"$EPROF" report -i "$TMP/r.eprof" --pprof "$TMP/r.pb.gz" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report --pprof failed"; }
if command -v go >/dev/null 2>&1; then
	go tool pprof -tags -symbolize=none -sample_index=samples "$TMP/r.pb.gz" >"$TMP/tags" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "go tool pprof -tags cannot read it"; }
	# "   1226 (66.47%): /eprof-test-A-123" in the cgroup block: the shares, whatever the units
	tag_pct() {
		awk -v p="/$1" '/^ *cgroup:/ { f = 1; next } /^ *[a-z_]+:/ { f = 0 }
			f && $NF == p && match($0, /\( *[0-9.]+%/) {
				v = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", v); print v
			}' "$TMP/tags"
	}
	pa=$(tag_pct "$A")
	pb=$(tag_pct "$B")
	[ -n "$pa" ] && [ -n "$pb" ] || { cat "$TMP/tags" >&2; fail "pprof has no cgroup tags of the pair"; }
	say "pprof tags: /$A $pa%, /$B $pb% of all samples"
	check_share "pprof: /$A of both" "$(awk -v a="$pa" -v b="$pb" 'BEGIN { printf "%.1f", 100 * a / (a + b) }')" \
		"$(share_pct "$ao" $((ao + bo)))" 1	# pprof rounds its shares of all to 0.01%
else
	say "no go tool: the pprof labels are not read back"
fi

# record --cgroup A with both cgroups busy: only A's samples in the file
spin "$A" 60000
spin "$B" 60000
"$EPROF" record --cgroup "$mnt/$A" -F 999 -d 300 -o "$TMP/g.eprof" 2>"$TMP/rec.err" &
rec=$!
wait_committed "$TMP/g.eprof" 200 >/dev/null
kill -INT "$rec"
wait "$rec" || { cat "$TMP/rec.err"; fail "record --cgroup failed"; }
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()
"$EPROF" report -i "$TMP/g.eprof" --fold --by cgroup >"$TMP/gfold" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report of record --cgroup failed"; }
all=$(samples "$TMP/gfold" '.')
ga=$(samples "$TMP/gfold" "^/$A;")
say "record --cgroup /$A: $ga of $all samples in /$A"
[ "$ga" -ge 200 ] || fail "only $ga samples of /$A"
[ "$ga" -eq "$all" ] || { cut -d';' -f1-2 "$TMP/gfold" | sort | uniq -c >&2; fail "samples outside /$A"; }

# a v1 file: no cgroup data, said once
"$EPROF" report -i "$E2E_DIR/../fixtures/v1/known_split.eprof" --fold --by cgroup >"$TMP/v1" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "report --by cgroup of a v1 file failed"; }
[ "$(grep -c 'no cgroup data' "$TMP/err")" -eq 1 ] || { cat "$TMP/err"; fail "no one-line note of the missing cgroup data"; }
[ "$(samples "$TMP/v1" '^\[unknown cgroup\];')" -eq "$(samples "$TMP/v1" '.')" ] ||
	fail "a v1 file's samples are not all under [unknown cgroup]"
exit 0
