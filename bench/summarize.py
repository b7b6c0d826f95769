#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/summarize.py - turns bench/run.sh's raw CSV into the Markdown
summary: one table per figure of issue 6, each tool against perf in the same
run, then the goals marked met or missed.

usage: summarize.py RAW.csv MODE MACHINE VERSIONS > latest.md
"""
import csv
import statistics
import sys
from collections import defaultdict

raw, mode, machine, versions = sys.argv[1:5]
rows = list(csv.DictReader(open(raw)))

# data[(section, workload, rate, tool, key)] = [values over repetitions]
data = defaultdict(list)
for r in rows:
    try:
        v = float(r["value"])
    except ValueError:
        continue
    data[(r["section"], r["workload"], r["rate"], r["tool"], r["key"])].append(v)


def vals(sec, wl, rate, tool, key):
    return data.get((sec, wl, str(rate), tool, key), [])


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x, nd=2):
    if x is None:
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{nd}f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def rfmt(x):
    return "-" if x is None else f"{x:.2f}x"


out = []
w = out.append


def table(cols):
    """A markdown table's header row and its separator."""
    w("|" + "|".join(f" {c} " if c else " " for c in cols) + "|")
    w("|" + "---|" * len(cols))


cells = []
for r in rows:
    if r["section"] == "matrix" and (r["workload"], r["rate"]) not in cells:
        cells.append((r["workload"], r["rate"]))
TOOLS = ["eprof", "perf", "perf-nobpf", "bpftrace", "bcc", "eprof-a", "perf-a"]
tools = [t for t in TOOLS if any(k[3] == t for k in data)]
reps = max([int(r["rep"]) for r in rows if r["section"] == "matrix"] or [0])

w(f"# eprof benchmark ({mode} run)\n")
w(f"- machine: {machine}")
w(f"- tools: {versions}")
w(f"- matrix repetitions: {reps}; cells are medians (min-max over repetitions); "
  "tools interleaved run by run")
w("- perf = `perf record -e cpu-clock -g -- CMD`; perf-nobpf adds `--no-bpf-event`; "
  "eprof = `eprof record -- CMD`; bpftrace = `profile:hz:F` keyed by ustack, kstack with `-c CMD`; "
  "bcc = `profile-bpfcc -F F -f` (whole system); -a = every CPU\n")

goals = []


def goal(name, ok, measured):
    goals.append((name, "met" if ok else ("missed" if ok is not None else "not measured"), measured))


# 1. target slowdown -------------------------------------------------------
w("## 1. Target slowdown (workload wall time under the profiler / without it)\n")
table(["workload", "Hz", "none (s)"] + tools + ["eprof/perf"])
slow = {}
for wl, rate in cells:
    base = med(vals("matrix", wl, rate, "none", "wl_wall_s"))
    line = f"| {wl} | {rate} | {fmt(base, 3)} |"
    for t in tools:
        xs = vals("matrix", wl, rate, t, "wl_wall_s")
        if not xs or not base:
            line += " - |"
            continue
        s = med(xs) / base
        slow[(wl, rate, t)] = s
        line += f" {100 * (s - 1):+.1f}% ({100 * (min(xs) / base - 1):+.0f}..{100 * (max(xs) / base - 1):+.0f}) |"
    line += f" {rfmt(ratio(slow.get((wl, rate, 'eprof')), slow.get((wl, rate, 'perf'))))} |"
    w(line)
w("\nratio eprof/perf is of the slowdown factors (1.00x: same slowdown).\n")
worse = [(wl, rate) for wl, rate in cells
         if (wl, rate, "eprof") in slow and (wl, rate, "perf") in slow
         and slow[(wl, rate, "eprof")] > slow[(wl, rate, "perf")] + 0.01]
goal("slowdown no worse than perf record -g at every rate (1 point of noise allowed)",
     not worse if slow else None, "worse at " + ", ".join(f"{a}@{b}" for a, b in worse) if worse else "never worse")
s999 = slow.get(("cpu", "999", "eprof"))
goal("slowdown <= 1% at 999 Hz, single-threaded CPU-bound", None if s999 is None else s999 <= 1.01,
     "-" if s999 is None else f"{100 * (s999 - 1):+.1f}%")

# 2. recorder cost -----------------------------------------------------------
w("## 2. Recorder cost (profiler CPU time incl. BPF run time, ms per 1000 samples)\n")
table(["workload", "Hz"] + tools + ["eprof/perf", "eprof-a/perf-a"])
cost = {}
for wl, rate in cells:
    line = f"| {wl} | {rate} |"
    for t in tools:
        per = []
        for cpu, bpf, n in zip(vals("matrix", wl, rate, t, "prof_cpu_s"), vals("matrix", wl, rate, t, "bpf_s"),
                               vals("matrix", wl, rate, t, "samples")):
            if n > 0:
                per.append(1e6 * (cpu + bpf) / n)
        c = med(per)
        cost[(wl, rate, t)] = c
        line += f" {fmt(c)} |"
    line += f" {rfmt(ratio(cost.get((wl, rate, 'eprof')), cost.get((wl, rate, 'perf'))))} |"
    line += f" {rfmt(ratio(cost.get((wl, rate, 'eprof-a')), cost.get((wl, rate, 'perf-a'))))} |"
    w(line)
w("\nCPU = user+sys of the profiler process (for `-- CMD` runs: the rusage of the whole command minus the "
  "workload's own) + run_time_ns of its BPF programs (/proc/PID/fdinfo of its program fds, kernel.bpf_stats_enabled=1). In-kernel work "
  "done in the sampled task's context (perf's callchain copy, the BPF program) is also charged to the "
  "workload, so it shows in figure 1 as well.\n")
w("BPF program run time alone (ms per 1000 samples, median): " + ", ".join(
    f"{t}@{wl}/{rate}: {fmt(med([1e6 * b / n for b, n in zip(vals('matrix', wl, rate, t, 'bpf_s'), vals('matrix', wl, rate, t, 'samples')) if n]))}"
    for wl, rate in cells[:3] for t in ("eprof", "bpftrace", "bcc") if vals("matrix", wl, rate, t, "bpf_s")) + "\n")
pairs = [(k, v, cost.get((k[0], k[1], "perf"))) for k, v in cost.items() if k[2] == "eprof" and v is not None]
bad = [f"{k[0]}@{k[1]}" for k, v, p in pairs if p and v > 0.5 * p]
goal("recorder CPU per 1000 samples <= half of perf record's", None if not pairs else not bad,
     "over half at " + ", ".join(bad) if bad else "at most half everywhere")

# 3. lost samples and dropped stacks -----------------------------------------
w("## 3. Lost samples / dropped stacks (sum over repetitions; samples recorded in brackets)\n")
table(["workload", "Hz"] + tools)
for wl, rate in cells:
    line = f"| {wl} | {rate} |"
    for t in tools:
        n = vals("matrix", wl, rate, t, "samples")
        lo = vals("matrix", wl, rate, t, "lost")
        dr = vals("matrix", wl, rate, t, "dropped")
        if not n:
            line += " - |"
            continue
        line += f" {fmt(sum(lo), 0) if lo else 'n/a'} / {fmt(sum(dr), 0) if dr else 'n/a'} ({fmt(sum(n), 0)}) |"
    w(line)
big_lost = vals("big", "busy", "9999", "eprof-a", "lost")
big_n = vals("big", "busy", "9999", "eprof-a", "samples")
p_lost = vals("big", "busy", "9999", "perf-a", "lost")
w(f"\nBusy machine, -a at 9999 Hz on {machine.split('|')[2].strip()}: eprof lost {fmt(sum(big_lost), 0) if big_lost else '-'} "
  f"of {fmt(sum(big_n), 0) if big_n else '-'}; perf lost {fmt(sum(p_lost), 0) if p_lost else '-'}.\n")
w("perf: `# Total Lost Samples` of `perf report`; bpftrace: 'Lost N events' messages; "
  "bcc: lost = n/a, dropped = its 'stack traces ... could not be displayed' warning.\n")
a_lost = [sum(vals("matrix", wl, rate, "eprof-a", "lost")) for wl, rate in cells if rate == "9999"] + big_lost
goal("zero lost samples at 9999 Hz on all CPUs", None if not a_lost else sum(a_lost) == 0,
     f"{fmt(sum(a_lost), 0)} lost in the -a runs at 9999 Hz")

# 4. file size -----------------------------------------------------------------
w("## 4. File size (bytes per sample)\n")
table(["workload", "Hz", "eprof file", "eprof sample stream", "perf -g", "perf dwarf", "perf/eprof",
       "eprof-a file", "perf-a", "perf-a/eprof-a"])


def bps(wl, rate, t, key="file_bytes"):
    b = vals("matrix", wl, rate, t, key)
    n = vals("matrix", wl, rate, t, "samples")
    per = [x / y for x, y in zip(b, n) if y]
    return med(per)


for wl, rate in cells:
    e, s, p, d = bps(wl, rate, "eprof"), bps(wl, rate, "eprof", "stream_bytes"), bps(wl, rate, "perf"), bps(wl, rate, "perf-dwarf")
    ea, pa = bps(wl, rate, "eprof-a"), bps(wl, rate, "perf-a")
    w(f"| {wl} | {rate} | {fmt(e, 1)} | {fmt(s, 2)} | {fmt(p, 1)} | {fmt(d, 0)} | {rfmt(ratio(p, e))} | {fmt(ea, 1)} | {fmt(pa, 1)} | {rfmt(ratio(pa, ea))} |")
w("\nShort runs (about a second) carry eprof's fixed cost (schema, symbols) over few samples; "
  "the compactness run below is the long-run figure.\n")

cs = med(vals("compact", "threads", "999", "eprof-a", "samples"))
cf = med(vals("compact", "threads", "999", "eprof-a", "file_bytes"))
cst = med(vals("compact", "threads", "999", "eprof-a", "stream_bytes"))
ckb = med(vals("compact", "threads", "999", "eprof-a", "stack_bytes"))
ps_ = med(vals("compact", "threads", "999", "perf-a", "samples"))
pf = med(vals("compact", "threads", "999", "perf-a", "file_bytes"))
secs = med(vals("compact", "threads", "999", "-", "seconds"))
w(f"### Compactness (issue 4): {fmt(secs, 0)} s at 999 Hz, -a, CPU-bound on every CPU\n")
table(["", "samples", "whole file (bytes)", "bytes/sample", "sample stream bytes/sample",
       "stacks bytes/sample"])
w(f"| eprof | {fmt(cs, 0)} | {fmt(cf, 0)} | {fmt(ratio(cf, cs))} | {fmt(ratio(cst, cs))} | {fmt(ratio(ckb, cs))} |")
w(f"| perf -g | {fmt(ps_, 0)} | {fmt(pf, 0)} | {fmt(ratio(pf, ps_))} | | |")
csz = ratio(ratio(pf, ps_), ratio(cf, cs))
w(f"\nperf.data / eprof file, per sample: {rfmt(csz)}; whole files: {rfmt(ratio(pf, cf))}.\n")
if secs is not None and secs < 30:
    w(f"(This run recorded {fmt(secs, 0)} s, not 30 s: the fixed part of eprof's file weighs more than in a full run.)\n")
goal("whole file >= 20x smaller than perf.data of perf record -g (compactness run, per sample)",
     None if csz is None else csz >= 20, rfmt(csz))
st = ratio(cst, cs)
goal("sample stream <= 4 bytes/sample (compactness run)", None if st is None else st <= 4, fmt(st))

# 5. report --------------------------------------------------------------------
w("## 5. Report cost\n")
table(["recording", "tool", "samples", "wall (s)", "s per 100k samples", "samples/s", "peak RSS (MiB)"])
rep = {}
for r in rows:
    if r["section"] == "report":
        rep.setdefault((r["workload"], r["rate"], r["tool"]), {})[r["key"]] = float(r["value"])
for (kind, n, tool), m in rep.items():
    n = float(n)
    wall, rss = m.get("wall_s"), m.get("maxrss_kb")
    w(f"| {kind} | {tool} | {fmt(n, 0)} | {fmt(wall, 3)} | {fmt(1e5 * wall / n if n else None, 3)} | "
      f"{fmt(n / wall if wall else None, 0)} | {fmt(rss / 1024 if rss else None, 1)} |")
ef = rep.get(next((k for k in rep if k[0] == "real" and k[2] == "eprof-fold"), None), {})
en = next((float(k[1]) for k in rep if k[0] == "real" and k[2] == "eprof-fold"), None)
pk = next((k for k in rep if k[0] == "real" and k[2] == "perf-script"), None)
pn = float(pk[1]) if pk else None
ps_t = rep.get(pk, {}).get("wall_s") if pk else None
ak = next((k for k in rep if k[0] == "real" and k[2] == "awk-collapse"), None)
aw_t = rep.get(ak, {}).get("wall_s") if ak else None
e_rate = en / ef["wall_s"] if ef.get("wall_s") and en else None
p_rate = pn / (ps_t + (aw_t or 0)) if ps_t and pn else None
w(f"\n`perf script` output collapsed by an awk script in bench/run.sh (stackcollapse-perf.pl is not packaged in Debian); "
  f"eprof --fold vs perf script + awk, per sample: {rfmt(ratio(e_rate, p_rate))} faster.\n")
gen = sorted(((float(k[1]), m) for k, m in rep.items() if k[0] == "gen"), key=lambda x: x[0])
w("Growth of `eprof report --fold` (recordings made by bench/gen_recording.c from the real one: same stacks, "
  "symbols and mappings, samples repeated): " + "; ".join(
      f"{fmt(n, 0)}: {fmt(m.get('wall_s'), 3)} s, {fmt(m.get('maxrss_kb', 0) / 1024, 1)} MiB" for n, m in gen) + "\n")
goal("report --fold >= 10x faster per sample than perf script", None if ratio(e_rate, p_rate) is None else ratio(e_rate, p_rate) >= 10,
     rfmt(ratio(e_rate, p_rate)))
best = max([n / m["wall_s"] for n, m in gen if m.get("wall_s")] + ([e_rate] if e_rate else []) or [0])
big_gen = [n / m["wall_s"] for n, m in gen if n >= 1e6 and m.get("wall_s")]
g_rate = min(big_gen) if big_gen else e_rate
goal("report --fold >= 1M samples/s", None if g_rate is None else g_rate >= 1e6,
     f"{fmt(g_rate, 0)} samples/s (slowest of the >= 1M generated runs)")
if len(gen) >= 2:
    r0, r1 = gen[0][1].get("maxrss_kb"), gen[-1][1].get("maxrss_kb")
    flat = r0 and r1 and r1 <= 1.5 * r0 + 8192
    goal("report peak memory independent of sample count", bool(flat),
         f"{fmt(r0 / 1024, 1)} MiB at {fmt(gen[0][0], 0)} -> {fmt(r1 / 1024, 1)} MiB at {fmt(gen[-1][0], 0)}")

# 6. start and finish latency ---------------------------------------------------
w("## 6. Start + finish latency (whole command wall time minus the workload's own, s)\n")
lat_tools = [t for t in ("eprof", "perf", "perf-nobpf", "bpftrace", "bcc", "eprof-a", "perf-a") if t in tools]
table(["workload", "Hz"] + lat_tools + ["eprof/perf"])
lat = {}
for wl, rate in cells:
    line = f"| {wl} | {rate} |"
    for t in lat_tools:
        cw, ww = vals("matrix", wl, rate, t, "cmd_wall_s"), vals("matrix", wl, rate, t, "wl_wall_s")
        if t in ("bcc", "eprof-a", "perf-a"):
            d = cw  # attach + stop time, measured directly
        else:
            d = [a - b for a, b in zip(cw, ww)]
        lat[(wl, rate, t)] = med(d)
        line += f" {fmt(med(d), 3)} |"
    line += f" {rfmt(ratio(lat.get((wl, rate, 'eprof')), lat.get((wl, rate, 'perf'))))} |"
    w(line)
w("\nbcc, eprof-a and perf-a run in the background: their figure is the time from start until their BPF program "
  "is attached (perf -a: until it has written its header, + 0.2 s) plus the time from SIGINT to exit.\n")
el = [v for (wl, rate, t), v in lat.items() if t == "eprof" and v is not None]
goal("start+finish latency <= 0.3 s for eprof record -- CMD", None if not el else max(el) <= 0.3,
     f"median per cell {fmt(min(el), 3)}..{fmt(max(el), 3)} s" if el else "-")

# 7. symbolization coverage -----------------------------------------------------
w("## 7. Symbolization coverage (-a at 9999 Hz on a busy machine: stress-ng, a gcc loop, deep stacks)\n")
ec = med(vals("coverage", "busy", "9999", "eprof-a", "frames_resolved_pct"))
pc = med(vals("coverage", "busy", "9999", "perf-a", "frames_resolved_pct"))
es_ = med(vals("coverage", "busy", "9999", "eprof-a", "eprof_says_pct"))
table(["", "frames resolved"])
w(f"| eprof report --fold | {fmt(ec, 1)}% (eprof's own figure: {fmt(es_, 1)}%) |")
w(f"| perf script | {fmt(pc, 1)}% |")
w("\nShare of frames, weighted by samples, that are named (not `[unknown]`, not `FILE+0xOFF`), "
  "counted the same way on both folded outputs.\n")

# goals -----------------------------------------------------------------------------
w("## Goals\n")
table(["goal", "status", "measured"])
for name, status, measured in goals:
    w(f"| {name} | **{status}** | {measured} |")
if mode == "quick":
    w("\nQuick run: one repetition and fewer cells; figures are indicative only.")
print("\n".join(out))
