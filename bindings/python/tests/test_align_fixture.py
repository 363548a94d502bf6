"""fixtures/align/map_cases.json (alignment maps v1, seed 000) through the
binding, one test per case: export the records, substitute the case's
references, apply its map, compare with what the case expects."""

import hashlib
import json
import os

import pytest

import opguard
from conftest import FIXTURES, abi_code, case_params, load_fixture

FILE = "align/map_cases.json"
DIR = FIXTURES / "align"
DOC = load_fixture(FILE, "opguard.align.fixture", 2)

# Known failures by case id -> reason. Never edit the fixture to make a case pass.
KNOWN_FAILURES = {}


def sha256sum(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def ops_by_id(view):
    return {e["args"]["op"]["record_id"]: (i, e)
            for i, e in enumerate(view["traceEvents"]) if e.get("cat") == "opguard.op"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    view = tmp_path_factory.mktemp("export") / "view.json"
    summary = opguard.export_build(view, records=DIR / DOC["records"])
    with open(view, encoding="utf-8") as f:
        ops = ops_by_id(json.load(f))
    return view, summary, ops


def substitute(v, sha, index):
    if isinstance(v, str):
        if v == "$ARTIFACT":
            return sha
        if v.startswith("@"):
            return f"{sha}:{index[v[1:]][0]}"
        if v.startswith("#"):
            return f"{sha}:{v[1:]}"
        return v
    if isinstance(v, list):
        return [substitute(x, sha, index) for x in v]
    if isinstance(v, dict):
        return {k: substitute(x, sha, index) for k, x in v.items()}
    return v


def list_of(v, key):
    return [e[key] for e in v] if isinstance(v, list) else []


def per_operation(kind, c):
    if kind == "statuses":
        return c.get("status")
    if kind == "validation":
        return c.get("validation")
    if kind == "peers":
        return (c.get("peer") or {}).get("record_id")
    if kind in ("differences", "not_compared", "selectors", "basis"):
        return c.get(kind)
    if kind == "superseded":
        return list_of(c.get("original_comparison"), "superseded")
    if kind == "original_status":
        return list_of(c.get("original_comparison"), "status")
    if kind == "displaced_by":
        oc = c.get("original_comparison")
        return oc[-1].get("displaced_by") if isinstance(oc, list) and oc else None
    if kind == "review_ids":
        return (c.get("review") or {}).get("id")
    if kind == "review_history_ids":
        return list_of(c.get("review_history"), "id")
    if kind == "alternative_count":
        return len(c.get("alternative_reviews") or [])
    if kind == "evidence_references":
        return list_of((c.get("review") or {}).get("evidence"), "reference")
    raise AssertionError(f"unknown expectation {kind}")


def check_ok(expected, response, out, sha, map_path):
    assert response["verdict"] == "not_evaluated"
    assert response["workload_launched"] is False
    assert response["protocol_version"] == 1
    assert response["output_sha256"] == sha256sum(out)
    assert response["artifact_sha256"] == sha
    assert response["alignment_map_sha256"] == sha256sum(map_path)
    with open(out, encoding="utf-8") as f:
        ops = ops_by_id(json.load(f))
    for key, want in expected.items():
        if key == "result":
            continue
        if key == "pairs":
            assert response["pairs"] == want
        elif key == "counts":
            assert response["statuses"] == want
        elif key == "decisions":
            assert response["decisions"] == want
        elif key == "validation_counts":
            assert response["validation"] == want
        elif key in ("new_mappings", "displaced", "active_reviews", "reviews"):
            assert response[key] == want, key
        elif key == "first_differences":
            got = {f"{f['run']}/{f['rank']}": f["record_id"]
                   for f in response["first_differences"]}
            assert got == want
        elif key == "absent_paths":
            for p in want:
                assert not os.path.exists(p), p
        else:
            for rid, w in want.items():
                got = per_operation(key, ops[rid][1]["args"]["correspondence"])
                if got is None and isinstance(w, list):
                    got = []
                assert got == w, f"{key} of {rid}"
    for rid, (_, e) in ops.items():
        assert e["args"]["correspondence"]["tensor_equality"] == "not_established", rid


@pytest.mark.parametrize("case", case_params(FILE, DOC["cases"], KNOWN_FAILURES))
def test_map_case(case, exported, tmp_path):
    view, summary, index = exported
    sha = summary["output_sha256"]
    map_path = tmp_path / "map.json"
    map_path.write_text(json.dumps(substitute(case["map"], sha, index)), encoding="utf-8")
    out = tmp_path / "reviewed.json"
    expected = case["expected"]
    if expected["result"] == "error":
        with pytest.raises(opguard.OpguardError) as e:
            opguard.alignment_map_apply(view, map_path, out)
        assert e.value.code == abi_code("align", expected["code"]), e.value
        assert e.value.message
        assert not out.exists(), "a refused map wrote its output"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["map.json"]
    else:
        response = opguard.alignment_map_apply(view, map_path, out)
        check_ok(expected, response, out, sha, map_path)
    assert sha256sum(view) == sha, "the original export changed"


def test_export_matches_the_declared_shape(exported):
    _, summary, ops = exported
    declared = DOC["export"]
    assert summary["operations"] == declared["operations"]
    assert summary["pairs"] == declared["pairs"]
    assert summary["statuses"] == declared["statuses"]
    for rid, i in declared["index"].items():
        assert ops[rid][0] == i
    assert len(ops) == declared["first_non_operation_index"]
