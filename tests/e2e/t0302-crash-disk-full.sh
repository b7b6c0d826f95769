#!/bin/bash
# SPDX-License-Identifier: MIT
# t0302: a recording that fills its disk stops with one clear error line that
# names the file and says the disk is full, exits non-zero well before its
# -d 30, and what it committed stays readable by report.
# The disk is a 2 MiB tmpfs in a private mount namespace, filled up by a
# filler file once the recording has committed samples; the time to notice
# is counted from the filling.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd unshare

mnt="$TMP/mnt"
mkdir -p "$mnt"
unshare -m --propagation private true 2>/dev/null || skip "cannot create a mount namespace"

# Inside the namespace: mount, record, keep the exit status, elapsed time and
# a copy of the file (the tmpfs goes away with the namespace).
unshare -m --propagation private env EPROF="$EPROF" MNT="$mnt" OUT="$TMP" bash -c '
	mount -t tmpfs -o size=2m eprof-e2e-full "$MNT" || exit 99
	timeout 120 "$EPROF" record -a -F 999 -d 30 -o "$MNT/full.eprof" 2>"$OUT/rec.err" &
	rec=$!
	# Let the first commits land, then fill the disk under the recorder.
	for i in $(seq 600); do
		"$EPROF" info "$MNT/full.eprof" 2>/dev/null | grep -Eq "^samples +[1-9]" && break
		sleep 0.2
	done
	start=$(date +%s.%N)
	dd if=/dev/zero of="$MNT/filler" bs=4k status=none 2>/dev/null
	wait $rec
	echo $? >"$OUT/rec.rc"
	awk -v s="$start" -v e="$(date +%s.%N)" "BEGIN { print e - s }" >"$OUT/rec.time"
	df -k "$MNT" | tail -1 >"$OUT/df"
	cp "$MNT/full.eprof" "$OUT/full.eprof"
'
[ $? -eq 99 ] && skip "cannot mount a tmpfs here"
rc=$(cat "$TMP/rec.rc"); el=$(cat "$TMP/rec.time")
cat "$TMP/rec.err"
say "record exited $rc after $el s; tmpfs: $(cat "$TMP/df")"
[ "$rc" -ne 124 ] || fail "record was still running 120 s later on a full disk"
[ "$rc" -ne 0 ] || fail "record exited 0 on a full disk"
[ "$rc" -lt 128 ] || fail "record died of a signal ($rc) on a full disk"
awk -v e="$el" 'BEGIN { exit !(e < 20) }' || fail "record took $el s to notice the full disk (-d 30)"

# Exactly one line, an eprof error naming the file and the lack of space.
one_line_error "$TMP/rec.err"
grep -qF "$mnt/full.eprof" "$TMP/rec.err" || fail "the error line does not name the file"
grep -Eqi 'no space|disk is full' "$TMP/rec.err" || fail "the error line does not say the disk is full"

# What was committed is readable: report exits 0 (warning it is not finalized
# is fine) and finds samples.
"$EPROF" report -i "$TMP/full.eprof" --fold >"$TMP/fold" 2>"$TMP/rep.err"
rc=$?
cat "$TMP/rep.err"
[ $rc -eq 0 ] || fail "report of the full-disk recording exited $rc"
n=$(samples "$TMP/fold" '.')
say "$n samples readable"
[ "$n" -gt 0 ] || fail "no samples readable from the full-disk recording"
exit 0
