#!/usr/bin/env python3
"""Independent referee for opguard-arrow's tables of a Chrome trace.

    referee.py TRACE.json[.gz]

reads the trace with nothing but Python's json and gzip modules and prints,
as one JSON object, per table (device, host, launches): the rows, the sum of
durations in exact integer nanoseconds (microsecond decimals, never floats),
and for device rows how many a runtime call proves: a device row whose
args.correlation is carried by exactly one runtime call, in a trace whose
runtime calls come from one process (the only case a Chrome trace's device
rows have an owner without the model's merge rules). Complete events
("ph": "X") with a "ts" are rows; a missing "dur" counts as 0.
"""
import collections
import gzip
import json
import sys
from decimal import Decimal

RUNTIME = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "mtia_runtime"}
DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "mtia_ccp_events"}


def table_of(cat):
    if cat in RUNTIME or cat.lower() == "runtime":
        return "launches"
    if cat in DEVICE or cat.lower() == "kernel":
        return "device"
    return "host"


def ns(us):
    return int(Decimal(str(us)) * 1000) if not isinstance(us, int) else us * 1000


def main(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out = {t: {"rows": 0, "dur_ns": 0} for t in ("device", "host", "launches")}
    calls = collections.Counter()
    pids = set()
    device_ids = []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        table = table_of(e.get("cat", ""))
        out[table]["rows"] += 1
        out[table]["dur_ns"] += ns(e.get("dur", 0))
        corr = (e.get("args") or {}).get("correlation")
        if table == "launches":
            pids.add(e.get("pid"))
            if corr is not None:
                calls[corr] += 1
        elif table == "device" and e.get("cat") != "gpu_user_annotation":
            device_ids.append(corr)
    proven = sum(1 for c in device_ids if c is not None and calls[c] == 1) if len(pids) == 1 else None
    out["device"]["proven"] = proven
    print(json.dumps(out))


main(sys.argv[1])
