#!/bin/bash
# SPDX-License-Identifier: MIT
# t0807: no count of user mappings makes the recorder run out of file
# descriptors. Under `ulimit -n 1024` (soft and hard), two unprivileged
# processes hold 5,000 executable mappings of one file and 1,500 of as many
# distinct files; `record -a` starts, reads them, and names known_split
# running beside them.
. "$E2E_DIR/lib.sh"
require_root; require_btf; require_cmd cc; require_nobody

cat >"$TMP/mapmany.c" <<'CEOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
/* mapmany SECONDS N FILE|DIR READY: N executable mappings of FILE, or of DIR/0 .. DIR/N-1 */
int main(int argc, char **argv)
{
	int n = atoi(argv[2]), i, fd;
	char path[4096];
	FILE *f;

	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%d", argv[3], i) && access(path, R_OK))
			snprintf(path, sizeof(path), "%s", argv[3]);
		fd = open(path, O_RDONLY);
		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		close(fd);
	}
	f = fopen(argv[4], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	sleep((unsigned)atoi(argv[1]));
	return 0;
}
CEOF
cc -O1 -o "$TMP/mapmany" "$TMP/mapmany.c" || fail "cannot build mapmany"
mkdir -p "$TMP/many"
for i in $(seq 0 1499); do printf "\177ELF%4092s" "" >"$TMP/many/$i"; done	# builtins: no fork per file
cp /bin/true "$TMP/one"
mkdir -p "$TMP/w"
chmod -R a+rX "$TMP"; chmod 777 "$TMP/w"
pids=()
cleanup() {
	kill $(cat "$TMP"/w/ready* 2>/dev/null) "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
as_nobody "$TMP/mapmany" 60 5000 "$TMP/one" "$TMP/w/ready1" &
pids+=($!)
as_nobody "$TMP/mapmany" 60 1500 "$TMP/many" "$TMP/w/ready2" &
pids+=($!)
for i in $(seq 600); do [ -e "$TMP/w/ready1" ] && [ -e "$TMP/w/ready2" ] && break; sleep 0.1; done
[ -e "$TMP/w/ready1" ] && [ -e "$TMP/w/ready2" ] || fail "the mapping processes did not get ready"
sleep 0.1	# the pid is written
n=$(awk '$2 ~ /x/' "/proc/$(cat "$TMP/w/ready1")/maps" | wc -l)
[ "$n" -ge 5000 ] || fail "only $n executable mappings in the first process"

(
	ulimit -n 1024 || exit 2
	exec "$EPROF" record -a -F 499 -o "$TMP/r.eprof"
) 2>"$TMP/rec.err" &
rpid=$!
wait_committed "$TMP/r.eprof" 1 >/dev/null
"$WORKLOADS/known_split" 1000 || fail "known_split failed"
kill -INT $rpid
wait $rpid || { cat "$TMP/rec.err"; fail "record -a failed under ulimit -n 1024"; }
cat "$TMP/rec.err"
"$EPROF" report -i "$TMP/r.eprof" --fold --comm known_split >"$TMP/fold" 2>"$TMP/rep.err" ||
	{ cat "$TMP/rep.err"; fail "report failed"; }
total=$(samples "$TMP/fold" .)
check_at_least "known_split's samples in work_a/b/c" "$(samples "$TMP/fold" ';work_[abc](;| |$)')" "$total" 90
exit 0
