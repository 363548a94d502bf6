"""Build a large PyTorch profiler trace from the real events of a real one.

The events of INPUT (a Kineto trace recorded with record_shapes, e.g.
../shared/data/traces/hta/trace_filter__sampled_rank-0.json.gz) are written
again and again, each copy shifted in time by the input's span so copies do
not overlap, until the decoded JSON reaches --bytes. Event text is copied
verbatim except for "ts", which is shifted exactly (Decimal, never float).
Top-level keys other than traceEvents are kept once. Used for the 258 MB read
and export measurements in benches/RESULTS.md; the output is not committed.

    python3 benches/peers/big_torch_trace.py INPUT OUT.json --bytes 270000000
"""
import argparse
import gzip
import json
import re
from decimal import Decimal

TS = re.compile(r'("ts"\s*:\s*)(-?\d+(?:\.\d+)?)')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("out")
    ap.add_argument("--bytes", type=int, default=270_000_000)
    a = ap.parse_args()
    raw = gzip.open(a.input).read() if a.input.endswith(".gz") else open(a.input, "rb").read()
    text = raw.decode("utf-8")
    doc = json.loads(text, parse_float=Decimal)
    decoder = json.JSONDecoder()
    start = text.index("[", text.index('"traceEvents"')) + 1
    events, i = [], start
    while True:
        while text[i] in " \t\r\n,":
            i += 1
        if text[i] == "]":
            break
        _, end = decoder.raw_decode(text, i)
        events.append(text[i:end])
        i = end
    stamps = [Decimal(e["ts"]) for e in doc["traceEvents"] if "ts" in e and e.get("ph") != "M"]
    span = max(stamps) - min(stamps) + 1000
    meta = {k: v for k, v in doc.items() if k != "traceEvents"}
    written, copy = 0, 0
    with open(a.out, "w", encoding="utf-8") as f:
        f.write('{"traceEvents":[\n')
        first = True
        while written < a.bytes:
            shift = span * copy
            for e in events:
                if not first:
                    f.write(",\n")
                first = False
                shifted = TS.sub(lambda m: m.group(1) + str(Decimal(m.group(2)) + shift), e, count=1)
                f.write(shifted)
                written += len(shifted) + 2
            copy += 1
        f.write("\n]")
        for k, v in meta.items():
            f.write(",\n" + json.dumps(k) + ":" + json.dumps(v, default=str))
        f.write("}\n")
    print(f"{a.out}: {copy} copies of {len(events)} events")


if __name__ == "__main__":
    main()
