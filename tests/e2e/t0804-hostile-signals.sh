#!/bin/bash
# SPDX-License-Identifier: MIT
# t0804: lifetimes. SIGHUP (a closed terminal) ends a recording as SIGINT
# does: summary line, a finished file. A recorder killed with SIGKILL takes
# its `-- CMD` with it (the command would otherwise run on as an orphan).
. "$E2E_DIR/lib.sh"
require_root; require_btf

# 1. SIGHUP
"$EPROF" record -a -F 199 -o "$TMP/hup.eprof" 2>"$TMP/hup.err" &
rpid=$!
sleep 1.5
kill -HUP $rpid
wait $rpid
rc=$?
cat "$TMP/hup.err"
[ $rc -eq 0 ] || fail "SIGHUP: record exited $rc"
grep -q '^eprof: recorded [0-9]* samples' "$TMP/hup.err" || fail "SIGHUP: no summary line"
"$EPROF" info "$TMP/hup.eprof" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "SIGHUP: info failed"; }
grep -Eq '^finished +yes' "$TMP/info" || fail "SIGHUP: the recording was not finished"

# 2. SIGKILL of the recorder ends -- CMD
"$EPROF" record -F 99 -o "$TMP/kill.eprof" -- sh -c 'echo $$ >"$1"; exec sleep 300' sh "$TMP/cmd.pid" \
	2>/dev/null &
rpid=$!
for i in $(seq 1200); do [ -s "$TMP/cmd.pid" ] && break; sleep 0.1; done	# up to 120 s
cpid=$(cat "$TMP/cmd.pid")
[ -n "$cpid" ] && kill -0 "$cpid" || fail "the command did not start"
sleep 0.5
kill -KILL $rpid
wait $rpid 2>/dev/null
for i in $(seq 50); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$cpid" 2>/dev/null; then
	kill "$cpid"
	fail "the command (pid $cpid) outlived its SIGKILLed recorder"
fi
say "the command died with its recorder"
exit 0
