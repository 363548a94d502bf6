#!/usr/bin/env python3
"""Derives an Nsight Systems SQLite export from a real one.

    derive_export.py SRC DST [--grow N] [--processes N] [--repeat-runtime]
                     [--graph-launch N] [--drop-table T]... [--drop-column T.C]...
                     [--set-meta KEY=VALUE]... [--set-enum TABLE:ID=NAME]...

DST is a copy of SRC with, in this order:

--grow N          N copies of every event row in total: copy k repeats the
                  original rows of the event tables with correlation ids
                  shifted by k times (the largest correlation id + 1) and
                  times by k times (the export's span + 1 ns). The same
                  processes, threads, devices and names; the benchmark's
                  large export.
--processes N     N processes: copy k repeats the original event rows, and
                  the PROCESSES and ThreadNames rows of the processes they
                  name, with the process id in globalPid/globalTid raised
                  by k (bits 24..48) and correlation ids and times as they
                  are. Real multi-process exports reuse correlation ids
                  across processes this way.
--repeat-runtime  every CUPTI_ACTIVITY_KIND_RUNTIME row written twice (the
                  copy right after the original rows, same values): two
                  calls of one process claiming one correlation id.
--backtrace-runtime
                  every CUPTI_ACTIVITY_KIND_RUNTIME row written a second
                  time with eventClass 67 (TRACE_PROCESS_EVENT_CUDABACKTRACE),
                  as 2022.x exports write a runtime call's backtrace beside
                  it (same thread and correlation id; here also the same
                  name and times).
--graph-launch N  the launches of the first N kernels (by rowid) become one
                  graph launch: the first kernel's runtime row is renamed
                  cudaGraphLaunch_v10000 (a StringIds row added for the
                  name), the other kernels' runtime rows are deleted, and
                  the N kernels carry the first one's correlation id and
                  graphNodeId 1..N. That is how a CUDA graph of N kernel
                  nodes is written (one cudaGraphLaunch row whose id every
                  node's kernel carries); no real export with graphs was
                  found to read it from.
--drop-table      drops a table (e.g. the CUPTI device tables: a capture
                  without device activity).
--drop-column     drops a column.
--set-meta        sets a metadata entry of META_DATA_EXPORT/EXPORT_META_DATA.
--set-enum        renames an enum value.

Nothing else changes. Only SQL over the real rows; no row is invented.
"""

import argparse
import shutil
import sqlite3

EVENT_TABLES = [
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "NVTX_EVENTS",
]
# The column naming the process or thread in each event table.
GLOBAL_ID = {
    "CUPTI_ACTIVITY_KIND_KERNEL": "globalPid",
    "CUPTI_ACTIVITY_KIND_RUNTIME": "globalTid",
    "CUPTI_ACTIVITY_KIND_MEMCPY": "globalPid",
    "CUPTI_ACTIVITY_KIND_MEMSET": "globalPid",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": "globalPid",
    "NVTX_EVENTS": "globalTid",
}


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def columns(db, table):
    return [r[0] for r in db.execute(f'SELECT name FROM pragma_table_info("{table}")')]


def present_event_tables(db):
    have = tables(db)
    return [t for t in EVENT_TABLES if t in have]


def insert_shifted(db, table, last_rowid, replace):
    """Appends the rows up to `last_rowid` with some columns replaced by SQL
    expressions over the original row."""
    cols = columns(db, table)
    exprs = ", ".join(replace.get(c, f'"{c}"') for c in cols)
    names = ", ".join(f'"{c}"' for c in cols)
    db.execute(
        f'INSERT INTO "{table}" ({names}) SELECT {exprs} FROM "{table}" '
        f"WHERE rowid <= ? ORDER BY rowid",
        (last_rowid,),
    )


def grow(db, copies):
    event = present_event_tables(db)
    last = {t: db.execute(f'SELECT MAX(rowid) FROM "{t}"').fetchone()[0] or 0 for t in event}
    corr_span = 1 + max(
        db.execute(f'SELECT COALESCE(MAX(correlationId), 0) FROM "{t}"').fetchone()[0]
        for t in event
        if "correlationId" in columns(db, t)
    )
    start = min(db.execute(f'SELECT MIN(start) FROM "{t}"').fetchone()[0] or 0 for t in event)
    end = max(
        db.execute(f'SELECT MAX(COALESCE("end", start)) FROM "{t}"').fetchone()[0] or 0
        for t in event
    )
    time_span = end - start + 1
    for k in range(1, copies):
        for t in event:
            cols = columns(db, t)
            replace = {"start": f"start + {k * time_span}"}
            if "end" in cols:
                replace["end"] = f'"end" + {k * time_span}'
            if "correlationId" in cols:
                replace["correlationId"] = f"correlationId + {k * corr_span}"
            insert_shifted(db, t, last[t], replace)


def add_processes(db, copies):
    event = present_event_tables(db)
    last = {t: db.execute(f'SELECT MAX(rowid) FROM "{t}"').fetchone()[0] or 0 for t in event}
    have = tables(db)
    procs = set()
    for t in event:
        col = GLOBAL_ID[t]
        procs |= {r[0] for r in db.execute(f'SELECT DISTINCT "{col}" >> 24 FROM "{t}" WHERE "{col}" IS NOT NULL')}
    proc_list = ",".join(str(p) for p in sorted(procs)) or "NULL"
    last_proc = db.execute("SELECT MAX(rowid) FROM PROCESSES").fetchone()[0] if "PROCESSES" in have else None
    last_thread = db.execute("SELECT MAX(rowid) FROM ThreadNames").fetchone()[0] if "ThreadNames" in have else None
    for k in range(1, copies):
        shift = k << 24
        for t in event:
            col = GLOBAL_ID[t]
            replace = {col: f'"{col}" + {shift}'}
            if "endGlobalTid" in columns(db, t):
                replace["endGlobalTid"] = f'"endGlobalTid" + {shift}'
            insert_shifted(db, t, last[t], replace)
        if last_proc:
            cols = columns(db, "PROCESSES")
            exprs = ", ".join(
                {"globalPid": f"globalPid + {shift}", "pid": f"pid + {k}"}.get(c, f'"{c}"') for c in cols
            )
            db.execute(
                f"INSERT INTO PROCESSES SELECT {exprs} FROM PROCESSES "
                f"WHERE rowid <= ? AND globalPid >> 24 IN ({proc_list})",
                (last_proc,),
            )
        if last_thread:
            cols = columns(db, "ThreadNames")
            exprs = ", ".join({"globalTid": f"globalTid + {shift}"}.get(c, f'"{c}"') for c in cols)
            db.execute(
                f"INSERT INTO ThreadNames SELECT {exprs} FROM ThreadNames "
                f"WHERE rowid <= ? AND globalTid >> 24 IN ({proc_list})",
                (last_thread,),
            )


def repeat_runtime(db, replace):
    t = "CUPTI_ACTIVITY_KIND_RUNTIME"
    last = db.execute(f"SELECT MAX(rowid) FROM {t}").fetchone()[0] or 0
    insert_shifted(db, t, last, replace)


def graph_launch(db, nodes):
    k, r = "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME"
    kernels = db.execute(
        f"SELECT rowid, correlationId, globalPid >> 24 FROM {k} ORDER BY rowid LIMIT ?", (nodes,)
    ).fetchall()
    _, first_id, process = kernels[0]
    assert all(p == process for _, _, p in kernels), "one process's kernels"
    name_id = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM StringIds").fetchone()[0]
    db.execute("INSERT INTO StringIds (id, value) VALUES (?, 'cudaGraphLaunch_v10000')", (name_id,))
    launch = f"correlationId = ? AND globalTid >> 24 = {process}"
    db.execute(f"UPDATE {r} SET nameId = ? WHERE {launch}", (name_id, first_id))
    for node, (rowid, cid, _) in enumerate(kernels, start=1):
        if cid != first_id:
            db.execute(f"DELETE FROM {r} WHERE {launch}", (cid,))
        db.execute(
            f"UPDATE {k} SET correlationId = ?, graphNodeId = ? WHERE rowid = ?", (first_id, node, rowid)
        )


def metadata_table(db):
    have = tables(db)
    return "META_DATA_EXPORT" if "META_DATA_EXPORT" in have else "EXPORT_META_DATA"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--grow", type=int, default=1)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--repeat-runtime", action="store_true")
    p.add_argument("--backtrace-runtime", action="store_true")
    p.add_argument("--graph-launch", type=int, default=0)
    p.add_argument("--drop-table", action="append", default=[])
    p.add_argument("--drop-column", action="append", default=[])
    p.add_argument("--set-meta", action="append", default=[])
    p.add_argument("--set-enum", action="append", default=[])
    a = p.parse_args()
    shutil.copyfile(a.src, a.dst)
    db = sqlite3.connect(a.dst)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    with db:
        if a.grow > 1:
            grow(db, a.grow)
        if a.processes > 1:
            add_processes(db, a.processes)
        if a.repeat_runtime:
            repeat_runtime(db, {})
        if a.backtrace_runtime:
            repeat_runtime(db, {"eventClass": "67"})
        if a.graph_launch:
            graph_launch(db, a.graph_launch)
        for t in a.drop_table:
            db.execute(f'DROP TABLE "{t}"')
        for tc in a.drop_column:
            t, c = tc.split(".", 1)
            db.execute(f'ALTER TABLE "{t}" DROP COLUMN "{c}"')
        for kv in a.set_meta:
            k, v = kv.split("=", 1)
            db.execute(f"UPDATE {metadata_table(db)} SET value = ? WHERE name = ?", (v, k))
        for e in a.set_enum:
            table, rest = e.split(":", 1)
            i, name = rest.split("=", 1)
            db.execute(f'UPDATE "{table}" SET name = ? WHERE id = ?', (name, int(i)))
    db.close()


if __name__ == "__main__":
    main()
