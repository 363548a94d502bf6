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

module.exports = { ROOT, FIXTURES, loadJson, caseTests };
