#!/usr/bin/env bash
# Runs the Python reference of the opguard-kernel-name rules: first the parity
# fixture (proves the fixture needs only a JSON parser), then the same
# workloads as benches/benches/kernel_name.rs over the same distinct names.
#   benches/peers/run_kernel_name_reference.sh [seconds-per-workload]
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 benches/peers/kernel_name_reference.py fixture fixtures/kernel-name/kernel_symbols.json
python3 benches/peers/kernel_name_reference.py bench ../shared/data/traces/hta "${1:-5}" \
    fixtures/kernel-name/kernel_symbols.json
