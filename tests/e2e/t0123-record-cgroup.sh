#!/bin/bash
# SPDX-License-Identifier: MIT
# t0123: record --cgroup PATH (perf's -G) samples only the tasks of that
# cgroup v2 directory and those below it: the 60/30/10 workload in a test
# cgroup (in a child cgroup of it, to check descendants too) is recorded
# and named; a spinner outside it, and everything else on the machine, is
# not. A path that is not a cgroup v2 directory is one error line.
. "$E2E_DIR/lib.sh"
require_root; require_btf

mnt=$(awk '$(NF-2) == "cgroup2" || ($0 ~ / - cgroup2 /) { print $5; exit }' /proc/self/mountinfo)
[ -n "$mnt" ] || skip "no cgroup v2 file system mounted"
cg=$mnt/eprof-t0123-$$
mkdir "$cg" "$cg/inner" 2>/dev/null || skip "cannot create a cgroup under $mnt"

pids=()
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do	# the last task may take a moment to leave
		rmdir "$cg/inner" "$cg" 2>/dev/null
		[ -d "$cg" ] || break
		sleep 0.2
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# the workload moves itself into the inner cgroup before it execs
sh -c "echo \$\$ >'$cg/inner/cgroup.procs' && exec '$WORKLOADS/known_split' 60000" &
inside=$!
pids+=($inside)
sh -c 'while :; do :; done' &
outside=$!
pids+=($outside)
sleep 0.3
grep -q "eprof-t0123-$$/inner\$" "/proc/$inside/cgroup" || fail "the workload is not in the test cgroup"

# until 300 samples are committed, however little CPU the machine leaves the workload
"$EPROF" record --cgroup "$cg" -F 499 -d 120 -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
rec=$!
wait_committed "$TMP/r.eprof" 300 >/dev/null
kill -INT "$rec"
wait "$rec" || { cat "$TMP/rec.err"; fail "record --cgroup failed"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/r.eprof" --fold --by pid >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
all=$(samples "$TMP/fold" '.')
in=$(samples "$TMP/fold" "^pid $inside;")
out=$(samples "$TMP/fold" "^pid $outside;")
a=$(samples "$TMP/fold" ';work_a( |;|$)')
b=$(samples "$TMP/fold" ';work_b( |;|$)')
c=$(samples "$TMP/fold" ';work_c( |;|$)')
say "$all samples: $in of the cgroup's workload, $out of the spinner outside; work_a=$a work_b=$b work_c=$c"
[ "$in" -ge 300 ] || fail "only $in samples of the workload in the cgroup"
[ "$out" -eq 0 ] || fail "$out samples of the spinner outside the cgroup"
[ "$in" -eq "$all" ] || { cut -d';' -f1-2 "$TMP/fold" | sort | uniq -c | sort -rn | head >&2; fail "$((all - in)) samples of other tasks"; }
check_at_least "samples in work_a/b/c" $((a + b + c)) "$in" 90
[ "$a" -gt "$c" ] && [ "$b" -gt "$c" ] || fail "work_c has more samples than work_a or work_b"
"$EPROF" info "$TMP/r.eprof" | grep -q "^target  *--cgroup $cg\$" || fail "info does not show the cgroup target"

# a relative path is taken under the cgroup2 mount
"$EPROF" record -G "eprof-t0123-$$" -F 99 -d 0.5 -o "$TMP/rel.eprof" 2>"$TMP/rel.err" ||
	{ cat "$TMP/rel.err"; fail "record -G with a relative path failed"; }

"$EPROF" record --cgroup "$TMP" -d 1 -o "$TMP/bad.eprof" 2>"$TMP/bad.err" && fail "a plain directory was taken as a cgroup"
one_line_error "$TMP/bad.err"
[ ! -e "$TMP/bad.eprof" ] || fail "a recording was left for a wrong cgroup"
exit 0
