#!/bin/bash
# SPDX-License-Identifier: MIT
# t0301: a recorder killed with SIGKILL leaves a file that report reads up to
# its last commit: report succeeds, warns that the recording was not
# finalized, and holds at least the samples that `eprof info` saw committed
# before the kill (the test waits for a second's worth on one CPU at 999 Hz,
# however long a busy machine takes to get there).
. "$E2E_DIR/lib.sh"
require_root; require_btf

f="$TMP/killed.eprof"

env --default-signal=INT "$EPROF" record -a -F 999 -o "$f" 2>"$TMP/rec.err" &
rpid=$!
before=$(wait_committed "$f" 999) || { kill -KILL $rpid; exit 1; }
kill -KILL $rpid
wait $rpid
rc=$?
cat "$TMP/rec.err"
[ $rc -eq 137 ] || fail "record was expected to die of SIGKILL (137), exited $rc"
grep -q '^eprof: recorded' "$TMP/rec.err" && fail "a SIGKILLed recorder printed a summary line"
[ -s "$f" ] || fail "no file left behind"

"$EPROF" report -i "$f" --fold >"$TMP/fold" 2>"$TMP/rep.err"
rc=$?
cat "$TMP/rep.err"
[ $rc -eq 0 ] || fail "report of the killed recording exited $rc"
grep -qi 'not finalized' "$TMP/rep.err" || fail "report did not warn that the recording was not finalized"

n=$(samples "$TMP/fold" '.')
say "$n samples in the killed recording ($before were committed before the kill)"
[ "$n" -ge "$before" ] || fail "only $n samples survived the kill, $before were committed before it"

# info agrees that it is unfinished and counts the same samples.
"$EPROF" info "$f" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed on the killed recording"; }
grep -Eq '^finished +no' "$TMP/info" || { cat "$TMP/info"; fail "info does not say 'finished no'"; }
m=$(awk '/^samples /{ print $2 }' "$TMP/info")
[ "$m" = "$n" ] || fail "info counts $m samples, the fold $n"
exit 0
