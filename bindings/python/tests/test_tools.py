"""``python -m opguard.tools align --request FILE``: seed 000's entry point,
run as a user would (a subprocess), against the CLI's contract."""

import json
import os
import subprocess
import sys

import opguard
from conftest import FIXTURES, SOURCE


def tools(*args, cwd):
    env = dict(os.environ)
    if opguard.__file__.startswith(str(SOURCE)):
        # The source tree is under test (not a wheel): the child imports it too.
        env["PYTHONPATH"] = str(SOURCE) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "opguard.tools", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


def export(tmp_path):
    view = tmp_path / "view.json"
    summary = opguard.export_build(view, records=FIXTURES / "align" / "two_runs.records.jsonl")
    (tmp_path / "map.json").write_text(json.dumps(
        {"version": 1, "artifact_sha256": summary["output_sha256"], "reviews": []}))
    return summary


def test_align_request_paths_are_relative_to_the_request(tmp_path):
    export(tmp_path)
    (tmp_path / "req.json").write_text(json.dumps({
        "protocol_version": 1, "artifact": "view.json", "alignment_map": "map.json",
        "output": "reviewed.json"}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = tools("align", "--request", str(tmp_path / "req.json"), cwd=elsewhere)
    assert r.returncode == 0, r.stdout + r.stderr
    response = json.loads(r.stdout)
    assert response["verdict"] == "not_evaluated"
    assert (tmp_path / "reviewed.json").is_file()
    assert list(elsewhere.iterdir()) == []

    # The output now exists: refused, code and exit status as the CLI's.
    r = tools("align", "--request", str(tmp_path / "req.json"), cwd=elsewhere)
    assert r.returncode == 2
    assert json.loads(r.stdout)["error"]["code"] == "align.output_exists"


def test_a_bad_request_is_an_error_and_writes_nothing(tmp_path):
    export(tmp_path)
    cases = {
        '{"protocol_version": 1, "artifact": "view.json", "artifact": "view.json", '
        '"alignment_map": "map.json", "output": "o.json"}': "document.duplicate_key",
        '{"protocol_version": 2, "artifact": "view.json", "alignment_map": "map.json", '
        '"output": "o.json"}': "align.unsupported_protocol_version",
        # One rule with the CLI (#30): 1.0 and true are not the integer 1.
        '{"protocol_version": 1.0, "artifact": "view.json", "alignment_map": "map.json", '
        '"output": "o.json"}': "align.unsupported_protocol_version",
        '{"protocol_version": true, "artifact": "view.json", "alignment_map": "map.json", '
        '"output": "o.json"}': "align.unsupported_protocol_version",
        '{"artifact": "view.json", "alignment_map": "map.json", '
        '"output": "o.json"}': "document.missing_field",
        '{"protocol_version": 1, "artifact": "view.json", "alignment_map": "map.json", '
        '"output": "o.json", "extra": 1}': "document.unknown_field",
        '[1]': "document.wrong_type",
        '{': "document.json_syntax",
    }
    for text, code in cases.items():
        (tmp_path / "req.json").write_text(text)
        r = tools("align", "--request", str(tmp_path / "req.json"), cwd=tmp_path)
        assert r.returncode == 2, text
        assert json.loads(r.stdout)["error"]["code"] == code, text
        assert not (tmp_path / "o.json").exists()
    r = tools("align", cwd=tmp_path)
    assert r.returncode == 64
