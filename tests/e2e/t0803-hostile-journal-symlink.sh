#!/bin/bash
# SPDX-License-Identifier: MIT
# t0803: in a world-writable sticky directory (like /tmp), a user who keeps
# planting FILE.eprof-journal as a symlink (to a file of theirs) while root
# records FILE.eprof cannot stop the recording, nor get anything written
# through the link; the recording is created 0600 (it holds every
# process's command line) and leaves no journal of its own behind.
# Before, the commit after the first planted link failed ("unable to open
# database file") and the recording stopped.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody

D="$TMP/sticky"
mkdir -m 1777 "$D"
echo "the user's own file" >"$D/target"
chown nobody "$D/target"
cat >"$TMP/plant.sh" <<'SH'
#!/bin/sh
# plants $1 as a symlink to $2 again and again until $3 exists
while [ ! -e "$3" ]; do ln -s "$2" "$1" 2>/dev/null; done
SH
chmod 755 "$TMP/plant.sh"
as_nobody "$TMP/plant.sh" "$D/r.eprof-journal" "$D/target" "$TMP/stop" &
planter=$!
sleep 0.3
[ -L "$D/r.eprof-journal" ] || fail "the planter did not plant the link"
"$EPROF" record -a -F 199 -d 3 -o "$D/r.eprof" 2>"$TMP/rec.err"
rc=$?
touch "$TMP/stop"
wait $planter
cat "$TMP/rec.err"
[ $rc -eq 0 ] || fail "record exited $rc with a journal symlink planted"
grep -q '^eprof: recorded [0-9]* samples' "$TMP/rec.err" || fail "no summary line"
[ "$(cat "$D/target")" = "the user's own file" ] || fail "something was written through the planted link"
[ "$(stat -c %a "$D/r.eprof")" = 600 ] || fail "the recording is $(stat -c %a "$D/r.eprof"), not 600"
[ -f "$D/r.eprof-journal" ] && [ ! -L "$D/r.eprof-journal" ] && fail "the recording left its journal behind"
as_nobody cat "$D/r.eprof" >/dev/null 2>&1 && fail "another user can read the recording"

rm -f "$D/r.eprof-journal"
"$EPROF" info "$D/r.eprof" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed"; }
grep -Eq '^finished +yes' "$TMP/info" || fail "the recording is not finished"
n=$(awk '$1 == "samples" { print $2 }' "$TMP/info")
say "$n samples in 3 s of -a with the journal link planted"
[ "$n" -gt 0 ] || fail "no samples"
exit 0
