#!/bin/bash
# SPDX-License-Identifier: MIT
# t0601: a recording made by the eprof that wrote format v1 (user_version 1,
# tests/fixtures/v1/) reports exactly as that eprof reported it: the folded
# stacks and the top table are compared byte for byte with what it printed.
# Needs no root: it only reads.
. "$E2E_DIR/lib.sh"

fx="$E2E_DIR/../fixtures/v1"
[ -s "$fx/known_split.eprof" ] && [ "$(sqlite3 -readonly "$fx/known_split.eprof" "PRAGMA user_version")" = 1 ] ||
	fail "the v1 fixture is not user_version 1"
cp "$fx/known_split.eprof" "$TMP/v1.eprof"	# report must not need to write
chmod 0444 "$TMP/v1.eprof"
"$EPROF" report -i "$TMP/v1.eprof" --fold >"$TMP/fold" 2>"$TMP/err" || { cat "$TMP/err"; fail "report --fold of the v1 file failed"; }
diff -u "$fx/known_split.fold" "$TMP/fold" || fail "folded output of the v1 file changed"
"$EPROF" report -i "$TMP/v1.eprof" --top 5 >"$TMP/top" 2>"$TMP/err" || { cat "$TMP/err"; fail "report --top of the v1 file failed"; }
diff -u "$fx/known_split.top" "$TMP/top" || fail "top table of the v1 file changed"
"$EPROF" info "$TMP/v1.eprof" >"$TMP/info" 2>"$TMP/err" || { cat "$TMP/err"; fail "info of the v1 file failed"; }
grep -Eq '^samples +151$' "$TMP/info" || { cat "$TMP/info"; fail "info does not count the v1 file's 151 samples"; }
grep -Eq "^format version +1$" "$TMP/info" || { cat "$TMP/info"; fail "info does not give the file's own format version (1)"; }
exit 0
