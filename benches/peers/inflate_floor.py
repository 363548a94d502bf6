#!/usr/bin/env python3
"""One trace at the inflate floor (issue 18): `opguard trace info` against
inflating the same gzip file alone, measured in the same run.

Every measurement is a fresh process; the runs are interleaved (floor, gzip,
opguard, floor, gzip, opguard, ...) so load drift hits all of them alike. For
each run: wall seconds and user+sys CPU seconds of the child
(`resource.getrusage(RUSAGE_CHILDREN)` deltas). Reported: medians, min–max,
and the ratios of the medians against the inflate floor.

    python3 benches/peers/inflate_floor.py --repeat 7 \\
        --floor target/release/examples/inflate \\
        --opguard target/release/opguard \\
        ../shared/data/traces/hta/mtia_trace_single_rank__mtia_rank_0.json.gz

`--floor` is the `inflate` example of opguard-trace: the same flate2 backend
and buffer sizes as the reader, inflating only (no hash, no scan). `gzip -dc`
is run beside it as a floor nobody here wrote.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import time


def run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("--floor", default="target/release/examples/inflate")
    p.add_argument("--opguard", default="target/release/opguard")
    p.add_argument("--count", default="target/release/examples/count",
                   help="opguard-trace's count example (reader only), run with --thread")
    p.add_argument("--baseline", metavar="OPGUARD",
                   help="an earlier build of opguard, run in the same rounds")
    p.add_argument("--baseline-floor", metavar="INFLATE",
                   help="the inflate example of that earlier build (its flate2 backend)")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()

    commands = {
        "inflate floor (flate2, same backend)": [a.floor, a.trace],
        "gzip -dc": ["gzip", "-dc", a.trace],
        "opguard trace info --json": [a.opguard, "trace", "info", "--json", a.trace],
    }
    if os.path.exists(a.count):
        commands["count --thread (reader only)"] = [a.count, "--thread", a.trace]
    if a.baseline:
        commands["baseline: opguard trace info --json"] = [
            a.baseline, "trace", "info", "--json", a.trace]
    if a.baseline_floor:
        commands["baseline: inflate floor"] = [a.baseline_floor, a.trace]
    samples = {name: [] for name in commands}
    load_before = os.getloadavg()
    for _ in range(a.repeat):
        for name, cmd in commands.items():
            samples[name].append(run(cmd))
    load_after = os.getloadavg()

    floor = "inflate floor (flate2, same backend)"
    med = {n: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s))
           for n, s in samples.items()}
    print(f"load average {load_before[0]:.2f} -> {load_after[0]:.2f}, "
          f"{a.repeat} interleaved runs each, {a.trace}")
    print("| run | wall median (min–max) | CPU user+sys median | wall vs floor | CPU vs floor |")
    print("|---|---:|---:|---:|---:|")
    for name, s in samples.items():
        walls = [w for w, _ in s]
        wall, cpu = med[name]
        print(f"| {name} | {wall:.3f} s ({min(walls):.3f}–{max(walls):.3f}) | {cpu:.3f} s "
              f"| {wall / med[floor][0]:.2f}x | {cpu / med[floor][1]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
