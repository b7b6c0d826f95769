#!/bin/bash
# SPDX-License-Identifier: MIT
# t0503: two recordings of a workload where work_x's share doubles (25% ->
# 50%): --diff --top ranks work_x first by total and by self share, as a
# significant change, and the --diff --svg draws work_x red.
. "$E2E_DIR/lib.sh"
require_root; require_btf

"$EPROF" record -F 499 -o "$TMP/base.eprof" -- "$WORKLOADS/ratio" 2000 2 3 3 2>/dev/null ||
	fail "record base failed"
"$EPROF" record -F 499 -o "$TMP/new.eprof" -- "$WORKLOADS/ratio" 2000 4 2 2 2>/dev/null ||
	fail "record new failed"

"$EPROF" report --diff "$TMP/base.eprof" "$TMP/new.eprof" --top 5 >"$TMP/top" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "--diff --top failed"; }
cat "$TMP/top"
# two tables, total share then self share; work_x is a leaf, so it leads both
for table in total self; do
	row=$(awk -v t="# largest changes of $table share" \
		'index($0, t) == 1 { on = 1; next } on && !/^#/ && ++n == 2 { print; exit }' "$TMP/top")
	set -- $row
	[ "$7" = work_x ] || fail "--diff --top ranks ${7:-nothing} first by $table share, not work_x"
	[ "$6" = yes ] || fail "work_x's change of $table share is not marked significant"
done

"$EPROF" report --diff "$TMP/base.eprof" "$TMP/new.eprof" --fold >"$TMP/fold" 2>/dev/null ||
	fail "--diff --fold failed"
grep -Eq '^ratio;.*;work_x [0-9]+ [0-9]+$' "$TMP/fold" || fail "--diff --fold lines are not 'stack base new'"

"$EPROF" report --diff "$TMP/base.eprof" "$TMP/new.eprof" --svg "$TMP/d.svg" 2>/dev/null ||
	fail "--diff --svg failed"
fill=$(grep -o '<title>work_x ([^<]*</title><rect [^>]*fill="rgb([0-9,]*)"' "$TMP/d.svg" |
	head -1 | sed 's/.*fill="rgb(\([0-9,]*\))"/\1/')
say "work_x fill: rgb($fill)"
IFS=, read -r r g b <<<"$fill"
[ "${r:-0}" -eq 255 ] && [ "${g:-255}" -lt 200 ] && [ "$g" = "$b" ] ||
	fail "work_x is not drawn red in the diff flame graph (rgb($fill))"
exit 0
