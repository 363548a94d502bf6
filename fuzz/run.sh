#!/usr/bin/env bash
# Runs every fuzz target for a fixed budget (seconds, default 300 each), one
# after another, on stable Rust through RUSTC_BOOTSTRAP=1 (see README.md).
# Not part of CI. Findings land in fuzz/artifacts/<target>/; copy each into
# fuzz/regressions/<target>/ (fixed) or fuzz/regressions-open/<target>/
# (reported, not yet fixed) and commit it.
#
#   fuzz/run.sh [budget_seconds] [target ...]
set -euo pipefail
cd "$(dirname "$0")"
budget="${1:-300}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    # Every target, one input surface each (README.md, "Targets").
    targets=(trace_reader trace_gzip trace_tolerant trace_model kernel_name
        kernel_memo census_capture align_map job_document seam_request
        scaling_trials scaling_correlation capi_json xspace_reader
        rocprof_capture sqlite_capture table_stream)
fi
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/work/target-fuzz}"
# No sanitizer: every crate fuzzed here is #![forbid(unsafe_code)], so
# AddressSanitizer only slows the search (about 3x); libFuzzer still finds
# panics, overflow (debug assertions are on: -a), timeouts and RSS blow-ups.
flags=(-O -a -s none --features libfuzzer)
cargo fuzz build "${flags[@]}"
mkdir -p runs
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    max_len=65536
    [ "$t" = kernel_name ] && max_len=16384
    echo "==> $t for ${budget}s"
    # -timeout: one input taking longer than 10 s is a hang.
    # -rss_limit_mb / -malloc_limit_mb: one input needing more than 2 GiB is
    # a memory-exhaustion finding.
    cargo fuzz run "${flags[@]}" "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048 \
        -malloc_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
        2>&1 | grep -v -E '^#[0-9]+' | tail -n 200 > "runs/$t.log" || echo "    $t stopped with a finding (see runs/$t.log, artifacts/$t/)"
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|Test unit written|panicked" "runs/$t.log" || true
done
