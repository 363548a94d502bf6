#!/usr/bin/env python3
"""XSpace (.xplane.pb) readers, opguard's and the peers users have, timed in
one run on the same files.

Usage::

    benches/peers/.venv/bin/pip install -r benches/peers/xspace_requirements.txt
    cargo build --release -p opguard-benches --bin xspace_summary --bin xspace_grow
    target/release/xspace_grow ../shared/data/xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb \\
        /tmp/xspace_grown.xplane.pb 210000000
    benches/peers/.venv/bin/python benches/peers/xspace_readers.py [--repeat N] \\
        ../shared/data/xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb /tmp/xspace_grown.xplane.pb

Readers (each run in a fresh subprocess; its peak RSS is its own, from
``os.wait4``):

Columns: ``seconds`` is the reader's own timing from opening the file to its
result (interpreter start-up and imports excluded); ``process s`` the whole
subprocess's wall time; ``CPU s`` its user + system CPU time (the measure that
holds on a shared, loaded machine); peak RSS the whole process's
``ru_maxrss``.

* ``opguard``         ``target/release/xspace_summary FILE``: opguard-xplane reads the
  file and visits every event (names resolved, exact times, correlation ids
  looked up), then joins device events to host calls.
* ``opguard-model``   ``target/release/xspace_summary --model FILE``: what
  ``opguard trace launches`` and ``opguard job`` do: the file read into
  opguard-model (runtime calls and device events as slices) and its launch
  region. It reports device events and proven launches, held against the
  others' counters.
* ``protobuf``        the ``protobuf`` package (upb): ``XSpace.ParseFromString`` of
  the whole file with a message class built at run time from xplane.proto's
  descriptor, then a walk of every event resolving names, times and
  ``correlation_id`` the way xprof's Python tools and TraceLens's JAX
  analyses do, and the same join.
* ``protobuf-parse``  ``ParseFromString`` alone: the floor of any Python reader
  that uses the protobuf package (no event is visited).
* ``xprof``           TraceLens's loader for ``.xplane.pb``
  (``TraceLens.util.DataLoader``): xprof's C++ converter
  ``xspace_to_tool_data([path], "trace_viewer@^", {})`` to TensorBoard JSON,
  then ``orjson.loads``. It reports events, not the join. xprof writes cache
  files (``*.SSTABLE``) beside its input, so it reads a copy in a temporary
  folder (made before its timer starts, removed after), never the original.

Every reader that reports them must agree on the counters: events, events
per plane, summed picosecond durations per plane, host calls with a
correlation id, device events, and device events whose correlation id
exactly one host call carries.

Exit status: 0 when every reader ran and agreed; 1 on a disagreement; 2 when
a reader failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
READERS = ("opguard", "opguard-model", "protobuf", "protobuf-parse", "xprof")


WORKER = r'''
import json, sys, time
kind, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if kind == "xprof":
    import orjson
    from xprof.convert import raw_to_tool_data as convert
    t0 = time.perf_counter()
    data, _ = convert.xspace_to_tool_data([path], "trace_viewer@^", {})
    doc = orjson.loads(data)
    events = sum(1 for e in doc["traceEvents"] if e.get("ph") == "X")
    print(json.dumps({"seconds": time.perf_counter() - t0, "json_complete_events": events}))
    sys.exit(0)

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
F = descriptor_pb2.FieldDescriptorProto
fd = descriptor_pb2.FileDescriptorProto(name="xplane.proto", package="tensorflow.profiler", syntax="proto3")
O, R, P = F.LABEL_OPTIONAL, F.LABEL_REPEATED, ".tensorflow.profiler."
def msg(name, fields, oneofs=(), nested=()):
    m = fd.message_type.add(name=name)
    for n in nested:
        m.nested_type.add().CopyFrom(n)
    for o in oneofs:
        m.oneof_decl.add(name=o)
    for fname, num, typ, label, tname, oneof in fields:
        f = m.field.add(name=fname, number=num, type=typ, label=label)
        if tname:
            f.type_name = tname
        if oneof is not None:
            f.oneof_index = oneof
def entry(name, value):
    e = descriptor_pb2.DescriptorProto(name=name)
    e.options.map_entry = True
    e.field.add(name="key", number=1, type=F.TYPE_INT64, label=O)
    e.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=O, type_name=value)
    return e
msg("XSpace", [("planes", 1, F.TYPE_MESSAGE, R, P + "XPlane", None), ("errors", 2, F.TYPE_STRING, R, None, None),
               ("warnings", 3, F.TYPE_STRING, R, None, None), ("hostnames", 4, F.TYPE_STRING, R, None, None)])
msg("XPlane", [("id", 1, F.TYPE_INT64, O, None, None), ("name", 2, F.TYPE_STRING, O, None, None),
               ("lines", 3, F.TYPE_MESSAGE, R, P + "XLine", None),
               ("event_metadata", 4, F.TYPE_MESSAGE, R, P + "XPlane.EventMetadataEntry", None),
               ("stat_metadata", 5, F.TYPE_MESSAGE, R, P + "XPlane.StatMetadataEntry", None),
               ("stats", 6, F.TYPE_MESSAGE, R, P + "XStat", None)],
    nested=[entry("EventMetadataEntry", P + "XEventMetadata"), entry("StatMetadataEntry", P + "XStatMetadata")])
msg("XLine", [("id", 1, F.TYPE_INT64, O, None, None), ("display_id", 10, F.TYPE_INT64, O, None, None),
              ("name", 2, F.TYPE_STRING, O, None, None), ("display_name", 11, F.TYPE_STRING, O, None, None),
              ("timestamp_ns", 3, F.TYPE_INT64, O, None, None), ("duration_ps", 9, F.TYPE_INT64, O, None, None),
              ("events", 4, F.TYPE_MESSAGE, R, P + "XEvent", None)])
msg("XEvent", [("metadata_id", 1, F.TYPE_INT64, O, None, None), ("offset_ps", 2, F.TYPE_INT64, O, None, 0),
               ("num_occurrences", 5, F.TYPE_INT64, O, None, 0), ("duration_ps", 3, F.TYPE_INT64, O, None, None),
               ("stats", 4, F.TYPE_MESSAGE, R, P + "XStat", None)], oneofs=["data"])
msg("XStat", [("metadata_id", 1, F.TYPE_INT64, O, None, None), ("double_value", 2, F.TYPE_DOUBLE, O, None, 0),
              ("uint64_value", 3, F.TYPE_UINT64, O, None, 0), ("int64_value", 4, F.TYPE_INT64, O, None, 0),
              ("str_value", 5, F.TYPE_STRING, O, None, 0), ("bytes_value", 6, F.TYPE_BYTES, O, None, 0),
              ("ref_value", 7, F.TYPE_UINT64, O, None, 0), ("compressed_str_value", 8, F.TYPE_BYTES, O, None, 0)],
    oneofs=["value"])
msg("XEventMetadata", [("id", 1, F.TYPE_INT64, O, None, None), ("name", 2, F.TYPE_STRING, O, None, None),
                       ("display_name", 4, F.TYPE_STRING, O, None, None), ("metadata", 3, F.TYPE_BYTES, O, None, None),
                       ("stats", 5, F.TYPE_MESSAGE, R, P + "XStat", None), ("child_id", 6, F.TYPE_INT64, R, None, None)])
msg("XStatMetadata", [("id", 1, F.TYPE_INT64, O, None, None), ("name", 2, F.TYPE_STRING, O, None, None),
                      ("description", 3, F.TYPE_STRING, O, None, None)])
pool = descriptor_pool.DescriptorPool()
pool.Add(fd)
XSpace = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.profiler.XSpace"))

t0 = time.perf_counter()
with open(path, "rb") as f:
    space = XSpace.FromString(f.read())
if kind == "protobuf-parse":
    print(json.dumps({"seconds": time.perf_counter() - t0, "planes_count": len(space.planes)}))
    sys.exit(0)
events = name_bytes = 0
planes = []
host_calls = {}
device = []
for plane in space.planes:
    names = {k: m.name for k, m in plane.event_metadata.items()}
    stat_names = {k: m.name for k, m in plane.stat_metadata.items()}
    correlation = {k for k, n in stat_names.items() if n == "correlation_id"}
    memo = {k for k, n in stat_names.items() if n in ("kernel_details", "memcpy_details", "memset_details")}
    host = plane.name == "/host:CPU"
    gpu = plane.name.startswith("/device:GPU:")
    count = dur = 0
    for line in plane.lines:
        stream = gpu and line.name.startswith("Stream #")
        base = line.timestamp_ns * 1000
        for e in line.events:
            count += 1
            dur += e.duration_ps
            name_bytes += len(names.get(e.metadata_id, "").encode())
            ts = base + e.offset_ps
            c = None
            for s in e.stats:
                if s.metadata_id in correlation:
                    c = s.uint64_value or s.int64_value
                    break
            if host and c is not None:
                host_calls[c] = host_calls.get(c, 0) + 1
            elif stream:
                device.append(c)
    events += count
    planes.append([plane.name, count, str(dur)])
proven = sum(1 for c in device if c is not None and host_calls.get(c) == 1)
print(json.dumps({"seconds": time.perf_counter() - t0, "events": events, "name_bytes": name_bytes,
                  "host_calls": sum(host_calls.values()), "device_events": len(device), "proven": proven,
                  "planes": planes}))
'''


def run(cmd):
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"{cmd[0]} failed: {err.decode(errors='replace')[-500:]}")
    line = [l for l in out.decode().splitlines() if l.startswith("{")][-1]
    result = json.loads(line)
    result["process_seconds"] = wall
    result["peak_rss_bytes"] = usage.ru_maxrss * 1024
    result["cpu_seconds"] = usage.ru_utime + usage.ru_stime
    return result


def command(reader, path, python):
    if reader == "opguard":
        return [os.path.join(ROOT, "target", "release", "xspace_summary"), path]
    if reader == "opguard-model":
        return [os.path.join(ROOT, "target", "release", "xspace_summary"), "--model", path]
    return [python, "-c", WORKER, reader, path]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--readers", default=",".join(READERS))
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    readers = args.readers.split(",")
    status = 0
    for path in args.files:
        size = os.path.getsize(path)
        results = {r: [] for r in readers}
        for _ in range(args.repeat):
            for r in readers:  # interleaved, so drift spreads over all readers
                scratch = tempfile.mkdtemp(prefix="xspace-readers-") if r == "xprof" else None
                try:
                    target = path
                    if scratch:
                        target = os.path.join(scratch, os.path.basename(path))
                        shutil.copyfile(path, target)
                    results[r].append(run(command(r, target, args.python)))
                except Exception as e:  # noqa: BLE001 (reported, not raised)
                    print(f"{r} on {path}: {e}", file=sys.stderr)
                    status = 2
                finally:
                    if scratch:
                        shutil.rmtree(scratch, ignore_errors=True)
        print(f"\n{path}: {size:,} bytes, median of {args.repeat}")
        print(f"{'reader':16} {'seconds':>9} {'process s':>9} {'CPU s':>8} {'peak RSS MB':>12} {'RSS/file':>9}  ratios to opguard (seconds, CPU)")
        base = None
        counters = {}
        for r in readers:
            runs = results[r]
            if not runs:
                continue
            secs = statistics.median(x["seconds"] for x in runs)
            proc = statistics.median(x["process_seconds"] for x in runs)
            cpu = statistics.median(x["cpu_seconds"] for x in runs)
            rss = max(x["peak_rss_bytes"] for x in runs)
            base = base or (secs, cpu)
            print(f"{r:16} {secs:9.3f} {proc:9.3f} {cpu:8.3f} {rss / 1e6:12.1f} {rss / size:9.2f}  "
                  f"{secs / base[0]:6.1f}x {cpu / base[1]:6.1f}x")
            if "events" in runs[0]:
                counters[r] = {k: runs[0][k] for k in ("events", "name_bytes", "host_calls", "device_events", "proven", "planes")}
        first = next(iter(counters.values()), None)
        for r, c in counters.items():
            if c != first:
                print(f"!!!!!!!! MISMATCH {r}: {json.dumps(c)[:300]} vs {json.dumps(first)[:300]}")
                status = max(status, 1)
        # Readers that report only the join (the model) agree on it too.
        for r in readers:
            runs = results[r]
            if first and runs and "events" not in runs[0] and "proven" in runs[0]:
                got = {k: runs[0][k] for k in ("device_events", "proven")}
                want = {k: first[k] for k in ("device_events", "proven")}
                if got != want:
                    print(f"!!!!!!!! MISMATCH {r}: {got} vs {want}")
                    status = max(status, 1)
        if first:
            print("counters:", json.dumps({k: v for k, v in first.items() if k != "planes"}))
        xprof = results.get("xprof") or []
        if xprof:
            print("xprof JSON complete events:", xprof[0].get("json_complete_events"))
    return status


if __name__ == "__main__":
    sys.exit(main())
