#!/usr/bin/env python3
"""Per-call cost of opguard's C ABI from Python (ctypes), and a loop over the
real kernel-name corpus through the binding against the pure-Python reference
of the same rules (kernel_name_reference.py).

    OPGUARD_LIB=target/release/libopguard_capi.so \
        python3 benches/peers/binding_overhead.py [SECONDS]

Run by benches/peers/binding_overhead.sh. The corpus is every name of the
parity fixture (symbol cases' symbols; verdict cases' pairs). Each workload
runs for SECONDS (default 2), five times; the median is printed, as wall and
CPU time (the machine may be shared; CPU time is the steadier).
"""

import ctypes
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, HERE)

import opguard  # noqa: E402
from opguard import _native  # noqa: E402
import kernel_name_reference as ref  # noqa: E402

WANT = "clamp_position_kernel"
GOT = "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)"


def measure(fn, items, seconds):
    """Median over 5 runs of (wall ns, cpu ns) per item."""
    walls, cpus = [], []
    for _ in range(5):
        done = 0
        w0, c0 = time.perf_counter(), time.process_time()
        while True:
            fn()
            done += items
            w1 = time.perf_counter()
            if w1 - w0 >= seconds / 5:
                break
        c1 = time.process_time()
        walls.append((w1 - w0) * 1e9 / done)
        cpus.append((c1 - c0) * 1e9 / done)
    return statistics.median(walls), statistics.median(cpus)


def report(label, result, unit="call"):
    wall, cpu = result
    print(f"python {label:<52} {wall:10.1f} ns/{unit} wall {cpu:10.1f} ns/{unit} cpu")
    return result


def main(argv):
    seconds = float(argv[1]) if len(argv) > 1 else 2.0
    lib = _native.library()
    print(f"library {lib.path} (opguard {opguard.version()}), Python {sys.version.split()[0]}")
    with open(os.path.join(ROOT, "fixtures", "kernel-name", "kernel_symbols.json"),
              encoding="utf-8") as f:
        fixture = json.load(f)
    table = {c["symbol"].strip(): c["demangled"] for c in fixture["symbol_cases"]
             if c.get("demangled")}
    demangle = table.get
    names = [c["symbol"] for c in fixture["symbol_cases"]]
    pairs = [(c["want"], c["got"]) for c in fixture["verdict_cases"]]

    # The answers agree before anything is timed.
    for (w, g), c in zip(pairs, fixture["verdict_cases"]):
        assert opguard.kernel_match(w, g) == ref.matches(w, g, demangle)["is_match"] \
            == c["expected"]["is_match"], c["id"]

    print("\n-- per call: opguard_kernel_match and friends --")
    raw_match = lib.kernel_match
    want_b, got_b = WANT.encode(), GOT.encode()
    abi = lib._dll.opguard_abi_version
    report("ctypes opguard_abi_version() (empty call)",
           measure(lambda: [abi() for _ in range(1000)], 1000, seconds))
    report("ctypes opguard_kernel_match(bytes, bytes)",
           measure(lambda: [raw_match(want_b, got_b) for _ in range(1000)], 1000, seconds))
    report("opguard.kernel_match(str, str)",
           measure(lambda: [opguard.kernel_match(WANT, GOT) for _ in range(1000)], 1000, seconds))
    report("opguard.kernel_verdict(str, str) (JSON)",
           measure(lambda: [opguard.kernel_verdict(WANT, GOT) for _ in range(1000)], 1000,
                   seconds))
    report("reference matches(str, str)",
           measure(lambda: [ref.matches(WANT, GOT, demangle) for _ in range(1000)], 1000,
                   seconds))

    print(f"\n-- corpus: {len(names)} fixture symbols, canonicalize --")
    r_ref = report("reference canonicalize, loop",
                   measure(lambda: [ref.canonicalize(n, demangle) for n in names], len(names),
                           seconds), "name")
    r_loop = report("opguard.kernel_canonicalize, loop (one call per name)",
                    measure(lambda: [opguard.kernel_canonicalize(n) for n in names],
                            len(names), seconds), "name")
    r_batch = report("opguard.kernel_canonicalize_batch (one call)",
                     measure(lambda: opguard.kernel_canonicalize_batch(names), len(names),
                             seconds), "name")
    few = ("identity", "short_name")
    r_few = report("  ... fields=(identity, short_name)",
                   measure(lambda: opguard.kernel_canonicalize_batch(names, fields=few),
                           len(names), seconds), "name")
    plain = [n for n in names if not n.strip().startswith("_Z")]
    print(f"   ({len(names) - len(plain)} of the names are Itanium-mangled: the binding demangles"
          " them, the reference looks them up in the fixture's table; without them:)")
    p_ref = report(f"reference canonicalize, loop, {len(plain)} unmangled",
                   measure(lambda: [ref.canonicalize(n, demangle) for n in plain], len(plain),
                           seconds), "name")
    p_batch = report(f"opguard.kernel_canonicalize_batch, {len(plain)} unmangled",
                     measure(lambda: opguard.kernel_canonicalize_batch(plain), len(plain),
                             seconds), "name")

    print(f"\n-- corpus: {len(pairs)} fixture verdict pairs, match --")
    m_ref = report("reference matches, loop",
                   measure(lambda: [ref.matches(w, g, demangle) for w, g in pairs], len(pairs),
                           seconds), "pair")
    m_loop = report("opguard.kernel_match, loop (direct call per pair)",
                    measure(lambda: [opguard.kernel_match(w, g) for w, g in pairs], len(pairs),
                            seconds), "pair")
    m_batch = report("opguard.kernel_match_batch (one call)",
                     measure(lambda: opguard.kernel_match_batch(pairs), len(pairs), seconds),
                     "pair")

    print("\n-- speed-up over the pure-Python reference (CPU time) --")
    for label, mine, base in [("canonicalize loop", r_loop, r_ref),
                              ("canonicalize batch", r_batch, r_ref),
                              ("canonicalize batch, 2 fields", r_few, r_ref),
                              ("canonicalize batch, unmangled", p_batch, p_ref),
                              ("match loop (direct)", m_loop, m_ref),
                              ("match batch", m_batch, m_ref)]:
        print(f"python {label:<32} {base[1] / mine[1]:6.1f}x (wall {base[0] / mine[0]:6.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
