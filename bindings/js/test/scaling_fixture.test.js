'use strict';
// fixtures/scaling/cases.json through the binding, one test per case.
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const opguard = require('opguard');
const {
  FIXTURES, loadJson, loadFixture, caseTests, abiCode,
} = require('./support');

const FILE = 'scaling/cases.json';
const DIR = path.join(FIXTURES, 'scaling');
const CASES = loadFixture(FILE, 'opguard.scaling.fixture', 2);

// Known failures by case id -> reason. Never edit the fixture to make a case pass.
const KNOWN_FAILURES = new Map();

// The fixture's README: compare these with a relative tolerance of 1e-12.
const FLOAT_FIELDS = new Set(['spearman_rho', 'p_value', 'adjusted_p_value']);

function same(got, want, key) {
  if (FLOAT_FIELDS.has(key) && typeof got === 'number' && typeof want === 'number') {
    return got === want || Math.abs(got - want) <= 1e-12 * Math.max(Math.abs(got), Math.abs(want));
  }
  if (Array.isArray(want)) {
    return Array.isArray(got) && got.length === want.length && want.every((w, i) => same(got[i], w, key));
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return false;
    const keys = Object.keys(want);
    return keys.length === Object.keys(got).length && keys.every((k) => k in got && same(got[k], want[k], k));
  }
  return got === want;
}

caseTests(FILE, CASES.cases, KNOWN_FAILURES, (c) => {
  const trials = path.join(DIR, c.trials);
  if (c.expect.error !== undefined) {
    assert.throws(() => opguard.scalingCorrelate(trials, { metric: c.metric }),
      (e) => e instanceof opguard.OpguardError && e.code === abiCode('scaling', c.expect.error));
  } else {
    const report = opguard.scalingCorrelate(trials, { metric: c.metric });
    const want = loadJson(path.join(DIR, c.expect.report));
    assert.ok(same(report, want), `report differs from ${c.expect.report}`);
  }
});
