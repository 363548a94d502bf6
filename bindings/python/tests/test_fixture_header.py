"""The one header every case file opens with (fixtures/README.md), checked by
the one loader the fixture runners here read their case files through."""

import copy

import pytest

from conftest import FixtureHeaderError, check_fixture_header, load_json, FIXTURES

CASE_FILES = {
    "kernel-name/kernel_symbols.json": ("opguard.kernel-name.fixture", 3),
    "select/cases.json": ("opguard.select.fixture", 2),
    "scaling/cases.json": ("opguard.scaling.fixture", 2),
    "align/map_cases.json": ("opguard.align.fixture", 2),
}


@pytest.mark.parametrize("relative", sorted(CASE_FILES))
def test_every_case_file_has_the_one_header(relative):
    schema, version = CASE_FILES[relative]
    doc = load_json(FIXTURES / relative)
    assert check_fixture_header(doc, schema, version, relative) is doc


def _old_select_header(doc):
    # The select header before schema version 2.
    del doc["schema"]
    doc["format"] = "opguard.select.fixture/v1"


def _duplicate_id_across_lists(doc):
    doc["verdict_cases"][0]["id"] = doc["symbol_cases"][0]["id"]


FAULTS = [
    ("select/cases.json", _old_select_header, "schema is 'missing'"),
    ("scaling/cases.json", lambda d: d.update(schema_version=1), "schema_version 1"),
    ("align/map_cases.json", lambda d: d.update(case_count=0), "case_count is 0"),
    ("align/map_cases.json", lambda d: d.pop("description"), "description"),
    ("kernel-name/kernel_symbols.json", _duplicate_id_across_lists, "is not unique"),
    ("select/cases.json", lambda d: d["cases"][0].update(id=""), "empty"),
]


@pytest.mark.parametrize("relative,fault,said", FAULTS,
                         ids=[f"{r}:{s}" for r, _, s in FAULTS])
def test_a_header_fault_is_refused_with_the_field(relative, fault, said):
    schema, version = CASE_FILES[relative]
    doc = copy.deepcopy(load_json(FIXTURES / relative))
    fault(doc)
    with pytest.raises(FixtureHeaderError) as e:
        check_fixture_header(doc, schema, version, relative)
    assert said in str(e.value)
    assert str(e.value).startswith(relative + ": ")
