#!/usr/bin/env bash
# examples/ray_job.py on a local Ray instance, against `opguard job --json`
# on the same files: the same document byte for byte, the same exit status,
# and a really slowed rank named slowest. The ranks are copies of a real
# rank trace (../shared/data) with only distributedInfo.rank rewritten, one
# with its kernels 3x slower, plus a cut-off copy. Ray is installed into the
# bindings' venv on first run (pinned; about 1.5 minutes on 2 busy cores).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=../scripts/lib.sh
. "$root/scripts/lib.sh"

shared_data_or_skip "the Ray example test (examples/ray_job_test.sh)" || exit 0
data="$root/../shared/data/traces/hta"

venv="$root/bindings/python/.venv"
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r "$root/bindings/python/requirements-test.txt"
fi
if ! "$venv/bin/python" -c "import ray" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ray==2.60.0"
fi

target="${CARGO_TARGET_DIR:-$root/target}"
cargo build -q --release -p opguard-capi
cargo build -q -p opguard-cli
export OPGUARD_LIB="$target/release/libopguard_capi.so"
[ "$(uname -s)" = Darwin ] && export OPGUARD_LIB="$target/release/libopguard_capi.dylib"
# The example imports the package as installed; here, from the source tree.
export PYTHONPATH="$root/bindings/python${PYTHONPATH:+:$PYTHONPATH}"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$venv/bin/python" - "$data/trace_filter__sampled_rank-0.json.gz" "$scratch" <<'PY'
import gzip, json, sys
src, out = sys.argv[1], sys.argv[2]
raw = open(src, "rb").read()
for rank in range(4):
    doc = json.load(gzip.open(src))
    doc["distributedInfo"]["rank"] = rank
    if rank == 2:
        for e in doc["traceEvents"]:
            if e.get("cat") == "kernel" and "dur" in e:
                e["dur"] = round(e["dur"] * 3)
    with gzip.open(f"{out}/rank{rank}.json.gz", "wt", encoding="utf-8") as f:
        json.dump(doc, f)
open(f"{out}/rank9-cut.json.gz", "wb").write(raw[: len(raw) // 2])
PY

ranks=("$scratch"/rank*.json.gz)
cli_status=0
"$target/debug/opguard" job --json --jobs 2 "${ranks[@]}" >"$scratch/cli.json" 2>/dev/null || cli_status=$?
ray_status=0
"$venv/bin/python" examples/ray_job.py --fan-in 2 "${ranks[@]}" >"$scratch/ray.json" 2>"$scratch/ray.err" || ray_status=$?
if ! cmp -s "$scratch/cli.json" "$scratch/ray.json"; then
    echo "error: examples/ray_job.py and opguard job --json differ" >&2
    diff <(tr ',' '\n' <"$scratch/cli.json") <(tr ',' '\n' <"$scratch/ray.json") | head -20 >&2
    tail -20 "$scratch/ray.err" >&2
    exit 1
fi
if [ "$cli_status" -ne 2 ] || [ "$ray_status" -ne 2 ]; then
    echo "error: a cut-off rank must give exit 2 (cli $cli_status, ray $ray_status)" >&2
    exit 1
fi
# The cut rank's error as `opguard trace info` says it: message and place.
alone="$("$target/debug/opguard" trace info "$scratch/rank9-cut.json.gz" 2>&1 | head -1 || true)"
want="error[trace.${alone#error[}"
want="${want/: /: $scratch/rank9-cut.json.gz: }"
if ! grep -qxF "$want" "$scratch/ray.err"; then
    echo "error: examples/ray_job.py did not print: $want" >&2
    tail -5 "$scratch/ray.err" >&2
    exit 1
fi
"$venv/bin/python" - "$scratch/ray.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
assert [r["rank"] for r in job["ranks"]] == [None, 0, 1, 2, 3], job["ranks"]
assert job["ranks"][0]["error"]["code"].startswith("trace."), job["ranks"][0]["error"]
top = job["frames"][0]
assert top["slowest_rank"] == 2, top
print(f"ray_job.py == opguard job --json ({len(job['frames'])} frames, "
      f"slowest rank {top['slowest_rank']} for {top['name'][:40]})")
PY
