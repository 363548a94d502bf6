#!/usr/bin/env python3
"""Whole-job benchmark: `opguard job` on N ranks at --jobs 1 and --jobs 2,
peak RSS against one rank, and HolisticTraceAnalysis loading the same ranks
(`TraceAnalysis(trace_dir=...)`), back to back in one run.

The ranks are copies of one real rank trace with only `distributedInfo.rank`
rewritten (so every rank is the producer's own output, byte for byte apart
from that field). Each measurement is a fresh process; wall time is
`time.perf_counter` around it, peak RSS and CPU time from GNU time (`/usr/bin/time`). The
load average is printed with the results: the machine is shared.

    python3 benches/peers/job_ranks.py --opguard target/release/opguard \\
        --hta-python /tmp/hta-venv/bin/python TRACE [--ranks 16] [--repeat 3]
"""

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HTA_LOAD = """
import sys
from hta.trace_analysis import TraceAnalysis
analyzer = TraceAnalysis(trace_dir=sys.argv[1])
print(len(analyzer.t.traces))
"""


def run(cmd):
    """Wall seconds, peak RSS (MiB), CPU seconds (user + system) and context
    switches (voluntary: the process waited, e.g. on a lock or I/O;
    involuntary: the scheduler took the CPU away) of one fresh process, from
    GNU time: the child's own figures, not the forked interpreter's pages
    before exec."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%M %U %S %w %c", *cmd],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
        rss_kib, user, system, waits, preempted = out.read().split()[-5:]
    return Sample(wall, int(rss_kib) / 1024, float(user) + float(system), int(waits),
                  int(preempted))


class Sample:
    """One process's figures (see `run`)."""

    def __init__(self, wall, rss, cpu, waits, preempted):
        self.wall, self.rss, self.cpu = wall, rss, cpu
        self.waits, self.preempted = waits, preempted


RANK = re.compile(rb'("distributedInfo"\s*:\s*\{[^{}]*?"rank"\s*:\s*)(-?\d+)')


def make_ranks(src, ranks, out):
    """Copies whose decoded bytes differ from the source only in the digits
    of `distributedInfo.rank` (gzip level 1: the copies are inputs, not
    artifacts to keep)."""
    text = gzip.open(src).read()
    if not RANK.search(text):
        sys.exit(f"{src} has no distributedInfo.rank to rewrite")
    paths = []
    for rank in range(ranks):
        path = os.path.join(out, f"rank-{rank}.json.gz")
        copy = RANK.sub(lambda m: m.group(1) + str(rank).encode(), text, count=1)
        with open(path, "wb") as f:
            f.write(gzip.compress(copy, compresslevel=1))
        paths.append(path)
    return paths, len(text)


def summary(samples):
    walls = [s.wall for s in samples]
    cpu = statistics.median(s.cpu for s in samples)
    return (statistics.median(walls), min(walls), max(walls), max(s.rss for s in samples),
            cpu)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("--opguard", required=True, help="the opguard binary (release)")
    p.add_argument("--hta-python", help="a Python with HolisticTraceAnalysis installed")
    p.add_argument("--ranks", type=int, default=16)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        paths, one_decoded = make_ranks(args.trace, args.ranks, tmp)
        decoded = one_decoded * args.ranks
        results = {1: [], 2: []}
        one_rank = []
        for _ in range(args.repeat):
            # Interleaved, so both settings see the same background load.
            for jobs in (1, 2):
                results[jobs].append(run([args.opguard, "job", "--json", "--jobs", str(jobs), tmp]))
            one_rank.append(run([args.opguard, "job", "--json", "--jobs", "1", paths[0]]))
        hta = []
        if args.hta_python:
            for _ in range(max(1, args.repeat // 3)):
                hta.append(run([args.hta_python, "-c", HTA_LOAD, tmp]))
    load_after = os.getloadavg()

    print(f"input: {args.trace} x {args.ranks} ranks, {decoded / 1e6:.1f} MB decoded in all")
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} (1 min)")
    print("| run | wall median (min–max) | MB/s decoded | CPU (user+sys) | cores used "
          "| voluntary waits | peak RSS |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = [(f"opguard job --jobs {j}", results[j]) for j in (1, 2)]
    rows.append(("opguard job --jobs 1, one rank", one_rank))
    if hta:
        rows.append(("HTA TraceAnalysis(trace_dir=...)", hta))
    for name, samples in rows:
        med, lo, hi, rss, cpu = summary(samples)
        size = decoded / args.ranks if "one rank" in name else decoded
        waits = max(s.waits for s in samples)
        print(f"| {name} | {med:.2f} s ({lo:.2f}–{hi:.2f}) | {size / 1e6 / med:.0f} "
              f"| {cpu:.2f} s | {cpu / med:.2f} | {waits} | {rss:.1f} MiB |")
    s1, s2 = summary(results[1]), summary(results[2])
    one = summary(one_rank)
    cores = s2[4] / s2[0]
    print()
    print(f"SPEED-UP --jobs 2 vs --jobs 1 (wall): {s1[0] / s2[0]:.2f}x  (goal >= 1.8x)")
    print(f"  CPU per rank: {s1[4] / args.ranks:.3f} s at --jobs 1, {s2[4] / args.ranks:.3f} s "
          f"at --jobs 2 (a second worker adding work or spinning would show here)")
    # With the CPU to itself the wall time of --jobs 2 is the busier
    # worker's CPU time: ceil(ranks/2) ranks of equal cost, plus nothing, as
    # long as the workers never wait on each other (voluntary waits ~0).
    busier = -(-args.ranks // 2) * s2[4] / args.ranks
    print(f"  on 2 idle cores (CPU-bound, workers never waiting): "
          f"{s1[4] / busier:.2f}x expected")
    if cores < 1.8:
        print(f"  this run got {cores:.2f} cores for --jobs 2 (load average "
              f"{load_after[0]:.1f}): the wall ratio measures the machine's load, not opguard")
    print(f"PEAK RSS: one rank {one[3]:.1f} MiB, --jobs 1 {s1[3]:.1f} MiB, "
          f"--jobs 2 {s2[3]:.1f} MiB")
    print(f"PEAK RSS --jobs 2 vs one rank: {s2[3] / one[3]:.2f}x  (goal <= 2x)")
    if hta:
        print(f"HTA vs opguard --jobs 2: {summary(hta)[0] / s2[0]:.1f}x the time, "
              f"{summary(hta)[3] / s2[3]:.0f}x the peak RSS")


if __name__ == "__main__":
    main()
