#!/usr/bin/env python3
"""Writes the committed seed inputs of every fuzz target (deterministic).

Run from anywhere: python3 fuzz/seeds/make_seeds.py
Kernel-name seeds come from the parity fixture; census seeds from
fixtures/census; trace seeds are small hand-written documents covering each
reader branch, plus the first events of a real Kineto trace when
../shared/data is present (only a few KB are kept).
"""
import gzip, io, json, os, random

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
