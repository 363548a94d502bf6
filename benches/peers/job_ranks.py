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
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system) of one
    fresh process, from GNU time: the child's own figures, not the forked
    interpreter's pages before exec."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%M %U %S", *cmd],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
        rss_kib, user, system = out.read().split()[-3:]
    return wall, int(rss_kib) / 1024, float(user) + float(system)


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
    walls = [w for w, _, _ in samples]
    cpu = statistics.median(c for _, _, c in samples)
    return statistics.median(walls), min(walls), max(walls), max(r for _, r, _ in samples), cpu


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
    print("| run | wall median (min–max) | MB/s decoded | CPU (user+sys) | peak RSS |")
    print("|---|---:|---:|---:|---:|")
    rows = [(f"opguard job --jobs {j}", results[j]) for j in (1, 2)]
    rows.append(("opguard job --jobs 1, one rank", one_rank))
    if hta:
        rows.append(("HTA TraceAnalysis(trace_dir=...)", hta))
    for name, samples in rows:
        med, lo, hi, rss, cpu = summary(samples)
        size = decoded / args.ranks if "one rank" in name else decoded
        print(f"| {name} | {med:.2f} s ({lo:.2f}–{hi:.2f}) | {size / 1e6 / med:.0f} "
              f"| {cpu:.2f} s | {rss:.1f} MiB |")
    s1, s2 = summary(results[1])[0], summary(results[2])[0]
    print(f"speed-up --jobs 2 vs --jobs 1: {s1 / s2:.2f}x")
    print(f"peak RSS --jobs 2 vs one rank: {summary(results[2])[3] / summary(one_rank)[3]:.2f}x")
    if hta:
        print(f"HTA vs opguard --jobs 2: {summary(hta)[0] / s2:.1f}x the time, "
              f"{summary(hta)[3] / summary(results[2])[3]:.0f}x the peak RSS")


if __name__ == "__main__":
    main()
