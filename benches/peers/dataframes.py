"""A trace into a pandas DataFrame, three ways, each in a fresh process:

- `opguard_hta_frame`: examples/hta_frames.py's `hta_frame` (opguard's Arrow
  tables through the PyCapsule interface into pyarrow, shaped as HTA's frame);
- `opguard_tables`: the device, host and launches tables, from one read
  (`opguard.tables(path, names)`), to pandas as they are, no HTA shaping;
- `hta_parse_trace_file`: HolisticTraceAnalysis's `parse_trace_file` (its
  default JSON backend, then its links and iterations);
- `hta_parse_trace_dataframe`: HTA's parse step alone (what `hta_frame` replaces);
- `json_normalize`: `pandas.json_normalize` of Python's `json.load`.

    python benches/peers/dataframes.py TRACE [TRACE...]

Prints one Markdown row per (trace, way): wall and CPU (user + system)
seconds of the conversion alone, peak RSS (ru_maxrss),
peak RSS above the same process after its imports, and the frame's own size
(`DataFrame.memory_usage(deep=True)`). Needs the opguard package (release
library: OPGUARD_LIB), pyarrow, pandas and HolisticTraceAnalysis.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r'''
import gzip, json, logging, resource, sys, time
logging.disable(logging.WARNING)
import pandas as pd, pyarrow
sys.path.insert(0, sys.argv[3])
import hta_frames, opguard
from hta.common.trace import parse_trace_file
from hta.common.trace_parser import parse_trace_dataframe
from hta.configs.parser_config import ParserConfig

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

way, path = sys.argv[1], sys.argv[2]
base = rss()
r0 = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
if way == "opguard_hta_frame":
    df = hta_frames.hta_frame(path)[1]
elif way == "opguard_tables":
    read = opguard.tables(path, ("device", "host", "launches"))
    frames = [t.to_pandas() for t in read.values()]
    df = frames
elif way == "hta_parse_trace_file":
    df = parse_trace_file(path)[1]
elif way == "hta_parse_trace_dataframe":
    df = parse_trace_dataframe(path, ParserConfig.get_default_cfg())[1]
elif way == "json_normalize":
    raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    events = json.loads(raw)["traceEvents"]
    del raw
    df = pd.json_normalize(events)
    del events
took = time.perf_counter() - start
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
frames = df if isinstance(df, list) else [df]
size = sum(int(f.memory_usage(deep=True).sum()) for f in frames)
rows = sum(len(f) for f in frames)
print(json.dumps({"seconds": took, "cpu": cpu, "peak": rss(), "base": base, "frame": size,
                  "rows": rows}))
'''

WAYS = ("opguard_hta_frame", "opguard_tables", "hta_parse_trace_dataframe",
        "hta_parse_trace_file", "json_normalize")


def main():
    mib = 2 ** 20
    print("| trace | way | rows | wall s | CPU s | peak RSS | above imports | frame |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for path in sys.argv[1:]:
        for way in WAYS:
            out = subprocess.run([sys.executable, "-c", CHILD, way, path,
                                  os.path.join(ROOT, "examples")],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                print(f"| {os.path.basename(path)} | {way} | failed: {out.stderr.strip()[-200:]} |||||")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"| {os.path.basename(path)} | {way} | {r['rows']:,} | {r['seconds']:.2f} | "
                  f"{r['cpu']:.2f} | "
                  f"{r['peak'] / mib:,.0f} MiB | {(r['peak'] - r['base']) / mib:,.0f} MiB | "
                  f"{r['frame'] / mib:,.0f} MiB |", flush=True)


if __name__ == "__main__":
    main()
