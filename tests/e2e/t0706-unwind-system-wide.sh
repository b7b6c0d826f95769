#!/bin/bash
# SPDX-License-Identifier: MIT
# t0706: -a on a busy machine builds tables on demand, for what the walker
# meets; until a table is ready the frame-pointer fallback is used and
# counted (the first sample of every binary has no table). A Python loop
# started before the recording has whole stacks once its table is in (the
# last seconds), and every walk is accounted for exactly once.
. "$E2E_DIR/lib.sh"
require_root; require_btf
PY=/usr/bin/python3
[ -x "$PY" ] || skip "needs Debian's python3 (.ci/deps.sh --tests)"

start_python_loop 60
pid=$PY_PID
"$EPROF" record -a -F 499 -d 6 -o "$TMP/a.eprof" 2>"$TMP/a.err" ||
	{ kill "$pid"; cat "$TMP/a.err"; fail "record -a failed"; }
kill "$pid"; wait "$pid" 2>/dev/null
grep 'user stacks' "$TMP/a.err" | sed 's/^/# /'
"$EPROF" report -i "$TMP/a.eprof" --pid "$pid" --from 4 --fold >"$TMP/a.fold" 2>/dev/null ||
	fail "report failed"
check_complete "-a: the python3 loop, from 4 s on" "$TMP/a.fold" python3 95
"$EPROF" info --json "$TMP/a.eprof" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
u = d["unwind"]
assert u and u["walks"] > 0, "no unwind counts"
stops = sum(u["stopped"].values())
assert stops == u["walks"], "walks %d, but %d ended" % (u["walks"], stops)
assert u["table_rows"] > 0, "no table was built on demand"
# a stack met before its table was ready took a frame-pointer step, or
# was finished from its copy (and counted as the second walk ended)
assert u["fallback"]["no_table"] + d.get("raw_stack_finished", 0) > 0, \
    "no stack counted as met before its table was ready"
print("# -a: %d walks, %d fallback steps for want of a table, %d finished from copies, "
      "%d table rows built" % (u["walks"], u["fallback"]["no_table"],
                               d.get("raw_stack_finished", 0), u["table_rows"]))
' || fail "the unwind accounting of -a does not add up"
exit 0
