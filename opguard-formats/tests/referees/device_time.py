"""Independent referee for device time (issue 35): reads a Chrome trace with
Python's json and prints, as JSON, the union of device activity over all
devices and per (device), and communication against computation, computed
from the raw events.

Device activity: complete events of category kernel/Kernel, gpu_memcpy,
gpu_memset, and MTIA's mtia_ccp_events. Kernels: kernel/Kernel, and
mtia_ccp_events except dma_request. A collective: a kernel whose name (after
an optional leading "void ") starts with nccl/rccl/msccl and contains
"Kernel" before its argument list, or is a custom all-reduce. Times in
integer nanoseconds: ts and dur are microseconds with up to three decimals.
"""
import gzip
import json
import sys
from decimal import Decimal


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value())


def union(intervals):
    total, until = 0, None
    for s, e in sorted(intervals):
        e = max(e, s)
        if until is None or s >= until:
            total += e - s
            until = e
        elif e > until:
            total += e - until
            until = e
    return total


def function(name):
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    name = name.split("(")[0].split("<")[0]
    return name.split("::")[-1]


CUSTOM = {"cross_device_reduce_1stage", "cross_device_reduce_2stage",
          "oneShotAllReduceKernel", "twoShotAllReduceKernel"}


def collective(name):
    f = function(name)
    lib = f.startswith(("nccl", "rccl", "msccl")) and "Kernel" in f
    return lib or f in CUSTOM


def main(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    devices = {}
    every, coll, comp = [], [], []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat")
        name = e.get("name", "")
        mtia = cat == "mtia_ccp_events"
        device = cat in ("kernel", "Kernel", "gpu_memcpy", "gpu_memset") or mtia
        if not device:
            continue
        kernel = cat in ("kernel", "Kernel") or (mtia and name != "dma_request")
        s = ns(e["ts"])
        end = s + max(ns(e.get("dur", 0)), 0)
        args = e.get("args") or {}
        dev = str(args.get("device", e.get("pid")))
        d = devices.setdefault(dev, ([], [], []))
        every.append((s, end))
        d[0].append((s, end))
        if kernel:
            (coll if collective(name) else comp).append((s, end))
            (d[1] if collective(name) else d[2]).append((s, end))

    def communication(c, k):
        busy = union(c)
        overlapped = busy + union(k) - union(c + k)
        return {"kernel_count": len(c), "busy_ns": busy,
                "overlapped_with_compute_ns": overlapped, "exposed_ns": busy - overlapped}

    print(json.dumps({
        "device_busy_ns": union(every),
        "communication": communication(coll, comp),
        "devices": {k: {"busy_ns": union(v[0]), "communication": communication(v[1], v[2])}
                    for k, v in sorted(devices.items())},
    }))


main(sys.argv[1])
