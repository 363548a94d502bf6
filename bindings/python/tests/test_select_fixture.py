"""fixtures/select/cases.json (seam verdicts, seed 001) through the binding,
one test per case; each request runs from its file and inline."""

import pytest

import opguard
from conftest import FIXTURES, case_params, load_fixture, load_json

FILE = "select/cases.json"
DIR = FIXTURES / "select"
DOC = load_fixture(FILE, "opguard.select.fixture", 2)

# Known failures by case id -> reason. Never edit the fixture to make a case pass.
KNOWN_FAILURES = {}


def run(request, **kw):
    try:
        return opguard.seam_verdict(request, **kw), None
    except opguard.SelectError as e:
        return None, e


@pytest.mark.parametrize("case", case_params(FILE, DOC["cases"], KNOWN_FAILURES))
def test_seam_case(case):
    path = DIR / case["request"]
    by_file = run(path)
    inline = run(load_json(path), base=DIR)
    expect = case["expect"]
    for verdict, error in (by_file, inline):
        if "error" in expect:
            assert verdict is None and error.code == "select." + expect["error"]
        else:
            assert error is None, error
            for key, want in expect.items():
                assert verdict[key] == want, key
    assert by_file[0] == inline[0]


def test_profile_rows_declare_their_entity_kind():
    doc = opguard.profile_top_n(DIR / "attention.pid-4242.json.gz", 5)
    assert doc["top"] == 5 and doc["rows"]
    assert all(isinstance(r["entity_kind"], str) for r in doc["rows"])
    with pytest.raises(opguard.SelectError) as e:
        opguard.profile_top_n(DIR / "no-such-trace.json", 5)
    assert e.value.code == "select.trace_unreadable"


def test_a_capture_without_device_activity_gets_its_host_profile():
    trace = FIXTURES / "producers" / "traces" / "jax_perfetto_trace.json.gz"
    doc = opguard.profile_top_n(trace, 100)
    assert doc["device_activity"] is False and doc["trace"]["provider"] == "jax"
    rows = doc["host"]["rows"]
    xla = [r for r in rows if r["evidence"]["basis"] == "xla_hlo_op"]
    assert xla and all(r["evidence"]["hlo_module"] == "jit_layer" for r in xla)
    assert not any(r["name"].startswith("end: ") for r in rows)
    assert doc["host"]["markers"] > 0
    # Declared unknown, nothing says the `end: X` events are markers.
    assert opguard.profile_top_n(trace, 100, provider="unknown")["host"]["markers"] == 0
