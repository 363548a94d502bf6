#!/usr/bin/env bash
# Per-call overhead of opguard_kernel_match from C, Python and Node, and the
# Python corpus loop (binding vs the pure-Python reference).
#   benches/peers/binding_overhead.sh [seconds-per-workload]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-2}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
case "$(uname -s)" in Darwin) shared=libopguard_capi.dylib ;; *) shared=libopguard_capi.so ;; esac
cargo build --release -p opguard-capi
export OPGUARD_LIB="$target/release/$shared"
out="$target/bench-c"
mkdir -p "$out"
"${CC:-cc}" -O2 -std=c99 -Wall -Wextra -Werror -I opguard-capi/include \
    -o "$out/binding_overhead" benches/peers/binding_overhead.c \
    -L"$target/release" -lopguard_capi -Wl,-rpath,"$target/release"
"$out/binding_overhead" fixtures/kernel-name/kernel_symbols.json "$seconds"
"${PYTHON:-python3}" benches/peers/binding_overhead.py "$seconds"
if [ ! -d bindings/js/node_modules/koffi ]; then
    (cd bindings/js && npm ci --ignore-scripts --no-audit --no-fund)
fi
node benches/peers/binding_overhead.js "$seconds"
