#!/usr/bin/env bash
# The report's browser test: renders `opguard report` for the shipped default
# input, for real traces from ../shared/data and for a real job (`--job`),
# opens each page in Debian's headless chromium (through playwright-core,
# pinned by package-lock.json) and checks the rendered DOM against what it was
# drawn from: `opguard inspect --json` of the same traces, or the job
# document. Screenshots stay in target/report-browser/ as CI artifacts.
# Installs node_modules (npm ci) when missing, and Debian's chromium when
# missing and installable (scripts/lib.sh); without it the test is skipped.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
# shellcheck source=../lib.sh
. "$root/scripts/lib.sh"

debian_package chromium chromium "the report's browser test (scripts/report-browser)" || exit 0
if [ ! -d "$here/node_modules/playwright-core" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --silent)
fi

cargo build -q -p opguard-cli
opguard="${CARGO_TARGET_DIR:-$root/target}/debug/opguard"
out="${CARGO_TARGET_DIR:-$root/target}/report-browser"
rm -rf "$out"
mkdir -p "$out"

# name, then the traces (none: the default input)
check() {
    local name="$1"
    shift
    "$opguard" report --out "$out/$name.html" "$@" >/dev/null
    # inspect's exit status is 1 when the seam verdict refuses: not an error here.
    "$opguard" inspect --json "$@" >"$out/$name.inspect.json" || [ $? -eq 1 ]
    node "$here/check.mjs" "$out/$name.html" "$out/$name.inspect.json" "$out/$name.png"
}

check default
# A whole job: the real torch.distributed ranks committed in fixtures/producers,
# reduced by `opguard job --json`, drawn by `opguard report --job`.
"$opguard" job --json "$root"/fixtures/producers/traces/torch_ddp_rank*.json.gz >"$out/ddp-job.json"
"$opguard" report --out "$out/ddp-job.html" --job "$out/ddp-job.json" >/dev/null
node "$here/check.mjs" "$out/ddp-job.html" "$out/ddp-job.json" "$out/ddp-job.png"
if shared_data_or_skip "the report's browser test on real traces"; then
    data="$root/../shared/data/traces/hta"
    check sampled-ranks "$data/trace_filter__sampled_rank-0.json.gz" "$data/trace_filter__sampled_rank-1.json.gz"
    # Collectives on the device: communication exposed and overlapped.
    check nccl "$data/nccl_parser_config__nccl_data.json.gz"
    # No device activity at all: the host threads' activity is drawn.
    check cpu-only "$data"/cpu_only__*.json.gz
    # A comparison: the real pair (two steps a side: undecided), and real
    # runs made slower (four noisy copies a side of the base run, its longest
    # kernel 30% slower in the candidate's: the gate fails, that kernel first).
    "$opguard" compare --json --baseline "$data/trace_compare__base__base.json.gz" \
        --candidate "$data/trace_compare__test__test.json.gz" >"$out/pair.compare.json" 2>/dev/null
    "$opguard" report --out "$out/pair.compare.html" --compare "$out/pair.compare.json" >/dev/null
    node "$here/check.mjs" "$out/pair.compare.html" "$out/pair.compare.json" "$out/pair.compare.png"
    python3 - "$data/trace_compare__base__base.json.gz" "$out/slowed" <<'PY'
import gzip, json, os, sys
src, out = sys.argv[1], sys.argv[2]
kernels = [e for e in json.load(gzip.open(src))["traceEvents"] if e.get("cat") == "kernel"]
longest = max(kernels, key=lambda e: e["dur"])["name"]
for side, slow in (("base", 1.0), ("cand", 1.3)):
    os.makedirs(f"{out}/{side}", exist_ok=True)
    for i, scale in enumerate((1.0, 1.02, 0.98, 1.01)):
        doc = json.load(gzip.open(src))
        for e in doc["traceEvents"]:
            if e.get("cat") == "kernel":
                e["dur"] = round(e["dur"] * scale * (slow if e["name"] == longest else 1.0))
        with gzip.open(f"{out}/{side}/run{i}.json.gz", "wt") as f:
            json.dump(doc, f)
PY
    "$opguard" compare --json --baseline "$out/slowed/base" --candidate "$out/slowed/cand" \
        >"$out/slowed.compare.json" || [ $? -eq 1 ]
    "$opguard" report --out "$out/slowed.compare.html" --compare "$out/slowed.compare.json" >/dev/null
    node "$here/check.mjs" "$out/slowed.compare.html" "$out/slowed.compare.json" "$out/slowed.compare.png"
fi
