#!/bin/bash
# SPDX-License-Identifier: MIT
# t0812: a binary whose name carries terminal escape sequences (clear the
# screen, a title, a C1 CSI), with a damaged .gnu_debugdata, is recorded:
# (its .symtab stripped) the recorder's warning names it escaped (\033 ...), and no raw control
# byte reaches the operator's terminal.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd objcopy

name=$(printf 'ks\033[2J\033]0;pwned\007\302\233x')
head -c 4096 /dev/urandom >"$TMP/junk"
objcopy --strip-all --add-section .gnu_debugdata="$TMP/junk" "$WORKLOADS/known_split" "$TMP/$name" ||
	fail "cannot build the binary"
"$EPROF" record -F 499 -o "$TMP/r.eprof" -- "$TMP/$name" 500 2>"$TMP/rec.err" ||
	{ cat -v "$TMP/rec.err"; fail "record failed"; }
cat -v "$TMP/rec.err"
grep -q 'gnu_debugdata' "$TMP/rec.err" || fail "no warning about the damaged .gnu_debugdata"
grep -qF 'ks\033[2J\033]0;pwned\007\302\233x' "$TMP/rec.err" || fail "the name is not shown escaped"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$TMP/rec.err" && fail "a raw control byte reached the terminal"
LC_ALL=C grep -q "$(printf '\302\233')" "$TMP/rec.err" && fail "a raw C1 control reached the terminal"
say "the name was escaped"
exit 0
