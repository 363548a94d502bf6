"""Independent referee for opguard-xplane: decodes an XSpace (.xplane.pb) by
hand, with nothing but the Python standard library, and prints what the Rust
reader must agree with, as JSON.

Usage: referee.py FILE

The wire format is decoded from the protobuf encoding rules and the field
numbers of xplane.proto, without generated code: varints, length-delimited
fields, the two map fields as entry messages. Times stay Python integers
(picoseconds), so nothing rounds.

Output:
  planes: [{name, lines: [{name, id, timestamp_ns, events, dur_ps}], events,
           stats: {name: int or str}}]
  events: [[index, plane, line, name, ts_ps, dur_ps, correlation_id, ts_ns, dur_ns]]
          (nanoseconds rounded half to even)
  launches: host events with a correlation_id
  device: GPU stream events, with whether exactly one host event carries
          their correlation_id (a proven launch)
"""
import json
import sys
from fractions import Fraction


def varint(buf, pos):
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def fields(buf):
    """(number, wire_type, value) of one message; LEN values are bytes."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = int.from_bytes(buf[pos:pos + 8], "little"), pos + 8
        elif wire == 2:
            n, pos = varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
            if len(value) != n:
                raise ValueError("cut")
        elif wire == 5:
            value, pos = int.from_bytes(buf[pos:pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def stat(buf):
    out = {"metadata_id": 0, "value": None}
    for n, w, v in fields(buf):
        if n == 1:
            out["metadata_id"] = signed(v)
        elif n in (3, 7):  # uint64, ref
            out["value"] = ("ref" if n == 7 else "int", v)
        elif n == 4:
            out["value"] = ("int", signed(v))
        elif n == 5:
            out["value"] = ("str", v.decode())
        elif n in (2, 6, 8):
            out["value"] = ("other", None)
    return out


def plane(buf):
    p = {"name": "", "lines": [], "event_metadata": {}, "stat_metadata": {}, "stats": []}
    for n, w, v in fields(buf):
        if n == 6:
            p["stats"].append(stat(v))
        elif n == 2:
            p["name"] = v.decode()
        elif n == 3:
            p["lines"].append(v)
        elif n in (4, 5):
            key, value = 0, b""
            for en, ew, ev in fields(v):
                if en == 1:
                    key = signed(ev)
                elif en == 2:
                    value = ev
            meta = {"name": "", "display_name": "", "stats": []}
            for mn, mw, mv in fields(value):
                if mn == 2:
                    meta["name"] = mv.decode()
                elif mn == 4 and n == 4:
                    meta["display_name"] = mv.decode()
                elif mn == 5 and n == 4:
                    meta["stats"].append(stat(mv))
            p["event_metadata" if n == 4 else "stat_metadata"][key] = meta
    return p


def main():
    data = open(sys.argv[1], "rb").read()
    out = {"planes": [], "events": [], "launches": [], "device": []}
    index = 0
    host_correlations = {}
    device = []
    for n, w, v in fields(data):
        if n != 1:
            continue
        p = plane(v)
        stat_names = {k: m["name"] for k, m in p["stat_metadata"].items()}
        summary = {"name": p["name"], "lines": [], "events": 0, "stats": {}}
        for s in p["stats"]:
            if s["value"] and s["value"][0] in ("int", "str"):
                summary["stats"][stat_names.get(s["metadata_id"], "")] = s["value"][1]
        for line_bytes in p["lines"]:
            line = {"name": "", "id": 0, "timestamp_ns": 0, "events": 0, "dur_ps": 0}
            events = []
            for ln, lw, lv in fields(line_bytes):
                if ln == 1:
                    line["id"] = signed(lv)
                elif ln == 2:
                    line["name"] = lv.decode()
                elif ln == 3:
                    line["timestamp_ns"] = signed(lv)
                elif ln == 4:
                    events.append(lv)
            for e in events:
                meta_id, offset, dur, stats = 0, 0, 0, []
                for en, ew, ev in fields(e):
                    if en == 1:
                        meta_id = signed(ev)
                    elif en == 2:
                        offset = signed(ev)
                    elif en == 3:
                        dur = signed(ev)
                    elif en == 4:
                        stats.append(stat(ev))
                meta = p["event_metadata"].get(meta_id, {"name": "", "stats": []})
                correlation = None
                for s in stats + meta["stats"]:
                    if stat_names.get(s["metadata_id"]) == "correlation_id" and correlation is None:
                        correlation = s["value"][1]
                ts_ps = line["timestamp_ns"] * 1000 + offset
                # round() of a Fraction rounds half to even.
                ts_ns, dur_ns = round(Fraction(ts_ps, 1000)), round(Fraction(dur, 1000))
                row = [index, p["name"], line["name"], meta["name"], ts_ps, dur, correlation, ts_ns, dur_ns]
                out["events"].append(row)
                line["events"] += 1
                line["dur_ps"] += dur
                if p["name"] == "/host:CPU" and correlation is not None:
                    out["launches"].append(row)
                    host_correlations[correlation] = host_correlations.get(correlation, 0) + 1
                if p["name"].startswith("/device:GPU:") and line["name"].startswith("Stream #"):
                    device.append(row)
                index += 1
            summary["lines"].append(line)
            summary["events"] += line["events"]
        out["planes"].append(summary)
    for row in device:
        out["device"].append(row + [host_correlations.get(row[6], 0) == 1])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
