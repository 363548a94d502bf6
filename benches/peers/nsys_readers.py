#!/usr/bin/env python3
"""Peer measurements for opguard's Nsight Systems export reader (issue 27).

What users run today to join an export's kernels to their launching API calls,
against opguard, on the same file in one run:

* ``pandas-merge``  what pipit does: ``pandas.read_sql`` of the kernel table and of
  the runtime table (Python's sqlite3), then ``DataFrame.merge`` on the launch key.
* ``pandas-sql``    what nsys-ai does: ``pandas.read_sql`` of SQLite's own join of the
  two tables.
* ``duckdb``        DuckDB joining the same two tables. DuckDB reads SQLite only
  through its ``sqlite`` extension, which it downloads on first use; where that
  cannot be downloaded, the tables reach DuckDB as pandas frames (read as in
  ``pandas-merge``) and the row says so.
* ``opguard CMD``   each ``--opguard`` command line, with ``{}`` replaced by the file.
  Its answer is read from what it prints: ``trace launches --json`` (the region's
  kernel count and kernels with a proven launch), ``trace info --json`` (the kernel
  table's rows) or ``examples/rows`` (``kernels N ..., proven M``).

Every peer joins on the key opguard proves launches with: (process, correlation id),
where the process is ``globalPid >> 24`` on the kernel and ``globalTid >> 24`` on the
call, and backtrace rows (``eventClass`` 67) are not calls. Each reports its kernel
count and the kernels with exactly one launching call ("proven"); they must agree
(``trace info`` reports no join: its kernel count must agree).

Each run is a fresh subprocess (its peak RSS is its own, from ``os.wait4``);
repetitions are interleaved across peers; the median wall time is reported.

Usage::

    python nsys_readers.py [--repeat N] [--peers pandas-merge,pandas-sql,duckdb]
        [--opguard 'target/release/opguard trace launches --json --max-encoded-bytes 4GiB --max-decoded-bytes 4GiB {}']...
        [--json OUT.json] EXPORT.sqlite

Exit status: 0 when every peer ran and agreed, 1 on disagreement, 2 when a peer failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
KERNEL_SQL = (
    f'SELECT start, "end", deviceId, contextId, streamId, correlationId, '
    f"globalPid >> 24 AS process, demangledName FROM {KERNEL}"
)
RUNTIME_SQL = (
    f'SELECT start, "end", globalTid >> 24 AS process, correlationId, nameId '
    f"FROM {RUNTIME} WHERE eventClass != 67"
)
PEERS = ("pandas-merge", "pandas-sql", "duckdb")


def proven_from_frames(kernels, calls):
    """Kernels whose (process, correlationId) names exactly one call."""
    per_key = calls.groupby(["process", "correlationId"]).size().rename("calls").reset_index()
    joined = kernels.merge(per_key, on=["process", "correlationId"], how="left")
    return int((joined["calls"] == 1).sum())


def worker(peer: str, path: str) -> dict:
    import sqlite3

    import pandas as pd

    t0 = time.perf_counter()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    note = None
    if peer == "pandas-merge":
        kernels = pd.read_sql(KERNEL_SQL, conn)
        calls = pd.read_sql(RUNTIME_SQL, conn)
        count, proven = len(kernels), proven_from_frames(kernels, calls)
    elif peer == "pandas-sql":
        joined = pd.read_sql(
            f"""SELECT k.start, k."end", k.demangledName, k.correlationId, k.globalPid >> 24 AS process,
                       r.start AS api_start, r."end" AS api_end, r.nameId
                FROM {KERNEL} k JOIN {RUNTIME} r
                  ON r.correlationId = k.correlationId AND r.globalTid >> 24 = k.globalPid >> 24
                WHERE r.eventClass != 67""",
            conn,
        )
        matches = joined.groupby(["process", "correlationId", "start"]).size()
        count = int(pd.read_sql(f"SELECT COUNT(*) AS n FROM {KERNEL}", conn)["n"][0])
        proven = int((matches == 1).sum())
    elif peer == "duckdb":
        import duckdb

        db = duckdb.connect()
        try:
            db.execute("INSTALL sqlite")
            db.execute("LOAD sqlite")
            db.execute(f"ATTACH '{path}' AS nsys (TYPE sqlite, READ_ONLY)")
            k, r = f"nsys.{KERNEL}", f"nsys.{RUNTIME}"
            db.execute(f"CREATE VIEW kernels AS SELECT start, correlationId, globalPid >> 24 AS process FROM {k}")
            db.execute(
                f"CREATE VIEW calls AS SELECT globalTid >> 24 AS process, correlationId FROM {r} WHERE eventClass != 67"
            )
        except Exception as e:  # noqa: BLE001 - no network for the extension
            note = f"sqlite extension unavailable ({type(e).__name__}); tables read by pandas.read_sql"
            kernels = pd.read_sql(KERNEL_SQL, conn)
            calls = pd.read_sql(RUNTIME_SQL, conn)
            db.register("kernels", kernels)
            db.register("calls", calls)
        count, proven = db.execute(
            """WITH keyed AS (SELECT process, correlationId, COUNT(*) AS n FROM calls GROUP BY ALL)
               SELECT (SELECT COUNT(*) FROM kernels),
                      COUNT(*) FILTER (WHERE keyed.n = 1)
               FROM kernels JOIN keyed USING (process, correlationId)"""
        ).fetchone()
    else:
        raise SystemExit(f"unknown peer {peer}")
    seconds = time.perf_counter() - t0
    return {"kernels": int(count), "proven": int(proven), "seconds": seconds, "note": note}


def opguard_answer(text: str) -> dict:
    """The kernel count (and proven launches) an opguard command printed."""
    import re

    for line in text.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and "regions" in doc:
            region = doc["regions"][0]
            return {"kernels": region["kernel_count"], "proven": region["correlated_kernel_count"]}
        if isinstance(doc, dict) and "tables" in doc:
            rows = {t["table"]: t["rows"] for t in doc["tables"]}
            return {"kernels": rows.get(KERNEL, 0), "proven": None}
    m = re.search(r"kernels (\d+) .*?proven (\d+)", text)
    return {"kernels": int(m.group(1)), "proven": int(m.group(2))} if m else {}


def run_measured(cmd: list[str]) -> tuple[float, float, int, str, int]:
    """Runs `cmd`: wall seconds, CPU seconds (user + system), peak RSS KiB,
    its output and exit status."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout = proc.stdout.read()
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss, (stdout + stderr).decode(errors="replace"), proc.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("export")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--peers", default=",".join(PEERS))
    p.add_argument("--opguard", action="append", default=[], help="a command line; {} is the file")
    p.add_argument("--json")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        print(json.dumps(worker(a.worker, a.export)))
        return 0
    runs: dict[str, list[dict]] = {}
    names = [x for x in a.peers.split(",") if x]
    commands = {name: [sys.executable, __file__, "--worker", name, a.export] for name in names}
    for line in a.opguard:
        commands[line] = [part.replace("{}", a.export) for part in shlex.split(line)]
    failed = False
    for _ in range(a.repeat):
        for name, cmd in commands.items():
            wall, cpu, rss, text, status = run_measured(cmd)
            result = {"wall_seconds": wall, "cpu_seconds": cpu, "peak_rss_kib": rss, "status": status}
            if name in names and status == 0:
                result.update(json.loads(text.strip().splitlines()[-1]))
            elif status == 0:
                result.update(opguard_answer(text))
            elif status != 0:
                failed = True
                result["output"] = text[-2000:]
            runs.setdefault(name, []).append(result)
            print(f"{name}: {wall:.2f} s, {cpu:.2f} s CPU, {rss / 1024:.1f} MiB, exit {status}", file=sys.stderr)
    size = os.path.getsize(a.export)
    summary = []
    for name, rs in runs.items():
        walls = [r["wall_seconds"] for r in rs]
        summary.append(
            {
                "peer": name,
                "median_wall_seconds": statistics.median(walls),
                "median_cpu_seconds": statistics.median(r["cpu_seconds"] for r in rs),
                "median_timed_seconds": (
                    statistics.median(r["seconds"] for r in rs) if all("seconds" in r for r in rs) else None
                ),
                "min_wall_seconds": min(walls),
                "max_peak_rss_mib": max(r["peak_rss_kib"] for r in rs) / 1024,
                "kernels": rs[-1].get("kernels"),
                "proven": rs[-1].get("proven"),
                "note": rs[-1].get("note"),
                "status": rs[-1]["status"],
            }
        )
    kernel_counts = {s["kernels"] for s in summary if s["kernels"] is not None}
    proven_counts = {s["proven"] for s in summary if s["proven"] is not None}
    print(f"\n{a.export} ({size} bytes)")
    print(f"{'peer':<60} {'median s':>9} {'timed s':>9} {'CPU s':>9} {'peak MiB':>9} {'kernels':>9} {'proven':>9}")
    for s in summary:
        timed = f"{s['median_timed_seconds']:.2f}" if s["median_timed_seconds"] is not None else "-"
        print(
            f"{s['peer'][:60]:<60} {s['median_wall_seconds']:>9.2f} {timed:>9} {s['median_cpu_seconds']:>9.2f} "
            f"{s['max_peak_rss_mib']:>9.1f} "
            f"{s['kernels'] if s['kernels'] is not None else '-':>9} {s['proven'] if s['proven'] is not None else '-':>9}"
            + (f"  ({s['note']})" if s["note"] else "")
        )
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"schema": "opguard.peers/nsys-readers-v1", "export": a.export, "bytes": size,
                       "runs": runs, "summary": summary}, fh, indent=1)
    if failed:
        return 2
    if len(kernel_counts) > 1 or len(proven_counts) > 1:
        print(f"!!!!!!!! MISMATCH: kernels {sorted(kernel_counts)}, proven {sorted(proven_counts)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
