#!/bin/bash
# SPDX-License-Identifier: MIT
# t0719: a fork storm under `record -- CMD` (issue 22): the recorder's one
# table of threads and processes (record/threads.h) forgets each child two
# commits after its exit, so it holds the children of the last seconds,
# not every child of the recording; and forgetting them loses no name:
# every sample of the storm is named (`[unknown]` is a thread without a
# name row). The storm is 4 waves of 150 short processes (1 ms of CPU
# each), 3 s apart: a commit runs every second, so a wave is forgotten
# before the one after the next starts, whatever the machine's load.
. "$E2E_DIR/lib.sh"
require_root; require_btf

cat >"$TMP/storm.sh" <<'SH'
w=0
while [ $w -lt 4 ]; do
	i=0
	while [ $i -lt 150 ]; do "$1" 1; i=$((i + 1)); done
	w=$((w + 1))
	[ $w -lt 4 ] && sleep 3
done
exit 0
SH
timeout 200 "$EPROF" record -v -F 499 -o "$TMP/s.eprof" -- sh "$TMP/storm.sh" "$WORKLOADS/short_lived" \
	2>"$TMP/err" || { cat "$TMP/err"; fail "record of the storm failed"; }
line=$(grep 'thread table: at most' "$TMP/err") || { cat "$TMP/err"; fail "no thread table line under -v"; }
say "$line"
threads=$(sed -n 's/.*at most \([0-9]*\) threads and \([0-9]*\) processes.*/\1/p' <<<"$line")
procs=$(sed -n 's/.*at most \([0-9]*\) threads and \([0-9]*\) processes.*/\2/p' <<<"$line")
forgot=$(sed -n 's/.* \([0-9]*\) thread rows forgotten.*/\1/p' <<<"$line")
# the 600 children and the shell: without the table's lifetime, 601 rows
[ "$threads" -ge 1 ] && [ "$threads" -le 300 ] || fail "the thread table held $threads rows at once (want <= 300 of 601)"
[ "$procs" -le 300 ] || fail "the process table held $procs rows at once (want <= 300 of 601)"
[ "$forgot" -ge 300 ] || fail "only $forgot thread rows were forgotten"

"$EPROF" report -i "$TMP/s.eprof" --fold >"$TMP/all.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
all=$(samples "$TMP/all.fold" "")
kids=$(samples "$TMP/all.fold" '^short_lived;')
unnamed=$(samples "$TMP/all.fold" '^\[unknown\];')
say "$all samples, $kids of the short processes, $unnamed of threads without a name"
[ "$kids" -ge 50 ] || fail "too few samples of the short processes ($kids)"
[ "$unnamed" = 0 ] || { grep '^\[unknown\];' "$TMP/all.fold" | head -3; fail "$unnamed samples have no thread name"; }
exit 0
