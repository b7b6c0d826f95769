#!/bin/bash
# SPDX-License-Identifier: MIT
# t0206: report fetches the debug file of a stripped binary from the
# debuginfod servers of DEBUGINFOD_URLS (opt-in, as perf does), here a
# local `debuginfod` (Debian's server) serving a directory that holds the
# workload's separate debug file; no network. Without DEBUGINFOD_URLS the
# frames stay unresolved; with it they resolve; the file is then in
# libdebuginfod's cache (DEBUGINFOD_CACHE_PATH) and a report with the
# server gone still resolves them from there. report --debuginfod=URL asks
# the server without DEBUGINFOD_URLS, --no-debuginfod never asks even with
# it, and --debuginfod alone with no server named is a one-line usage
# error. The stderr line counts the frames debuginfod's file named.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd debuginfod; require_cmd curl; require_cmd readelf

DBG="$WORKLOADS/debug/inline_app.debug"
id=$(readelf -n "$WORKLOADS/stripped/inline_app" | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || fail "the stripped workload has no build-id"
mkdir -p "$TMP/bin" "$TMP/srv" "$TMP/cache"
cp "$WORKLOADS/stripped/inline_app" "$TMP/bin/inline_app"
cp "$DBG" "$TMP/srv/inline_app.debug"

srv=
cleanup() { [ -n "$srv" ] && kill "$srv" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

"$EPROF" record -F 999 -o "$TMP/r.eprof" -- "$TMP/bin/inline_app" 800 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "record failed"; }
rm "$TMP/bin/inline_app"	# no local file to fall back on

unset DEBUGINFOD_URLS
"$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/plain" 2>/dev/null || fail "report failed"
grep -q 'outer_work' "$TMP/plain" && fail "outer_work resolved without its debug file"
"$EPROF" report -i "$TMP/r.eprof" --fold --debuginfod >/dev/null 2>"$TMP/none.err" &&
	fail "--debuginfod with no server named succeeded"
one_line_error "$TMP/none.err"
grep -q 'DEBUGINFOD_URLS' "$TMP/none.err" || fail "the error does not say how to name a server"

# a free port, then the server, until it has indexed the debug file
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F "$TMP/srv" -p "$port" -d "$TMP/db.sqlite" -t 1 >"$TMP/srv.log" 2>&1 &
srv=$!
url=http://127.0.0.1:$port
for i in $(seq 300); do
	curl -sf -o /dev/null "$url/buildid/$id/debuginfo" && break
	kill -0 "$srv" 2>/dev/null || { cat "$TMP/srv.log"; fail "debuginfod exited"; }
	sleep 0.2
done
[ "$i" -lt 300 ] || { tail "$TMP/srv.log"; fail "debuginfod did not index the debug file in 60 s"; }

DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/cache "$EPROF" report -i "$TMP/r.eprof" --fold \
	>"$TMP/d.fold" 2>"$TMP/d.err" || { cat "$TMP/d.err"; fail "report with DEBUGINFOD_URLS failed"; }
# outer_work and what it calls (clock_gettime: more of it on a busy machine)
total=$(samples "$TMP/d.fold" '')
outer=$(samples "$TMP/d.fold" ';main;outer_work( |;|$)')
check_share "outer_work through debuginfod" "$(share_pct "$outer" "$total")" 97 5
find "$TMP/cache" -path "*$id*" -name debuginfo | grep -q . || fail "nothing in the debuginfod cache"
grep -Eq '^eprof: frames named by:.* debuginfod [1-9]' "$TMP/d.err" ||
	{ cat "$TMP/d.err"; fail "report does not count the frames debuginfod's file named"; }

# --debuginfod=URL without DEBUGINFOD_URLS (another cache: fetched again)
DEBUGINFOD_CACHE_PATH=$TMP/cache2 "$EPROF" report -i "$TMP/r.eprof" --fold --debuginfod="$url" \
	>"$TMP/o.fold" 2>"$TMP/o.err" || { cat "$TMP/o.err"; fail "report --debuginfod=URL failed"; }
outer=$(samples "$TMP/o.fold" ';main;outer_work( |;|$)')
check_share "outer_work through --debuginfod=URL" "$(share_pct "$outer" "$total")" 97 5

# --no-debuginfod wins over DEBUGINFOD_URLS, and over a file in the cache
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/cache "$EPROF" report -i "$TMP/r.eprof" --fold \
	--no-debuginfod >"$TMP/n.fold" 2>/dev/null || fail "report --no-debuginfod failed"
grep -q 'outer_work' "$TMP/n.fold" && fail "outer_work resolved with --no-debuginfod"

kill "$srv"
wait "$srv" 2>/dev/null
srv=
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/cache "$EPROF" report -i "$TMP/r.eprof" --fold \
	>"$TMP/c.fold" 2>/dev/null || fail "report from the cache failed"
outer=$(samples "$TMP/c.fold" ';main;outer_work( |;|$)')
check_share "outer_work from the cache" "$(share_pct "$outer" "$total")" 97 5
exit 0
