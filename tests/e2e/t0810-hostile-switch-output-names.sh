#!/bin/bash
# SPDX-License-Identifier: MIT
# t0810: --switch-output in a directory other users write (sticky, as
# /tmp). An unprivileged user pre-creates the next names: FILE.0001 as a
# directory, FILE.0002 as their own file with FILE.0002.old a directory,
# FILE.0003-journal as a directory. The recording goes on in the next free
# names (one warning per name skipped), every file it wrote is finished
# and reports, and the user's entries are left as they were.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody

d=$TMP/shared
mkdir -p "$d" && chmod 1777 "$d"
as_nobody mkdir "$d/r.eprof.0001" "$d/r.eprof.0002.old" "$d/r.eprof.0003-journal" || fail "mkdir as nobody"
as_nobody touch "$d/r.eprof.0002" || fail "touch as nobody"
"$EPROF" record -F 499 --switch-output 1s -o "$d/r.eprof" -- "$WORKLOADS/known_split" 3000 \
	2>"$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record stopped at a name another user took"; }
cat "$TMP/rec.err"
[ "$(grep -c "is taken by another user or is not a file: skipped" "$TMP/rec.err")" = 3 ] ||
	fail "expected one warning per name skipped"
[ -d "$d/r.eprof.0001" ] && [ -d "$d/r.eprof.0002.old" ] && [ -d "$d/r.eprof.0003-journal" ] &&
	[ -f "$d/r.eprof.0002" ] && [ ! -s "$d/r.eprof.0002" ] && [ "$(stat -c %U "$d/r.eprof.0002")" = nobody ] ||
	fail "the other user's entries were changed"
n=0
for f in "$d/r.eprof" "$d"/r.eprof.[0-9][0-9][0-9][0-9]; do
	[ -f "$f" ] && [ "$(stat -c %U "$f")" = root ] || continue
	"$EPROF" report -i "$f" --fold >/dev/null 2>"$TMP/rep.err" || { cat "$TMP/rep.err"; fail "$f does not report"; }
	grep -q 'not finished\|unfinished' "$TMP/rep.err" && fail "$f was not finished"
	n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n files for 3 s of CPU time at --switch-output 1s"
[ -f "$d/r.eprof.0004" ] || fail "the first free name, r.eprof.0004, was not used"
say "$n files, the taken names skipped"
exit 0
