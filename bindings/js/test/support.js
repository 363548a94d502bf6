'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

// The checkout whose fixtures and Cargo.toml files the tests read. The tests
// run from bindings/js/test, or copied beside an installed package (then
// OPGUARD_REPO names the checkout; it never locates the library).
const ROOT = process.env.OPGUARD_REPO || path.resolve(__dirname, '..', '..', '..');
const FIXTURES = path.join(ROOT, 'fixtures');

const loadJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

// The real data the tests read, and where it comes from (the same words as
// opguard-testdata's).
const SHARED_DATA = path.join(ROOT, '..', 'shared', 'data');
const SHARED_DATA_ORIGIN = 'the shared/data folder beside the checkout: real profiler traces '
  + '(HolisticTraceAnalysis\'s test data, PyTorch captures, ...) kept outside the repository, each '
  + 'file\'s source in its README.md';

/**
 * A file of the shared data folder, or null when the folder is missing; then
 * `skip` is the reason to give the test (`{ skip }` of node:test), listed in
 * $OPGUARD_SKIP_LOG when set. Under CI=true a missing folder throws.
 */
function sharedData(...parts) {
  const file = path.join(SHARED_DATA, ...parts);
  if (fs.existsSync(SHARED_DATA)) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing from the shared data`);
    return { file, skip: false };
  }
  if (process.env.CI === 'true') throw new Error(`CI=true but the shared data folder ${SHARED_DATA} is missing`);
  const skip = `needs ${SHARED_DATA_ORIGIN}; ${SHARED_DATA} is not there`;
  return { file: null, skip };
}

/** Records a skip of `name` for `reason` in $OPGUARD_SKIP_LOG, when set. */
function logSkip(name, reason) {
  if (process.env.OPGUARD_SKIP_LOG) {
    fs.appendFileSync(process.env.OPGUARD_SKIP_LOG, `${name}\tbindings/js\t${reason}\n`);
  }
}

/** A case file whose header is not the one fixtures/README.md describes. */
class FixtureHeaderError extends Error {}

/**
 * Checks the header every case file opens with (fixtures/README.md): `schema`
 * and `schema_version` are the ones this runner implements, `description` is a
 * string, every case list (`cases`, `<kind>_cases`) is as long as its
 * `case_count` / `<kind>_case_count` says, and every case id is non-empty and
 * unique across the lists. Returns `doc`.
 */
function checkFixtureHeader(doc, schema, version, label = 'the case file') {
  const refuse = (message) => { throw new FixtureHeaderError(`${label}: ${message}`); };
  const shown = (v) => (v === undefined ? 'missing' : JSON.stringify(v));
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) refuse('not a JSON object');
  if (doc.schema !== schema) refuse(`schema is ${shown(doc.schema)}, expected ${JSON.stringify(schema)}`);
  if (doc.schema_version !== version) {
    refuse(`schema_version ${shown(doc.schema_version)} is not ${version}, the version this runner implements`);
  }
  if (typeof doc.description !== 'string') refuse('description is missing or not a string');
  const seen = new Set();
  for (const [key, cases] of Object.entries(doc)) {
    if (!key.endsWith('cases')) continue;
    if (!Array.isArray(cases)) refuse(`${key} is not an array`);
    const countKey = `${key.slice(0, -'cases'.length)}case_count`;
    if (doc[countKey] !== cases.length) {
      refuse(`${countKey} is ${shown(doc[countKey])} but the file has ${cases.length} cases`);
    }
    for (const c of cases) {
      const id = c !== null && typeof c === 'object' ? c.id : undefined;
      if (typeof id !== 'string' || id === '') refuse(`a case of ${key} has no id or an empty one`);
      if (seen.has(id)) refuse(`case id ${JSON.stringify(id)} is not unique`);
      seen.add(id);
    }
  }
  return doc;
}

/** `fixtures/<relative>` through `checkFixtureHeader`: the one way every fixture runner here reads its case file. */
const loadFixture = (relative, schema, version) =>
  checkFixtureHeader(loadJson(path.join(FIXTURES, relative)), schema, version, relative);

/**
 * One named test per case, `<file>::<id>`. A case in `knownFailures`
 * (id -> reason) must still fail: it is reported as a known failure while it
 * does, and fails the run as soon as it passes (remove it from the list then).
 */
function caseTests(fileLabel, cases, knownFailures, run) {
  for (const c of cases) {
    const name = `${fileLabel}::${c.id}`;
    if (knownFailures.has(c.id)) {
      test(`${name} (known failure: ${knownFailures.get(c.id)})`, async () => {
        let passed = false;
        try {
          await run(c);
          passed = true;
        } catch {
          // expected
        }
        if (passed) throw new Error(`${name} is listed as a known failure but passes`);
      });
    } else {
      test(name, () => run(c));
    }
  }
}

// The document reader's codes (opguard-document's ERROR_CODES): a fixture's
// expected code that is one of these arose reading a JSON document and comes
// through the C ABI as document.<code>; any other as <crate>.<code>.
const DOCUMENT_CODES = new Set([
  'io', 'limit_exceeded', 'json_syntax', 'duplicate_key', 'wrong_type',
  'missing_field', 'unknown_field', 'invalid_value',
]);

/** The C ABI's code for a library code a fixture expects. */
const abiCode = (crate, code) => `${DOCUMENT_CODES.has(code) ? 'document' : crate}.${code}`;

module.exports = {
  ROOT, FIXTURES, loadJson, FixtureHeaderError, checkFixtureHeader, loadFixture, caseTests,
  abiCode, sharedData, logSkip,
};
