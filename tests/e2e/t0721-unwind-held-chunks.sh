#!/bin/bash
# SPDX-License-Identifier: MIT
# t0721: samples wait with the stack copies taken before them. Under
# `record -a --mem-limit 128M` beside three clang++ compiles, stack copies
# wait for the big binaries' windows across commits. A commit then keeps
# back the samples taken from the earliest waiting copy on, so that no
# chunk reaches back into an earlier chunk's time: the reader refuses such
# a file as damaged. Session 16's recorder wrote them here ('sample_chunk
# chunk 2: starts at ..., inside the time of an earlier chunk'), and info
# and every view failed on the file. Now the file reads, its chunks are in
# time order within the ring buffer's reordering (10 ms), and info says
# how many commits kept samples back.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd clang++; require_cmd sqlite3

for i in 1 2 3; do
	cp "$E2E_DIR/../workloads/clang_input.cc" "$TMP/c$i.cc" || fail "no clang_input.cc"
done
"$EPROF" record -a -F 999 --mem-limit 128M --table-cache none -o "$TMP/r.eprof" 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/r.eprof" 1 >/dev/null
for i in 1 2 3; do
	clang++ -O2 -c "$TMP/c$i.cc" -o "$TMP/c$i.o" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a compile failed"; done
sleep 0.5
kill -INT $rpid
wait $rpid || { cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" info "$TMP/r.eprof" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed"; }
grep -E '^raw stack|^commits that kept' "$TMP/info" | sed 's/^/# /'
held=$(awk '/^commits that kept samples back/ { print $NF }' "$TMP/info")
[ -n "$held" ] || fail "info does not say how many commits kept samples back"
# every chunk starts after the chunks before it ended, less 10 ms
late=$(sqlite3 "$TMP/r.eprof" "SELECT count(*) FROM sample_chunk a WHERE a.first_time <
	(SELECT max(b.last_time) FROM sample_chunk b WHERE b.id < a.id) - 10000000") ||
	fail "cannot read the chunks"
[ "$late" -eq 0 ] || fail "$late chunks reach back into an earlier chunk's time"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/all.fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
grep '^clang' "$TMP/all.fold" >"$TMP/fold"
n=$(samples "$TMP/fold" .)
say "clang's samples: $n; commits that kept samples back: $held"
[ "$n" -ge 100 ] || fail "only $n samples of the compiles"
exit 0
