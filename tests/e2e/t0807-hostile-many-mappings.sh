#!/bin/bash
# SPDX-License-Identifier: MIT
# t0807: no count of user mappings makes the recorder run out of file
# descriptors. Under `ulimit -n 1024` (soft and hard), two unprivileged
# processes hold 5,000 executable mappings of one file and 1,500 of as many
# distinct files; `record -a` starts, reads them, and names known_split
# running beside them.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody

mkdir -p "$TMP/many"
for i in $(seq 0 1499); do printf "\177ELF%4092s" "" >"$TMP/many/$i"; done	# builtins: no fork per file
mappers_setup
as_nobody "$WORKLOADS/mapmany" 60 5000 "$TMP/one" "$TMP/w/ready1" &
pids+=($!)
as_nobody "$WORKLOADS/mapmany" 60 1500 "$TMP/many" "$TMP/w/ready2" &
pids+=($!)
for i in $(seq 600); do [ -e "$TMP/w/ready1" ] && [ -e "$TMP/w/ready2" ] && break; sleep 0.1; done
[ -e "$TMP/w/ready1" ] && [ -e "$TMP/w/ready2" ] || fail "the mapping processes did not get ready"
sleep 0.1	# the pid is written
n=$(awk '$2 ~ /x/' "/proc/$(cat "$TMP/w/ready1")/maps" | wc -l)
[ "$n" -ge 5000 ] || fail "only $n executable mappings in the first process"

(
	ulimit -n 1024 || exit 2
	exec "$EPROF" record -a -F 499 -o "$TMP/r.eprof"
) 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/r.eprof" 1 >/dev/null
"$WORKLOADS/known_split" 1000 || fail "known_split failed"
kill -INT $rpid
wait $rpid || { cat "$TMP/rec.err"; fail "record -a failed under ulimit -n 1024"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/r.eprof" --fold --comm known_split >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
total=$(samples "$TMP/fold" .)
check_at_least "known_split's samples in work_a/b/c" "$(samples "$TMP/fold" ';work_[abc](;| |$)')" "$total" 90
exit 0
