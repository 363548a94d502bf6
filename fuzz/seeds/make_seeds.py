#!/usr/bin/env python3
"""Writes the committed seed inputs of every fuzz target (deterministic).

Run from anywhere: python3 fuzz/seeds/make_seeds.py
Kernel-name seeds come from the parity fixture; census seeds from
fixtures/census; trace seeds are small hand-written documents covering each
reader branch, plus the first events of a real Kineto trace when
../shared/data is present (only a few KB are kept). Native-format seeds
(XSpace, rocprofv3, SQLite) are real captures cut small: the committed JAX
XSpace always, the shared captures when ../shared/data is present.
"""
import glob, gzip, io, json, os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def write(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gz(data, mtime=0):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=mtime) as f:
        f.write(data)
    return buf.getvalue()


TRACES = {
    "kineto.json": '{"schemaVersion":1,"deviceProperties":[{"id":0}],"traceEvents":['
    '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10.5,"dur":20,"args":{"External id":7}},'
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":3,"args":{"correlation":9,"External id":7}},'
    '{"ph":"s","cat":"ac2g","name":"ac2g","id":9,"pid":1,"tid":1,"ts":12,"bp":"e"},'
    '{"ph":"X","cat":"kernel","name":"void k<4>(float*)","pid":0,"tid":7,"ts":15.25,"dur":4.125,"args":{"correlation":9,"External id":7,"device":0,"stream":7}},'
    '{"ph":"f","cat":"ac2g","name":"ac2g","id":9,"pid":0,"tid":7,"ts":15.25,"bp":"e"}],'
    '"baseTimeNanoseconds":1700000000000000000}',
    "bare.json": '[{"ph":"i","name":"a\\"b\\u00e9\\ud83d\\ude00","s":"g"},{}]',
    "bom.json": "\ufeff[]",
    "bigids.json": '[{"ph":"X","ts":4203669604595.407,"dur":0.0005,"args":{"Comms Id":10159970886766084423,"x":123456789012345678901234567890}}]',
    "nested.json": '{"traceEvents":[{"args":{"a":[[1,{"b":[true,false,null]}]],"e":1e-7}}],"meta":{"k":[1,2]}}',
    "neg.json": '[{"ph":"X","ts":-5,"dur":-3},{"ph":"X","ts":"5"}]',
    "dup.json": '[{"x":1,"x":2},{"ts":1,"ts":2}]',
    "trunc.json": '{"traceEvents":[{"ph":"X","ts":1},{"ph":"X","t',
    "nan.json": '[{"ts":NaN},{"dur":-Infinity}]',
    "quote.json": '[{"ph":"X","name":"f("x")","ts":1}]',
    "trailing.json": '{"traceEvents":[]} x',
    "lone.json": '[{"name":"x\\ud800y"}]',
}
for name, text in TRACES.items():
    write("trace_reader", name, text)
    write("trace_gzip", name, b"\x05" + text.encode())
    write("trace_gzip", "gz_" + name, gz(text.encode())[2:])
write("trace_reader", "gzip_kineto.json.gz", gz(TRACES["kineto.json"].encode()))
write("trace_reader", "invalid_utf8.json", b'[{"name":"ab\xff\xfe"}]')

real = os.path.join(ROOT, "..", "shared", "data", "traces", "hta",
                    "amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz")
if os.path.exists(real):
    with gzip.open(real, "rb") as f:
        head = f.read(6000)
    write("trace_reader", "real_head_truncated.json", head)

# Complete documents of several KiB: with the 1 KiB decode-thread chunks the
# fuzz crate builds opguard-trace with, they cross chunk swaps and the events
# scanned ahead. The events are the project's own torch.distributed recording
# (fixtures/producers); in the second copy every event ends with a string
# holding text that looks like event boundaries (`}, {}, {}`), where the scan
# ahead, starting at the first `{` after `},` past a chunk's middle, guesses
# wrong and records events that are not there.
ddp = os.path.join(ROOT, "fixtures", "producers", "traces", "torch_ddp_rank0.json.gz")
events = json.load(gzip.open(ddp))["traceEvents"][:40]
write("trace_reader", "ddp_events.json", json.dumps({"traceEvents": events}, indent=1))
traps = ["x}, {}, {} y", "},{}", "}, {}", 'a}, {"ph": "X"}, {b']
trapped = [dict(e, note=traps[i % len(traps)]) for i, e in enumerate(events)]
write("trace_reader", "ddp_events_traps.json", json.dumps({"traceEvents": trapped}, indent=1))

rng = random.Random(7)
for i in range(8):
    write("trace_model", f"random_{i}.bin", bytes(rng.randrange(256) for _ in range(64 * (i + 1))))

fixture = json.load(open(os.path.join(ROOT, "fixtures", "kernel-name", "kernel_symbols.json")))
names = []
for case in fixture["symbol_cases"]:
    names.append(case.get("symbol") or case.get("input", {}).get("symbol", ""))
for case in fixture["verdict_cases"]:
    w = case.get("want") or case.get("input", {}).get("want", "")
    g = case.get("got") or case.get("input", {}).get("got", "")
    names.append((w, g))
for i, n in enumerate(names):
    if isinstance(n, tuple):
        data = n[0].encode() + b"\xff" + n[1].encode()
    else:
        data = str(n).encode()
    write("kernel_name", f"fixture_{i:03}", data)
write("kernel_name", "nested", "void " + "a<" * 40 + "(((x)))" + ">" * 40 + "(int)")

cdir = os.path.join(ROOT, "fixtures", "census")
for name in sorted(n for n in os.listdir(cdir) if n.endswith(".json")):
    with open(os.path.join(cdir, name), "rb") as f:
        write("census_capture", name, f.read())

# Alignment maps: every language-neutral map case (with its $ARTIFACT
# placeholder, which the harness replaces by the export's digest).
cases = json.load(open(os.path.join(ROOT, "fixtures", "align", "map_cases.json")))["cases"]
for case in cases:
    write("align_map", f"case_{case['id']}.json", json.dumps(case["map"], indent=1))

# C ABI requests: first byte selects the entry point (index into
# CAPI_ENTRIES in src/lib.rs), the rest is the request.
trace_text = TRACES["kineto.json"]
capture = open(os.path.join(ROOT, "fixtures", "census", "hint_guard_w2.capture.json")).read()
capture8 = open(os.path.join(ROOT, "fixtures", "census", "hint_guard_w8.capture.json")).read()
CAPI = [
    (0, {"symbol": "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)"}),
    (1, {"symbols": ["_ZN2at6native18elementwise_kernelILi128ELi4EEEviT1_", "Memcpy DtoD (Device -> Device)", ""]}),
    (2, {"symbol": "main_kernel[prefill]"}),
    (3, {"want": "clamp_position_kernel", "got": "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)"}),
    (4, {"pairs": [["void", "void"], ["k_kernel<int, ...>", "k_kernel<int>"]]}),
    (5, {"text": trace_text}),
    (5, {"text": TRACES["nan.json"], "reader": {"max_decoded_bytes": 100}}),
    (6, {"capture": json.loads(capture)}),
    (7, {"first": json.loads(capture), "second": json.loads(capture8)}),
]
for i, (sel, req) in enumerate(CAPI):
    write("capi_json", f"request_{i}", bytes([sel]) + json.dumps(req).encode())
write("capi_json", "not_json", b"\x05{\"text\": ")
write("capi_json", "request_launch_regions", bytes([8]) + json.dumps({"artifacts": [{"text": trace_text, "stage": "prefill"}], "top": 3}).encode())
write("capi_json", "request_launch_regions_salvage", bytes([8]) + json.dumps({"artifacts": [{"text": TRACES["trunc.json"]}], "reader": {"salvage": True}}).encode())

# --- Targets added for issue 36 -------------------------------------------

# trace_reader: the bare array without its `]` (the Trace Event Format allows
# it; the harness used to demand serde_json accept it as it is).
write("trace_reader", "array_unterminated.json", '[{"ph":"X","ts":1},\n{}, \n')
write("trace_reader", "trailing_comma.json", '{"traceEvents":[{"ph":"X","ts":1},]}')

# trace_tolerant: five parameter bytes (cut point u16 LE, gzip level, unused,
# mode: 0 cut, 1 trailing comma, 2 gzip cut, 3 invalid byte) and a document.
docs = {
    "kineto": TRACES["kineto.json"],
    "bare": '[{"ph":"X","name":"a","ts":1},{"ph":"X","name":"b\\u00e9","ts":2}]',
    "ddp": json.dumps({"traceEvents": events[:12]}, indent=1),
    "meta_after": '{"traceEvents":[{"ph":"i","name":"x","ts":0}],"displayTimeUnit":"ns","otherData":{"k":"v"}}',
}
for name, doc in docs.items():
    for mode in range(4):
        cut = (len(doc) * (mode + 1)) // 5
        write("trace_tolerant", f"{name}_{mode}", cut.to_bytes(2, "little") + bytes([6, 0, mode]) + doc.encode())

# kernel_memo: four parameter bytes (budget in 16-byte units, field mask),
# operations until 0xFE, symbols split at 0xFF. The symbols are fixture
# names, mangled and not.
memo_symbols = [n if isinstance(n, str) else n[0] for n in names[:40]]
rng = random.Random(36)
for i in range(6):
    pool = rng.sample(memo_symbols, 6) + ["_ZN2at6native18elementwise_kernelILi128ELi4EEEviT1_"]
    ops = bytes(rng.randrange(256) for _ in range(48))
    budget = [0, 64, 1024, 65535, 300, 8][i]
    params = budget.to_bytes(2, "little") + rng.randrange(1 << 13).to_bytes(2, "little")
    write("kernel_memo", f"pool_{i}", params + ops + b"\xfe" + b"\xff".join(s.encode() for s in pool))

# job_document: documents split at 0xFF. Jobs of one rank each, from
# `opguard job --json` over the committed producer traces (the CLI must be
# built: cargo build -p opguard-cli), and the same ranks as rank summaries.
import subprocess
cli = os.environ.get("OPGUARD", os.path.join(ROOT, "target", "debug", "opguard"))
ptraces = os.path.join(ROOT, "fixtures", "producers", "traces")


def one_rank_job(path, name):
    out = subprocess.run([cli, "job", "--json", "--top", "2", path], check=True,
                         capture_output=True, text=True).stdout
    job = json.loads(out.splitlines()[-1])
    for r in job["ranks"]:
        r["file"] = name
    for f in job["frames"]:
        f["slowest_file"] = name
        for c in f["per_rank"]:
            c["file"] = name
    # Keep documents small: the ten most expensive frames.
    job["frames"] = job["frames"][:10]
    return job


def as_rank_summary(job):
    return {"format": "opguard.job.rank/v1", "rank": job["ranks"][0], "frames": sorted(
        ({"id": f["id"], "category": f["category"], "name": f["name"],
          "kernel_identity": f["kernel_identity"], "cost_ns": f["per_rank"][0]["cost_ns"],
          "count": f["per_rank"][0]["count"]} for f in job["frames"]), key=lambda f: f["id"])}


if os.path.exists(cli):
    jobs = {n: one_rank_job(os.path.join(ptraces, n + ".json.gz"), n + ".json.gz")
            for n in ["torch_ddp_rank0", "torch_ddp_rank1", "torch_cpu_noshapes"]}
    j0, j1, jc = jobs["torch_ddp_rank0"], jobs["torch_ddp_rank1"], jobs["torch_cpu_noshapes"]
    dump = lambda d: json.dumps(d).encode()
    write("job_document", "two_ranks", dump(j0) + b"\xff" + dump(j1))
    write("job_document", "three_ranks", dump(j0) + b"\xff" + dump(as_rank_summary(j1)) + b"\xff" + dump(jc))
    write("job_document", "rank_summaries", dump(as_rank_summary(j0)) + b"\xff" + dump(as_rank_summary(jc)))
    write("job_document", "same_rank_twice", dump(j0) + b"\xff" + dump(j0) + b"\xff" + dump({"format": "opguard.job/v1", "ranks": [], "frames": []}))
    # capi_json: the same documents through opguard_job_merge (entry 9).
    write("capi_json", "request_job_merge", bytes([9]) + json.dumps({"summaries": [j0, as_rank_summary(j1), jc]}).encode())

# seam_request: a request, then traces split at 0xFF (written as t0.json,
# t1.json beside the fixture capture attention.pid-4242.json.gz).
sdir = os.path.join(ROOT, "fixtures", "select")
for name in sorted(n for n in os.listdir(sdir) if n.endswith(".request.json")):
    with open(os.path.join(sdir, name), "rb") as f:
        write("seam_request", name, f.read())
seam_trace = json.dumps({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "opguard.seam::pkg.mod:target", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 3, "External id": 4}},
    {"ph": "X", "cat": "kernel", "name": "void my_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"correlation": 3, "External id": 4, "device": 0, "stream": 7}},
]})
seam_request = {"protocol_version": 1, "target": "pkg.mod:target", "device_kernel": "my_kernel",
                "capture_target": "pkg.mod:target",
                "candidates": [{"spec": "pkg.mod:outer", "declared_depth": 0, "marker": None},
                               {"spec": "pkg.mod:target", "declared_depth": 1, "marker": None}],
                "processes": [{"name": "p0", "trace": "t0.json", "installed": ["pkg.mod:outer", "pkg.mod:target"], "refused": []},
                              {"name": "p1", "trace": "t1.json", "installed": ["pkg.mod:target"], "refused": []}]}
write("seam_request", "two_processes", json.dumps(seam_request).encode() + b"\xff" + seam_trace.encode() + b"\xff" + seam_trace.encode())

# scaling_trials: a trials document, then up to three traces (t0.json, ...,
# beside seed 003's t1.json.gz, t2.json.gz, t3.json.gz).
s3 = os.path.join(ROOT, "fixtures", "scaling", "seed003")
for name in sorted(n for n in os.listdir(s3) if n.endswith(".trials.json") or n == "trials.json"):
    with open(os.path.join(s3, name), "rb") as f:
        write("scaling_trials", name, f.read())


def scan_trace(cost):
    return json.dumps({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": cost},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": cost + 1, "dur": 2}]})


inline_trials = {"trials": [{"id": f"i{i}", "input": i, "variant": "v", "traces": [f"t{i}.json"]} for i in range(3)]}
write("scaling_trials", "inline_traces", json.dumps(inline_trials).encode() + b"".join(b"\xff" + scan_trace(c).encode() for c in (5, 9, 30)))

# scaling_correlation is structured (arbitrary): random bytes.
for i in range(6):
    write("scaling_correlation", f"random_{i}.bin", bytes(rng.randrange(256) for _ in range(48 * (i + 1))))

# capi_json: inline seam request and trials document, their traces in the
# scratch directory ("base": "$SANDBOX").
with open(os.path.join(sdir, "0720_inner_launcher.request.json")) as f:
    write("capi_json", "request_seam_inline", bytes([10]) + json.dumps({"request": json.load(f), "base": "$SANDBOX"}).encode())
with open(os.path.join(s3, "trials.json")) as f:
    write("capi_json", "request_trials_inline", bytes([11]) + json.dumps({"trials": json.load(f), "base": "$SANDBOX", "metric": "self_ns"}).encode())


# --- Native formats (issue 36). Seeds are real captures cut small: the fuzz
# runs mutate inputs of at most 64 KiB. The shared captures are read when
# ../shared/data is present; the committed JAX XSpace always is.
SHARED = os.path.join(ROOT, "..", "shared", "data")


def pb_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def pb_fields(b):
    """(number, wire type, value, raw bytes of the whole field) in order."""
    i, out = 0, []
    while i < len(b):
        start = i
        key, i = pb_varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = pb_varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = pb_varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v, b[start:i]))
    return out


def pb_enc_varint(v):
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7


def pb_len(num, payload):
    return pb_enc_varint(num << 3 | 2) + pb_enc_varint(len(payload)) + payload


def cut_xplane(plane, events_per_line, lines_per_plane):
    """An XPlane with its first lines and their first events, and only the
    event metadata those events name (without the serialized HLO an
    XEventMetadata.metadata of /host:metadata holds)."""
    fields = pb_fields(plane)
    out, used, lines = bytearray(), set(), 0
    for num, wt, v, raw in fields:
        if num == 3 and wt == 2:
            if lines >= lines_per_plane:
                continue
            lines += 1
            line, events = bytearray(), 0
            for lnum, lwt, lv, lraw in pb_fields(v):
                if lnum == 4 and lwt == 2:
                    if events >= events_per_line:
                        continue
                    events += 1
                    for enum_, ewt, ev, _ in pb_fields(lv):
                        if enum_ == 1 and ewt == 0:
                            used.add(ev)
                line += lraw
            out += pb_len(3, bytes(line))
        elif num != 4:
            out += raw
    for num, wt, v, raw in fields:
        if num == 4 and wt == 2:
            entry = pb_fields(v)
            key = next((ev for n, w, ev, _ in entry if n == 1 and w == 0), 0)
            if key in used:
                kept = bytearray()
                for n, w, ev, r in entry:
                    if n == 2 and w == 2:
                        r = pb_len(2, b"".join(mr for mn, mw, _, mr in pb_fields(ev) if mn != 3))
                    kept += r
                out += pb_len(4, bytes(kept))
    return bytes(out)


def cut_xspace(data, planes, events_per_line, lines_per_plane):
    out = bytearray()
    kept = 0
    for num, wt, v, raw in pb_fields(data):
        if num == 1 and wt == 2:
            if kept >= planes:
                continue
            kept += 1
            out += pb_len(1, cut_xplane(v, events_per_line, lines_per_plane))
        else:
            out += raw
    return bytes(out)


xspaces = [("jax_tensorboard", os.path.join(ROOT, "fixtures", "producers", "traces", "jax_tensorboard.xplane.pb"))]
for name in sorted(glob.glob(os.path.join(SHARED, "xplane", "*.xplane.pb"))):
    xspaces.append((os.path.basename(name)[:-len(".xplane.pb")], name))
for label, path in xspaces:
    with open(path, "rb") as f:
        data = f.read()
    for planes, events, lines in ((64, 3, 4), (2, 2, 2)):
        cut = cut_xspace(data, planes, events, lines)
        assert len(cut) <= 65536, (label, len(cut))
        write("xspace_reader", f"{label}_p{planes}_e{events}.xplane.pb", cut)
# Hand-made faults on a cut: the first plane cut in the middle (truncated
# length), a varint of eleven bytes, a group's wire type.
with open(xspaces[0][1], "rb") as f:
    small = cut_xspace(f.read(), 2, 2, 2)
write("xspace_reader", "cut_in_first_plane.xplane.pb", small[: len(small) // 2])
write("xspace_reader", "varint_too_long.xplane.pb", small[:2] + b"\x08" + b"\xff" * 10 + b"\x01" + small[2:])
write("xspace_reader", "group_wire_type.xplane.pb", b"\x0b" + small[1:])


def csv_head(path, rows, also=()):
    """The header, the first `rows` data rows, and any row holding one of
    the strings in `also` (a line ends at a line break)."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    keep = lines[:1 + rows] + [l for l in lines[1 + rows:] if any(a in l for a in also)]
    return b"\n".join(keep) + b"\n"


rocprof_dir = os.path.join(SHARED, "rocprof")
kernel_csv = os.path.join(rocprof_dir, "prefill_kernel_trace.csv")
if os.path.exists(kernel_csv):
    import subprocess, tempfile
    api = open(os.path.join(rocprof_dir, "prefill_hip_api_trace.csv"), "rb").read()
    kernels = csv_head(kernel_csv, 12)
    # Mode 1: the capture's files (kernel trace, HIP API trace, ...) split at 0xFF.
    write("rocprof_capture", "csv_kernels_and_api", b"\x01" + kernels + b"\xff" + api)
    write("rocprof_capture", "csv_kernels_only", b"\x01" + kernels)
    # Mode 2: one file named *.csv, whatever it holds.
    write("rocprof_capture", "csv_single_api_file", b"\x02" + api)
    with tempfile.TemporaryDirectory() as tmp:
        cut = os.path.join(tmp, "prefill_kernel_trace.csv")
        with open(cut, "wb") as f:
            f.write(kernels)
        with open(os.path.join(tmp, "prefill_hip_api_trace.csv"), "wb") as f:
            f.write(api)
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        subprocess.run([sys.executable, os.path.join(ROOT, "opguard-rocprof", "tests", "data", "make_captures.py"), cut, out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "results.json"), "rb") as f:
            document = f.read()
        # Mode 0: the JSON document.
        write("rocprof_capture", "json_document", b"\x00" + document)
        # 512-byte pages: about 48 KB instead of 128 KB, the same rows.
        import sqlite3
        db = sqlite3.connect(os.path.join(out, "results.db"))
        db.execute("PRAGMA page_size = 512")
        db.execute("VACUUM")
        db.close()
        with open(os.path.join(out, "results.db"), "rb") as f:
            rocpd = f.read()
        assert len(rocpd) <= 65536, len(rocpd)
        write("sqlite_capture", "rocpd_from_cut_csv.db", rocpd)

# Nsight Systems: the small real export with the tables the reader does not
# read dropped, StringIds cut to the strings its rows name, and 512-byte
# pages (about 50 KB, from 372 KB).
mock = os.path.join(SHARED, "nsys", "nsys-ai_mock.sqlite")
if os.path.exists(mock):
    import shutil, sqlite3, tempfile
    read_tables = {
        "StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
        "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME", "PROCESSES", "ThreadNames",
        "TARGET_INFO_GPU", "ENUM_NSYS_EVENT_TYPE", "ENUM_NSYS_EVENT_CLASS", "ENUM_CUDA_MEM_KIND",
        "META_DATA_EXPORT", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUPTI_SYNC_TYPE",
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cut.sqlite")
        shutil.copyfile(mock, path)
        db = sqlite3.connect(path)
        for (t,) in list(db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")):
            if t not in read_tables:
                db.execute(f'DROP TABLE "{t}"')
        for (ix,) in list(db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '_nsysai%'")):
            db.execute(f'DROP INDEX "{ix}"')
        named = set()
        for t in ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_MEMCPY",
                  "CUPTI_ACTIVITY_KIND_RUNTIME", "PROCESSES", "ThreadNames", "TARGET_INFO_GPU"]:
            for row in db.execute(f'SELECT * FROM "{t}"'):
                named.update(v for v in row if isinstance(v, int))
        db.execute("DELETE FROM StringIds WHERE id NOT IN (%s)" % ",".join(map(str, sorted(named))))
        pids = [r[0] for r in db.execute("SELECT DISTINCT globalTid >> 24 FROM CUPTI_ACTIVITY_KIND_RUNTIME")]
        db.execute("DELETE FROM ThreadNames WHERE globalTid >> 24 NOT IN (%s)" % ",".join(map(str, pids)))
        db.execute("DELETE FROM PROCESSES WHERE globalPid >> 24 NOT IN (%s)" % ",".join(map(str, pids)))
        db.commit()
        db.execute("PRAGMA page_size = 512")
        db.execute("VACUUM")
        db.close()
        with open(path, "rb") as f:
            export = f.read()
    assert len(export) <= 65536, len(export)
    write("sqlite_capture", "nsys_mock_cut.sqlite", export)
    # Cut at a page boundary and in the middle of a page.
    write("sqlite_capture", "nsys_mock_cut_first_half.sqlite", export[: (len(export) // 1024) * 512])
    write("sqlite_capture", "nsys_mock_cut_mid_page.sqlite", export[: len(export) - 300])

# table_stream: byte 0 the table (device, host, launches, metadata, a name
# that is none; for two streams the second at / 5), byte 1 batch_rows (0xFF:
# not given), byte 2 the consumer plan (bit 0 schema, bit 1 keep a batch past
# the release, bits 2-5 batches to read, 15 all, bit 6 two streams, bit 7
# count one too many); the rest a committed producer trace as it is (gzip).
def plan(schema=False, keep=False, k=15, two=False, extra=False):
    return schema | keep << 1 | k << 2 | two << 6 | extra << 7

prod = os.path.join(ROOT, "fixtures", "producers", "traces")
STREAMS = [
    ("torch_ddp_rank0.json.gz", 0, 4, plan(schema=True, keep=True)),
    ("torch_ddp_rank0.json.gz", 1, 1, plan(k=2, keep=True)),
    ("torch_ddp_rank0.json.gz", 0 + 5 * 1, 3, plan(schema=True, keep=True, two=True)),
    ("torch_inductor.json.gz", 2, 0xFF, plan(k=0)),
    ("torch_inductor.json.gz", 0 + 5 * 2, 2, plan(k=1, keep=True, two=True)),
    ("torch_cpu_noshapes.json.gz", 1, 7, plan(schema=True)),
    ("jax_perfetto_trace.json.gz", 3, 0xFF, plan(schema=True, keep=True)),
    ("jax_tensorboard.trace.json.gz", 0, 5, plan(k=1)),
    ("chrome_user_timing.json.gz", 1 + 5 * 3, 16, plan(two=True)),
    ("viztracer.json.gz", 1, 0, plan()),
    ("torch_ddp_rank1.json.gz", 4, 8, plan()),
    ("torch_ddp_rank2.json.gz", 0 + 5 * 1, 8, plan(two=True, extra=True)),
]
for name, pick, rows, p in STREAMS:
    with open(os.path.join(prod, name), "rb") as f:
        data = f.read()
    assert len(data) + 3 <= 65536, name
    stem = name.split(".")[0]
    write("table_stream", f"{stem}_{pick}_{rows}_{p:02x}", bytes([pick, rows, p]) + data)
write("table_stream", "kineto_plain", bytes([0, 1, plan(schema=True, keep=True)]) + TRACES["kineto.json"].encode())
write("table_stream", "not_a_trace", bytes([0, 1, plan()]) + b"\x00\x01 not a capture")
