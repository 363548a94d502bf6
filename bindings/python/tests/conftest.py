import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
SOURCE = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption(
        "--installed", action="store_true",
        help="test the opguard package installed in this interpreter (a wheel), not the "
             "source tree; the library must be the one the package carries")


def pytest_configure(config):
    # The source tree is imported only when the installed package is not under test.
    if not config.getoption("installed"):
        sys.path.insert(0, str(SOURCE))


@pytest.fixture(scope="session")
def installed(request):
    """Whether the run tests an installed wheel (``--installed``)."""
    return request.config.getoption("installed")


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
