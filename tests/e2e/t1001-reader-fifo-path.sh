#!/bin/bash
# SPDX-License-Identifier: MIT
# t1001: a recording whose mapping names a FIFO, /dev/zero, /dev/tty or
# /dev/stdin, and a --debug-dir whose build-id and basename entries are
# FIFOs (issue 9), reported by an ordinary user: `report` and `info` neither
# hang nor open them, say once that they skipped them, and give their
# output from the recording's own symbols. Needs root only to become
# nobody (setpriv, util-linux).
. "$E2E_DIR/lib.sh"
require_root; require_cmd setpriv; require_cmd timeout

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@" 2>/dev/null ||
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
pub=$TMP/pub
mkdir -p "$pub/dbg/.build-id/e9" || fail "mkdir"
chmod -R 0755 "$TMP"
mkfifo "$pub/fifo" "$pub/dbg/app" "$pub/dbg/app.debug" \
	"$pub/dbg/.build-id/e9/50f10f0102030405060708090a0b0c0d0e0f10.debug" || fail "mkfifo"
chmod 0666 "$pub/fifo" "$pub/dbg/app" "$pub/dbg/app.debug" "$pub/dbg/.build-id/e9/"*

# run NAME ARGS...: as nobody, stdin a terminal-less FIFO-free /dev/null, 20 s at most
run() {
	local name=$1
	shift
	timeout -k 5 20 setpriv --reuid=65534 --regid=65534 --clear-groups "$EPROF" "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
	rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$name: '$*' hung (killed after 20 s)"
	[ $rc -lt 128 ] || { cat "$TMP/$name.err"; fail "$name: '$*' crashed (exit $rc)"; }
}

for target in "$pub/fifo" /dev/zero /dev/tty /dev/stdin "$pub/dbg/app"; do
	name=$(basename "$target")
	"$WORKLOADS/gen_hostile" "$pub/$name.eprof" "map=$target" || fail "gen_hostile failed"
	chmod 0644 "$pub/$name.eprof"
	run "$name-fold" report -i "$pub/$name.eprof" --fold
	[ $rc -eq 0 ] || { cat "$TMP/$name-fold.err"; fail "$name: report --fold exited $rc"; }
	[ "$(wc -l <"$TMP/$name-fold.out")" -eq 4 ] || fail "$name: report --fold printed no stacks"
	grep -q ';fn_1 15$' "$TMP/$name-fold.out" || fail "$name: the embedded symbols were not used"
	grep -q "skipped '$target': it is not a regular file" "$TMP/$name-fold.err" ||
		{ cat "$TMP/$name-fold.err"; fail "$name: report does not say it skipped $target"; }
	run "$name-inline" report -i "$pub/$name.eprof" --top --inline --lines \
		--debug-dir "$pub/dbg"
	[ $rc -eq 0 ] || { cat "$TMP/$name-inline.err"; fail "$name: report --top --debug-dir exited $rc"; }
	grep -q 'fn_1' "$TMP/$name-inline.out" || fail "$name: report --top printed no functions"
	run "$name-info" info "$pub/$name.eprof"
	[ $rc -eq 0 ] || { cat "$TMP/$name-info.err"; fail "$name: info exited $rc"; }
	grep -Eq '^samples +60$' "$TMP/$name-info.out" || fail "$name: info does not count 60 samples"
	say "$target: report and info as nobody took $(grep -c . "$TMP/$name-fold.err") stderr lines, no hang"
done

# the recording itself named as a FIFO: refused at once, not waited on
run fifo-input report -i "$pub/fifo" --fold
[ $rc -ne 0 ] || fail "a FIFO given as the recording was accepted"
one_line_error "$TMP/fifo-input.err"
grep -q 'not a regular file' "$TMP/fifo-input.err" || fail "the FIFO input error does not say why"
run fifo-info info "$pub/fifo"
[ $rc -ne 0 ] || fail "info accepted a FIFO as the recording"
one_line_error "$TMP/fifo-info.err"
exit 0
