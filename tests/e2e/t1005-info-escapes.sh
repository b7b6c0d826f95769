#!/bin/bash
# SPDX-License-Identifier: MIT
# t1005: a recording from elsewhere whose strings carry terminal escape
# sequences (host name, command line, target, a mapping's path, a comm:
# clear screen, a window title, a C1 CSI, a backslash): `eprof info` shows
# each escaped as `ls -b` would, and no raw control byte reaches the
# terminal. --json keeps its own JSON escaping.
. "$E2E_DIR/lib.sh"

esc=$(printf 'x\033[2J\033]0;pwned\007\302\233y\\z')
shown='x\033[2J\033]0;pwned\007\302\233y\\z'
"$WORKLOADS/gen_hostile" "$TMP/r.eprof" "meta=hostname=h$esc" "meta=command=c$esc" \
	"meta=target=t$esc" "map=/tmp/m$esc" "comm=k$(printf '\033[31m')" || fail "gen_hostile failed"
"$EPROF" info -i "$TMP/r.eprof" >"$TMP/info" 2>"$TMP/err" || { cat "$TMP/err"; fail "info failed"; }
cat -v "$TMP/info"
for w in "h$shown" "c$shown" "t$shown" "/tmp/m$shown"; do
	grep -qF -- "$w" "$TMP/info" || fail "info does not show '$w' escaped"
done
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$TMP/info" "$TMP/err" &&
	fail "a raw control byte reached the terminal"
LC_ALL=C grep -q "$(printf '\302\233')" "$TMP/info" "$TMP/err" && fail "a raw C1 control reached the terminal"
"$EPROF" info --json -i "$TMP/r.eprof" >"$TMP/json" || fail "info --json failed"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["hostname"].startswith("hx\x1b[2J") else 1)' \
	"$TMP/json" || fail "info --json lost the strings"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$TMP/json" && fail "a raw control byte in the JSON"
say "every string escaped"
exit 0
