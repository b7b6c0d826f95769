#!/bin/bash
# SPDX-License-Identifier: MIT
# t0104: wrong flags, a missing file, a file that is not a recording and a
# non-root user each get one clear error line and a non-zero exit.
. "$E2E_DIR/lib.sh"

expect_error() {	# expect_error DESCRIPTION CMD...: non-zero exit, one error line
	local what=$1 rc
	shift
	"$@" >"$TMP/out" 2>"$TMP/err1"
	rc=$?
	[ $rc -ne 0 ] || fail "$what: exit status 0"
	[ $rc -lt 124 ] || fail "$what: exit status $rc looks like a crash"
	one_line_error "$TMP/err1"	# no synopsis after it: --help has that
	say "$what: $(cat "$TMP/err1") (exit $rc)"
}

expect_error "unknown command" "$EPROF" frobnicate
expect_error "unknown record flag" "$EPROF" record --bogus -a
expect_error "bad frequency" "$EPROF" record -F abc -a
expect_error "zero frequency" "$EPROF" record -F 0 -a
expect_error "no target" "$EPROF" record -o "$TMP/x.eprof"
expect_error "two targets" "$EPROF" record -a -p 1
expect_error "bad pid list" "$EPROF" record -p 12,,x
expect_error "bad cpu list" "$EPROF" record --cpu 9999 -a
expect_error "unknown call-graph mode" "$EPROF" record --call-graph lbr -a
expect_error "unknown report flag" "$EPROF" report --bogus
expect_error "missing file" "$EPROF" report -i "$TMP/does-not-exist" --fold
echo "hello, I am not a recording" >"$TMP/text"
expect_error "text file" "$EPROF" report -i "$TMP/text" --fold
head -c 100000 /dev/urandom >"$TMP/random"
expect_error "random bytes" "$EPROF" report -i "$TMP/random" --fold
if command -v sqlite3 >/dev/null; then
	sqlite3 "$TMP/foreign.db" 'create table t(x); insert into t values(1);'
	expect_error "foreign sqlite file" "$EPROF" report -i "$TMP/foreign.db" --fold
fi
expect_error "missing file for info" "$EPROF" info "$TMP/does-not-exist"

# Not root: a clear line telling what to do.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	expect_error "non-root user" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$EPROF" record -a -d 1 -o /tmp/eprof-nonroot.eprof
	grep -q 'root' "$TMP/err1" || fail "the non-root error does not say to run as root"
fi
"$EPROF" --help >/dev/null || fail "--help failed"
"$EPROF" --version | grep -q '^eprof ' || fail "--version does not print the version"
exit 0
