#!/usr/bin/env python3
"""Reference implementation of the opguard-kernel-name rules, in plain Python.

Not shipped: it exists to measure the Rust crate against (benches/peers) and to
prove the parity fixture is language-neutral (it runs
fixtures/kernel-name/kernel_symbols.json with nothing but `json`).

Python has no Itanium demangler that accepts NVCC's names (libstdc++'s
__cxa_demangle rejects the real cuDNN symbols), so `_Z...` symbols are
demangled through a lookup table: the fixture's `demangled` field, or any
mapping the caller passes. A `_Z...` symbol not in the table has its name
read when template arguments follow it (rule 2's `name_only`), else is opaque.

Usage:
  kernel_name_reference.py fixture FIXTURE.json      # run the parity fixture
  kernel_name_reference.py bench TRACE_DIR [SECONDS]  # time canonicalize/match
"""

import gzip
import json
import os
import re
import sys
import time

SHORT_NAME_LIMIT = 60
MIN_TOKEN_LEN = 6
IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
WS = frozenset(" \t\n\r\x0c")
OPEN = {"<": ">", "(": ")", "[": "]"}
CLOSE = frozenset(">)]")
JOINERS = frozenset("-.")
# What the bare keyword `operator` takes directly after it (rule 3, name tokens):
# the C++ operator spellings, longest first, plus `.`.
OPERATOR_KEYWORD = "operator"
OPERATOR_SPELLINGS = ("->*", "<=>", "<<=", ">>=",
                      "->", "()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
                      "--", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=",
                      "+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<", ">", ",", ".")


def trim(s):
    return s.strip(" \t\n\r\x0c")


def normalize(s):
    """Whitespace normal form: drop runs, except one space between identifier chars."""
    out = []
    i, n = 0, len(s)
    prev_ident = False
    while i < n:
        saw_ws = False
        while i < n and s[i] in WS:
            saw_ws = True
            i += 1
        if i == n:
            break
        c = s[i]
        i += 1
        if saw_ws and prev_ident and c in IDENT:
            out.append(" ")
        out.append(c)
        prev_ident = c in IDENT
    return "".join(out)


def collapse_ws(s):
    s = trim(s)
    out, in_ws = [], False
    for c in s:
        if c in WS:
            in_ws = True
        else:
            if in_ws:
                out.append(" ")
                in_ws = False
            out.append(c)
    return "".join(out)


def truncate(s, limit):
    return s[:limit].rstrip(" \t\n\r\x0c")


def find_close(s, open_at):
    stack = [OPEN[s[open_at]]]
    for j in range(open_at + 1, len(s)):
        c = s[j]
        if c in OPEN:
            stack.append(OPEN[c])
        elif c in CLOSE and stack[-1] == c:
            stack.pop()
            if not stack:
                return j
    return None


def split_args(content):
    pieces, stack, start = [], [], 0
    for j, c in enumerate(content):
        if c in OPEN:
            stack.append(OPEN[c])
        elif c in CLOSE:
            if stack and stack[-1] == c:
                stack.pop()
        elif c == "," and not stack:
            pieces.append(content[start:j])
            start = j + 1
    pieces.append(content[start:])
    return pieces


def template_from(content, cut):
    kind = "elided" if cut else "complete"
    args, partial = [], None
    if trim(content):
        pieces = [trim(p) for p in split_args(content)]
        for index, piece in enumerate(pieces):
            if normalize(piece).endswith("..."):
                kind = "elided"
                partial = normalize(piece)[:-3] or None
                break
            if cut and index + 1 == len(pieces):
                partial = piece or None
                break
            args.append(piece)
    return {"kind": kind, "args": args, "partial": partial}


def token_end(text, i):
    """End of the name token starting at `text[i]` (an identifier character).

    Identifier runs joined by single `-`/`.` with an identifier character on
    both sides (or, for a last `-`/`.`, the end of the text: a display cut);
    the bare keyword `operator` then takes the operator spelling after it.
    """
    n, start = len(text), i
    while i < n and text[i] in IDENT:
        i += 1
        if i < n and text[i] in JOINERS and (i + 1 == n or text[i + 1] in IDENT):
            i += 1
    if text[start:i] == OPERATOR_KEYWORD:
        for spelling in OPERATOR_SPELLINGS:
            if text.startswith(spelling, i):
                return i + len(spelling)
    return i


def scan(text):
    """Returns (base span, qualification span, template, annotation span)."""
    n = len(text)
    cur = None  # dict(start, ident, ends_with_ident, template, qual_end)
    state = {"candidate": None, "annotation": None, "frozen": False}
    prev = "break"
    last_sep = 0

    def finish():
        nonlocal cur
        if cur is not None:
            if not state["frozen"] and cur["ends_with_ident"] and cur["ident"] is not None:
                state["candidate"] = cur
                state["annotation"] = None
            cur = None

    def offer(open_at, close_at):
        if state["candidate"] is not None and state["annotation"] is None:
            state["annotation"] = (open_at + 1, close_at)

    i = 0
    while i < n:
        c = text[i]
        if c in IDENT:
            start = i
            i = token_end(text, i)
            if state["frozen"]:
                prev = "ident"
                continue
            if cur is not None and prev == "sep":
                cur["ident"] = (start, i)
                cur["ends_with_ident"] = True
                cur["template"] = None
                cur["qual_end"] = last_sep
            else:
                finish()
                cur = {"start": start, "ident": (start, i), "ends_with_ident": True,
                       "template": None, "qual_end": None}
            prev = "ident"
            continue
        if c == ":" and i + 1 < n and text[i + 1] == ":":
            if cur is not None and prev in ("ident", "template", "paren"):
                prev = "sep"
                last_sep = i
            else:
                finish()
                prev = "break"
            i += 2
            continue
        if c in OPEN:
            close = find_close(text, i)
            if close is None:
                if c == "<" and prev == "ident" and not state["frozen"] and cur is not None:
                    cur["template"] = ("cut", i + 1)
                finish()
                break
            attached = prev in ("ident", "template")
            if c == "<":
                if prev == "ident":
                    if not state["frozen"] and cur is not None:
                        cur["template"] = ("complete", i + 1, close)
                    prev = "template"
                else:
                    finish()
                    prev = "break"
            elif c == "(":
                if text[close + 1:close + 3] == "::":
                    if cur is not None and prev in ("ident", "template", "sep"):
                        cur["ends_with_ident"] = False
                    else:
                        finish()
                        cur = {"start": i, "ident": None, "ends_with_ident": False,
                               "template": None, "qual_end": None}
                    prev = "paren"
                elif attached:
                    if not state["frozen"]:
                        finish()
                        state["frozen"] = True
                    prev = "break"
                else:
                    finish()
                    offer(i, close)
                    prev = "break"
            else:
                finish()
                offer(i, close)
                prev = "break"
            i = close + 1
            continue
        finish()
        prev = "break"
        i += 1
    finish()
    chain = state["candidate"]
    if chain is None:
        return (0, 0), None, None, state["annotation"]
    qual = (chain["start"], chain["qual_end"]) if chain["qual_end"] is not None else None
    return chain["ident"], qual, chain["template"], state["annotation"]


def memory_op(text):
    if text.startswith("Memcpy"):
        kind = "memcpy"
    elif text.startswith("Memset"):
        kind = "memset"
    else:
        return None
    rest = text[6:]
    if rest and not (rest[0] in WS or rest[0] in "(["):
        return None
    rest = trim(rest)
    k = 0
    while k < len(rest) and rest[k] in IDENT:
        k += 1
    direction = rest[:k] or None
    rest = trim(rest[k:])
    annotation = None
    if rest:
        if len(rest) >= 2 and ((rest[0], rest[-1]) in (("(", ")"), ("[", "]"))):
            annotation = trim(rest[1:-1])
        else:
            annotation = rest
    return kind, direction, annotation


def _result(symbol, base, qualification, template, annotation, memory, mangling, demangled):
    return {
        "symbol": symbol,
        "base": base,
        "qualification": qualification,
        "template": template,
        "annotation": annotation,
        "memory_op": memory,
        "mangling": mangling,
        "demangled": demangled,
        "truncated": mangling != "opaque" and memory is None and len(base) == SHORT_NAME_LIMIT,
        "degenerate": mangling != "opaque" and memory is None
        and (len(base) < MIN_TOKEN_LEN or base == OPERATOR_KEYWORD),
    }


NO_TEMPLATE = {"kind": "none", "args": [], "partial": None}


SOURCE_NAME = re.compile(r"[A-Za-z0-9_]+")
TAIL = re.compile(r"[A-Za-z0-9_.$]*")


def mangled_name_only(text):
    """Rule 2's fallback: `_Z[L]` then one source name, or `N` (cv/ref
    qualifiers) with `St` and source names, directly followed by `I`: the
    name as text, the rest as one still-mangled template argument."""
    m = re.match(r"_ZL?(N[rVKRO]*)?", text)
    nested, i, parts = m.group(1) is not None, m.end(), []
    while True:
        if nested and not parts and text.startswith("St", i):
            parts.append("std")
            i += 2
            continue
        d = re.match(r"[0-9]+", text[i:])
        if not d:
            break
        start = i + d.end()
        part = text[start:start + int(d.group())]
        if len(part) != int(d.group()) or not SOURCE_NAME.fullmatch(part):
            return None
        parts.append("(anonymous namespace)" if part.startswith("_GLOBAL__N") else part)
        i = start + len(part)
        if not nested:
            break
    tail = text[i:]
    if (not parts or parts[-1].startswith("(") or not tail.startswith("I")
            or not TAIL.fullmatch(tail) or ".." in tail):
        return None
    return "::".join(parts) + "<mangled:" + tail + ">"


def canonicalize(symbol, demangle=None):
    """The canonical form as a dict shaped like the Rust crate's JSON."""
    text = trim(symbol)
    op = memory_op(text)
    if op is not None:
        kind, direction, annotation = op
        r = _result(symbol, "Memcpy" if kind == "memcpy" else "Memset", None, dict(NO_TEMPLATE),
                    collapse_ws(annotation) if annotation is not None else None,
                    {"kind": kind, "direction": direction}, "none", None)
        return _finish(r)
    if text.startswith("_Z"):
        demangled = demangle(text) if demangle else None
        if demangled is None:
            readable = mangled_name_only(text)
            if readable is not None:
                r = canonicalize_name(readable)
                r["symbol"], r["mangling"] = symbol, "name_only"
                return _finish(r)
            r = _result(symbol, text, None, dict(NO_TEMPLATE), None, None, "opaque", None)
            return _finish(r)
        r = canonicalize_name(demangled)
        r["symbol"], r["mangling"], r["demangled"] = symbol, "demangled", demangled
        return _finish(r)
    return _finish(canonicalize_name(text, symbol))


def canonicalize_name(text, symbol=None):
    text = trim(text)
    (bs, be), qual, tmpl, ann = scan(text)
    if tmpl is None:
        template = dict(NO_TEMPLATE)
    elif tmpl[0] == "complete":
        template = template_from(text[tmpl[1]:tmpl[2]], False)
    else:
        template = template_from(text[tmpl[1]:], True)
    template = {"kind": template["kind"], "args": [normalize(a) for a in template["args"]],
                "partial": normalize(template["partial"]) if template["partial"] else None}
    return _result(symbol if symbol is not None else text, text[bs:be],
                   normalize(trim(text[qual[0]:qual[1]])) if qual else None, template,
                   collapse_ws(trim(text[ann[0]:ann[1]])) if ann else None, None, "none", None)


def _finish(r):
    r["short_name"] = short_name_of(r)
    r["identity"] = identity_of(r)
    return r


def short_name_of(r):
    if r["memory_op"] is not None:
        return truncate(collapse_ws(r["symbol"]), SHORT_NAME_LIMIT)
    return truncate(r["base"], SHORT_NAME_LIMIT)


def identity_of(r):
    if r["memory_op"] is not None:
        op = r["memory_op"]
        return "memory:" + op["kind"] + (":" + op["direction"] if op["direction"] else "")
    if r["mangling"] == "opaque":
        return "mangled:" + r["base"]
    t = r["template"]
    if t["kind"] == "none":
        return r["base"]
    parts = list(t["args"])
    if t["kind"] == "elided":
        parts.append((t["partial"] or "") + "...")
    return r["base"] + "<" + ", ".join(parts) + ">"


def short_name(symbol, demangle=None):
    return canonicalize(symbol, demangle)["short_name"]


def _templates_agree(a, b):
    ka, kb = a["kind"], b["kind"]
    if ka == "none" and kb == "none":
        return "exact"
    if ka == "none" or kb == "none":
        return "base_only"
    if ka == "complete" and kb == "complete":
        return "exact" if a["args"] == b["args"] else None
    if ka == "elided" and kb == "complete":
        return "elided_prefix" if _elided_vs_complete(a, b) else None
    if ka == "complete" and kb == "elided":
        return "elided_prefix" if _elided_vs_complete(b, a) else None
    short, long_ = (a, b) if len(a["args"]) <= len(b["args"]) else (b, a)
    return "elided_prefix" if _elided_vs_elided(short, long_) else None


def _elided_vs_complete(e, c):
    k = len(e["args"])
    if len(c["args"]) < k or c["args"][:k] != e["args"]:
        return False
    if e["partial"] is None:
        return True
    return len(c["args"]) > k and c["args"][k].startswith(e["partial"])


def _elided_vs_elided(short, long_):
    k = len(short["args"])
    if long_["args"][:k] != short["args"]:
        return False
    if len(long_["args"]) > k:
        return short["partial"] is None or long_["args"][k].startswith(short["partial"])
    p, q = short["partial"], long_["partial"]
    if p is not None and q is not None:
        return p.startswith(q) or q.startswith(p)
    return True


def match_canonical(a, b):
    if a["memory_op"] is not None or b["memory_op"] is not None:
        if a["memory_op"] == b["memory_op"]:
            return {"is_match": True, "reason": None, "basis": "memory_op"}
        return {"is_match": False, "reason": "memory_op_differs", "basis": None}
    if a["mangling"] == "opaque" or b["mangling"] == "opaque":
        if a["mangling"] == b["mangling"] == "opaque" and a["base"] == b["base"]:
            return {"is_match": True, "reason": None, "basis": "opaque_symbol"}
        return {"is_match": False, "reason": "opaque_symbol_differs", "basis": None}
    if a["degenerate"] or b["degenerate"]:
        return {"is_match": False, "reason": "degenerate_token", "basis": None}
    if a["base"] == b["base"]:
        truncation = False
    elif (a["truncated"] and b["base"].startswith(a["base"])) or (
            b["truncated"] and a["base"].startswith(b["base"])):
        truncation = True
    else:
        return {"is_match": False, "reason": "base_differs", "basis": None}
    if a["qualification"] is not None and b["qualification"] is not None \
            and a["qualification"] != b["qualification"]:
        return {"is_match": False, "reason": "qualification_differs", "basis": None}
    basis = _templates_agree(a["template"], b["template"])
    if basis is None:
        return {"is_match": False, "reason": "template_args_differ", "basis": None}
    return {"is_match": True, "reason": None, "basis": "display_truncation" if truncation else basis}


def matches(want, got, demangle=None):
    return match_canonical(canonicalize(want, demangle), canonicalize(got, demangle))


# ---------------------------------------------------------------- fixture runner

FIXTURE_SCHEMA = "opguard.kernel-name.fixture"
FIXTURE_VERSION = 3
SYMBOL_FIELDS = ("base", "qualification", "template", "annotation", "memory_op", "mangling",
                 "degenerate", "truncated", "short_name", "identity")


def run_fixture(path):
    with open(path, encoding="utf-8") as f:
        fixture = json.load(f)
    if (fixture.get("schema"), fixture.get("schema_version")) != (FIXTURE_SCHEMA, FIXTURE_VERSION):
        print(f"refusing {path}: schema {fixture.get('schema')!r} version "
              f"{fixture.get('schema_version')!r}, this runner knows {FIXTURE_SCHEMA!r} "
              f"version {FIXTURE_VERSION}", file=sys.stderr)
        return 2
    table = {c["symbol"].strip(): c["demangled"] for c in fixture["symbol_cases"]
             if c.get("demangled")}
    demangle = table.get
    failures, total = [], 0
    for case in fixture["symbol_cases"]:
        total += 1
        got = canonicalize(case["symbol"], demangle)
        bad = [k for k in SYMBOL_FIELDS if got[k] != case["expected"][k]]
        if bad:
            failures.append((case["id"], {k: (case["expected"][k], got[k]) for k in bad}))
    for case in fixture["verdict_cases"]:
        total += 1
        got = matches(case["want"], case["got"], demangle)
        exp = case["expected"]
        if (got["is_match"], got["reason"], got["basis"]) != \
                (exp["is_match"], exp["reason"], exp["basis"]):
            failures.append((case["id"], {"expected": exp, "got": got}))
        rev = matches(case["got"], case["want"], demangle)
        if rev != got:
            failures.append((case["id"] + "#symmetric", {"forward": got, "reverse": rev}))
    name = os.path.basename(path)
    for case_id, detail in failures:
        print(f"FAIL {name}::{case_id} {json.dumps(detail)[:2000]}")
    print(f"{name}: {total - len([f for f in failures if '#' not in f[0]])}/{total} cases pass "
          f"({len(failures)} failures); demangling by fixture table ({len(table)} entries)")
    return 1 if failures else 0


# ---------------------------------------------------------------- timing

CATEGORIES = ("kernel", "Kernel", "gpu_memcpy", "gpu_memset", "cuda_profiler_range")


def trace_names(trace_dir):
    names = {}
    for entry in sorted(os.listdir(trace_dir)):
        path = os.path.join(trace_dir, entry)
        with open(path, "rb") as f:
            raw = f.read()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        doc = json.loads(raw.decode("utf-8", errors="replace"))
        events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
        for e in events:
            if isinstance(e, dict) and e.get("cat") in CATEGORIES:
                name = e.get("name")
                if isinstance(name, str):
                    names.setdefault(name, None)
    return list(names)


def _rate(label, fn, items, seconds):
    """Runs `fn` over `items` for `seconds` of CPU time; prints CPU and wall rates."""
    done, start, cpu0 = 0, time.perf_counter(), time.thread_time()
    while time.thread_time() - cpu0 < seconds:
        for item in items:
            fn(item)
        done += len(items)
    elapsed, cpu = time.perf_counter() - start, time.thread_time() - cpu0
    print(f"python {label}: {len(items)} items, {done / cpu:,.0f}/s per CPU-second "
          f"({cpu / done * 1e9:,.0f} ns CPU each; wall {done / elapsed:,.0f}/s)")


def bench(trace_dir, seconds=3.0, fixture=None):
    names = trace_names(trace_dir)
    table = {}
    if fixture:
        with open(fixture, encoding="utf-8") as f:
            table = {c["symbol"].strip(): c["demangled"]
                     for c in json.load(f)["symbol_cases"] if c.get("demangled")}
    demangle = table.get
    plain = [n for n in names if not n.startswith("_Z")]
    print(f"{len(names)} distinct names ({len(names) - len(plain)} `_Z` mangled, demangled by "
          f"table lookup, which costs Python nothing), mean length "
          f"{sum(map(len, names)) // len(names)}")
    _rate("canonicalize/all_distinct_names", lambda n: canonicalize(n, demangle), names, seconds)
    _rate("canonicalize/without_mangled", lambda n: canonicalize(n, demangle), plain, seconds)
    _rate("short_name/all_distinct_names", lambda n: short_name(n, demangle), names, seconds)
    canon = [canonicalize(n, demangle) for n in names]
    k = len(names)
    pairs = [p for i in range(k) for p in ((i, (i * 7 + 3) % k), (i, i))]
    _rate("match/canonicalized_pairs", lambda p: match_canonical(canon[p[0]], canon[p[1]]),
          pairs, seconds)
    _rate("match/from_symbols", lambda p: matches(names[p[0]], names[p[1]], demangle), pairs,
          seconds)


def main(argv):
    if len(argv) >= 3 and argv[1] == "fixture":
        return run_fixture(argv[2])
    if len(argv) >= 3 and argv[1] == "bench":
        seconds = float(argv[3]) if len(argv) > 3 else 3.0
        fixture = argv[4] if len(argv) > 4 else None
        bench(argv[2], seconds, fixture)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
