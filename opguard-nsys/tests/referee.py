#!/usr/bin/env python3
"""The independent referee of opguard-nsys: SQL over the same export, run by
Python's own sqlite3 (another SQLite build, no code shared with the reader).

    referee.py EXPORT.sqlite   prints one JSON object

Counts and summed durations per table; API calls under the duplicate rule
(runtime rows of one process that share a correlation id are one call);
kernels whose (process, correlation id) names a call, which is the proven
launch join; and the naive join on correlationId alone, for contrast.
"""

import json
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
        # One call per (process, correlation id); rows without either are
        # each their own call. The call's row: its runtime (0) or driver (1)
        # row when it has one, else its first.
        groups = one(
            f"""SELECT COUNT(*) FROM (SELECT 1 FROM {RUNTIME}
                WHERE correlationId IS NOT NULL AND globalTid IS NOT NULL
                GROUP BY globalTid >> 24, correlationId)"""
        )
        loose = one(f"SELECT COUNT(*) FROM {RUNTIME} WHERE correlationId IS NULL OR globalTid IS NULL")
        out["calls"] = groups + loose
        out["duplicate_rows"] = out["runtime_rows"] - out["calls"]
        # Duration of the calls: each (process, correlation) group counts the
        # duration of its kept row.
        out["calls_ns"] = one(
            f"""WITH kept AS (
                  SELECT COALESCE(MIN(CASE WHEN eventClass IN (0, 1) THEN rowid END), MIN(rowid)) AS rowid
                  FROM {RUNTIME} WHERE correlationId IS NOT NULL AND globalTid IS NOT NULL
                  GROUP BY globalTid >> 24, correlationId)
                SELECT COALESCE(SUM(r."end" - r.start), 0) FROM {RUNTIME} r
                WHERE r.rowid IN (SELECT rowid FROM kept)
                   OR r.correlationId IS NULL OR r.globalTid IS NULL"""
        )
    else:
        out.update(calls=0, duplicate_rows=0, calls_ns=0)
    if KERNEL in have and RUNTIME in have:
        out["proven_kernels"] = one(
            f"""SELECT COUNT(*) FROM {KERNEL} k WHERE EXISTS (
                  SELECT 1 FROM {RUNTIME} r
                  WHERE r.correlationId = k.correlationId
                    AND r.globalTid >> 24 = k.globalPid >> 24)"""
        )
        out["naive_join_rows"] = one(
            f"SELECT COUNT(*) FROM {KERNEL} k JOIN {RUNTIME} r ON r.correlationId = k.correlationId"
        )
    else:
        out.update(proven_kernels=0, naive_join_rows=0)
    if NVTX in have:
        out["nvtx_rows"] = one(f"SELECT COUNT(*) FROM {NVTX}")
        out["nvtx_ranges"] = one(f"SELECT COUNT(*) FROM {NVTX} WHERE eventType IN (59, 60, 70, 71)")
        out["nvtx_ranges_ns"] = one(
            f'SELECT COALESCE(SUM("end" - start), 0) FROM {NVTX} '
            f'WHERE eventType IN (59, 60, 70, 71) AND "end" IS NOT NULL'
        )
    else:
        out.update(nvtx_rows=0, nvtx_ranges=0, nvtx_ranges_ns=0)
    out["processes"] = one("SELECT COUNT(*) FROM PROCESSES") if "PROCESSES" in have else 0
    out["threads"] = one("SELECT COUNT(*) FROM ThreadNames") if "ThreadNames" in have else 0
    out["gpus"] = one("SELECT COUNT(*) FROM TARGET_INFO_GPU") if "TARGET_INFO_GPU" in have else 0
    meta = "META_DATA_EXPORT" if "META_DATA_EXPORT" in have else "EXPORT_META_DATA"
    out["schema"] = one(f"SELECT value FROM {meta} WHERE name = 'EXPORT_SCHEMA_VERSION'")
    out["product_version"] = one(f"SELECT value FROM {meta} WHERE name = 'EXPORT_PRODUCT_VERSION'")
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
