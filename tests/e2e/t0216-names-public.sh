#!/bin/bash
# SPDX-License-Identifier: MIT
# t0216: the names people search for. Among glibc's aliases at one address
# the public one wins (clone3, mprotect, malloc; never __GI___clone3,
# __libc_malloc, _IO_fputs); --top prints kernel functions without the
# fold's "_[k]" (its BINARY column says kernel); info's unwind table has one
# row per binary (one build-id, one spelling of its path) and only ELF files.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/n.eprof" -- "$WORKLOADS/names_public" 600 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
"$EPROF" report -i "$TMP/n.eprof" --fold >"$TMP/n.fold" 2>"$TMP/n.err" || { cat "$TMP/n.err"; fail "report failed"; }
total=$(samples "$TMP/n.fold" '^names_public;.*;worker(;|$)')
root=$(samples "$TMP/n.fold" '^names_public;clone3;start_thread;worker(;|$)')
mp=$(samples "$TMP/n.fold" ';worker;mprotect(;|$)')
say "names_public: $total samples in worker, $root rooted in clone3, $mp in mprotect"
[ "$total" -gt 100 ] || fail "too few samples ($total)"
check_share "worker stacks rooted in clone3" "$(share_pct "$root" "$total")" 100 3
[ "$mp" -gt 0 ] || fail "no stack names mprotect"
if grep -Eo '(^|;)(__GI_[A-Za-z_0-9]*|__libc_malloc|__libc_free|_IO_fputs|__mprotect|__clone3)(;| )' "$TMP/n.fold" |
	sort -u >"$TMP/internal" && [ -s "$TMP/internal" ]; then
	cat "$TMP/internal" >&2
	fail "glibc's internal aliases named frames"
fi

"$EPROF" report -i "$TMP/n.eprof" --top 50 >"$TMP/top" 2>"$TMP/top.err" || { cat "$TMP/top.err"; fail "--top failed"; }
grep -q '  \[kernel.kallsyms\]$' "$TMP/top" || fail "--top shows no kernel function"
! grep -q '_\[k\]' "$TMP/top" || { grep '_\[k\]' "$TMP/top" >&2; fail "--top names kernel functions with _[k]"; }

"$EPROF" info "$TMP/n.eprof" >"$TMP/info" || fail "info failed"
awk '/^BUILD-ID +ENDED/ { t = 1; next } t && NF < 8 { t = 0 } t { print $1, $NF }' "$TMP/info" >"$TMP/unw"
[ -s "$TMP/unw" ] || { cat "$TMP/info"; fail "info has no unwind table"; }
cat "$TMP/unw"
! grep -Eq '\.(h|hpp|c|cc|txt)$' "$TMP/unw" || fail "info's unwind table lists a file that is not a binary"
dup=$(awk '$1 != "-" { n[$1]++ } END { for (b in n) if (n[b] > 1) print b }' "$TMP/unw")
[ -z "$dup" ] || fail "info's unwind table lists build-id $dup more than once"
grep -q ' /usr/lib/x86_64-linux-gnu/libc.so.6$\| /usr/lib/[^ ]*/libc.so.6$\| /lib[^ ]*/libc.so.6$' "$TMP/unw" ||
	fail "info's unwind table has no libc row"
[ "$(grep -c '/libc.so.6$' "$TMP/unw")" = 1 ] || fail "libc is spelled more than one way"
exit 0
