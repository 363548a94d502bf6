import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def case_params(file_label, cases, known_failures):
    """One pytest param per case, named ``<file>::<id>``; a known failure is a
    strict xfail (it fails the run as soon as it passes)."""
    out = []
    for case in cases:
        marks = []
        if case["id"] in known_failures:
            marks.append(pytest.mark.xfail(strict=True, reason=known_failures[case["id"]]))
        out.append(pytest.param(case, id=f"{file_label}::{case['id']}", marks=marks))
    return out
