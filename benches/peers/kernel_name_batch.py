#!/usr/bin/env python3
"""Times `opguard kernel-name canonical --json --stdin` over the distinct
kernel names of real traces (issue 18, "Kernel names at event rate").

The corpus is the distinct names of `kernel`/`gpu_memcpy`/`gpu_memset` events
in every HolisticTraceAnalysis trace under ../shared/data/traces/hta (read
here with Python's json, not with opguard) plus the TraceLens names of
fixtures/kernel-name/real-names/tracelens.json. It is written to a file, then
the CLI batch is run over it REPEAT times; best and median wall time, names/s
and bytes of JSON per answer are printed, overall, for the `_Z` mangled names
alone and for the others; then for an event stream (the corpus 50 times over,
as a plugin naming kernels per event sends it); and the wall time of an empty
batch (process start), which the `net` rates subtract.

    python3 benches/peers/kernel_name_batch.py OPGUARD [REPEAT] [-- EXTRA CLI ARGS]
"""
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HTA = os.path.join(ROOT, "..", "shared", "data", "traces", "hta")
TRACELENS = os.path.join(ROOT, "fixtures", "kernel-name", "real-names", "tracelens.json")
CATEGORIES = {"kernel", "Kernel", "gpu_memcpy", "gpu_memset", "cuda_profiler_range"}


def hta_names():
    names = []
    for entry in sorted(os.listdir(HTA)):
        path = os.path.join(HTA, entry)
        opener = gzip.open if entry.endswith(".gz") else open
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"skipped {entry}: {e}", file=sys.stderr)
            continue
        events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
        for ev in events:
            if isinstance(ev, dict) and ev.get("cat") in CATEGORIES and isinstance(ev.get("name"), str):
                names.append(ev["name"])
    return names


def corpus():
    seen, out = set(), []
    with open(TRACELENS, encoding="utf-8") as f:
        tracelens = [entry["name"] for entry in json.load(f)["names"]]
    for name in hta_names() + tracelens:
        # One name per line: a name with a line break cannot be a batch line.
        if name not in seen and "\n" not in name and "\r" not in name:
            seen.add(name)
            out.append(name)
    return out


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def time_batch(cli, path, count, repeat, extra):
    """Best and median wall time, best CPU time (user + system), bytes out."""
    walls, cpus, size = [], [], 0
    for _ in range(repeat):
        with open(path, "rb") as stdin:
            c0, t0 = cpu_of_children(), time.perf_counter()
            done = subprocess.run([cli, "kernel-name", "canonical", "--json", "--stdin", *extra],
                                  stdin=stdin, stdout=subprocess.PIPE, check=True)
            walls.append(time.perf_counter() - t0)
            cpus.append(cpu_of_children() - c0)
        lines = done.stdout.count(b"\n")
        assert lines == count, (lines, count)
        size = len(done.stdout)
    return min(walls), statistics.median(walls), min(cpus), size


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1:]
    cli = args[0]
    repeat = int(args[1]) if len(args) > 1 else 7
    names = corpus()
    mangled = [n for n in names if n.strip().startswith("_Z")]
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty.txt")
        open(empty, "w").close()
        start, start_median, start_cpu, _ = time_batch(cli, empty, 0, repeat, extra)
        print(f"empty batch (process start): wall best {start * 1e3:.2f} ms, median {start_median * 1e3:.2f} ms,"
              f" CPU best {start_cpu * 1e3:.2f} ms")
        for label, subset in (("all", names), ("mangled", mangled),
                              ("demangled", [n for n in names if not n.strip().startswith("_Z")]),
                              ("stream x50", names * 50)):
            path = os.path.join(tmp, f"{label}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(n + "\n" for n in subset))
            best, median, cpu, size = time_batch(cli, path, len(subset), repeat, extra)
            n = len(subset)
            print(f"{label:10} {n:6} names  wall best {best * 1e3:8.2f} ms ({n / best / 1e6:.3f} M/s)"
                  f"  median {median * 1e3:8.2f} ms ({n / median / 1e6:.3f} M/s)"
                  f"  CPU best {cpu * 1e3:8.2f} ms ({n / cpu / 1e6:.3f} M/s,"
                  f" net of start {n / max(cpu - start_cpu, 1e-4) / 1e6:.3f} M/s)"
                  f"  {size / n:6.0f} B JSON/answer")
    print(f"loadavg {open('/proc/loadavg').read().split()[:3]}, repeat {repeat}, extra args {extra}")


if __name__ == "__main__":
    main()
