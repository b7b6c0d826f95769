#!/bin/bash
# SPDX-License-Identifier: MIT
# t1302: `record -q` prints nothing but errors and warnings (README): over
# an existing recording it is silent too. Before, it still said "kept the
# previous recording as 'FILE.old'". Without -q that line is printed.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -q -F 99 -o "$TMP/r.eprof" -- true 2>"$TMP/err1" || { cat "$TMP/err1"; fail "first record failed"; }
"$EPROF" record -q -F 99 -o "$TMP/r.eprof" -- true 2>"$TMP/err2" || { cat "$TMP/err2"; fail "second record failed"; }
[ -f "$TMP/r.eprof.old" ] || fail "the previous recording was not kept"
[ ! -s "$TMP/err1" ] || { cat "$TMP/err1"; fail "record -q printed something"; }
[ ! -s "$TMP/err2" ] || { cat "$TMP/err2"; fail "record -q over an existing file printed something"; }
"$EPROF" record -F 99 -o "$TMP/r.eprof" -- true 2>"$TMP/err3" || { cat "$TMP/err3"; fail "third record failed"; }
grep -q "kept the previous recording" "$TMP/err3" || { cat "$TMP/err3"; fail "without -q the kept file is not named"; }
say "record -q is silent; without -q: $(head -1 "$TMP/err3")"
exit 0
