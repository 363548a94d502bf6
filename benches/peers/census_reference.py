#!/usr/bin/env python3
"""Plain-Python reference for opguard-census: census plus digest of a capture.

The same computation as ``Census::compute`` in ``opguard-census``, written the way a
Python tool would write it, standard library only, to measure the Rust crate against:

* operator families by whole name with the overload dropped (the crate's default
  table, read from ``opguard-census/families.default.json``), unclassified by name;
* per family: calls, shape entries, non-numeric entries; totals;
* the concrete-dimension multiset; host resolutions by innermost frame; distinct ops;
* the name-free SHA-256 digest, byte for byte the crate's ``digest-v1`` stream:
  symbols renamed ``#n`` by first appearance, linear expressions in one term order.

It does not validate the capture the way the crate does (unknown fields, JSON paths,
expression syntax); it assumes a well-formed file, which flatters it.

Usage::

    CARGO_TARGET_DIR=/work/target-census cargo bench -p opguard-benches --bench census
    python3 benches/peers/census_reference.py [--repeat N] [CAPTURE [RUST_CENSUS]]

Defaults are the files the Rust bench writes to ``$OPGUARD_CENSUS_BENCH_DIR`` (or the
system temp dir): ``census-bench-100k.capture.json`` and ``census-bench-100k.census.json``.
When the Rust census is present, every field computed here is compared with it and a
disagreement exits 1.
"""
import argparse
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "..", "opguard-census", "families.default.json")
CONSTANTS = {"True", "False", "oo", "zoo", "nan", "int_oo"}
TOKEN = re.compile(
    r"[ \t]+|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<int>[0-9]+)"
    r"|(?P<punct>\*\*|//|<=|>=|==|!=|[()\[\]{},.:;+\-*/%<>=!&|~^@?])"
)
BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
UNARY_PREV = {"(", "[", ",", "+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=",
              "==", "!=", "&", "|"}
DIGEST_TAG = b"opguard.census/digest-v1\0"


def base_name(name):
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) == 3 else name


def load_table(path):
    with open(path, "rb") as f:
        doc = json.load(f)
    order, by_op = [], {}
    for i, fam in enumerate(doc["families"]):
        order.append(fam["family"])
        for op in fam["operators"]:
            by_op[op] = i
    return order, by_op


def tokenize(text):
    toks, pos = [], 0
    for m in TOKEN.finditer(text):
        if m.start() != pos:
            raise ValueError(f"bad character in {text!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind:
            toks.append((kind, m.group(kind)))
    if pos != len(text) or not toks:
        raise ValueError(f"bad expression {text!r}")
    return toks


def is_symbol(toks, i):
    kind, val = toks[i]
    if kind != "ident" or val in CONSTANTS:
        return False
    return not (i + 1 < len(toks) and toks[i + 1] == ("punct", "("))


def parse_linear(toks):
    terms, constant, i, sign = [], 0, 0, 1
    if toks and toks[0][0] == "punct" and toks[0][1] in ("+", "-"):
        sign = -1 if toks[0][1] == "-" else 1
        i = 1
    n = len(toks)
    while True:
        a = toks[i] if i < n else None
        b = toks[i + 1] if i + 1 < n else None
        c = toks[i + 2] if i + 2 < n else None
        if a and a[0] == "int" and b == ("punct", "*") and c and c[0] == "ident":
            sym, coef, i = c[1], int(a[1]), i + 3
        elif a and a[0] == "ident" and b == ("punct", "*") and c and c[0] == "int":
            sym, coef, i = a[1], int(c[1]), i + 3
        elif a and a[0] == "int":
            sym, coef, i = None, int(a[1]), i + 1
        elif a and a[0] == "ident":
            sym, coef, i = a[1], 1, i + 1
        else:
            return None
        if sym is None:
            constant += coef * sign
        elif sym in CONSTANTS:
            return None
        else:
            terms.append((sym, coef * sign))
        if i >= n:
            return terms, constant
        t = toks[i]
        if t == ("punct", "+"):
            sign = 1
        elif t == ("punct", "-"):
            sign = -1
        else:
            return None
        i += 1


def render_linear(terms, constant):
    out = []
    for i, (k, c) in enumerate(terms):
        mag = abs(c)
        if i == 0:
            if c < 0:
                out.append("-")
        else:
            out.append(" - " if c < 0 else " + ")
        if mag != 1:
            out.append(f"{mag}*")
        out.append(f"#{k}")
    if not terms:
        out.append(str(constant))
    elif constant != 0:
        out.append((" - " if constant < 0 else " + ") + str(abs(constant)))
    return "".join(out)


def render_tokens(toks, ids):
    out, prev, after_unary = [], None, False
    for i, (kind, val) in enumerate(toks):
        if prev is None or (prev[0] == "punct" and prev[1] in ("(", "[")):
            space = False
        elif kind == "punct" and val in (")", "]", ","):
            space = False
        elif prev[0] == "ident" and (kind, val) == ("punct", "("):
            space = False
        else:
            space = not after_unary
        if space:
            out.append(" ")
        unary = kind == "punct" and val in ("+", "-", "~") and (
            prev is None or (prev[0] == "punct" and prev[1] in UNARY_PREV))
        if kind == "ident" and is_symbol(toks, i):
            out.append(f"#{ids[val]}")
        else:
            out.append(val)
        after_unary = unary
        prev = (kind, val)
    return "".join(out)


def canonical_entry(text, ids):
    t = text.strip()
    if BARE.fullmatch(t) and t not in CONSTANTS:
        if t not in ids:
            ids[t] = len(ids)
        return f"#{ids[t]}"
    toks = tokenize(text)
    for i, (kind, val) in enumerate(toks):
        if kind == "ident" and is_symbol(toks, i) and val not in ids:
            ids[val] = len(ids)
    lin = parse_linear(toks)
    if lin is not None:
        merged = {}
        for sym, c in lin[0]:
            k = ids[sym]
            merged[k] = merged.get(k, 0) + c
        terms = [(k, c) for k, c in sorted(merged.items()) if c != 0]
        return render_linear(terms, lin[1])
    return render_tokens(toks, ids)


def census(doc, table):
    order, by_op = table
    h = hashlib.sha256()
    buf = bytearray(DIGEST_TAG)
    ids, concrete, per_name = {}, {}, {}
    total_entries = non_numeric = unknown = 0
    for op in doc["ops"]:
        name, shapes = op["name"], op["shapes"]
        st = per_name.get(name)
        if st is None:
            st = per_name[name] = [0, 0, 0]
        st[0] += 1
        nb = name.encode()
        buf += b"o%d:%ss%d;" % (len(nb), nb, len(shapes))
        for shape in shapes:
            buf += b"d%d;" % len(shape)
            st[1] += len(shape)
            total_entries += len(shape)
            for e in shape:
                if type(e) is int:
                    concrete[e] = concrete.get(e, 0) + 1
                    buf += b"i%d;" % e
                elif e is None:
                    st[2] += 1
                    unknown += 1
                    buf += b"n;"
                else:
                    st[2] += 1
                    c = canonical_entry(e, ids).encode()
                    buf += b"e%d:%s" % (len(c), c)
        if len(buf) >= 1 << 15:
            h.update(buf)
            buf.clear()
    h.update(buf)

    families = [{"family": f, "ops": 0, "shape_entries": 0, "non_numeric": 0} for f in order]
    uncl = {"ops": 0, "shape_entries": 0, "non_numeric": 0, "by_name": {}}
    for name, (calls, entries, nn) in per_name.items():
        non_numeric += nn
        i = by_op.get(base_name(name))
        row = uncl if i is None else families[i]
        row["ops"] += calls
        row["shape_entries"] += entries
        row["non_numeric"] += nn
        if i is None:
            uncl["by_name"][name] = calls
    innermost_first = doc.get("frames_order") == "innermost_first"
    by_line = {}
    for hr in doc["host_resolutions"]:
        fr = hr["frames"]
        key = (fr[0] if innermost_first else fr[-1]) if fr else "<no frame>"
        by_line[key] = by_line.get(key, 0) + 1
    return {
        "label": doc["label"],
        "digest": h.hexdigest(),
        "families": families,
        "totals": {"ops": len(doc["ops"]), "shape_entries": total_entries,
                   "non_numeric": non_numeric, "unknown": unknown},
        "unclassified": uncl,
        "concrete_dims": [{"value": v, "count": c} for v, c in sorted(concrete.items())],
        "host_resolutions_by_line": dict(sorted(by_line.items())),
        "distinct_ops": {n: s[0] for n, s in sorted(per_name.items())},
    }


def main():
    tmp = os.environ.get("OPGUARD_CENSUS_BENCH_DIR", tempfile.gettempdir())
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("capture", nargs="?", default=os.path.join(tmp, "census-bench-100k.capture.json"))
    ap.add_argument("rust_census", nargs="?", default=os.path.join(tmp, "census-bench-100k.census.json"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    table = load_table(TABLE)
    with open(args.capture, "rb") as f:
        raw = f.read()
    parse_t, census_t, result = [], [], None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        doc = json.loads(raw)
        t1 = time.perf_counter()
        result = census(doc, table)
        t2 = time.perf_counter()
        parse_t.append(t1 - t0)
        census_t.append(t2 - t1)
    ops = result["totals"]["ops"]
    total_t = [a + b for a, b in zip(parse_t, census_t)]
    print(f"python {sys.version.split()[0]}: {ops} ops, {len(raw)} bytes, {args.repeat} runs")
    for label, ts in (("census+digest", census_t), ("json.loads", parse_t),
                      ("parse+census+digest", total_t)):
        print(f"  {label:20s} median {statistics.median(ts) * 1e3:9.1f} ms   "
              f"best {min(ts) * 1e3:9.1f} ms   {ops / statistics.median(ts) / 1e6:7.3f} Mops/s")
    print(f"  digest {result['digest']}")

    if os.path.exists(args.rust_census):
        with open(args.rust_census) as f:
            rust = json.load(f)
        bad = [k for k in result if rust.get(k) != result[k]]
        if bad:
            print(f"DISAGREES with the Rust census on: {', '.join(bad)}")
            return 1
        print(f"  agrees with the Rust census ({args.rust_census}) on every field")
    else:
        print(f"  (no Rust census at {args.rust_census} to compare with)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
