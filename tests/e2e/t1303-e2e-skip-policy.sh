#!/bin/bash
# SPDX-License-Identifier: MIT
# t1303: an e2e test on a host that cannot run it (here: not root) fails,
# so CI without root or BPF is not green by skipping everything, unless
# EPROF_ALLOW_SKIP=1 says skipping is acceptable; then it exits 77, which
# ctest counts as skipped.
. "$E2E_DIR/lib.sh"
require_root
require_nobody
cp "$E2E_DIR/lib.sh" "$TMP/lib.sh"
printf '. "%s/lib.sh"\nrequire_root\nexit 0\n' "$TMP" >"$TMP/probe.sh"
chmod 644 "$TMP/lib.sh" "$TMP/probe.sh"

run_probe() { # ALLOW_SKIP-VALUE: the probe's exit status as nobody
	as_nobody env -u EPROF_ALLOW_SKIP ${1:+EPROF_ALLOW_SKIP=$1} EPROF="$EPROF" \
		WORKLOADS="$WORKLOADS" bash "$TMP/probe.sh" >/dev/null 2>"$TMP/err"
}
run_probe ""
rc=$?
[ $rc -eq 1 ] || { cat "$TMP/err"; fail "not root, EPROF_ALLOW_SKIP unset: exit $rc, not 1"; }
grep -q 'EPROF_ALLOW_SKIP=1' "$TMP/err" || { cat "$TMP/err"; fail "the failure does not name EPROF_ALLOW_SKIP=1"; }
run_probe 0
rc=$?
[ $rc -eq 1 ] || fail "not root, EPROF_ALLOW_SKIP=0: exit $rc, not 1"
run_probe 1
rc=$?
[ $rc -eq 77 ] || { cat "$TMP/err"; fail "not root, EPROF_ALLOW_SKIP=1: exit $rc, not 77"; }
say "not root: fails, or skips with EPROF_ALLOW_SKIP=1"
exit 0
