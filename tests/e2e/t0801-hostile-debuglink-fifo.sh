#!/bin/bash
# SPDX-License-Identifier: MIT
# t0801: a user's stripped binary whose .gnu_debuglink names a FIFO (next to
# it and in its .debug/ directory, where record looks for the debug file)
# cannot hang `record -a -d 2` run by root: the FIFO is never opened for
# reading, the recording finishes, and the binary's frames are still there.
# Before eprof opened only regular files this hung until interrupted.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody; require_cmd objcopy; require_cmd mkfifo

U="$TMP/user"
mkdir -p "$U/.debug"
cp "$WORKLOADS/stripped/inline_app" "$U/app.tmp"
echo "not a debug file" >"$U/app.debug"
objcopy --remove-section=.gnu_debuglink --add-gnu-debuglink="$U/app.debug" "$U/app.tmp" "$U/app" ||
	fail "objcopy failed"
rm -f "$U/app.debug" "$U/app.tmp"
mkfifo "$U/app.debug" "$U/.debug/app.debug"
chown -R nobody "$U"
readelf -p .gnu_debuglink "$U/app" | grep -q 'app\.debug' || fail "no debuglink to app.debug"

as_nobody "$U/app" 4000 &	# a subshell: $upid is not the app's pid
upid=$!
sleep 0.3
start=$(date +%s)
timeout -k 5 60 "$EPROF" record -a -d 2 -F 199 -o "$TMP/r.eprof" 2>"$TMP/rec.err"
rc=$?
wait $upid	# the app ends by itself after 4 s
cat "$TMP/rec.err"
[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "record -a -d 2 hung on the FIFO debug file (killed after 60 s)"
[ $rc -eq 0 ] || fail "record exited $rc"
say "record -a -d 2 took $(( $(date +%s) - start )) s"
"$EPROF" info "$TMP/r.eprof" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed"; }
grep -Eq '^finished +yes' "$TMP/info" || fail "the recording is not finished"
timeout -k 5 60 "$EPROF" report -i "$TMP/r.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err"
rc=$?
[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "report hung"
[ $rc -eq 0 ] || { cat "$TMP/rep.err"; fail "report exited $rc"; }
n=$(samples "$TMP/fold" '^app;')
say "$n samples of the user's app"
[ "$n" -gt 0 ] || { head "$TMP/fold"; fail "no samples of the user's app"; }
exit 0
