#!/usr/bin/env python3
"""Grows the real rocprofv3 CSV capture in ../shared/data/rocprof/ into a
benchmark input of at least N dispatches, as CSV (a kernel trace and its HIP
API trace) or as the rocprofv3 JSON document of the same rows.

    rocprof_grow.py KERNEL_TRACE_CSV OUT_DIR --dispatches N [--json]

The capture is repeated as it is, copy after copy: every copy keeps every
row's kernel, queue, stream, thread, process, grid and duration, and shifts
its timestamps by the capture's span (plus 1 us) times the copy number, its
correlation ids and dispatch ids by a stride above the capture's largest, so
copies never share a correlation id: copy k's hipGraphLaunch launched copy
k's 1,123 kernels, as the original did. Writes OUT_DIR/grown_kernel_trace.csv
and OUT_DIR/grown_hip_api_trace.csv, or OUT_DIR/grown_results.json (the
layout of tests/data/make_captures.py, streamed so memory stays small).
"""
import argparse
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../opguard-rocprof/tests/data"))
import make_captures  # noqa: E402  (the JSON layout, one place)


def load(kernel_trace):
    with open(kernel_trace, newline="") as f:
        reader = csv.reader(f)
        kernel_header = next(reader)
        kernels = list(reader)
    hip_path = make_captures.sibling(kernel_trace, "hip_api_trace")
    with open(hip_path, newline="") as f:
        reader = csv.reader(f)
        api_header = next(reader)
        apis = list(reader)
    return kernel_header, kernels, api_header, apis


def quoted(fields):
    return ",".join('"%s"' % f.replace('"', '""') for f in fields) + "\n"


def plan(kernel_header, kernels, api_header, apis, dispatches):
    k = {c: i for i, c in enumerate(kernel_header)}
    a = {c: i for i, c in enumerate(api_header)}
    starts = [int(r[k["Start_Timestamp"]]) for r in kernels] + [int(r[a["Start_Timestamp"]]) for r in apis]
    ends = [int(r[k["End_Timestamp"]]) for r in kernels] + [int(r[a["End_Timestamp"]]) for r in apis]
    shift = max(ends) - min(starts) + 1000
    corr_stride = 10 ** len(str(max(int(r[k["Correlation_Id"]]) for r in kernels + [])))
    corr_stride = max(corr_stride, 10 ** len(str(max(int(r[a["Correlation_Id"]]) for r in apis))))
    dispatch_stride = 10 ** len(str(max(int(r[k["Dispatch_Id"]]) for r in kernels)))
    copies = -(-dispatches // len(kernels))
    return k, a, shift, corr_stride, dispatch_stride, copies


def shifted(row, cols, copy, shift, corr_stride, dispatch_stride=None):
    out = list(row)
    out[cols["Start_Timestamp"]] = str(int(row[cols["Start_Timestamp"]]) + copy * shift)
    out[cols["End_Timestamp"]] = str(int(row[cols["End_Timestamp"]]) + copy * shift)
    out[cols["Correlation_Id"]] = str(int(row[cols["Correlation_Id"]]) + copy * corr_stride)
    if dispatch_stride is not None:
        out[cols["Dispatch_Id"]] = str(int(row[cols["Dispatch_Id"]]) + copy * dispatch_stride)
    return out


def write_csv(kernel_header, kernels, api_header, apis, dispatches, out):
    k, a, shift, cs, ds, copies = plan(kernel_header, kernels, api_header, apis, dispatches)
    paths = [os.path.join(out, "grown_kernel_trace.csv"), os.path.join(out, "grown_hip_api_trace.csv")]
    with open(paths[0], "w") as f:
        f.write(quoted(kernel_header))
        for copy in range(copies):
            f.writelines(quoted(shifted(r, k, copy, shift, cs, ds)) for r in kernels)
    with open(paths[1], "w") as f:
        f.write(quoted(api_header))
        for copy in range(copies):
            f.writelines(quoted(shifted(r, a, copy, shift, cs)) for r in apis)
    return paths, copies * len(kernels)


def write_json(kernel_header, kernels, api_header, apis, dispatches, out):
    """The document make_captures.write_json writes for the grown rows,
    with buffer_records streamed copy by copy."""
    k, a, shift, cs, ds, copies = plan(kernel_header, kernels, api_header, apis, dispatches)
    as_dicts = lambda header, rows: [dict(zip(header, r)) for r in rows]  # noqa: E731
    base_k, base_a = as_dicts(kernel_header, kernels), as_dicts(api_header, apis)
    pid = int(base_a[0]["Process_Id"])
    # The tables of the original capture; the records are replaced below.
    template_dir = os.path.join(out, ".template")
    os.makedirs(template_dir, exist_ok=True)
    template_path = make_captures.write_json(base_k, base_a, pid, template_dir, False)
    with open(template_path) as f:
        doc = json.load(f)
    proc = doc["rocprofiler-sdk-tool"][0]
    proc["metadata"]["fini_time"] += (copies - 1) * shift
    sample_dispatch = proc["buffer_records"]["kernel_dispatch"]
    sample_api = proc["buffer_records"]["hip_api"]
    proc["buffer_records"]["kernel_dispatch"] = "@DISPATCHES@"
    proc["buffer_records"]["hip_api"] = "@APIS@"
    head, rest = json.dumps(doc, separators=(",", ":")).split('"@DISPATCHES@"')
    middle, tail = rest.split('"@APIS@"')
    path = os.path.join(out, "grown_results.json")

    def records(f, samples, stride_dispatch):
        f.write("[")
        first = True
        for copy in range(copies):
            for r in samples:
                r = json.loads(json.dumps(r))
                r["start_timestamp"] += copy * shift
                r["end_timestamp"] += copy * shift
                r["correlation_id"]["internal"] += copy * cs
                if stride_dispatch:
                    r["dispatch_info"]["dispatch_id"] += copy * ds
                f.write(("" if first else ",") + json.dumps(r, separators=(",", ":")))
                first = False
        f.write("]")

    with open(path, "w") as f:
        f.write(head)
        records(f, sample_dispatch, True)
        f.write(middle)
        records(f, sample_api, False)
        f.write(tail)
    return [path], copies * len(kernels)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kernel_trace")
    ap.add_argument("out")
    ap.add_argument("--dispatches", type=int, required=True)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = load(args.kernel_trace)
    write = write_json if args.json else write_csv
    paths, n = write(*rows, args.dispatches, args.out)
    for p in paths:
        print(p, os.path.getsize(p))
    print("dispatches", n)


if __name__ == "__main__":
    main()
