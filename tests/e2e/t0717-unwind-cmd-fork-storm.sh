#!/bin/bash
# SPDX-License-Identifier: MIT
# t0717: `record -- CMD` where CMD forks and execs short processes (a shell
# running /bin/true 1,000 times): every walked user stack is whole, from each
# process's first tick. Ticks inside an exec, past the switch to the new
# memory map and before the new image runs, have no user stack: the user
# registers are still the old image's. While the exec maps the program it
# holds the new map's lock, so the mapping lookup fails with -EBUSY rather
# than -ENOENT; those ticks were walked from the old registers over the new
# memory and stopped ("no table": 705 of 13,997 walks, 95.0% complete).
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- \
	sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i + 1)); done' 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "record failed"; }
"$EPROF" info "$TMP/r.eprof" >"$TMP/info" 2>/dev/null || fail "info failed"
walks=$(awk '/^user stacks unwound with tables:/ { print $NF }' "$TMP/info")
done_=$(awk '$1 == "complete" { print $2 }' "$TMP/info")
[ -n "$walks" ] && [ "$walks" -ge 300 ] || fail "too few user stacks walked (${walks:-none})"
grep -E '^  (complete|stopped|frame-pointer)' "$TMP/info" | sed 's/^/# /'
awk -v c="$done_" -v w="$walks" 'BEGIN { exit !(100 * c >= 99 * w) }' ||
	fail "only $done_ of $walks user stacks are complete (want >= 99%)"
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>/dev/null || fail "report failed"
# /bin/true is stripped: a tick on its ELF entry (an END row) reads _start,
# the name elf/ gives a stripped executable's entry point
check_complete "the short processes" "$TMP/fold" true 99
exit 0
