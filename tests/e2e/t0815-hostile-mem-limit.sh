#!/bin/bash
# SPDX-License-Identifier: MIT
# t0815: the memory ceiling is enforced, not only measured. clang++ (its
# libLLVM-14 alone needs about 80 MiB to build its unwind table) recorded
# under --mem-limit of the recorder's base plus 40 MiB, from a cold start
# (no table cache): libLLVM's whole table does not fit, so it is loaded
# by the windows its walks meet (never built whole: no warning names it);
# the recording reads; the recorder's peak resident set, read from /proc
# while it runs and as the recording states it, stays under the ceiling.
# Unbounded, the same recording peaks at about 170 MiB. Frame-pointer
# steps taken in a refused table, if any, are counted under their own
# cause in info, not as "no CFI". A ceiling below the base is refused
# with one line.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd clang++

cp "$E2E_DIR/../workloads/clang_input.cc" "$TMP/big.cc" || fail "no clang_input.cc"

# The base: what the recorder holds once started at this rate on this host.
"$EPROF" record -q -F 999 --table-cache none -o "$TMP/base.eprof" -- true ||
	fail "cannot record the base"
base=$("$EPROF" info "$TMP/base.eprof" | awk '/^memory base \(bytes\)/ { print $NF }')
[ -n "$base" ] && [ "$base" -gt 0 ] || fail "info states no memory base"
limit_mib=$(((base >> 20) + 40))
say "base $((base >> 20)) MiB: --mem-limit ${limit_mib}M"

"$EPROF" record -F 999 --table-cache none --mem-limit "${limit_mib}M" -o "$TMP/r.eprof" -- \
	clang++ -O2 -c "$TMP/big.cc" -o "$TMP/big.o" 2>"$TMP/rec.err" &
pid=$!
hwm=$(peak_rss_kib "$pid")
wait "$pid" || { cat "$TMP/rec.err"; fail "record failed"; }
cat "$TMP/rec.err"

n=$(grep -c "unwind table of '[^']*libLLVM[^']*' is over eprof's bounds (elf/cfi.h) or its memory limit" "$TMP/rec.err")
[ "$n" -eq 0 ] || fail "$n warnings name libLLVM's unwind table: it was not loaded by windows"

"$EPROF" info "$TMP/r.eprof" >"$TMP/info" || fail "info failed"
ceiling=$(awk '/^memory ceiling \(bytes\)/ { print $NF }' "$TMP/info")
peak=$(awk '/^memory peak|^peak memory \(bytes\)/ { print $NF }' "$TMP/info")
[ "$ceiling" = $((limit_mib << 20)) ] || fail "info states the ceiling '$ceiling', not $((limit_mib << 20))"
[ -n "$peak" ] && [ "$peak" -lt "$ceiling" ] ||
	fail "the recording states a peak of '$peak' bytes, not under its ceiling $ceiling"
[ "$hwm" -gt 0 ] && [ $((hwm << 10)) -lt "$ceiling" ] ||
	fail "the recorder peaked at $((hwm >> 10)) MiB (/proc), over its ceiling of $limit_mib MiB"
say "peak $((hwm >> 10)) MiB (/proc), $((peak >> 20)) MiB (recording), ceiling $limit_mib MiB"

# the steps in the refused table are counted apart from "no CFI"
refused=$(awk '/^tables refused/ { print $NF }' "$TMP/info")
fb_ref=$(awk '/^frame-pointer steps in refused tables/ { print $NF }' "$TMP/info")
steps=$(grep '^  frame-pointer steps' "$TMP/info")
over=$(echo "$steps" | sed -n 's/.*, table over the budget \([0-9]*\) .*/\1/p')
partial=$(awk '/^tables loaded by windows/ { print $NF }' "$TMP/info")
say "$partial tables loaded by windows, $refused tables refused, $fb_ref frame-pointer steps in them; info: $steps"
[ "${partial:-0}" -ge 1 ] 2>/dev/null || fail "info counts '$partial' tables loaded by windows"
if [ "${refused:--}" != - ]; then
	[ "$over" = "$fb_ref" ] || fail "the unwind section says '$over' steps over the budget, the count $fb_ref"
fi

# readable
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
total=$(samples "$TMP/fold" '^clang')
[ "$total" -ge 100 ] || fail "only $total samples of clang"
fp=$(grep -o '[0-9]* with frame-pointer steps' "$TMP/rep.err" | cut -d' ' -f1)
say "$total samples of clang, ${fp:-no} stacks with frame-pointer steps"

# a ceiling under the base is refused, at once, with one line
"$EPROF" record --mem-limit 17M -o "$TMP/small.eprof" -- true 2>"$TMP/small.err" &&
	fail "--mem-limit 17M under a base of $((base >> 20)) MiB was accepted"
one_line_error "$TMP/small.err"
grep -q -- '--mem-limit' "$TMP/small.err" || fail "the error does not name --mem-limit"
"$EPROF" record --mem-limit lots -- true 2>"$TMP/bad.err" && fail "--mem-limit lots was accepted"
grep -q "invalid --mem-limit 'lots'" "$TMP/bad.err" || { cat "$TMP/bad.err"; fail "no usage error"; }
exit 0
