#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/start-time.sh EPROF...: `record -q -- /bin/true`, start plus finish,
# with the table cache warm (hyperfine's warm-up runs fill it), for each
# eprof binary given (before, after), against `perf record -- /bin/true` in
# the same hyperfine run: the median wall time of RUNS runs (default 15)
# each, and each eprof's ratio to perf's. Run as root; needs hyperfine.
set -eu
[ $# -ge 1 ] || { echo "usage: bench/start-time.sh EPROF..." >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "start-time: needs hyperfine" >&2; exit 2; }
WORK=$(mktemp -d /tmp/eprof-starttime.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cmds=()
for bin in "$@"; do
	cmds+=("$bin record -q -o $WORK/t.eprof -- /bin/true")
done
cmds+=("perf record -q -o $WORK/p.data -- /bin/true")
hyperfine -N -w 3 -r "${RUNS:-15}" --export-json "$WORK/h.json" "${cmds[@]}" >/dev/null
python3 - "$WORK/h.json" <<'EOF'
import json, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
med = [statistics.median(r["times"]) for r in res]
perf = med[-1]
print("| command | median wall (s) | min..max (s) | user+sys (s) | / perf |")
print("|---|---|---|---|---|")
for r, m in zip(res, med):
    print("| `%s` | %.3f | %.3f..%.3f | %.3f | %.2fx |" % (
        r["command"].split(" -o ")[0].replace(" -q", "") + " -- /bin/true",
        m, min(r["times"]), max(r["times"]), r["user"] + r["system"], m / perf))
EOF
