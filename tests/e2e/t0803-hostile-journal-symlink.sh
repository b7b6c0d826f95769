#!/bin/bash
# SPDX-License-Identifier: MIT
# t0803: in a world-writable sticky directory (like /tmp), a user who keeps
# planting FILE.eprof-journal as a symlink (to a file of theirs) while root
# records FILE.eprof cannot stop the recording, nor get anything written
# through the link; the recording is created 0600 (it holds every
# process's command line) and leaves no journal of its own behind.
# Before, the commit after the first planted link failed ("unable to open
# database file") and the recording stopped. A world-writable directory
# without the sticky bit is refused up front.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody

D="$TMP/sticky"
mkdir -m 1777 "$D"
echo "the user's own file" >"$D/target"
chown nobody "$D/target"
cat >"$TMP/plant.sh" <<'SH'
#!/bin/sh
# plants $1 as a symlink to $2 again and again until $3 exists (or its
# directory is gone: the test ended without saying stop)
while [ ! -e "$3" ] && [ -d "${1%/*}" ]; do ln -s "$2" "$1" 2>/dev/null; done
SH
chmod 755 "$TMP/plant.sh"
as_nobody "$TMP/plant.sh" "$D/r.eprof-journal" "$D/target" "$TMP/stop" &
planter=$!
# A planter left running after a failure would hold ctest's output pipe open
# and the test would hang until ctest's timeout: stop it on every exit, and
# wait for it before $TMP is removed (an ln racing rm -rf keeps the directory
# and the planter alive). On a loaded machine it may take seconds to start:
# wait for its first link.
trap 'touch "$TMP/stop"; wait $planter; rm -rf "$TMP"' EXIT
for _ in $(seq 300); do [ -L "$D/r.eprof-journal" ] && break; sleep 0.1; done
[ -L "$D/r.eprof-journal" ] || fail "the planter did not plant the link in 30 s"
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


# The reader ignores what the user leaves at the journal's name: a symlink,
# a FIFO (it would block SQLite's open), or a "hot journal" of theirs
# (SQLite would roll its pages back into root's recording).
for kind in symlink fifo file; do
	rm -f "$D/r.eprof-journal"
	case $kind in
	symlink) as_nobody ln -s "$D/target" "$D/r.eprof-journal" ;;
	fifo) as_nobody mkfifo "$D/r.eprof-journal" ;;
	file) as_nobody sh -c "printf '\\331\\325\\005\\371\\040\\241\\143\\327garbage' >'$D/r.eprof-journal'" ;;
	esac
	sum=$(md5sum <"$D/r.eprof")
	timeout -k 5 30 "$EPROF" info "$D/r.eprof" >"$TMP/info" 2>&1
	rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "info hung on a planted journal $kind"
	[ $rc -eq 0 ] || { cat "$TMP/info"; fail "info failed with a planted journal $kind"; }
	grep -Eq '^finished +yes' "$TMP/info" || fail "the recording is not finished ($kind)"
	[ "$(md5sum <"$D/r.eprof")" = "$sum" ] || fail "reading changed the recording ($kind)"
	n=$(awk '$1 == "samples" { print $2 }' "$TMP/info")
	[ "$n" -gt 0 ] || fail "no samples ($kind)"
	say "info with a journal $kind planted: $n samples"
done

# A world-writable directory that is not sticky cannot be made safe (anyone
# may rename the recording there): record refuses it before it starts.
mkdir -m 0777 "$TMP/open"
"$EPROF" record -a -d 1 -o "$TMP/open/r.eprof" 2>"$TMP/open.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 124 ] || fail "world-writable directory: exit $rc"
one_line_error "$TMP/open.err"
grep -q "is writable by every user and not sticky" "$TMP/open.err" || fail "no reason given"
[ -z "$(ls -A "$TMP/open")" ] || fail "something was created in the refused directory"
say "$(cat "$TMP/open.err")"
exit 0
