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
batch (process start), which the `net` rates subtract. Answers go to a pipe
this script reads in large reads into one reused buffer (a caller that wants
every answer); the stream also goes to a file and to /dev/null, so the cost
of the pipe and its reader shows.

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


def read_pipe(stream):
    """Reads a pipe to its end as a caller that wants every answer would:
    large reads into one reused buffer, counting lines and bytes (no copy of
    the whole output, so the reader costs far less than the writer)."""
    buffer = bytearray(1 << 20)
    lines = size = 0
    fd = stream.fileno()
    while True:
        got = os.readv(fd, [buffer])
        if got == 0:
            return lines, size
        lines += buffer.count(b"\n", 0, got)
        size += got


def run_once(cli, path, extra, sink, tmp):
    """Runs the batch once with stdout to `sink`: "pipe" (read here by
    `read_pipe`), "file" (a fresh file, counted afterwards) or "null"
    (/dev/null, only the exit status checked). Returns (wall, cpu, lines, bytes)."""
    argv = [cli, "kernel-name", "canonical", "--json", "--stdin", *extra]
    with open(path, "rb") as stdin:
        if sink == "pipe":
            c0, t0 = cpu_of_children(), time.perf_counter()
            child = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE)
            lines, size = read_pipe(child.stdout)
            child.stdout.close()
            status = child.wait()
            wall = time.perf_counter() - t0
        else:
            target = os.path.join(tmp, "answers.jsonl") if sink == "file" else os.devnull
            with open(target, "wb") as out:
                c0, t0 = cpu_of_children(), time.perf_counter()
                status = subprocess.run(argv, stdin=stdin, stdout=out).returncode
                wall = time.perf_counter() - t0
            if sink == "file":
                with open(target, "rb") as f:
                    data = f.read()
                lines, size = data.count(b"\n"), len(data)
            else:
                lines = size = None
        cpu = cpu_of_children() - c0
    if status != 0:
        raise SystemExit(f"{argv} exited {status}")
    return wall, cpu, lines, size


def time_batch(cli, path, count, repeat, extra, sink="pipe", tmp=None):
    """Best and median wall time, best CPU time (user + system), bytes out."""
    walls, cpus, size = [], [], 0
    for _ in range(repeat):
        wall, cpu, lines, got = run_once(cli, path, extra, sink, tmp)
        walls.append(wall)
        cpus.append(cpu)
        if lines is not None:
            assert lines == count, (lines, count)
            size = got
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
        start, start_median, start_cpu, _ = time_batch(cli, empty, 0, repeat, extra, "pipe", tmp)
        size = 0
        print(f"empty batch (process start): wall best {start * 1e3:.2f} ms, median {start_median * 1e3:.2f} ms,"
              f" CPU best {start_cpu * 1e3:.2f} ms")
        for label, subset in (("all", names), ("mangled", mangled),
                              ("demangled", [n for n in names if not n.strip().startswith("_Z")]),
                              ("stream x50", names * 50)):
            path = os.path.join(tmp, f"{label}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(n + "\n" for n in subset))
            n = len(subset)
            # Every subset into a pipe this script reads (the realistic caller);
            # the stream also into a file and into /dev/null, to show what the
            # reader of the pipe costs.
            sinks = ("pipe", "file", "null") if label == "stream x50" else ("pipe",)
            for sink in sinks:
                best, median, cpu, got = time_batch(cli, path, n, repeat, extra, sink, tmp)
                size = got or size
                print(f"{label:10} {n:6} names  to {sink:4}  wall best {best * 1e3:8.2f} ms ({n / best / 1e6:.3f} M/s)"
                      f"  median {median * 1e3:8.2f} ms ({n / median / 1e6:.3f} M/s)"
                      f"  CPU best {cpu * 1e3:8.2f} ms ({n / cpu / 1e6:.3f} M/s,"
                      f" net of start {n / max(cpu - start_cpu, 1e-4) / 1e6:.3f} M/s)"
                      f"  {size / n:6.0f} B JSON/answer")
    print(f"loadavg {open('/proc/loadavg').read().split()[:3]}, repeat {repeat}, extra args {extra}")


if __name__ == "__main__":
    main()
