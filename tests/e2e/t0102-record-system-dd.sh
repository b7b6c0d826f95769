#!/bin/bash
# SPDX-License-Identifier: MIT
# t0102: -a sees every process and the kernel: while dd copies /dev/zero to
# /dev/null, the folded output has a dd stack through the kernel read path.
# dd starts once the recording runs and copies a fixed amount (two million
# 4 KiB blocks, ~0.7 s of CPU here), then the recording is stopped, so dd's
# samples follow from its work, not from how much CPU a busy machine gave it.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd dd

env --default-signal=INT "$EPROF" record -a -F 999 -o "$TMP/a.eprof" 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/a.eprof" 1 >/dev/null || { kill -KILL $rpid; exit 1; }
dd if=/dev/zero of=/dev/null bs=4k count=2000000 2>/dev/null
kill -INT $rpid
wait $rpid || { cat "$TMP/rec.err"; fail "record -a failed"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/a.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err" || { cat "$TMP/rep.err"; fail "report failed"; }
cat "$TMP/rep.err"

dd_all=$(samples "$TMP/fold" '^dd;')
dd_read=$(samples "$TMP/fold" '^dd;.*;(vfs_read|ksys_read)_\[k\]')
say "dd samples: $dd_all, through vfs_read/ksys_read: $dd_read"
grep '^dd;' "$TMP/fold" | sort -t' ' -k2 -nr | head -5
[ "$dd_all" -ge 100 ] || fail "too few dd samples ($dd_all) for two million 4 KiB copies at 999 Hz"
[ "$dd_read" -gt 0 ] || fail "no dd stack goes through vfs_read_[k]"
grep -q '^dd;.*;entry_SYSCALL_64[^;]*_\[k\];' "$TMP/fold" || fail "no dd stack enters the kernel through entry_SYSCALL_64"
# Kernel frames come after user frames: no user frame follows a _[k] frame.
bad=$(awk '{ $NF = ""; n = split($0, f, ";"); k = 0
	for (i = 2; i <= n; i++) { sub(/ +$/, "", f[i]); if (f[i] ~ /_\[k\]$/) k = 1; else if (k) { print; break } } }' "$TMP/fold" | head -3)
[ -z "$bad" ] || fail "a user frame follows a kernel frame: $bad"
# Other processes and the idle task are there too (whole system).
[ "$(cut -d';' -f1 "$TMP/fold" | sort -u | wc -l)" -ge 2 ] || fail "-a saw only one command"
exit 0
