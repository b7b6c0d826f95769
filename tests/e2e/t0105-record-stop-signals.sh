#!/bin/bash
# SPDX-License-Identifier: MIT
# t0105: SIGINT and SIGTERM end a recording cleanly (finished file, summary
# line, every sample committed before the signal kept), as does -d; the
# report reads it without a "not finalized" warning. The signal is sent
# once the recording has committed samples, however long a busy machine
# takes to start it.
. "$E2E_DIR/lib.sh"
require_root; require_btf

for sig in INT TERM; do
	env --default-signal=INT "$EPROF" record -a -F 499 -o "$TMP/$sig.eprof" 2>"$TMP/rec.err" &
	rpid=$!
	before=$(wait_committed "$TMP/$sig.eprof" 100) || { kill -KILL $rpid; exit 1; }
	kill -$sig $rpid
	wait $rpid
	rc=$?
	cat "$TMP/rec.err"
	[ $rc -lt 124 ] || [ $rc -eq 130 ] || [ $rc -eq 143 ] || fail "SIG$sig: record died with $rc"
	grep -q '^eprof: recorded [0-9]* samples' "$TMP/rec.err" || fail "SIG$sig: no summary line"
	"$EPROF" report -i "$TMP/$sig.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" || fail "SIG$sig: report failed"
	grep -q 'not finalized' "$TMP/rep.err" && fail "SIG$sig: the recording was not finalized"
	n=$(samples "$TMP/fold" '.')
	say "SIG$sig: $n samples ($before committed before the signal)"
	[ "$n" -ge "$before" ] || fail "SIG$sig: only $n samples, $before were committed before the signal"
done

start=$(date +%s.%N)
"$EPROF" record -a -F 99 -d 1 -o "$TMP/d.eprof" 2>/dev/null || fail "-d 1 failed"
el=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
say "-d 1 took $el s"
awk -v e="$el" 'BEGIN { exit !(e >= 0.9 && e < 10) }' || fail "-d 1 ran for $el s"
"$EPROF" report -i "$TMP/d.eprof" --fold >/dev/null 2>"$TMP/rep.err" || fail "report of -d recording failed"
exit 0
