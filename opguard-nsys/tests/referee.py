#!/usr/bin/env python3
"""The independent referee of opguard-nsys: SQL over the same export, run by
Python's own sqlite3 (another SQLite build, no code shared with the reader).

    referee.py EXPORT.sqlite   prints one JSON object

Counts and summed durations per table; API calls (every runtime row but the
backtrace rows, eventClass 67, that older exports write beside a call);
kernels whose (process, correlation id) names exactly one call (the proven
launch join) or several (ambiguous); and the naive join on correlationId
alone, for contrast. Launches as the model counts them: a call whose name
(without nsys' _vNNNN suffix) contains GraphLaunch is a graph launch; one
named as a kernel launch, or that a kernel of its own process carries the
id of, is a direct launch.
"""

import json
import re
import sqlite3
import sys

KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
SYNC = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
NVTX = "NVTX_EVENTS"


def main(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def one(sql, default=0):
        return db.execute(sql).fetchone()[0] if sql else default

    def rows_and_ns(table):
        if table not in have:
            return [0, 0]
        count, ns = db.execute(f'SELECT COUNT(*), COALESCE(SUM("end" - start), 0) FROM {table}').fetchone()
        return [count, ns]

    out = {
        "kernels": rows_and_ns(KERNEL),
        "memcpy": rows_and_ns(MEMCPY),
        "memset": rows_and_ns(MEMSET),
        "syncs": rows_and_ns(SYNC),
        "runtime_rows": rows_and_ns(RUNTIME)[0],
    }
    if RUNTIME in have:
        # Rows of eventClass 67 (TRACE_PROCESS_EVENT_CUDABACKTRACE) are the
        # call stacks of runtime calls, not calls.
        out["backtrace_rows"] = one(f"SELECT COUNT(*) FROM {RUNTIME} WHERE eventClass = 67")
        out["calls"], out["calls_ns"] = db.execute(
            f'SELECT COUNT(*), COALESCE(SUM("end" - start), 0) FROM {RUNTIME} WHERE eventClass != 67'
        ).fetchone()
    else:
        out.update(calls=0, calls_ns=0, backtrace_rows=0)
    if KERNEL in have and RUNTIME in have:
        # A kernel's launch is proven when exactly one call of its process
        # carries its correlation id; several calls prove nothing.
        out["proven_kernels"], out["ambiguous_kernels"] = db.execute(
            f"""WITH keyed AS (
                  SELECT globalTid >> 24 AS process, correlationId AS id, COUNT(*) AS calls
                  FROM {RUNTIME} WHERE eventClass != 67 GROUP BY 1, 2)
                SELECT COALESCE(SUM(keyed.calls = 1), 0), COALESCE(SUM(keyed.calls > 1), 0)
                FROM {KERNEL} k JOIN keyed
                  ON keyed.process = k.globalPid >> 24 AND keyed.id = k.correlationId"""
        ).fetchone()
        out["naive_join_rows"] = one(
            f"SELECT COUNT(*) FROM {KERNEL} k JOIN {RUNTIME} r ON r.correlationId = k.correlationId"
        )
    else:
        out.update(proven_kernels=0, ambiguous_kernels=0, naive_join_rows=0)
    out["launches"] = launches(db, have)
    if NVTX in have:
        out["nvtx_rows"] = one(f"SELECT COUNT(*) FROM {NVTX}")
        out["nvtx_ranges"] = one(f"SELECT COUNT(*) FROM {NVTX} WHERE eventType IN (59, 60, 70, 71)")
        out["nvtx_ranges_ns"] = one(
            f'SELECT COALESCE(SUM("end" - start), 0) FROM {NVTX} '
            f'WHERE eventType IN (59, 60, 70, 71) AND "end" IS NOT NULL'
        )
    else:
        out.update(nvtx_rows=0, nvtx_ranges=0, nvtx_ranges_ns=0)
    if NVTX in have:
        out["nvtx_closed_ranges"] = one(
            f'SELECT COUNT(*) FROM {NVTX} WHERE eventType IN (59, 60, 70, 71) AND "end" IS NOT NULL'
        )
    else:
        out["nvtx_closed_ranges"] = 0
    out["processes"] = one("SELECT COUNT(*) FROM PROCESSES") if "PROCESSES" in have else 0
    out["threads"] = one("SELECT COUNT(*) FROM ThreadNames") if "ThreadNames" in have else 0
    out["gpus"] = one("SELECT COUNT(*) FROM TARGET_INFO_GPU") if "TARGET_INFO_GPU" in have else 0
    meta = "META_DATA_EXPORT" if "META_DATA_EXPORT" in have else "EXPORT_META_DATA"
    out["schema"] = one(f"SELECT value FROM {meta} WHERE name = 'EXPORT_SCHEMA_VERSION'")
    out["product_version"] = one(f"SELECT value FROM {meta} WHERE name = 'EXPORT_PRODUCT_VERSION'")
    print(json.dumps(out, sort_keys=True))


def launches(db, have):
    """Direct and graph launches, counts and summed durations."""
    out = {"direct": 0, "direct_ns": 0, "graph": 0, "graph_ns": 0}
    if RUNTIME not in have:
        return out
    correlated = set()
    if KERNEL in have:
        correlated = set(db.execute(f"SELECT DISTINCT globalPid >> 24, correlationId FROM {KERNEL}"))
    rows = db.execute(
        f"""SELECT s.value, r.globalTid >> 24, r.correlationId, r."end" - r.start
            FROM {RUNTIME} r JOIN StringIds s ON s.id = r.nameId WHERE r.eventClass != 67"""
    )
    for name, process, cid, ns in rows:
        name = re.sub(r"_v[0-9]{4,}$", "", name)
        if "GraphLaunch" in name:
            kind = "graph"
        elif (
            "LaunchKernel" in name
            or "LaunchCooperativeKernel" in name
            or name.startswith(("cuLaunch", "hipLaunch"))
            or "ModuleLaunch" in name
            or (process, cid) in correlated
        ):
            kind = "direct"
        else:
            continue
        out[kind] += 1
        out[kind + "_ns"] += max(ns, 0)
    return out


if __name__ == "__main__":
    main(sys.argv[1])
