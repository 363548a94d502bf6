"""fixtures/scaling/cases.json through the binding, one test per case."""

import math

import pytest

import opguard
from conftest import FIXTURES, abi_code, case_params, load_fixture, load_json

FILE = "scaling/cases.json"
DIR = FIXTURES / "scaling"
CASES = load_fixture(FILE, "opguard.scaling.fixture", 2)

# Known failures by case id -> reason. Never edit the fixture to make a case pass.
KNOWN_FAILURES = {}

# The fixture's README: compare these with a relative tolerance of 1e-12.
FLOAT_FIELDS = {"spearman_rho", "p_value", "adjusted_p_value"}


def same(got, want, key=None):
    if key in FLOAT_FIELDS and isinstance(got, float) and isinstance(want, (int, float)):
        return math.isclose(got, want, rel_tol=1e-12, abs_tol=0.0) or got == want
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and \
            all(same(got[k], want[k], k) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and \
            all(same(g, w, key) for g, w in zip(got, want))
    return got == want


@pytest.mark.parametrize("case", case_params(FILE, CASES["cases"], KNOWN_FAILURES))
def test_scaling_case(case):
    trials = DIR / case["trials"]
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(opguard.OpguardError) as e:
            opguard.scaling_correlate(trials, metric=case.get("metric"))
        assert e.value.code == abi_code("scaling", expect["error"])
    else:
        report = opguard.scaling_correlate(trials, metric=case.get("metric"))
        assert same(report, load_json(DIR / expect["report"]))
