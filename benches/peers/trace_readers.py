#!/usr/bin/env python3
"""Peer measurements for opguard's trace reader.

Measures how fast, and how memory-hungry, existing Python tools are at reading a
PyTorch profiler (Kineto) trace, so the Rust reader's numbers can be reported as
ratios against peers measured on the same machine in the same run.

Each peer runs in a fresh subprocess per repetition, so its peak RSS is its own
(taken from ``os.wait4``'s rusage of that child). The parent stays small and uses
only the standard library; the workers need the packages from ``setup.sh``.

Peers (``--peers``, default all):

* ``gzip-floor`` python's gzip/zlib inflating the file into a reused 1 MiB buffer
  (plain files: reading it); a floor, parses nothing.
* ``json``       stdlib: ``json.load(gzip.open(path, "rb"))``, then touch every event.
* ``orjson``     read + inflate all bytes, ``orjson.loads``, then touch every event.
* ``ijson``      ``ijson.items(f, "traceEvents.item", use_float=True)`` on the yajl2_c
  backend, streaming, touching every event as it arrives.
* ``hta``        HolisticTraceAnalysis ``hta.common.trace.parse_trace_file(path)`` with
  its default ``ParserConfig`` (the loader ``Trace.parse_single_rank`` calls; its
  default backend is plain ``json`` + pandas).
* ``hta-ijson``  the same loader with ``ParserBackend.IJSON_BATCH_AND_COMPRESS``, the
  backend HTA's docs recommend for large traces (not its default).

"Touch" means reading ``ph``, ``name``, ``cat``, ``ts``, ``dur`` and ``args`` of every
event and folding them into three counters (events, events with ``ph == "X"``, total
``args`` keys) that every raw peer must agree on. HTA builds a DataFrame instead; its
``events`` is the number of trace events it parsed before filtering, and ``rows`` the
rows of the frame it returns.

What is measured per run: ``seconds`` is wall time from opening the file until the
peer's result has been produced and its document freed (imports and interpreter
start-up are outside it, and reported as ``process_seconds``); peak RSS is the whole
worker process's ``ru_maxrss`` (start-up included; ``baseline`` is the RSS after
imports, before reading). MB/s is decimal MB (10^6 B) of decoded JSON per second.

Usage::

    benches/peers/.venv/bin/python benches/peers/trace_readers.py [--repeat N]
        [--peers json,orjson,...] [--json OUT.json|-] TRACE [TRACE ...]

Exit status: 0 when every peer ran and the counters agreed; 1 on a counter mismatch;
2 when a peer failed on some file (the table still shows the others); 64 on usage errors.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time

SCHEMA = "opguard.peers/trace-readers-v1"
PEERS = ("gzip-floor", "json", "orjson", "ijson", "hta", "hta-ijson")
GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20
MB = 1_000_000  # MB/s is decimal megabytes of decoded JSON per second
MIB = 1 << 20


# --------------------------------------------------------------------------- helpers


def is_gzip(path: str) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_decoded(path: str):
    """Binary file object yielding the decoded JSON bytes (gzip by magic bytes)."""
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


def read_decoded(path: str) -> bytes:
    with open(path, "rb") as fh:
        raw = fh.read()
    return gzip.decompress(raw) if raw[:2] == GZIP_MAGIC else raw


def describe_input(path: str) -> dict:
    """Size on disk, decoded size and sha256 of the encoded bytes, computed once."""
    sha = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            sha.update(block)
    decoded = 0
    buf = bytearray(CHUNK)
    with open_decoded(path) as fh:
        while True:
            n = fh.readinto(buf)
            if not n:
                break
            decoded += n
    return {
        "file": os.path.abspath(path),
        "encoded_bytes": os.path.getsize(path),
        "decoded_bytes": decoded,
        "gzip": is_gzip(path),
        "sha256": sha.hexdigest(),
    }


def top_level_is_array(path: str) -> bool:
    with open_decoded(path) as fh:
        head = fh.read(4096).lstrip(b" \t\r\n\xef\xbb\xbf")
    return head[:1] == b"["


def touch(events) -> dict:
    """Read ph/name/cat/ts/dur/args of every event; return counters all peers share."""
    n = 0
    n_x = 0
    n_args = 0
    n_dur = 0
    for e in events:
        ph = e.get("ph")
        name = e.get("name")
        cat = e.get("cat")
        ts = e.get("ts")
        dur = e.get("dur")
        args = e.get("args")
        n += 1
        if ph == "X":
            n_x += 1
        if dur is not None and ts is not None and name is not None and cat is not None:
            n_dur += 1
        if args is not None:
            n_args += len(args)
    return {"events": n, "ph_X": n_x, "named_with_ts_dur": n_dur, "args_keys": n_args}


def events_of(doc):
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        return doc.get("traceEvents", [])
    raise ValueError(f"top-level JSON is {type(doc).__name__}, expected object or array")


def dist_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def rss_kib_self() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# --------------------------------------------------------------------------- peers
# Each peer returns (prepare, run): prepare() does the imports and any setup that is
# not part of reading (done before the clock starts), run() reads the file and returns
# a dict of counters. Only run() is timed.


def peer_gzip_floor(path: str):
    def prepare():
        return {
            "tool": "python gzip/zlib",
            "version": f"zlib {__import__('zlib').ZLIB_RUNTIME_VERSION}",
            "function": "gzip.GzipFile.readinto(1 MiB buffer)" if is_gzip(path) else "open().readinto(1 MiB buffer)",
        }

    def run():
        buf = bytearray(CHUNK)
        total = 0
        with open_decoded(path) as fh:
            while True:
                n = fh.readinto(buf)
                if not n:
                    break
                total += n
        return {"decoded_bytes_seen": total}

    return prepare, run


def peer_json(path: str):
    def prepare():
        return {
            "tool": "python json (stdlib)",
            "version": f"json {json.__version__}, CPython {platform.python_version()}",
            "function": "json.load(gzip.open(path, 'rb'))" if is_gzip(path) else "json.load(open(path, 'rb'))",
        }

    def run():
        with open_decoded(path) as fh:
            doc = json.load(fh)
        return touch(events_of(doc))

    return prepare, run


def peer_orjson(path: str):
    mod = {}

    def prepare():
        import orjson

        mod["orjson"] = orjson
        return {
            "tool": "orjson",
            "version": orjson.__version__,
            "function": "orjson.loads(gzip.decompress(open(path,'rb').read()))"
            if is_gzip(path)
            else "orjson.loads(open(path,'rb').read())",
        }

    def run():
        doc = mod["orjson"].loads(read_decoded(path))
        return touch(events_of(doc))

    return prepare, run


def peer_ijson(path: str, allow_python_backend: bool):
    mod = {}

    def prepare():
        import ijson

        if ijson.backend != "yajl2_c" and not allow_python_backend:
            raise RuntimeError(
                f"ijson backend is {ijson.backend!r}, expected 'yajl2_c' "
                "(run benches/peers/setup.sh, or pass --allow-slow-ijson)"
            )
        mod["ijson"] = ijson
        mod["prefix"] = "item" if top_level_is_array(path) else "traceEvents.item"
        return {
            "tool": "ijson",
            "version": f"{ijson.__version__} (backend {ijson.backend})",
            "function": f"ijson.items(f, {mod['prefix']!r}, use_float=True)",
        }

    def run():
        with open_decoded(path) as fh:
            return touch(mod["ijson"].items(fh, mod["prefix"], use_float=True))

    return prepare, run


def peer_hta(path: str, backend: str | None):
    state = {"events": None}

    def prepare():
        import hta.common.trace as trace_mod
        import hta.common.trace_parser as parser_mod
        from hta.configs.parser_config import ParserBackend, ParserConfig
        import pandas

        cfg = ParserConfig.get_default_cfg()
        if backend is not None:
            cfg.set_parser_backend(ParserBackend(backend))
        effective = cfg.parser_backend or parser_mod.get_default_trace_parsing_backend()

        # Observe, without changing behaviour, how many trace events HTA parsed and how
        # long its parse_trace_dataframe step took inside parse_trace_file.
        if effective == ParserBackend.JSON:
            orig_compress = parser_mod._compress_df

            def counting_compress(df, cfg=None):
                # entered with one row per traceEvents item (nothing dropped yet)
                state["events"] = len(df)
                return orig_compress(df, cfg)

            parser_mod._compress_df = counting_compress
        else:
            import ijson

            orig_items = ijson.items

            def counting_items(*a, **kw):
                state["events"] = 0
                for item in orig_items(*a, **kw):
                    state["events"] += 1
                    yield item

            ijson.items = counting_items

        orig_parse = trace_mod.parse_trace_dataframe

        def timed_parse(*a, **kw):
            t0 = time.perf_counter()
            try:
                return orig_parse(*a, **kw)
            finally:
                state["parse_trace_dataframe_seconds"] = time.perf_counter() - t0

        trace_mod.parse_trace_dataframe = timed_parse
        state["cfg"] = cfg
        state["parse_trace_file"] = trace_mod.parse_trace_file
        import logging

        logging.getLogger("hta").setLevel(logging.ERROR)
        return {
            "tool": "HolisticTraceAnalysis",
            "version": f"{dist_version('HolisticTraceAnalysis')} (pandas {pandas.__version__}, backend {effective.value})",
            "function": "hta.common.trace.parse_trace_file(path"
            + (")" if backend is None else f", cfg[parser_backend={backend}])"),
        }

    def run():
        _meta, df, _symbols = state["parse_trace_file"](path, state["cfg"])
        # "_"-prefixed keys are measurements, not counters compared across repeats
        return {
            "events": state["events"],
            "rows": int(len(df)),
            "_parse_trace_dataframe_seconds": state.get("parse_trace_dataframe_seconds"),
        }

    return prepare, run


def make_peer(name: str, path: str, allow_slow_ijson: bool):
    if name == "gzip-floor":
        return peer_gzip_floor(path)
    if name == "json":
        return peer_json(path)
    if name == "orjson":
        return peer_orjson(path)
    if name == "ijson":
        return peer_ijson(path, allow_slow_ijson)
    if name == "hta":
        return peer_hta(path, None)
    if name == "hta-ijson":
        return peer_hta(path, "ijson_batch_and_compress")
    raise ValueError(f"unknown peer {name!r}")


def worker_main(peer: str, path: str, result_file: str, allow_slow_ijson: bool) -> int:
    out: dict = {"peer": peer}
    try:
        prepare, run = make_peer(peer, path, allow_slow_ijson)
        out.update(prepare())
        out["baseline_rss_kib"] = rss_kib_self()
        t0 = time.perf_counter()
        counters = run()
        out["seconds"] = time.perf_counter() - t0
        out["extra"] = {k[1:]: counters.pop(k) for k in [k for k in counters if k.startswith("_")]}
        out["counters"] = counters
        out["status"] = "ok"
    except BaseException as exc:  # report any failure of the peer, keep the run going
        out["status"] = "error"
        out["error"] = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
    with open(result_file, "w") as fh:
        json.dump(out, fh)
    return 0


# --------------------------------------------------------------------------- driver


def run_once(python: str, peer: str, path: str, timeout: float, allow_slow_ijson: bool) -> dict:
    fd, result_file = tempfile.mkstemp(prefix="peer-", suffix=".json")
    os.close(fd)
    cmd = [python, os.path.abspath(__file__), "--worker", peer, "--result-file", result_file]
    if allow_slow_ijson:
        cmd.append("--allow-slow-ijson")
    cmd.append(path)
    t0 = time.perf_counter()
    # stderr goes to a file, not a pipe, so a chatty worker can never block on it
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        # wait4 gives this child's own rusage, so ru_maxrss is its peak, not a running max
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        timed_out = os.WIFSIGNALED(status) and time.perf_counter() - t0 >= timeout
        proc.returncode = os.waitstatus_to_exitcode(status)
        process_seconds = time.perf_counter() - t0
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    try:
        with open(result_file) as fh:
            res = json.load(fh)
    except (OSError, ValueError):
        res = {
            "peer": peer,
            "status": "error",
            "error": f"worker exited {proc.returncode} without a result"
            + (f" (killed after {timeout:g} s timeout)" if timed_out else "")
            + (f"; stderr tail: {stderr[-400:]}" if stderr else ""),
        }
    finally:
        try:
            os.unlink(result_file)
        except OSError:
            pass
    res["peak_rss_kib"] = usage.ru_maxrss
    res["process_seconds"] = process_seconds
    # whole-process CPU split and first-touch page faults (interpreter start-up included)
    res["process_user_seconds"] = usage.ru_utime
    res["process_sys_seconds"] = usage.ru_stime
    res["process_minor_faults"] = usage.ru_minflt
    return res


def machine_info() -> dict:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_kib = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    mem_kib = int(line.split()[1])
                    break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "mem_total_mib": mem_kib // 1024 if mem_kib else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
    }


def summarize(peer: str, info: dict, runs: list[dict]) -> dict:
    ok = [r for r in runs if r.get("status") == "ok"]
    base = {
        "schema": SCHEMA,
        "file": info["file"],
        "sha256": info["sha256"],
        "encoded_bytes": info["encoded_bytes"],
        "decoded_bytes": info["decoded_bytes"],
        "peer": peer,
        "repeats": len(runs),
    }
    first = ok[0] if ok else runs[0]
    for key in ("tool", "version", "function"):
        base[key] = first.get(key)
    if len(ok) != len(runs):
        errors = sorted({r.get("error", "?") for r in runs if r.get("status") != "ok"})
        base.update({"status": "error", "error": " | ".join(errors), "ok_runs": len(ok)})
        if not ok:
            return base
    else:
        base["status"] = "ok"
    secs = [r["seconds"] for r in ok]
    med = statistics.median(secs)
    counters = ok[0]["counters"]
    varying = [r["counters"] for r in ok if r["counters"] != counters]
    base.update(
        {
            "seconds_median": med,
            "seconds_min": min(secs),
            "seconds_max": max(secs),
            "seconds_all": secs,
            "decoded_mb_per_s": info["decoded_bytes"] / MB / med if med > 0 else None,
            "peak_rss_mib_median": statistics.median(r["peak_rss_kib"] for r in ok) / 1024,
            "peak_rss_mib_max": max(r["peak_rss_kib"] for r in ok) / 1024,
            "baseline_rss_mib_median": statistics.median(r["baseline_rss_kib"] for r in ok) / 1024,
            "process_seconds_median": statistics.median(r["process_seconds"] for r in ok),
            "process_user_seconds_median": statistics.median(r["process_user_seconds"] for r in ok),
            "process_sys_seconds_median": statistics.median(r["process_sys_seconds"] for r in ok),
            "process_minor_faults_median": statistics.median(r["process_minor_faults"] for r in ok),
            "events": counters.get("events"),
            "counters": counters,
        }
    )
    if ok[0].get("extra", {}).get("parse_trace_dataframe_seconds") is not None:
        base["parse_trace_dataframe_seconds_median"] = statistics.median(
            r["extra"]["parse_trace_dataframe_seconds"] for r in ok
        )
    if varying:
        base["status"] = "error"
        base["error"] = f"counters differ between repeats: {counters} vs {varying[0]}"
    return base


def check_agreement(rows: list[dict]) -> list[str]:
    """Every peer that counted events must agree; raw peers must agree on all counters."""
    problems = []
    counted = [(r["peer"], r["events"]) for r in rows if r.get("status") == "ok" and r.get("events") is not None]
    if len({n for _, n in counted}) > 1:
        problems.append("event counts differ: " + ", ".join(f"{p}={n}" for p, n in counted))
    raw = [(r["peer"], r["counters"]) for r in rows if r.get("status") == "ok" and "ph_X" in r.get("counters", {})]
    if len({json.dumps(c, sort_keys=True) for _, c in raw}) > 1:
        problems.append("touch counters differ: " + "; ".join(f"{p}={c}" for p, c in raw))
    return problems


def fmt_table(info: dict, rows: list[dict], problems: list[str]) -> str:
    lines = [
        f"{info['file']}",
        f"  encoded {info['encoded_bytes']:,} B, decoded {info['decoded_bytes']:,} B "
        f"({info['decoded_bytes'] / MB:.1f} MB), sha256 {info['sha256'][:16]}…",
        "",
        f"  {'peer':<11} {'median s':>9} {'min s':>7} {'max s':>7} {'MB/s':>8} "
        f"{'peak RSS MiB':>12} {'base MiB':>8} {'sys s':>6} {'events':>9}  tool / call",
    ]
    for r in rows:
        if r.get("status") == "error" and "seconds_median" not in r:
            lines.append(f"  {r['peer']:<11} FAILED: {r.get('error')}")
            continue
        ev = r.get("events")
        extra = ""
        c = r.get("counters", {})
        if "rows" in c:
            extra = f"; {c['rows']:,} rows out"
            if r.get("parse_trace_dataframe_seconds_median") is not None:
                extra += f", parse_trace_dataframe {r['parse_trace_dataframe_seconds_median']:.2f} s"
        lines.append(
            f"  {r['peer']:<11} {r['seconds_median']:>9.3f} {r['seconds_min']:>7.3f} {r['seconds_max']:>7.3f} "
            f"{r['decoded_mb_per_s']:>8.1f} {r['peak_rss_mib_median']:>12.1f} {r['baseline_rss_mib_median']:>8.1f} "
            f"{r['process_sys_seconds_median']:>6.2f} {(f'{ev:,}' if ev is not None else '-'):>9}  {r['tool']} {r['version']}: {r['function']}{extra}"
        )
        if r.get("status") == "error":
            lines.append(f"  {'':<11} WARNING: {r.get('error')}")
    raw = [r for r in rows if r.get("status") == "ok" and "ph_X" in r.get("counters", {})]
    if raw and not problems:
        c = raw[0]["counters"]
        lines.append(
            f"  counters agree across {', '.join(r['peer'] for r in raw)}: "
            f"events {c['events']:,}, ph=X {c['ph_X']:,}, name+cat+ts+dur {c['named_with_ts_dur']:,}, args keys {c['args_keys']:,}"
        )
    for p in problems:
        lines.append("  !!!!!!!! MISMATCH: " + p)
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors exit 64 (EX_USAGE), apart from 1 and 2 above
        self.print_usage(sys.stderr)
        self.exit(64, f"{self.prog}: error: {message}\n")


def main(argv: list[str]) -> int:
    ap = _Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+", help="trace files (gzip or plain JSON)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per peer per file; the median is reported (default 3)")
    ap.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated subset of {','.join(PEERS)}")
    ap.add_argument("--json", metavar="PATH", help="write machine output here ('-' for stdout; the table then goes to stderr)")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the workers (default: this one)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds before one worker run is killed")
    ap.add_argument("--allow-slow-ijson", action="store_true", help="run ijson even if its backend is not yajl2_c")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--result-file", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        return worker_main(args.worker, args.traces[0], args.result_file, args.allow_slow_ijson)

    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = [p for p in peers if p not in PEERS]
    if unknown or args.repeat < 1:
        ap.error(f"unknown peers {unknown}" if unknown else "--repeat must be >= 1")
    for t in args.traces:
        if not os.path.isfile(t):
            ap.error(f"not a file: {t}")

    table_out = sys.stderr if args.json == "-" else sys.stdout
    started = time.time()
    doc = {
        "schema": SCHEMA,
        "command": " ".join([os.path.relpath(sys.executable)] + [os.path.relpath(__file__)] + argv),
        "started_unix": started,
        "machine": machine_info(),
        "repeat": args.repeat,
        "results": [],
    }
    exit_code = 0
    for path in args.traces:
        info = describe_input(path)
        runs: dict[str, list[dict]] = {p: [] for p in peers}
        # interleave peers within each repetition so drift (thermal, page cache,
        # neighbours) spreads over all peers instead of landing on one
        for i in range(args.repeat):
            for p in peers:
                r = run_once(args.python, p, path, args.timeout, args.allow_slow_ijson)
                runs[p].append(r)
                state = f"{r['seconds']:.3f} s" if r.get("status") == "ok" else f"FAILED ({r.get('error')})"
                print(f"[{i + 1}/{args.repeat}] {os.path.basename(path)} {p}: {state}", file=sys.stderr, flush=True)
        rows = [summarize(p, info, runs[p]) for p in peers]
        problems = check_agreement(rows)
        if problems:
            exit_code = 1
            for p in problems:
                print("!!!!!!!! MISMATCH: " + p, file=sys.stderr, flush=True)
        elif any(r.get("status") != "ok" for r in rows) and exit_code == 0:
            exit_code = 2
        for r in rows:
            r["agreement"] = "mismatch" if problems else "ok"
        doc["results"].extend(rows)
        print(fmt_table(info, rows, problems) + "\n", file=table_out, flush=True)
    doc["finished_unix"] = time.time()
    if args.json:
        text = json.dumps(doc, indent=2) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            with open(args.json, "w") as fh:
                fh.write(text)
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
