#!/usr/bin/env python3
"""Independent referee for opguard-rocprof's tests.

    referee.py csv KERNEL_TRACE_CSV | json DOCUMENT | rocpd DATABASE

reads a rocprofv3 capture with nothing but Python's csv, json, gzip and
sqlite3 modules and prints, as one JSON object, what the Rust tests compare
to what the reader gave them: record counts, the summed dispatch duration,
the distinct kernel names, the three largest correlation fan-outs, and which
API function each dispatch's (process, correlation id) names — a dispatch is
joined only when exactly one API call of its own process has its
correlation id.
"""
import collections
import csv
import gzip
import json
import os
import sqlite3
import sys

MARKER_DOMAINS = ("MARKER_CORE_API", "MARKER_CORE_RANGE_API")


def summarize(dispatches, apis, markers):
    """dispatches: (process, correlation, start, end, name);
    apis: (process, correlation, function); markers: (process, message)."""
    calls = collections.defaultdict(list)
    for process, corr, function in apis:
        calls[(process, corr)].append(function)
    joined = collections.Counter()
    unjoined = ambiguous = 0
    for process, corr, _, _, _ in dispatches:
        found = calls.get((process, corr)) if process is not None else None
        if found and len(found) == 1:
            joined[found[0]] += 1
        elif found:
            ambiguous += 1
        else:
            unjoined += 1
    fanout = collections.Counter(d[1] for d in dispatches)
    names = collections.Counter(d[4] for d in dispatches)
    return {
        "dispatches": len(dispatches),
        "dispatch_ns": sum(d[3] - d[2] for d in dispatches),
        "first_start": min((d[2] for d in dispatches), default=None),
        "last_end": max((d[3] for d in dispatches), default=None),
        "kernel_names": len(names),
        "top_names": [[n, c] for n, c in sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
        "api_calls": len(apis),
        "markers": len(markers),
        "joined": dict(sorted(joined.items())),
        "unjoined": unjoined,
        "ambiguous": ambiguous,
        "top_fanout": [[c, n] for c, n in sorted(fanout.items(), key=lambda kv: (-kv[1], kv[0]))[:3]],
    }


def from_csv(kernel_trace):
    d, name = os.path.split(kernel_trace)
    prefix = name[: -len("kernel_trace.csv")]
    apis, markers, pids = [], [], set()
    for kind in ("hip_api_trace", "hsa_api_trace", "rccl_api_trace", "marker_api_trace"):
        path = os.path.join(d, prefix + kind + ".csv")
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                pid = int(r["Process_Id"])
                pids.add(pid)
                if r["Domain"] in MARKER_DOMAINS:
                    markers.append((pid, r["Function"]))
                else:
                    apis.append((pid, int(r["Correlation_Id"]), r["Function"]))
    # One prefix is one process's output: its dispatches are that process's.
    process = pids.pop() if len(pids) == 1 else None
    with open(kernel_trace, newline="") as f:
        dispatches = [(process, int(r["Correlation_Id"]), int(r["Start_Timestamp"]),
                       int(r["End_Timestamp"]), r["Kernel_Name"]) for r in csv.DictReader(f)]
    return summarize(dispatches, apis, markers)


def from_json(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    dispatches, apis, markers = [], [], []
    for proc in doc["rocprofiler-sdk-tool"]:
        pid = proc["metadata"]["pid"]
        kinds = proc["strings"]["buffer_records"]
        messages = {m["key"]: m["value"] for m in proc["strings"].get("marker_api", [])}
        names = {}
        for k in proc["kernel_symbols"]:
            # rocprofv3's formatted name; else the symbol without its
            # kernel-descriptor suffix, as rocprofv3 formats it.
            name = k.get("formatted_kernel_name") or (
                (k.get("demangled_kernel_name") or k["kernel_name"]).removesuffix(".kd"))
            names[k["kernel_id"]] = name
        records = proc["buffer_records"]
        for r in records.get("kernel_dispatch", []):
            info = r["dispatch_info"]
            dispatches.append((pid, r["correlation_id"]["internal"], r["start_timestamp"],
                               r["end_timestamp"], names[info["kernel_id"]]))
        for key in ("hip_api", "hsa_api", "rccl_api", "rocdecode_api", "rocjpeg_api", "marker_api"):
            for r in records.get(key, []):
                corr = r["correlation_id"]["internal"]
                if key == "marker_api" and corr in messages:
                    markers.append((pid, messages[corr]))
                else:
                    apis.append((pid, corr, kinds[r["kind"]]["operations"][r["operation"]]))
    return summarize(dispatches, apis, markers)


def from_rocpd(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    dispatches = db.execute(
        'SELECT P.pid, E.stack_id, K.start, K."end", S.display_name '
        "FROM rocpd_kernel_dispatch K "
        "JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid "
        "JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid "
        "JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid").fetchall()
    apis, markers = [], []
    for pid, corr, name, category, extdata in db.execute(
            "SELECT P.pid, E.stack_id, N.string, C.string, E.extdata FROM rocpd_region R "
            "JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid "
            "JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid "
            "JOIN rocpd_string N ON N.id = R.name_id AND N.guid = R.guid "
            "JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid"):
        if category in MARKER_DOMAINS:
            message = json.loads(extdata or "{}").get("message") or name
            markers.append((pid, message))
        else:
            apis.append((pid, corr, name))
    return summarize(dispatches, apis, markers)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    result = {"csv": from_csv, "json": from_json, "rocpd": from_rocpd}[kind](path)
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
