"""fixtures/kernel-name/kernel_symbols.json through the binding, one test per case."""

import pytest

import opguard
from conftest import FIXTURES, case_params, load_fixture, load_json

FILE = "kernel_symbols.json"
# The runner implements the rules of fixture version 3.
FIXTURE = load_fixture("kernel-name/" + FILE, "opguard.kernel-name.fixture", 3)

# Known failures by case id -> reason. Never edit the fixture to make a case pass.
KNOWN_FAILURES = {}

SYMBOL_FIELDS = ("base", "qualification", "template", "annotation", "memory_op", "mangling",
                 "degenerate", "truncated", "short_name", "identity")


@pytest.mark.parametrize("case", case_params(FILE, FIXTURE["symbol_cases"], KNOWN_FAILURES))
def test_symbol_case(case):
    got = opguard.kernel_canonicalize(case["symbol"])
    expected = case["expected"]
    for field in SYMBOL_FIELDS:
        assert got[field] == expected[field], field
    if case["demangled"] is not None:
        assert got["demangled"] == case["demangled"]
    assert opguard.kernel_short_name(case["symbol"]) == expected["short_name"]


@pytest.mark.parametrize("case", case_params(FILE, FIXTURE["verdict_cases"], KNOWN_FAILURES))
def test_verdict_case(case):
    want, got, expected = case["want"], case["got"], case["expected"]
    verdict = opguard.kernel_verdict(want, got)
    assert (verdict["is_match"], verdict["reason"], verdict["basis"]) == \
        (expected["is_match"], expected["reason"], expected["basis"])
    assert opguard.kernel_verdict(got, want) == verdict, "the matcher is symmetric"
    assert opguard.kernel_match(want, got) is expected["is_match"]
    assert opguard.kernel_match(got, want) is expected["is_match"]


def test_known_failures_name_cases():
    ids = {c["id"] for c in FIXTURE["symbol_cases"] + FIXTURE["verdict_cases"]}
    assert not set(KNOWN_FAILURES) - ids, "a known failure names no case"


def test_batch_calls_agree_with_single_calls():
    symbols = [c["symbol"] for c in FIXTURE["symbol_cases"]]
    batch = opguard.kernel_canonicalize_batch(symbols)
    assert batch == [opguard.kernel_canonicalize(s) for s in symbols]
    pairs = [(c["want"], c["got"]) for c in FIXTURE["verdict_cases"]]
    verdicts = opguard.kernel_match_batch(pairs)
    assert verdicts == [opguard.kernel_verdict(w, g) for w, g in pairs]
    assert [v["is_match"] for v in verdicts] == \
        [c["expected"]["is_match"] for c in FIXTURE["verdict_cases"]]


def test_field_projection_is_the_whole_form_restricted():
    symbols = [c["symbol"] for c in FIXTURE["symbol_cases"]]
    fields = ("identity", "short_name", "template")
    whole = opguard.kernel_canonicalize_batch(symbols)
    projected = opguard.kernel_canonicalize_batch(symbols, fields=fields)
    assert projected == [{f: w[f] for f in fields} for w in whole]
    assert list(opguard.kernel_canonicalize(symbols[0], fields=fields)) == list(fields)
    with pytest.raises(opguard.RequestError):
        opguard.kernel_canonicalize_batch(symbols, fields=("nope",))


def test_repeated_batches_through_the_shared_memo_answer_the_same():
    # Real names (TraceLens) and the fixture's, mangled ones included: the
    # second and third batches are served by the C ABI's memo and must equal
    # the first, and each answer must equal the single call's.
    real = load_json(FIXTURES / "kernel-name" / "real-names" / "tracelens.json")
    symbols = [n["name"] for n in real["names"]] + [c["symbol"] for c in FIXTURE["symbol_cases"]]
    assert sum(s.strip().startswith("_Z") for s in symbols) >= 20
    first = opguard.kernel_canonicalize_batch(symbols)
    for _ in range(2):
        assert opguard.kernel_canonicalize_batch(symbols) == first
    assert first[::37] == [opguard.kernel_canonicalize(s) for s in symbols[::37]]
    compact = ["base", "qualification", "short_name", "annotation", "truncated", "degenerate",
               "memory_op", "mangling", "identity"]
    assert opguard.kernel_canonicalize_batch(symbols, fields=compact) == \
        [{f: whole[f] for f in compact} for whole in first]
