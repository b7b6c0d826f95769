#!/bin/bash
# SPDX-License-Identifier: MIT
# t0301: a recorder killed with SIGKILL leaves a file that report reads up to
# its last commit: report succeeds, warns that the recording was not
# finalized, and holds at least about a second of samples (999 Hz on every
# CPU) of the 2.5 s the recorder ran.
. "$E2E_DIR/lib.sh"
require_root; require_btf

ncpu=$(getconf _NPROCESSORS_ONLN)
f="$TMP/killed.eprof"

env --default-signal=INT "$EPROF" record -a -F 999 -o "$f" 2>"$TMP/rec.err" &
rpid=$!
sleep 2.5
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
# One second's worth at 999 Hz on every CPU, 20% tolerance for start-up and
# for a busy machine (the idle task is sampled too, so every CPU counts).
min=$((999 * ncpu * 8 / 10))
say "$n samples in the killed recording (want >= $min: 1 s at 999 Hz x $ncpu CPUs - 20%)"
[ "$n" -ge "$min" ] || fail "only $n samples survived the kill, want >= $min"

# info agrees that it is unfinished and counts the same samples.
"$EPROF" info "$f" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed on the killed recording"; }
grep -Eq '^finished +no' "$TMP/info" || { cat "$TMP/info"; fail "info does not say 'finished no'"; }
m=$(awk '/^samples /{ print $2 }' "$TMP/info")
[ "$m" = "$n" ] || fail "info counts $m samples, the fold $n"
exit 0
