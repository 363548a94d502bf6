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
fi
