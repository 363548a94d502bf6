#!/usr/bin/env python3
"""Peers for opguard-rocprof: pandas `read_csv` of a rocprofv3 CSV capture and
TraceLens's rocprofv3 reader of the same capture's JSON document, run back to
back with an opguard command in one window, each in a fresh process.

    rocprof_readers.py --csv KERNEL_TRACE --json DOCUMENT \
        --tracelens-util PATH/TO/TraceLens/util.py \
        --opguard "target/release/opguard trace info {csv}" [--repeat 3]

`benches/peers/rocprof_grow.py` makes the inputs from the shared capture.
TraceLens is not on PyPI and is never committed here: pass its
`TraceLens/util.py` from a checkout (e.g. `git -C TraceLens show
HEAD:TraceLens/util.py > /tmp/tracelens_util.py`); it needs only the standard
library and orjson (benches/peers/setup.sh installs orjson and pandas).

What each peer does (the timed part is the whole process):
- pandas: `read_csv` of the kernel trace and of the HIP API trace, then the
  dispatch count, summed duration and the dispatches whose Correlation_Id an
  API row has (`isin`);
- tracelens: `RocprofParser.load_rocprof_data`, `extract_kernel_events`,
  `extract_api_events` (TraceLens joins nothing), then the same count and sum;
- opguard: the command given, `{csv}` and `{json}` replaced by the inputs.

Reported per peer: median wall seconds, median CPU seconds (user + system,
all threads), peak RSS; and each peer's dispatch count, which must agree.
"""
import argparse
import json
import resource
import shlex
import statistics
import subprocess
import sys

PANDAS = r"""
import sys, pandas as pd
k = pd.read_csv(sys.argv[1])
hip = sys.argv[1][: -len("kernel_trace.csv")] + "hip_api_trace.csv"
a = pd.read_csv(hip)
print(len(k), int((k["End_Timestamp"] - k["Start_Timestamp"]).sum()),
      int(k["Correlation_Id"].isin(a["Correlation_Id"]).sum()))
"""

TRACELENS = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("tracelens_util", sys.argv[2])
util = importlib.util.module_from_spec(spec); spec.loader.exec_module(util)
P = util.RocprofParser
data = P.load_rocprof_data(sys.argv[1])
kernels = P.extract_kernel_events(data)
apis = P.extract_api_events(data)
print(len(kernels), sum(k["dur"] for k in kernels), len(apis))
"""


def measured(argv):
    """Runs argv under a fresh Python helper, so RUSAGE_CHILDREN's maxrss is
    this run's alone."""
    helper = (
        "import resource,subprocess,sys,time,json\n"
        "t=time.perf_counter(); p=subprocess.run(sys.argv[1:],capture_output=True,text=True)\n"
        "w=time.perf_counter()-t; r=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'rc':p.returncode,'out':p.stdout,'err':p.stderr[-2000:],'wall':w,"
        "'cpu':r.ru_utime+r.ru_stime,'rss_kib':r.ru_maxrss}))\n"
    )
    out = subprocess.run([sys.executable, "-c", helper, *argv], capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--tracelens-util", required=True)
    ap.add_argument("--opguard", required=True, action="append")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peers", default="opguard,pandas,tracelens")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    peers = {}
    for i, cmd in enumerate(args.opguard):
        peers["opguard" + ("" if i == 0 else str(i + 1))] = shlex.split(
            cmd.format(csv=args.csv, json=args.json))
    peers["pandas"] = [args.python, "-c", PANDAS, args.csv]
    peers["tracelens"] = [args.python, "-c", TRACELENS, args.json, args.tracelens_util]
    wanted = set(args.peers.split(","))
    peers = {k: v for k, v in peers.items() if k in wanted or k.rstrip("0123456789") in wanted}
    runs = {k: [] for k in peers}
    for _ in range(args.repeat):
        for name, argv in peers.items():
            r = measured(argv)
            runs[name].append(r)
            print("%-10s rc=%d wall=%.2fs cpu=%.2fs rss=%.0f MiB %s" % (
                name, r["rc"], r["wall"], r["cpu"], r["rss_kib"] / 1024,
                (r["out"].strip() or r["err"].strip())[:200]), file=sys.stderr)
    print("| reader | wall s (median) | CPU s (median) | peak RSS MiB (max) | output |")
    print("|---|---:|---:|---:|---|")
    for name, rs in runs.items():
        ok = [r for r in rs if r["rc"] == 0]
        if not ok:
            print("| %s | failed | | | %s |" % (name, rs[-1]["err"].strip().splitlines()[-1:]))
            continue
        print("| %s | %.2f | %.2f | %.0f | %s |" % (
            name, statistics.median(r["wall"] for r in ok), statistics.median(r["cpu"] for r in ok),
            max(r["rss_kib"] for r in ok) / 1024, ok[-1]["out"].strip().replace("\n", " ")[:120]))


if __name__ == "__main__":
    main()
