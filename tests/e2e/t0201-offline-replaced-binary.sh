#!/bin/bash
# SPDX-License-Identifier: MIT
# t0201: a recording travels. After the recorded binary is removed and a
# different program is built at the same path, report still names the
# original functions and none of the new program's; and where none of the
# recorded binaries exist (an empty tmpfs over their directory, in a private
# mount namespace), every frame that resolved before still resolves.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd cc; require_cmd unshare

mkdir -p "$TMP/bin"
cp "$WORKLOADS/known_split" "$TMP/bin/app"
"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$TMP/bin/app" 1500 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/before" 2>"$TMP/before.err" || fail "report failed"
cat "$TMP/before.err"
grep -q ';work_a ' "$TMP/before" || fail "work_a not found even with the binary present"

# A different program at the same path.
rm -f "$TMP/bin/app"
cat >"$TMP/other.c" <<'CEOF'
__attribute__((noinline)) int impostor_one(int x) { return x * 3; }
__attribute__((noinline)) int impostor_two(int x) { return impostor_one(x) + 1; }
int main(int argc, char **argv) { (void)argv; return impostor_two(argc) == 4 ? 0 : 1; }
CEOF
cc -O0 -g -o "$TMP/bin/app" "$TMP/other.c" || fail "cannot build the impostor"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/after" 2>"$TMP/after.err" || fail "report failed after the swap"
cat "$TMP/after.err"
grep -q 'impostor' "$TMP/after" && fail "report used the new program's symbols"
cmp -s "$TMP/before" "$TMP/after" || { diff "$TMP/before" "$TMP/after" | head; fail "the report changed when the binary changed"; }

# None of the binaries exist: a private mount namespace with an empty tmpfs
# over the workload's directory.
unshare -m --propagation private sh -c "mount -t tmpfs none '$TMP/bin' && ls -A '$TMP/bin' | wc -l >'$TMP/nfiles' &&
	'$EPROF' report -i '$TMP/r.eprof' --fold >'$TMP/ns' 2>'$TMP/ns.err'" || fail "report in the namespace failed"
[ "$(cat "$TMP/nfiles")" = 0 ] || fail "the tmpfs was not empty"
cmp -s "$TMP/before" "$TMP/ns" || { diff "$TMP/before" "$TMP/ns" | head; fail "frames resolved differently without the binaries"; }
say "reports identical with the binary present, replaced, and absent"
exit 0
