# Sourced by scripts/test and the scripts it runs: what a test run may
# install, and how a step that cannot run says so.
#
# Under CI=true whatever CI needs is installed (Debian packages with
# apt-get) and a step that cannot run fails the run. For anyone else a
# missing Debian package is installed only when it can be (root, apt-get),
# after scripts/test said so at its start; otherwise the step is skipped
# with one line saying what it needs. Every skip is also appended to
# $OPGUARD_SKIP_LOG when set (test, place, reason; tab-separated), which
# scripts/test lists at the end.

opguard_ci() { [ "${CI:-}" = "true" ]; }

# skip_step NAME REASON: says that a step skips, and why; under CI=true the
# run fails instead.
skip_step() {
    if opguard_ci; then
        echo "error: CI=true but $1 cannot run: $2" >&2
        exit 1
    fi
    echo "SKIPPED: $1: $2"
    if [ -n "${OPGUARD_SKIP_LOG:-}" ]; then
        local script="${BASH_SOURCE[${#BASH_SOURCE[@]} - 1]}"
        printf '%s\t%s\t%s\n' "$1" "${script#"$PWD/"}" "$2" >>"$OPGUARD_SKIP_LOG"
    fi
}

# can_install_debian_packages: whether this run may and can install Debian
# packages (root with apt-get).
can_install_debian_packages() {
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1
}

# debian_package PACKAGE COMMAND PURPOSE: succeeds when COMMAND is on PATH,
# installing Debian's PACKAGE first when it is missing and can be installed;
# otherwise skips PURPOSE (skip_step) and fails.
debian_package() {
    local package="$1" command="$2" purpose="$3"
    command -v "$command" >/dev/null 2>&1 && return 0
    if can_install_debian_packages; then
        echo "installing Debian's $package (for $purpose): apt-get install $package"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null
        command -v "$command" >/dev/null 2>&1 && return 0
    fi
    skip_step "$purpose" "needs $command (Debian: apt-get install $package, as root)"
    return 1
}

# shared_data_or_skip NAME: succeeds when ../shared/data is beside the
# checkout; otherwise skips NAME, saying where the data comes from.
shared_data_or_skip() {
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    [ -d "$root/../shared/data" ] && return 0
    local dir
    dir="$(cd "$root/.." && pwd)/shared/data"
    skip_step "$1" "needs the shared/data folder beside the checkout: real profiler traces (HolisticTraceAnalysis's test data, PyTorch captures, ...) kept outside the repository, each file's source in its README.md; $dir is not there"
    return 1
}
