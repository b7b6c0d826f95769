#!/bin/bash
# SPDX-License-Identifier: MIT
# t0802: a user process that writes a 3,000,000-line /tmp/perf-PID.map
# (146 MB) cannot bloat the root recorder: the map is read only up to the
# recorder's bound, and the cut is counted and shown by `eprof info` (and
# --json): the symbols kept plus the lines dropped are exactly the lines
# written, the bytes kept plus dropped exactly the map's size. The
# recorder's peak memory stays under 200 MB (96 MB measured; reading the
# whole map took 263 MB, 591 MB with 7,000,000 lines).
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_nobody; require_cmd /usr/bin/time

N=3000000
U="$TMP/user"
mkdir -p "$U"
cat >"$U/jit.sh" <<'SH'
#!/bin/sh
# writes an N-line JIT map for this very process, then burns a little CPU
echo $$ >"$2"
awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
	printf "%x 10 jit_function_number_%09d_padding\n", 65536 + i * 16, i }' >/tmp/perf-$$.map
stat -c %s /tmp/perf-$$.map >"$3"
i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done
SH
chmod 755 "$U/jit.sh"
chown -R nobody "$U"

/usr/bin/time -f '%M' -o "$TMP/rss" "$EPROF" record -F 199 -o "$TMP/r.eprof" -- \
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	"$U/jit.sh" $N "$U/pid" "$U/size" 2>"$TMP/rec.err"
rc=$?
pid=$(cat "$U/pid" 2>/dev/null)
[ -n "$pid" ] && rm -f "/tmp/perf-$pid.map"
cat "$TMP/rec.err"
[ $rc -eq 0 ] || fail "record exited $rc"
size=$(cat "$U/size")
rss=$(tail -1 "$TMP/rss")
say "map of pid $pid: $N lines, $size bytes; recorder peak RSS $rss KiB"
[ "$rss" -lt 200000 ] || fail "the recorder used $rss KiB for a $size-byte JIT map"

"$EPROF" info "$TMP/r.eprof" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "info failed"; }
grep -A1 '^JIT maps cut' "$TMP/info"
grep -Eq '^JIT maps cut +1$' "$TMP/info" || fail "info does not count one cut JIT map"
line=$(grep -F "/tmp/perf-$pid.map (pid $pid): kept" "$TMP/info") || fail "info does not name the cut map"
kept=$(sed -E 's/.*kept ([0-9]+) symbols \(([0-9]+) bytes\), dropped ([0-9]+) lines \(([0-9]+) bytes\).*/\1 \2 \3 \4/' <<<"$line")
read -r ksym kbytes dlines dbytes <<<"$kept"
[ $((ksym + dlines)) -eq $N ] || fail "kept $ksym + dropped $dlines lines is not the $N written"
[ $((kbytes + dbytes)) -eq "$size" ] || fail "kept $kbytes + dropped $dbytes bytes is not the map's $size"
[ "$ksym" -gt 100000 ] || fail "only $ksym symbols kept"
"$EPROF" info --json "$TMP/r.eprof" >"$TMP/json" 2>&1 || fail "info --json failed"
grep -q "\"jit_map_cuts\":\[{\"tgid\":$pid,\"path\":\"/tmp/perf-$pid.map\",\"kept_bytes\":$kbytes,\"kept_symbols\":$ksym,\"dropped_bytes\":$dbytes,\"dropped_lines\":$dlines,\"dropped_lines_exact\":true}\]" "$TMP/json" ||
	fail "info --json does not show the cut"
exit 0
