"""One meaning, one code: every document-reading door of the binding reports
one repeated key as ``document.duplicate_key`` and one wrong type as
``document.wrong_type`` (a :class:`opguard.DocumentError`), at the same JSON
path. The Rust side walks the library, the command and the C ABI in
``opguard-cli/tests/one_code.rs``; the Node binding in ``one_code.test.js``."""

import json

import pytest

import opguard
from opguard.tools import align_request

CAPTURE = {"format": "opguard.census/capture-v1", "label": "a", "step_axis": "s0",
           "step_hint": 2, "ops": [], "guards": [], "replacements": {},
           "host_resolutions": []}


def repeated(doc, key):
    """``doc`` as JSON text with ``key`` given twice."""
    return "{" + json.dumps(key) + ":" + json.dumps(doc[key]) + "," + json.dumps(doc)[1:]


def wrong_type(doc, key):
    """``doc`` as JSON text with ``key`` holding a value of another JSON type."""
    value = doc[key]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return json.dumps({**doc, key: "5" if number else 5})


FAULTS = {"duplicate_key": repeated, "wrong_type": wrong_type}


def doors(kind, tmp, text):
    """Each door of the binding that reads a ``kind`` document, as calls."""
    path = tmp / f"{kind}.json"
    path.write_text(text, encoding="utf-8")
    good_capture = tmp / "good-capture.json"
    good_capture.write_text(json.dumps(CAPTURE), encoding="utf-8")
    raw = opguard.call
    return {
        "seam request": [
            ("seam_verdict(path)", lambda: opguard.seam_verdict(path)),
            ("opguard_seam_verdict request",
             lambda: raw("opguard_seam_verdict", '{"request": %s}' % text)),
        ],
        "apply request": [
            ("opguard_alignment_map_apply", lambda: raw("opguard_alignment_map_apply", text)),
            ("opguard.tools align_request", lambda: align_request(path)),
        ],
        "alignment map": [
            ("alignment_map_apply", lambda: opguard.alignment_map_apply(
                tmp / "view.json", path, tmp / "reviewed.json")),
        ],
        "records line": [
            ("export_build(records=)", lambda: opguard.export_build(
                tmp / "view.json", records=path)),
        ],
        "trials document": [
            ("scaling_correlate(path)", lambda: opguard.scaling_correlate(path)),
            ("opguard_scaling_correlate trials",
             lambda: raw("opguard_scaling_correlate", '{"trials": %s}' % text)),
        ],
        "job document": [
            ("opguard_job_merge summaries",
             lambda: raw("opguard_job_merge", '{"summaries": [%s]}' % text)),
        ],
        "capture": [
            ("census(path)", lambda: opguard.census(path)),
            ("opguard_census capture", lambda: raw("opguard_census", '{"capture": %s}' % text)),
            ("census_compare_widths(path, ...)",
             lambda: opguard.census_compare_widths(path, good_capture)),
        ],
        "family table": [
            ("census(families=path)", lambda: opguard.census(good_capture, families=path)),
        ],
        "declared host resolutions": [
            ("census(declared_host_resolutions=path)", lambda: opguard.census(
                good_capture, declared_host_resolutions=path)),
        ],
        "C ABI request": [
            ("opguard_kernel_canonicalize", lambda: raw("opguard_kernel_canonicalize", text)),
            ("opguard_kernel_short_name", lambda: raw("opguard_kernel_short_name", text)),
        ],
    }[kind]


# (kind, a document of that kind, the field the fault is written into, its JSON path)
KINDS = [
    ("seam request", {"protocol_version": 1, "target": "pkg.mod:f"}, "target", "target"),
    ("apply request", {"protocol_version": 1, "artifact": "view.json",
                       "alignment_map": "map.json", "output": "out.json"},
     "artifact", "artifact"),
    ("alignment map", {"version": 1, "artifact_sha256": "0" * 64, "reviews": []},
     "artifact_sha256", "artifact_sha256"),
    ("trials document", {"trials": [{"id": "a", "input": 1, "variant": "v",
                                     "traces": ["t.json"]}]}, "trials", "trials"),
    ("job document", {"format": "opguard.job/v1", "ranks": [], "frames": []},
     "format", "format"),
    ("capture", CAPTURE, "label", "label"),
    ("family table", {"format": "opguard.census/families-v1", "families": []},
     "families", "families"),
    ("declared host resolutions", {"pkg/a.py:1 in f": 1}, "pkg/a.py:1 in f",
     '$["pkg/a.py:1 in f"]'),
    ("C ABI request", {"symbol": "clamp_position_kernel"}, "symbol", "symbol"),
]

RECORD = {"record_id": "a/0/0", "run": "a", "rank": 0, "sequence": 0, "op": "aten::mm",
          "stack": [], "io": {"inputs": [], "outputs": []}}


def cases():
    for code, fault in FAULTS.items():
        for kind, doc, key, path in KINDS:
            yield pytest.param(code, kind, fault(doc, key), path, id=f"{kind}::{code}")
        records = '{"format":"opguard.records/v1"}\n' + fault(RECORD, "run") + "\n"
        yield pytest.param(code, "records line", records, "run", id=f"records line::{code}")


@pytest.mark.parametrize("code,kind,text,json_path", list(cases()))
def test_one_fault_has_one_code_at_every_door(code, kind, text, json_path, tmp_path):
    walked = doors(kind, tmp_path, text)
    assert walked
    for door, run in walked:
        with pytest.raises(opguard.OpguardError) as e:
            run()
        assert isinstance(e.value, opguard.DocumentError), (door, e.value)
        assert e.value.code == "document." + code, (door, e.value)
        assert e.value.details.get("json_path") == json_path, (door, e.value.details)
