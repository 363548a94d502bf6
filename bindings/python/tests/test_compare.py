"""Comparing runs through the bindings: the real HTA pair of two runs of one
program, and real runs made slower, checked against plain Python over the
traces themselves."""

import gzip
import json
import os

import pytest

import opguard
from conftest import ROOT

HTA = ROOT.parent / "shared" / "data" / "traces" / "hta"
BASE = HTA / "trace_compare__base__base.json.gz"
TEST = HTA / "trace_compare__test__test.json.gz"


def need_data():
    if not (BASE.is_file() and TEST.is_file()):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {HTA} is missing")
        pytest.skip(f"no shared data at {HTA}")


def events(path):
    return json.load(gzip.open(path))["traceEvents"]


def test_the_real_pair_is_undecided_with_two_steps_a_side():
    need_data()
    c = opguard.compare([BASE], [TEST])
    assert c["format"] == "opguard.compare/v1"
    assert c["sample_unit"] == "step"
    assert c["baseline"]["providers"] == ["kineto_cuda"]
    assert c["gate"]["status"] == "undecided"
    assert c["tested"] == 0
    # The step totals are the ProfilerStep ranges' own lengths, in ns.
    steps = [round(e["dur"] * 1000) for e in events(BASE)
             if e.get("name", "").startswith("ProfilerStep#")]
    step = next(t for t in c["totals"] if t["kind"] == "step_duration")
    assert step["baseline"]["samples_ns"] == steps
    only = {e["name"] for e in c["entities"] if e["verdict"] == "only_in_candidate"}
    names_base = {e["name"] for e in events(BASE) if e.get("cat") == "cpu_op"}
    names_test = {e["name"] for e in events(TEST) if e.get("cat") == "cpu_op"}
    assert only == names_test - names_base


def slowed_copy(src, dst, scale, slow_kernel=None, slow=1.0):
    """A real trace with every kernel's duration scaled by ``scale``, and the
    kernels named ``slow_kernel`` also by ``slow``: the same program run
    again, a little noisier, or with one kernel really slower."""
    doc = json.load(gzip.open(src))
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel":
            factor = scale * (slow if e["name"] == slow_kernel else 1.0)
            e["dur"] = round(e["dur"] * factor)
    with gzip.open(dst, "wt", encoding="utf-8") as f:
        json.dump(doc, f)


def test_a_real_kernel_made_slower_fails_the_gate_and_is_named(tmp_path):
    need_data()
    kernels = [e for e in events(BASE) if e.get("cat") == "kernel"]
    longest = max(kernels, key=lambda e: e["dur"])["name"]
    noise = [1.0, 1.02, 0.98, 1.01]
    base, cand = tmp_path / "base", tmp_path / "cand"
    base.mkdir()
    cand.mkdir()
    for i, scale in enumerate(noise):
        slowed_copy(BASE, base / f"run{i}.json.gz", scale)
        slowed_copy(BASE, cand / f"run{i}.json.gz", scale, longest, 1.3)
    c = opguard.compare([base], [cand], fail_above=0.05, fdr=0.05)
    assert len(c["baseline"]["samples"]) == 8, "4 runs of 2 steps"
    assert c["gate"]["status"] == "failed"
    slow = c["entities"][0]
    assert slow["verdict"] == "regressed" and slow["fails_gate"]
    assert slow["name"] == c["gate"]["failing"][0]
    canonical = opguard.kernel_canonicalize(longest)
    assert slow["key"] == f'{canonical["qualification"]}::{canonical["identity"]}'

    assert 1.25 < slow["ratio"] < 1.35
    for e in c["entities"][1:]:
        assert e["verdict"] in ("unchanged", "only_in_baseline", "only_in_candidate"), e["name"]


def test_bad_input_raises_compare_error():
    need_data()
    with pytest.raises(opguard.CompareError) as e:
        opguard.compare([BASE], [TEST], step="train_step")
    assert e.value.code == "compare.step_not_found"
    with pytest.raises(opguard.CompareError) as e:
        opguard.compare([BASE], [HTA / "no-such-run.json.gz"])
    assert e.value.code == "compare.trace_unreadable"
    assert e.value.details["trace_code"] == "io"
    with pytest.raises(opguard.CompareError) as e:
        opguard.compare([], [TEST])
    assert e.value.code == "compare.no_runs"
