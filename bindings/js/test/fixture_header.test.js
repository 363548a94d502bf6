'use strict';
// The one header every case file opens with (fixtures/README.md), checked by
// the one loader the fixture runners here read their case files through.
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const { FIXTURES, loadJson, FixtureHeaderError, checkFixtureHeader } = require('./support');

const CASE_FILES = new Map([
  ['kernel-name/kernel_symbols.json', ['opguard.kernel-name.fixture', 3]],
  ['select/cases.json', ['opguard.select.fixture', 2]],
  ['scaling/cases.json', ['opguard.scaling.fixture', 2]],
  ['align/map_cases.json', ['opguard.align.fixture', 2]],
]);

for (const [relative, [schema, version]] of CASE_FILES) {
  test(`${relative} has the one header`, () => {
    const doc = loadJson(path.join(FIXTURES, relative));
    assert.equal(checkFixtureHeader(doc, schema, version, relative), doc);
  });
}

const FAULTS = [
  // The select header before schema version 2.
  ['select/cases.json', (d) => { delete d.schema; d.format = 'opguard.select.fixture/v1'; }, 'schema is missing'],
  ['scaling/cases.json', (d) => { d.schema_version = 1; }, 'schema_version 1'],
  ['align/map_cases.json', (d) => { d.case_count = 0; }, 'case_count is 0'],
  ['align/map_cases.json', (d) => { delete d.description; }, 'description'],
  ['kernel-name/kernel_symbols.json', (d) => { d.verdict_cases[0].id = d.symbol_cases[0].id; }, 'is not unique'],
  ['select/cases.json', (d) => { d.cases[0].id = ''; }, 'empty'],
];

for (const [relative, fault, said] of FAULTS) {
  test(`${relative}: a header fault is refused (${said})`, () => {
    const [schema, version] = CASE_FILES.get(relative);
    const doc = loadJson(path.join(FIXTURES, relative));
    fault(doc);
    assert.throws(() => checkFixtureHeader(doc, schema, version, relative), (e) => {
      assert.ok(e instanceof FixtureHeaderError, String(e));
      assert.ok(e.message.startsWith(`${relative}: `), e.message);
      assert.ok(e.message.includes(said), e.message);
      return true;
    });
  });
}
