#!/usr/bin/env python3
"""Writes the JSON document and the rocpd database that rocprofv3 would have
written for a real rocprofv3 CSV capture, with that capture's rows.

    make_captures.py KERNEL_TRACE_CSV OUT_DIR [--kernels-only] [--gzip]

reads KERNEL_TRACE_CSV and, when present, its sibling of the same prefix
`<prefix>hip_api_trace.csv`, and writes OUT_DIR/results.json (or
results.json.gz) and OUT_DIR/results.db. With --kernels-only the API rows are
left out (a capture made with --kernel-trace alone).

What is real: every dispatch and API call, with its ids, times, names,
queue, stream, thread and process, is a row of the CSV capture. The layout is
the producer's: the JSON is the `rocprofiler-sdk-tool` document of
rocprofiler-sdk's generateJSON (metadata, agents, counters, strings,
code_objects, kernel_symbols, host_functions, summary, callback_records,
buffer_records, in that order, records shaped as rocprofiler-sdk serialises
them); the database is built by executing ROCm's own schema files
(rocpd-schema-3.0/, schema version 3) and filling its tables the way
rocprofiler-sdk's generateRocpd does (region id = internal correlation id,
rocpd_event.stack_id = internal correlation id, rocpd_event.correlation_id =
external correlation id, dispatch and region pid/tid = OS ids).

What the CSV does not carry, and so is not real: agent details beyond the
agent's logical node id (the agent is written as a GPU whose node id and
logical node id are the CSV's `Agent N`, with no name); agent handles (written
as 90000 + N); rocprofiler's operation enum values (each kind's operations are
numbered in order of first appearance, and `strings.buffer_records` names
them, so the document is self-consistent as every rocprofv3 JSON is); code
objects (one placeholder, id 1, that every kernel symbol references, because
the schema requires it); host name and machine id (written as
"unknown"). The kernel symbol's mangled name is not in the CSV: kernel_name,
display/formatted, demangled and truncated names are all the CSV's
Kernel_Name.
"""
import csv
import gzip
import json
import os
import sqlite3
import sys
import uuid

# rocprofiler_buffer_tracing_kind_t, in enum order (ROCm 7.x), as the
# `strings.buffer_records` table of a real rocprofv3 JSON lists them.
BUFFER_KINDS = [
    "NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API",
    "HSA_FINALIZE_EXT_API", "HIP_RUNTIME_API", "HIP_COMPILER_API",
    "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API", "MEMORY_COPY",
    "KERNEL_DISPATCH", "SCRATCH_MEMORY", "CORRELATION_ID_RETIREMENT",
    "RCCL_API", "OMPT", "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION",
    "ROCDECODE_API", "ROCJPEG_API", "HIP_STREAM", "HIP_RUNTIME_API_EXT",
    "HIP_COMPILER_API_EXT", "ROCDECODE_API_EXT", "KFD_EVENT_PAGE_MIGRATE",
    "KFD_EVENT_PAGE_FAULT", "KFD_EVENT_QUEUE", "KFD_EVENT_UNMAP_FROM_GPU",
    "KFD_EVENT_DROPPED_EVENTS", "KFD_PAGE_MIGRATE", "KFD_PAGE_FAULT",
    "KFD_QUEUE", "MARKER_CORE_RANGE_API",
]
KERNEL_DISPATCH = BUFFER_KINDS.index("KERNEL_DISPATCH")
DISPATCH_OPERATIONS = ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE",
                       "KERNEL_DISPATCH_COMPLETE"]
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rocpd-schema-3.0")
AGENT_HANDLE_BASE = 90000


def sibling(kernel_trace, kind):
    d, name = os.path.split(kernel_trace)
    prefix = name[: -len("kernel_trace.csv")]
    path = os.path.join(d, prefix + kind + ".csv")
    return path if os.path.exists(path) else None


def agent_number(label):
    return int(label.rsplit(" ", 1)[-1])


def read_capture(kernel_trace, kernels_only):
    with open(kernel_trace, newline="") as f:
        dispatches = list(csv.DictReader(f))
    api = []
    hip = sibling(kernel_trace, "hip_api_trace")
    if hip and not kernels_only:
        with open(hip, newline="") as f:
            api = list(csv.DictReader(f))
    pids = {int(r["Process_Id"]) for r in api}
    if len(pids) > 1:
        sys.exit("the API trace names several processes")
    pid = pids.pop() if pids else int(dispatches[0]["Thread_Id"])
    return dispatches, api, pid


def operation_table(dispatches, api):
    """strings.buffer_records: kind index -> operation names, and each API
    row's (kind, operation)."""
    ops = {i: [] for i in range(len(BUFFER_KINDS))}
    ops[KERNEL_DISPATCH] = list(DISPATCH_OPERATIONS)
    for r in api:
        k = BUFFER_KINDS.index(r["Domain"])
        if r["Function"] not in ops[k]:
            ops[k].append(r["Function"])
    table = [{"kind": name, "operations": ops[i]} for i, name in enumerate(BUFFER_KINDS)]
    return table, ops


def kernel_symbols(dispatches):
    names = {}
    for r in dispatches:
        kid = int(r["Kernel_Id"])
        if names.setdefault(kid, r["Kernel_Name"]) != r["Kernel_Name"]:
            sys.exit("Kernel_Id %d has two names" % kid)
    return names


def write_json(dispatches, api, pid, out, gz):
    table, ops = operation_table(dispatches, api)
    names = kernel_symbols(dispatches)
    agents = sorted({agent_number(r["Agent_Id"]) for r in dispatches})
    times = [int(r[c]) for r in dispatches + api for c in ("Start_Timestamp", "End_Timestamp")]
    doc = {"rocprofiler-sdk-tool": [{
        "metadata": {
            "node": {"id": 0, "hash": 0, "machine_id": "unknown", "system_name": "Linux",
                     "hostname": "unknown", "release": "", "version": "",
                     "hardware_name": "x86_64", "domain_name": ""},
            "pid": pid, "init_time": min(times), "fini_time": max(times),
            "command": [], "config": {"json_output": True},
        },
        "agents": [{"size": 312, "id": {"handle": AGENT_HANDLE_BASE + n}, "type": 2,
                    "name": "", "vendor_name": "", "product_name": "", "model_name": "",
                    "node_id": n, "logical_node_id": n} for n in agents],
        "counters": [],
        "strings": {"callback_records": [], "buffer_records": table, "marker_api": [],
                    "correlation_id": {"external": []}, "counters": {"dimension_ids": []},
                    "pc_sample_instructions": [], "pc_sample_comments": [],
                    "att_filenames": [], "code_object_snapshot_filenames": []},
        "code_objects": [],
        "kernel_symbols": [{"size": 88, "kernel_id": kid, "code_object_id": 1,
                            "kernel_name": name, "formatted_kernel_name": name,
                            "demangled_kernel_name": name, "truncated_kernel_name": name}
                           for kid, name in sorted(names.items())],
        "host_functions": [],
        "summary": [],
        "callback_records": {"counter_collection": []},
        "buffer_records": {
            "kernel_dispatch": [{
                "size": 184, "kind": KERNEL_DISPATCH, "operation": 2,
                "thread_id": int(r["Thread_Id"]),
                "correlation_id": {"internal": int(r["Correlation_Id"]), "external": 0},
                "start_timestamp": int(r["Start_Timestamp"]),
                "end_timestamp": int(r["End_Timestamp"]),
                "dispatch_info": {
                    "size": 72,
                    "agent_id": {"handle": AGENT_HANDLE_BASE + agent_number(r["Agent_Id"])},
                    "queue_id": {"handle": int(r["Queue_Id"])},
                    "kernel_id": int(r["Kernel_Id"]),
                    "dispatch_id": int(r["Dispatch_Id"]),
                    "private_segment_size": int(r["Scratch_Size"]),
                    "group_segment_size": int(r["LDS_Block_Size"]),
                    "workgroup_size": {a: int(r["Workgroup_Size_" + a.upper()]) for a in "xyz"},
                    "grid_size": {a: int(r["Grid_Size_" + a.upper()]) for a in "xyz"},
                },
                "stream_id": {"handle": int(r["Stream_Id"])},
            } for r in dispatches],
            "hip_api": [{
                "size": 64, "kind": BUFFER_KINDS.index(r["Domain"]),
                "operation": ops[BUFFER_KINDS.index(r["Domain"])].index(r["Function"]),
                "correlation_id": {"internal": int(r["Correlation_Id"]), "external": 0},
                "start_timestamp": int(r["Start_Timestamp"]),
                "end_timestamp": int(r["End_Timestamp"]),
                "thread_id": int(r["Thread_Id"]),
            } for r in api],
            "hsa_api": [], "marker_api": [], "rccl_api": [], "memory_copy": [],
            "memory_allocation": [], "scratch_memory": [], "rocdecode_api": [],
            "rocjpeg_api": [], "pc_sample_host_trap": [], "pc_sample_stochastic": [],
        },
    }]}
    text = json.dumps(doc, separators=(",", ":")).encode()
    path = os.path.join(out, "results.json" + (".gz" if gz else ""))
    with open(path, "wb") as f:
        f.write(gzip.compress(text) if gz else text)
    return path


def schema(name, uid, guid):
    with open(os.path.join(SCHEMA, name)) as f:
        text = f.read()
    return text.replace("{{uuid}}", "_" + uid.replace("-", "_")).replace("{{guid}}", guid)


def write_rocpd(dispatches, api, pid, out):
    path = os.path.join(out, "results.db")
    if os.path.exists(path):
        os.remove(path)
    guid = str(uuid.UUID(int=pid))
    db = sqlite3.connect(path)
    db.executescript(schema("rocpd_tables.sql", guid, guid))
    db.executescript(schema("rocpd_views.sql", guid, guid))
    u = "_" + guid.replace("-", "_")
    strings = {}

    def string_id(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO `rocpd_string%s` (id, guid, string) VALUES (?,?,?)" % u,
                       (strings[s], guid, s))
        return strings[s]

    nid = 1
    db.execute("INSERT INTO `rocpd_info_node%s` (id, guid, hash, machine_id, hostname) "
               "VALUES (?,?,?,?,?)" % u, (nid, guid, 1, "unknown", "unknown"))
    db.execute("INSERT INTO `rocpd_info_process%s` (id, guid, nid, pid, command) "
               "VALUES (?,?,?,?,?)" % u, (pid, guid, nid, pid, ""))
    for tid in sorted({int(r["Thread_Id"]) for r in dispatches + api}):
        db.execute("INSERT INTO `rocpd_info_thread%s` (id, guid, nid, pid, tid) "
                   "VALUES (?,?,?,?,?)" % u, (tid, guid, nid, pid, tid))
    for n in sorted({agent_number(r["Agent_Id"]) for r in dispatches}):
        db.execute("INSERT INTO `rocpd_info_agent%s` (id, guid, nid, pid, type, absolute_index, "
                   "logical_index, name) VALUES (?,?,?,?,?,?,?,?)" % u,
                   (n, guid, nid, pid, "GPU", n, n, ""))
    for q in sorted({int(r["Queue_Id"]) for r in dispatches}):
        db.execute("INSERT INTO `rocpd_info_queue%s` (id, guid, nid, pid, name) "
                   "VALUES (?,?,?,?,?)" % u, (q, guid, nid, pid, "Queue %d" % q))
    for s in sorted({int(r["Stream_Id"]) for r in dispatches}):
        db.execute("INSERT INTO `rocpd_info_stream%s` (id, guid, nid, pid, name) "
                   "VALUES (?,?,?,?,?)" % u, (s, guid, nid, pid, "Stream %d" % s))
    db.execute("INSERT INTO `rocpd_info_code_object%s` (id, guid, nid, pid, uri) "
               "VALUES (?,?,?,?,?)" % u, (1, guid, nid, pid, "unknown"))
    for kid, name in sorted(kernel_symbols(dispatches).items()):
        db.execute("INSERT INTO `rocpd_info_kernel_symbol%s` (id, guid, nid, pid, "
                   "code_object_id, kernel_name, display_name) VALUES (?,?,?,?,?,?,?)" % u,
                   (kid, guid, nid, pid, 1, name, name))
    event = 0

    def new_event(category, correlation):
        nonlocal event
        event += 1
        db.execute("INSERT INTO `rocpd_event%s` (id, guid, category_id, stack_id, "
                   "parent_stack_id, correlation_id) VALUES (?,?,?,?,?,?)" % u,
                   (event, guid, string_id(category), correlation, correlation, 0))
        return event

    # generateRocpd writes API regions before dispatches.
    for r in api:
        corr = int(r["Correlation_Id"])
        e = new_event(r["Domain"], corr)
        db.execute("INSERT INTO `rocpd_region%s` (id, guid, nid, pid, tid, start, end, name_id, "
                   "event_id) VALUES (?,?,?,?,?,?,?,?,?)" % u,
                   (corr, guid, nid, pid, int(r["Thread_Id"]), int(r["Start_Timestamp"]),
                    int(r["End_Timestamp"]), string_id(r["Function"]), e))
    for r in dispatches:
        e = new_event("KERNEL_DISPATCH", int(r["Correlation_Id"]))
        db.execute(
            "INSERT INTO `rocpd_kernel_dispatch%s` (id, guid, nid, pid, tid, agent_id, kernel_id, "
            "dispatch_id, queue_id, stream_id, start, end, private_segment_size, "
            "group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z, "
            "grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" % u,
            (int(r["Dispatch_Id"]), guid, nid, pid, int(r["Thread_Id"]),
             agent_number(r["Agent_Id"]), int(r["Kernel_Id"]), int(r["Dispatch_Id"]),
             int(r["Queue_Id"]), int(r["Stream_Id"]), int(r["Start_Timestamp"]),
             int(r["End_Timestamp"]), int(r["Scratch_Size"]), int(r["LDS_Block_Size"]),
             int(r["Workgroup_Size_X"]), int(r["Workgroup_Size_Y"]), int(r["Workgroup_Size_Z"]),
             int(r["Grid_Size_X"]), int(r["Grid_Size_Y"]), int(r["Grid_Size_Z"]),
             string_id(""), e))
    db.commit()
    db.close()
    return path


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    kernel_trace, out = args
    dispatches, api, pid = read_capture(kernel_trace, "--kernels-only" in argv)
    os.makedirs(out, exist_ok=True)
    print(write_json(dispatches, api, pid, out, "--gzip" in argv))
    print(write_rocpd(dispatches, api, pid, out))


if __name__ == "__main__":
    main(sys.argv[1:])
