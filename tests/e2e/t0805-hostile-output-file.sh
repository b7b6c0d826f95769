#!/bin/bash
# SPDX-License-Identifier: MIT
# t0805: what record does to the output file when things go wrong.
# - `-- CMD` that cannot be run (typo, not executable, a directory) fails
#   with one line and status 127/126, creates no file and leaves an existing
#   one as it was (not moved to FILE.old);
# - a command whose exec fails only when it runs (a script naming a missing
#   interpreter) leaves no recording either: the old file is put back;
# - moving FILE to FILE.old is said on stderr, and so is replacing an
#   older FILE.old;
# - an output directory removed during the recording gets one line that
#   says so, not SQLite's "attempt to write a readonly database".
. "$E2E_DIR/lib.sh"
require_root; require_btf

f="$TMP/r.eprof"
echo "an earlier recording" >"$f"
ino=$(stat -c %i "$f")
touch "$TMP/noexec"
printf '#!/nonexistent/interpreter\n' >"$TMP/badscript"
chmod 755 "$TMP/badscript"

expect_cannot_run() {	# expect_cannot_run STATUS CMD
	"$EPROF" record -o "$f" -- "$2" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq "$1" ] || { cat "$TMP/err"; fail "'$2': exit $rc, expected $1"; }
	one_line_error "$TMP/err"
	grep -q "^eprof: error: cannot run '$2': " "$TMP/err" || fail "'$2': $(cat "$TMP/err")"
	[ "$(cat "$f")" = "an earlier recording" ] && [ "$(stat -c %i "$f")" = "$ino" ] ||
		fail "'$2': the existing file was touched"
	[ -e "$f.old" ] && fail "'$2': a FILE.old appeared"
	say "$(cat "$TMP/err") (exit $rc)"
}
expect_cannot_run 127 no-such-command-eprof-t0805
expect_cannot_run 127 "$TMP/no/such/file"
expect_cannot_run 126 "$TMP/noexec"
expect_cannot_run 126 "$TMP"

# exec fails in the child: the recording existed for a moment, then goes
"$EPROF" record -o "$f" -- "$TMP/badscript" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 127 ] || fail "bad interpreter: exit $rc, expected 127"
[ "$(grep -c '^eprof: error: ' "$TMP/err")" = 1 ] || fail "bad interpreter: not one error line"
grep -q "^eprof: error: cannot run '$TMP/badscript': No such file or directory" "$TMP/err" ||
	fail "bad interpreter: no error naming the script"
[ "$(cat "$f")" = "an earlier recording" ] || fail "bad interpreter: the old file was not put back"
[ -e "$f.old" ] && fail "bad interpreter: FILE.old left behind"

# FILE.old is said, and so is replacing an older one
"$EPROF" record -o "$f" -- true 2>"$TMP/err1" || { cat "$TMP/err1"; fail "record 1 failed"; }
grep -qx "eprof: kept the previous recording as '$f.old'" "$TMP/err1" ||
	{ cat "$TMP/err1"; fail "moving FILE to FILE.old was not said"; }
[ "$(cat "$f.old")" = "an earlier recording" ] || fail "FILE.old is not the earlier file"
"$EPROF" record -o "$f" -- true 2>"$TMP/err2" || { cat "$TMP/err2"; fail "record 2 failed"; }
grep -qx "eprof: kept the previous recording as '$f.old' (replacing the older '$f.old')" "$TMP/err2" ||
	{ cat "$TMP/err2"; fail "replacing the older FILE.old was not said"; }
say "$(grep old "$TMP/err2")"

# the output directory goes away during the recording
mkdir "$TMP/gone"
"$EPROF" record -a -F 99 -d 120 -o "$TMP/gone/r.eprof" 2>"$TMP/gone.err" &
rpid=$!
wait_committed "$TMP/gone/r.eprof" 1 >/dev/null	# recording, however busy the machine
rm -rf "$TMP/gone"
wait $rpid
rc=$?
cat "$TMP/gone.err"
[ $rc -ne 0 ] && [ $rc -lt 124 ] || fail "removed directory: exit $rc"
# -a on a busy machine may warn first (processes whose maps stayed locked):
# one error line, and it is the last
[ "$(grep -c '^eprof: error: ' "$TMP/gone.err")" = 1 ] &&
	tail -n 1 "$TMP/gone.err" | grep -q '^eprof: error: ' ||
	fail "removed directory: not one error line, last"
grep -q "its directory '$TMP/gone' was removed during the recording" "$TMP/gone.err" ||
	fail "removed directory: the error does not say so"
exit 0
