#!/usr/bin/env python3
"""HolisticTraceAnalysis's trace DataFrame from opguard's Arrow tables: a
drop-in for HTA's slow parse step.

    python examples/hta_frames.py --check TRACE...   # build both frames, compare, name every difference
    python examples/hta_frames.py --time TRACE       # one run of `hta_frame`: seconds, peak RSS, frame size

`hta_frame(path)` returns what `hta.common.trace_parser.parse_trace_dataframe(
path, ParserConfig.get_default_cfg())` returns -- `(metadata, DataFrame,
TraceSymbolTable)`, the frame with HTA's columns (`index`, `cat`, `name` as
symbol ids, `pid`, `tid`, `ts`, `dur` in microseconds, `stream`,
`correlation`, `external_id`, `input_dims`, `input_type`, `input_strides`,
`bytes`, `memory_bw_gbps`, `wait_on_stream`,
`wait_on_cuda_event_record_corr_id`) and its integer downcasts -- from
`opguard.tables(path)` (device, host, launches, metadata): the trace is read
once by opguard's reader into Arrow batches and handed to pyarrow through
the Arrow PyCapsule interface; no JSON object of any event is ever built in
Python. HTA's later steps (`parse_trace_file`'s links and iterations) run on
it unchanged.

Differences from HTA, by design, which `--check` names and counts:

- timestamps: HTA rounds a trace with fractional microseconds (ts up, end
  down, dur = end - ts; pytorch#122425); opguard's tables keep exact integer
  nanoseconds. `hta_frame(path, hta_rounding=True)` (the default) rounds the
  same way so the frames compare equal; `hta_rounding=False` gives the exact
  float microseconds;
- `bytes`, `memory_bw_gbps`, `wait_on_stream`,
  `wait_on_cuda_event_record_corr_id`: arguments opguard's tables do not
  carry; they hold HTA's defaults (-1, 0.0), and `--check` counts the rows
  where HTA has a value;
- columns HTA makes from any other top-level key an event has (`cname`,
  ...): not made;
- dtypes: `pid`/`tid` are `object` in HTA when any event of the file (even
  one it drops) has a text id; here only when a kept row has one;
  `input_*` are `object` (HTA's `str` when no row has a value); `dur` is
  float64 where HTA's is an integer (a trace with no event lacking `dur`).

Gaps of opguard's tables, named by `--check` and left to fix there:

- `input_type`/`input_strides` of rows that are not operators (`nccl:*`
  user annotations carry `Input type`): the tables take them from operators;
- `stream`/`correlation` of `cuda_sync` rows and an operator's `stream`
  argument: these rows are in the host table, which has neither column.

On the shared traces (`../shared/data/traces/hta`, every file, the 87 MB MTIA
one included) `--check` finds every row (138,370 in the MTIA trace) and every
other column equal to HTA's own frame.

Needs: the `opguard` Python package (bindings/python), pyarrow and pandas;
`--check` also HolisticTraceAnalysis. Exit status: 0, or 1 when `--check`
finds a difference it cannot name.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

import opguard

#: HTA's default-config arguments opguard's tables carry: (HTA column,
#: opguard column, HTA default).
CARRIED = (
    ("stream", "stream", -1),
    ("correlation", "correlation", -1),
    ("external_id", "external_id", -1),
)
#: Arguments they do not carry: HTA's column and default.
NOT_CARRIED = (
    ("bytes", -1),
    ("memory_bw_gbps", 0.0),
    ("wait_on_stream", -1),
    ("wait_on_cuda_event_record_corr_id", -1),
)
#: Host detail columns: JSON text in opguard's tables, parsed values in HTA's frame.
DETAILS = (("input_dims", "input_dims"), ("input_type", "input_type"),
           ("input_strides", "input_strides"))
HTA_ORDER = ("index", "cat", "name", "pid", "tid", "ts", "dur", "stream", "correlation",
             "bytes", "memory_bw_gbps", "wait_on_stream", "wait_on_cuda_event_record_corr_id",
             "input_dims", "input_type", "input_strides", "external_id")


def _plain(t: pa.Table, name: str) -> pa.ChunkedArray:
    """A column with dictionaries decoded (the three tables' dictionaries differ)."""
    c = t[name]
    return c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c


def _rows(read: Dict[str, Any]) -> pa.Table:
    """The event rows of the three record tables, in traceEvents order."""
    parts = []
    for name in ("device", "host", "launches"):
        t = pa.table(read[name])
        cols = {"index": t["index"], "cat": _plain(t, "category"), "name": _plain(t, "name"),
                "pid": t["pid"], "tid": t["tid"], "ts_ns": t["ts_ns"], "dur_ns": t["dur_ns"],
                "text_ids": t["text_ids"]}
        for _, col, _ in CARRIED:
            cols[col] = t[col] if col in t.column_names else pa.nulls(t.num_rows, pa.int64())
        for _, col in DETAILS:
            cols[col] = (_plain(t, col) if col in t.column_names
                         else pa.nulls(t.num_rows, pa.string()))
        cols["table"] = pa.array([name] * t.num_rows, pa.string())
        parts.append(pa.table(cols))
    rows = pa.concat_tables(parts)
    rows = rows.take(pc.sort_indices(rows["index"]))
    # HTA drops its own "Trace" span rows (cat == "Trace").
    return rows.filter(pc.not_equal(rows["cat"], "Trace"))


def _ids(df: pd.DataFrame, text: pd.Series, key: str) -> pd.Series:
    """pid or tid: the integer, or the text id as written for a row whose id
    is not an integer (opguard's `text_ids`)."""
    ints = df[key]
    if not ints.isna().any():
        return ints.astype("int64")
    out = ints.astype(object)
    missing = ints.isna()
    out[missing] = [json.loads(t).get(key) if isinstance(t, str) else None
                    for t in text[missing]]
    return out


def _detail(values: pd.Series) -> pd.Series:
    """JSON text as written → the parsed value HTA keeps; '-1' when absent.
    Each distinct text is parsed once (rows with the same shapes share one
    list, where HTA makes one per row)."""
    codes, uniques = pd.factorize(values)
    parsed = np.empty(len(uniques) + 1, dtype=object)
    for i, text in enumerate(uniques):
        parsed[i] = json.loads(text)
    parsed[-1] = "-1"  # code -1: absent
    return pd.Series(parsed[codes], index=values.index, dtype=object)


def hta_frame(path: str, hta_rounding: bool = True,
              with_table: bool = False) -> Tuple[Dict[str, Any], pd.DataFrame, Any]:
    """``(metadata, frame, symbol table)`` as HTA's ``parse_trace_dataframe``
    gives them (its default config), from opguard's tables; ``with_table``
    adds a column naming the opguard table of each row."""
    # One read of the trace gives the four tables.
    read = opguard.tables(path)
    meta_rows = pa.table(read["metadata"]).to_pylist()
    meta = {r["key"]: json.loads(r["value"]) for r in meta_rows if r["origin"] == "capture"}
    rows = _rows(read)
    df = rows.to_pandas()
    df["pid"] = _ids(df, df["text_ids"], "pid")
    df["tid"] = _ids(df, df["text_ids"], "tid")
    ts_ns, dur_ns = df["ts_ns"].to_numpy(), df["dur_ns"].to_numpy()
    if not (ts_ns % 1000).any() and not (dur_ns % 1000).any():
        df["ts"] = ts_ns // 1000
        df["dur"] = (dur_ns // 1000).astype("float64")
    elif hta_rounding:
        # HTA's round_down_time_stamps: ts up, end down, in microseconds.
        ts = -((-ts_ns) // 1000)
        end = (ts_ns + dur_ns) // 1000
        df["ts"] = ts
        df["dur"] = (end - ts).astype("float64")
    else:
        df["ts"] = ts_ns / 1000.0
        df["dur"] = dur_ns / 1000.0
    for hta_col, col, default in CARRIED:
        df[hta_col] = df[col].fillna(default).astype("int64")
    for hta_col, default in NOT_CARRIED:
        df[hta_col] = default
    for hta_col, col in DETAILS:
        df[hta_col] = _detail(df[col])
    symbols = list(dict.fromkeys(pd.concat([df["cat"], df["name"]]).unique().tolist()))
    try:
        from hta.common.trace_symbol_table import TraceSymbolTable
        table = TraceSymbolTable()
        table.add_symbols(symbols)
    except ImportError:  # the frame is still HTA's shape; the table is a plain list
        table = symbols
    index = pd.Index(symbols)
    df["cat"] = index.get_indexer(df["cat"])
    df["name"] = index.get_indexer(df["name"])
    df = df[list(HTA_ORDER) + (["table"] if with_table else [])].reset_index(drop=True)
    for col in df.columns:
        if df[col].dtype.kind == "i" or df[col].dtype.kind == "u":
            df[col] = pd.to_numeric(df[col], errors="coerce", downcast="integer")
    return meta, df, table


# ---- --check ---------------------------------------------------------------

def _symbols(df: pd.DataFrame, table: Any) -> Tuple[pd.Series, pd.Series]:
    names = table.sym_table if hasattr(table, "sym_table") else table
    lookup = np.asarray(names, dtype=object)
    return (pd.Series(lookup[df["cat"].to_numpy()], index=df.index),
            pd.Series(lookup[df["name"].to_numpy()], index=df.index))


def check(path: str) -> List[str]:
    """Builds HTA's frame and ours; returns the unnamed differences (none
    when the frames agree but for the named ones) and prints the named ones."""
    import logging

    from hta.common.trace_parser import parse_trace_dataframe
    from hta.configs.parser_config import ParserConfig

    logging.getLogger("hta").setLevel(logging.ERROR)
    meta_h, want, table_h = parse_trace_dataframe(path, ParserConfig.get_default_cfg())
    meta, got, table = hta_frame(path, with_table=True)
    problems, named = [], []
    if not want.empty:
        want = want.set_index("index", drop=False).sort_index()
    got = got.set_index("index", drop=False)
    if sorted(meta) != sorted(meta_h):
        problems.append(f"metadata keys {sorted(meta)} != HTA's {sorted(meta_h)}")
    if want.empty:
        if len(got):
            problems.append(f"HTA's frame is empty, ours has {len(got)} rows")
        return _report(path, problems, named, 0)
    only_h, only_o = want.index.difference(got.index), got.index.difference(want.index)
    if len(only_h) or len(only_o):
        problems.append(f"rows only in HTA's frame: {list(only_h[:5])}, only in ours: {list(only_o[:5])}")
    common = want.index.intersection(got.index)
    want, got = want.loc[common], got.loc[common]
    for label, (w, g) in (("cat", (_symbols(want, table_h)[0], _symbols(got, table)[0])),
                          ("name", (_symbols(want, table_h)[1], _symbols(got, table)[1]))):
        bad = (w != g).sum()
        if bad:
            problems.append(f"{label}: {bad} rows differ")
    cats = _symbols(got, table)[0].tolist()
    extra = set(want.columns) - set(got.columns)
    if extra:
        named.append(f"columns HTA adds (from other event keys; `end` when it rounds), "
                     f"not made here: {sorted(extra)}")
    for col in got.columns:
        if col in ("cat", "name", "index", "table") or col not in want.columns:
            continue
        w, g = want[col], got[col]
        if col in dict(NOT_CARRIED):
            carried = (w != dict(NOT_CARRIED)[col]).sum()
            if carried:
                named.append(f"{col}: not in opguard's tables; HTA has a value in {carried} rows")
            continue
        if col in ("input_dims", "input_type", "input_strides"):
            differ = [a != b for a, b in zip(w, g)]
            # opguard's tables take argument types and strides from operators
            # only: an annotation's (nccl:all_reduce's `Input type`) is a gap.
            gap = sum(1 for d, b, c in zip(differ, g, cats) if d and b == "-1" and c != "cpu_op")
            if gap:
                named.append(f"{col}: missing from opguard's tables in {gap} rows that are "
                             "not operators (a gap of opguard's, to be fixed)")
            bad = sum(differ) - gap
        elif col in ("stream", "correlation"):
            differ = w.to_numpy() != g.to_numpy()
            # opguard's host table has no stream or correlation column:
            # cuda_sync rows (host records in opguard's model) and an
            # operator's `stream` argument are a gap.
            gap = int((differ & (g.to_numpy() == -1) & (got["table"] == "host").to_numpy()).sum())
            if gap:
                named.append(f"{col}: not carried for {gap} host-table rows (cuda_sync, an "
                             "operator's stream argument; a gap of opguard's tables)")
            bad = int(differ.sum()) - gap
        elif col in ("ts", "dur"):
            bad = int((~np.isclose(w.astype(float), g.astype(float), rtol=0, atol=0)).sum())
        else:
            bad = int((w.astype(object).to_numpy() != g.astype(object).to_numpy()).sum())
        if bad:
            problems.append(f"{col}: {bad} of {len(w)} rows differ "
                            f"(first at index {w.index[(w.astype(object) != g.astype(object)).to_numpy()][0]})")
        if str(w.dtype) != str(g.dtype):
            named.append(f"{col}: dtype {g.dtype}, HTA's {w.dtype}")
    _, exact, _ = hta_frame(path, hta_rounding=False)
    rounded = 0
    if exact["ts"].dtype.kind == "f":  # fractional microseconds: HTA rounded them
        exact = exact.set_index("index").loc[common]
        rounded = int((exact["ts"].to_numpy() != got["ts"].to_numpy()).sum())
    if rounded:
        named.append(f"timestamps: HTA rounds fractional microseconds; {rounded} rows' ts "
                     "differ from the exact value (hta_rounding=False keeps it)")
    return _report(path, problems, named, len(common))


def _report(path, problems, named, rows):
    print(f"{path}: {rows} rows compared; "
          + ("equal" if not problems else f"{len(problems)} unnamed differences"))
    for n in named:
        print(f"  named: {n}")
    for p in problems:
        print(f"  DIFFERS: {p}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with HTA's own frame")
    parser.add_argument("--time", action="store_true", help="time one hta_frame and report peak RSS")
    parser.add_argument("traces", nargs="+")
    args = parser.parse_args(argv)
    if args.time:
        import resource
        import time
        for path in args.traces:
            start = time.perf_counter()
            _, df, _ = hta_frame(path)
            took = time.perf_counter() - start
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            size = int(df.memory_usage(deep=True).sum())
            print(json.dumps({"trace": path, "rows": len(df), "seconds": round(took, 3),
                              "peak_rss_mib": round(rss / 2**20, 1),
                              "frame_mib": round(size / 2**20, 1)}))
        return 0
    failed = 0
    for path in args.traces:
        failed += bool(check(path)) if args.check else 0
        if not args.check:
            print(hta_frame(path)[1])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
