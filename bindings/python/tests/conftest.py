import contextlib
import importlib
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
SOURCE = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
#: Where the real data comes from (the same words as opguard-testdata's).
SHARED_DATA_ORIGIN = (
    "the shared/data folder beside the checkout: real profiler traces (HolisticTraceAnalysis's "
    "test data, PyTorch captures, ...) kept outside the repository, each file's source in its "
    "README.md")


def shared_data(*parts):
    """A file of the shared data folder. Without the folder the test skips,
    saying where the data comes from (and is listed in ``$OPGUARD_SKIP_LOG``
    when set); under ``CI=true`` it fails."""
    path = SHARED_DATA.joinpath(*parts)
    if SHARED_DATA.is_dir():
        assert path.exists(), f"{path} is missing from the shared data"
        return path
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but the shared data folder {SHARED_DATA} is missing")
    reason = f"needs {SHARED_DATA_ORIGIN}; {SHARED_DATA} is not there"
    log = os.environ.get("OPGUARD_SKIP_LOG")
    if log:
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{test}\tbindings/python\t{reason}\n")
    pytest.skip(reason)

# The document reader's codes (opguard-document's ERROR_CODES): a fixture's
# expected code that is one of these arose reading a JSON document and comes
# through the C ABI as document.<code>; any other as <crate>.<code>.
DOCUMENT_CODES = frozenset({
    "io", "limit_exceeded", "json_syntax", "duplicate_key", "wrong_type",
    "missing_field", "unknown_field", "invalid_value",
})


def abi_code(crate, code):
    """The C ABI's code for a library code a fixture expects."""
    return ("document." if code in DOCUMENT_CODES else crate + ".") + code


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


class FixtureHeaderError(ValueError):
    """A case file whose header is not the one fixtures/README.md describes."""


def check_fixture_header(doc, schema, version, label="the case file"):
    """Checks the header every case file opens with (fixtures/README.md):
    ``schema`` and ``schema_version`` are the ones this runner implements,
    ``description`` is a string, every case list (``cases``, ``<kind>_cases``)
    is as long as its ``case_count`` / ``<kind>_case_count`` says, and every
    case id is non-empty and unique across the lists."""
    def refuse(message):
        raise FixtureHeaderError(f"{label}: {message}")

    if not isinstance(doc, dict):
        refuse("not a JSON object")
    if doc.get("schema") != schema:
        refuse(f"schema is {doc.get('schema', 'missing')!r}, expected {schema!r}")
    if doc.get("schema_version") != version:
        refuse(f"schema_version {doc.get('schema_version', 'missing')!r} is not {version}, "
               "the version this runner implements")
    if not isinstance(doc.get("description"), str):
        refuse("description is missing or not a string")
    seen = set()
    for key, cases in doc.items():
        if not key.endswith("cases"):
            continue
        if not isinstance(cases, list):
            refuse(f"{key} is not an array")
        count_key = key[: -len("cases")] + "case_count"
        if doc.get(count_key) != len(cases):
            refuse(f"{count_key} is {doc.get(count_key, 'missing')!r} "
                   f"but the file has {len(cases)} cases")
        for case in cases:
            case_id = case.get("id") if isinstance(case, dict) else None
            if not isinstance(case_id, str) or not case_id:
                refuse(f"a case of {key} has no id or an empty one")
            if case_id in seen:
                refuse(f"case id {case_id!r} is not unique")
            seen.add(case_id)
    return doc


def load_fixture(relative, schema, version):
    """``fixtures/<relative>`` through :func:`check_fixture_header`: the one
    way every fixture runner here reads its case file."""
    return check_fixture_header(load_json(FIXTURES / relative), schema, version, relative)


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


@contextlib.contextmanager
def source_module(tmp_path, monkeypatch, name, source):
    """``source`` imported as module ``name`` from a real file (the marker
    installer's tests: Triton reads a kernel's source from its file); on the
    way out every installed marker is removed and the module forgotten."""
    from opguard import seam

    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    try:
        yield importlib.import_module(name)
    finally:
        seam.uninstall()
        sys.modules.pop(name, None)
