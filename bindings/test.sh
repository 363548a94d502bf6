#!/usr/bin/env bash
# The bindings' test: build the C library, run the C test against the shared
# and the static library and, installed by scripts/install-capi, through
# pkg-config from outside the checkout; a multi-threaded stress of every entry
# point under LeakSanitizer; then the Python (pytest) and Node (node --test)
# parity runners, in the source tree and again against the built wheel and
# npm tarball installed into fresh places outside the checkout; the marker
# installer under real torch. Needs only Rust, a C compiler with AddressSanitizer (gcc or
# clang), Python >= 3.9 (3.11 in CI) and Node >= 20; the Python venv and
# node_modules are created when missing, and Debian's cmake (the CMake
# consumer of the installed prefix) is installed when missing and
# installable, else that step is skipped (scripts/lib.sh). Every fixture
# case is reported by name: <file>::<id>.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$root"
# shellcheck source=../scripts/lib.sh
. "$root/scripts/lib.sh"

step() { printf '\n==> %s\n' "$*"; }

target="${CARGO_TARGET_DIR:-$root/target}"
case "$(uname -s)" in
    Darwin) shared=libopguard_capi.dylib; native_libs=(-lSystem -lc -lm) ;;
    *) shared=libopguard_capi.so; native_libs=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc) ;;
esac

step "cargo build --release -p opguard-capi"
cargo build --release -p opguard-capi
libdir="$target/release"
export OPGUARD_LIB="$libdir/$shared"
test -f "$OPGUARD_LIB" || { echo "error: $OPGUARD_LIB was not built" >&2; exit 1; }

step "C test against the shared and the static library"
cc="${CC:-cc}"
cflags=(-std=c99 -Wall -Wextra -Werror -pedantic -I "$root/opguard-capi/include")
out="$target/bindings-c"
mkdir -p "$out"
src="$root/opguard-capi/tests/c/opguard_test.c"
"$cc" "${cflags[@]}" -o "$out/opguard_test_shared" "$src" -L"$libdir" -lopguard_capi -Wl,-rpath,"$libdir"
"$cc" "${cflags[@]}" -o "$out/opguard_test_static" "$src" "$libdir/libopguard_capi.a" "${native_libs[@]}"
for kind in shared static; do
    scratch="$(mktemp -d)"
    status=0
    "$out/opguard_test_$kind" "$root/fixtures" "$scratch" >"$out/$kind.log" 2>&1 || status=$?
    rm -rf "$scratch"
    grep -v '^ok ' "$out/$kind.log" || true
    echo "C test ($kind): $(grep -c '^ok ' "$out/$kind.log") checks ok, exit $status"
    [ "$status" -eq 0 ] || { echo "error: the C test ($kind) failed; full log: $out/$kind.log" >&2; exit 1; }
done

step "C: scripts/install-capi into a fresh prefix; a consumer outside the checkout builds through pkg-config"
scratch="$(mktemp -d)"
bash "$root/scripts/install-capi" "$scratch/prefix" | tail -n 1
export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig"
capi_version="$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$root/opguard-capi/Cargo.toml")"
[ "$(pkg-config --modversion opguard)" = "$capi_version" ] \
    || { echo "error: opguard.pc says $(pkg-config --modversion opguard), opguard-capi is $capi_version" >&2; exit 1; }
mkdir "$scratch/consumer"
cp "$src" "$scratch/consumer/app.c"
libdir_installed="$(pkg-config --variable=libdir opguard)"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
(cd "$scratch/consumer" \
    && "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -o app_shared app.c \
        $(pkg-config --cflags --libs opguard) -Wl,-rpath,"$libdir_installed" \
    && "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -o app_static app.c \
        $(pkg-config --cflags opguard) "$libdir_installed/libopguard_capi.a" \
        $(pkg-config --static --libs-only-l opguard | sed 's/-lopguard_capi//'))
for kind in shared static; do
    status=0
    mkdir "$scratch/work-$kind"
    (cd / && env -i "$scratch/consumer/app_$kind" "$root/fixtures" "$scratch/work-$kind") \
        >"$scratch/$kind.log" 2>&1 || status=$?
    echo "installed C consumer ($kind): $(grep -c '^ok ' "$scratch/$kind.log") checks ok, exit $status"
    [ "$status" -eq 0 ] || { grep -v '^ok ' "$scratch/$kind.log"; echo "error: the installed C consumer ($kind) failed" >&2; exit 1; }
done
if [ "$shared" = libopguard_capi.so ]; then
    # Captured before matching: under pipefail, `ldd | grep -q` fails at random
    # when grep exits at the first match and ldd is killed by SIGPIPE.
    loaded="$(ldd "$scratch/consumer/app_shared")"
    grep -qF "$libdir_installed/$shared" <<<"$loaded" \
        || { echo "error: the shared consumer does not load the installed library:" >&2; echo "$loaded" >&2; exit 1; }
fi
unset PKG_CONFIG_PATH

step "C: the same prefix, moved, through CMake: find_package(opguard) and its imported targets"
if debian_package cmake cmake "the CMake consumer of the installed prefix (bindings/test.sh)"; then
    # The package config finds the prefix from its own place: a moved or
    # repackaged install still works.
    mv "$scratch/prefix" "$scratch/moved"
    cmake_project="$root/opguard-capi/tests/cmake"
    configure() {
        cmake -S "$cmake_project" -B "$1" -DCMAKE_PREFIX_PATH="$scratch/moved" \
            -DOPGUARD_TEST_SOURCE="$src" -DOPGUARD_REQUEST="$2" -DCMAKE_C_COMPILER="$cc"
    }
    # Cargo's compatibility rule: 0.y.z serves 0.y; the next minor (next major
    # from 1.0 on) and a newer patch are refused.
    IFS=. read -r major minor patch <<<"$capi_version"
    if [ "$major" = 0 ]; then incompatible=("0.$((minor + 1))"); else incompatible=("$((major + 1)).0"); fi
    incompatible+=("$major.$minor.$((patch + 1))")
    for request in "${incompatible[@]}"; do
        if configure "$scratch/cmake-refused" "$request" >"$scratch/cmake-refused.log" 2>&1; then
            echo "error: find_package(opguard $request) accepted opguard $capi_version" >&2; exit 1
        fi
        grep -q "version: $capi_version" "$scratch/cmake-refused.log" \
            || { cat "$scratch/cmake-refused.log" >&2; echo "error: find_package(opguard $request) failed for another reason" >&2; exit 1; }
        rm -rf "$scratch/cmake-refused"
    done
    echo "find_package(opguard ${incompatible[*]}) refused opguard $capi_version"
    configure "$scratch/cmake-build" "$major.$minor" >"$scratch/cmake.log" 2>&1 \
        || { cat "$scratch/cmake.log" >&2; echo "error: find_package(opguard $major.$minor) failed" >&2; exit 1; }
    cmake --build "$scratch/cmake-build" >>"$scratch/cmake.log" 2>&1 \
        || { cat "$scratch/cmake.log" >&2; echo "error: the CMake consumer did not build" >&2; exit 1; }
    for kind in shared static; do
        status=0
        mkdir "$scratch/cmake-work-$kind"
        (cd / && env -i "$scratch/cmake-build/app_$kind" "$root/fixtures" "$scratch/cmake-work-$kind") \
            >"$scratch/cmake-$kind.log" 2>&1 || status=$?
        echo "CMake consumer ($kind): $(grep -c '^ok ' "$scratch/cmake-$kind.log") checks ok, exit $status"
        [ "$status" -eq 0 ] || { grep -v '^ok ' "$scratch/cmake-$kind.log"; echo "error: the CMake consumer ($kind) failed" >&2; exit 1; }
    done
    if [ "$shared" = libopguard_capi.so ]; then
        # The library has no soname: without IMPORTED_NO_SONAME the consumer
        # would record the library's path at build time instead of its name.
        needed="$(readelf -d "$scratch/cmake-build/app_shared")"
        grep -qF "Shared library: [$shared]" <<<"$needed" \
            || { echo "$needed" >&2; echo "error: the CMake consumer does not record $shared by name" >&2; exit 1; }
        loaded="$(ldd "$scratch/cmake-build/app_shared")"
        grep -qF "$scratch/moved/lib/$shared" <<<"$loaded" \
            || { echo "$loaded" >&2; echo "error: the CMake consumer does not load the moved prefix's library" >&2; exit 1; }
    fi
fi
rm -rf "$scratch"

step "C stress: every entry point from 8 threads, valid and invalid input, under LeakSanitizer"
# AddressSanitizer's leak check runs at exit: anything the library returned
# and the program released with opguard_string_free, or allocated and kept,
# is accounted for. The library itself is not instrumented; its allocations
# go through the interposed malloc.
stress_src="$root/opguard-capi/tests/c/opguard_stress.c"
"$cc" "${cflags[@]}" -fsanitize=address -g -pthread -o "$out/opguard_stress" "$stress_src" \
    "$libdir/libopguard_capi.a" "${native_libs[@]}"
scratch="$(mktemp -d)"
status=0
ASAN_OPTIONS=detect_leaks=1 "$out/opguard_stress" "$root/fixtures" "$scratch" 8 25 \
    >"$out/stress.log" 2>&1 || status=$?
rm -rf "$scratch"
tail -n 20 "$out/stress.log"
[ "$status" -eq 0 ] || { echo "error: the C stress test failed (exit $status); full log: $out/stress.log" >&2; exit 1; }

step "Python: pytest in bindings/python"
venv="$here/python/.venv"
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/python/requirements-test.txt"
fi
(cd "$here/python" && "$venv/bin/python" -m pytest -v -p no:cacheprovider)

step "Python: pip wheel, installed into a fresh venv outside the checkout, used from / with no environment"
# The wheel's cargo build reuses the release build above (same target
# directory; only opguard-capi itself is relinked without debug info).
scratch="$(mktemp -d)"
started=$SECONDS
CARGO_TARGET_DIR="$target" "$venv/bin/python" -m pip wheel --quiet --no-deps \
    --disable-pip-version-check -w "$scratch/dist" "$here/python"
rm -rf "$here/python/build" "$here/python/opguard.egg-info"
wheel="$(ls "$scratch"/dist/opguard-*.whl)"
echo "built $(basename "$wheel") in $((SECONDS - started)) s"
"${PYTHON:-python3}" -m venv "$scratch/venv"
"$scratch/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel" \
    -r "$here/python/requirements-test.txt"
# env -i: no OPGUARD_LIB, no CARGO_TARGET_DIR; from /: nothing of the checkout
# on sys.path. Only the tests and fixtures are read from the checkout.
(cd / && env -i PATH="$scratch/venv/bin:/usr/bin:/bin" \
    "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider --installed "$here/python/tests")
rm -rf "$scratch"

step "Python: the marker installer (opguard.seam) under real torch (CPU)"
# torch from PyPI is the CUDA build: `import torch` needs its NVIDIA wheels
# even on a CPU-only machine (--no-deps fails on libcudart), about 5 GB.
# So it lives in a venv outside the checkout that later runs reuse; CI
# (CI=true) creates it when missing, elsewhere a missing one is a loud skip.
torch_venv="${OPGUARD_TORCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/opguard/torch-venv-2.15.0}"
if [ ! -x "$torch_venv/bin/python" ] && [ "${CI:-}" = "true" ]; then
    started=$SECONDS
    rm -rf "$torch_venv.partial"
    "${PYTHON:-python3}" -m venv "$torch_venv.partial"
    "$torch_venv.partial/bin/python" -m pip install --quiet --disable-pip-version-check \
        torch==2.15.0 -r "$here/python/requirements-test.txt"
    mv "$torch_venv.partial" "$torch_venv"
    echo "installed torch into $torch_venv in $((SECONDS - started)) s"
fi
if [ -x "$torch_venv/bin/python" ]; then
    (cd "$here/python" && OPGUARD_REQUIRE_TORCH=1 "$torch_venv/bin/python" -m pytest -v \
        -p no:cacheprovider tests/test_seam.py tests/test_seam_torch.py)
else
    skip_step "the marker installer's torch test (bindings/test.sh)" \
        "needs a venv with torch and pytest at $torch_venv (CI=true creates it, about 5 GB; or point OPGUARD_TORCH_VENV at one)"
fi

step "Node: npm ci and node --test in bindings/js"
# --ignore-scripts: koffi's native module comes from its prebuilt platform
# package in the lockfile; no install script needs to run.
(cd "$here/js" && npm ci --ignore-scripts --no-audit --no-fund && node --test)

step "Node: npm pack, npm install of the tarball into a fresh folder, used from there with no environment"
scratch="$(mktemp -d)"
started=$SECONDS
# prepack bundles the release build above into native/<platform>-<arch>/;
# postpack removes it from the source tree again.
(cd "$here/js" && OPGUARD_LIB="$OPGUARD_LIB" npm pack --silent --pack-destination "$scratch" >/dev/null)
tarball="$(ls "$scratch"/opguard-*.tgz)"
packed="$(tar -tzf "$tarball")"
grep -q "native/$(node -p 'process.platform + "-" + process.arch')/$shared\$" <<<"$packed" \
    || { echo "error: $tarball does not carry $shared" >&2; exit 1; }
mkdir "$scratch/app"
(cd "$scratch/app" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent "$tarball")
# The tests run beside the installed package: require('opguard') resolves to
# app/node_modules/opguard. OPGUARD_REPO names the checkout for fixtures only.
cp -r "$here/js/test" "$scratch/app/test"
# A test that still says require('..') gets the installed package too.
echo "module.exports = require('opguard');" >"$scratch/app/index.js"
(cd / && env -i PATH="$PATH" HOME="$scratch" OPGUARD_REPO="$root" \
    node --test "$scratch"/app/test/*.test.js) >"$scratch/node.log" 2>&1 || {
    grep -E '^not ok|# (pass|fail)' "$scratch/node.log"; echo "error: the installed Node package failed" >&2; exit 1; }
grep -E '^# (tests|pass|fail|skipped)' "$scratch/node.log"
# index.d.ts, as a TypeScript user of the installed package sees it.
(cd "$scratch/app" && npm install --no-audit --no-fund --silent typescript@5.9.3 \
    && npx tsc --noEmit --strict --module node16 --moduleResolution node16 --target es2022 \
        --lib es2022,dom test/types/check.ts) \
    && echo "index.d.ts: test/types/check.ts compiles against the installed package"
echo "npm pack + install + tests in $((SECONDS - started)) s"
rm -rf "$scratch"

step "bindings: all passed"
