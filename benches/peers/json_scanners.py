#!/usr/bin/env python3
"""How close to the inflate floor can any JSON reader bring one trace (issue 18)?

`opguard trace info` on two cores can take no less wall time than
max(F, (F + S) / 2): F inflating the file (serial: one core), S everything
else (scanning, counting, hashing), which the two cores can at best share
evenly. The goal "within 1.15x of F" therefore needs S <= 1.3 F. This script
measures S for opguard's own reader and for the fastest JSON readers we know
of, on the same decoded bytes in memory and on one core, in the same run as
F, and prints the bound each of them would put on that ratio.

    python3 benches/peers/json_scanners.py \\
        ../shared/data/traces/hta/mtia_trace_single_rank__mtia_rank_0.json.gz

Scanners (see json_scanners/src/main.rs and json_scanners/simdjson_ondemand.cpp):
opguard's `trace_info` (its digest of the decoded bytes shown apart as
`sha256`), serde_json, simd-json, sonic-rs, and simdjson's On-Demand API
(C++, the kernel it picks at run time: AVX-512 "icelake" where the CPU has
it), `lazy` (only `ph`/`cat` decoded, other values skipped unvalidated) and
`all` (every value decoded). Each scanner runs in --repeat fresh processes,
interleaved; each process reports the fastest of --passes passes over the
bytes it holds (warm buffers: the figure most favourable to the scanner).
F is the `inflate` example (the reader's flate2 backend) in the same rounds,
as it reports its own time. Every scanner that reports events and (ph, cat)
counts must agree; exit status 1 if they do not.

Builds what it runs: the Rust probe with cargo, the C++ probe with $CXX
(default g++) against simdjson's amalgamated sources from the pinned
pysimdjson sdist (downloaded once with pip into json_scanners/.cache).
"""
import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = os.path.join(HERE, "json_scanners")
CACHE = os.path.join(PROBE, ".cache")
PYSIMDJSON = "pysimdjson==7.0.2"  # bundles simdjson 3.12.3
RUST_SCANNERS = ["opguard-trace-info", "sha256", "serde_json", "simd-json", "sonic-rs"]
CXX_SCANNERS = ["lazy", "all"]


def simdjson_sources():
    """simdjson.h and simdjson.cpp from the pinned pysimdjson sdist."""
    name, version = PYSIMDJSON.split("==")
    src = os.path.join(CACHE, f"{name}-{version}", "simdjson")
    if not os.path.exists(os.path.join(src, "simdjson.cpp")):
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--no-binary", ":all:", "-d", CACHE, PYSIMDJSON], check=True)
        with tarfile.open(os.path.join(CACHE, f"{name}-{version}.tar.gz")) as sdist:
            members = [m for m in sdist.getmembers()
                       if m.name.endswith(("simdjson/simdjson.h", "simdjson/simdjson.cpp"))]
            sdist.extractall(CACHE, members=members, filter="data")
    return src


def build(cxx):
    subprocess.run(["cargo", "build", "--quiet", "--release", "--manifest-path",
                    os.path.join(PROBE, "Cargo.toml")], check=True)
    rust = os.path.join(PROBE, "target", "release", "opguard-json-scanners")
    src = simdjson_sources()
    cpp = os.path.join(PROBE, "simdjson_ondemand.cpp")
    exe = os.path.join(CACHE, "simdjson_ondemand")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(cpp):
        subprocess.run([cxx, "-O3", "-std=c++17", "-I", src, "-o", exe, cpp,
                        os.path.join(src, "simdjson.cpp")], check=True)
    return rust, exe


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def inflate_seconds(floor, trace):
    out = subprocess.run([floor, trace], check=True, capture_output=True, text=True).stdout
    m = re.search(r"decoded=(\d+) MB/s=(\d+)", out)
    if not m:
        raise SystemExit(f"unexpected output of {floor}: {out!r}")
    return int(m.group(1)) / 1e6 / int(m.group(2))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace", help="a .json.gz trace (a plain .json skips the floor)")
    p.add_argument("--floor", default="target/release/examples/inflate",
                   help="opguard-trace's inflate example (cargo build --release -p opguard-trace --example inflate)")
    p.add_argument("--repeat", type=int, default=3, help="processes per scanner, interleaved")
    p.add_argument("--passes", type=int, default=5, help="passes per process; the fastest counts")
    p.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    a = p.parse_args()

    rust, cxx = build(a.cxx)
    gz = a.trace.endswith(".gz")
    if gz and not os.path.exists(a.floor):
        raise SystemExit(f"{a.floor} is missing: cargo build --release -p opguard-trace --example inflate")
    with tempfile.TemporaryDirectory() as tmp:
        plain = a.trace
        if gz:
            plain = os.path.join(tmp, "trace.json")
            with gzip.open(a.trace, "rb") as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        commands = {s: [rust, s, plain, str(a.passes)] for s in RUST_SCANNERS}
        commands.update({f"simdjson-ondemand-{m}": [cxx, m, plain, str(a.passes)] for m in CXX_SCANNERS})
        seconds = {name: [] for name in commands}
        reports = {}
        floors = []
        load_before = os.getloadavg()
        for _ in range(a.repeat):
            if gz:
                floors.append(inflate_seconds(a.floor, a.trace))
            for name, cmd in commands.items():
                report = run_json(cmd)
                seconds[name].append(report["seconds"])
                reports[name] = report
        load_after = os.getloadavg()

    size = next(iter(reports.values()))["bytes"]
    print(f"load average {load_before[0]:.2f} -> {load_after[0]:.2f}, {a.repeat} processes per "
          f"scanner, fastest of {a.passes} passes each, {size:,} decoded bytes of {a.trace}")
    floor = statistics.median(floors) if floors else None
    if floor:
        print(f"inflate floor F = {floor * 1e3:.1f} ms (median of {len(floors)}, "
              f"{size / 1e6 / floor:.0f} MB/s); goal 1.15 F = {1.15 * floor * 1e3:.1f} ms "
              f"needs S <= 1.3 F = {1.3 * floor * 1e3:.1f} ms")
    print("| scanner (one core, bytes in memory) | S median (min–max) | decoded MB/s "
          "| two-core wall bound max(F, (F+S)/2) | bound / F |")
    print("|---|---:|---:|---:|---:|")
    for name, s in seconds.items():
        med = statistics.median(s)
        kernel = f" ({reports[name]['kernel']})" if "kernel" in reports[name] else ""
        row = f"| {name}{kernel} | {med * 1e3:.1f} ms ({min(s) * 1e3:.1f}–{max(s) * 1e3:.1f}) | {size / 1e6 / med:.0f} "
        if floor:
            bound = max(floor, (floor + med) / 2)
            row += f"| {bound * 1e3:.1f} ms | {bound / floor:.2f}x |"
        else:
            row += "| | |"
        print(row)

    counted = {n: (r["events"], r["pairs"]) for n, r in reports.items() if r.get("events") is not None}
    answers = set(json.dumps(v, sort_keys=True) for v in counted.values())
    if len(answers) != 1:
        for n, (events, pairs) in counted.items():
            print(f"!!!!!!!! MISMATCH {n}: {events} events, {pairs}")
        return 1
    events, pairs = next(iter(counted.values()))
    print(f"{', '.join(counted)} agree: {events:,} events, {len(pairs)} (ph, cat) pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
