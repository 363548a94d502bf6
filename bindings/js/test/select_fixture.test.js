'use strict';
// fixtures/select/cases.json (seam verdicts, seed 001) through the binding,
// one test per case; each request runs from its file and inline.
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const opguard = require('opguard');
const { FIXTURES, loadJson, loadFixture, caseTests } = require('./support');

const FILE = 'select/cases.json';
const DIR = path.join(FIXTURES, 'select');
const DOC = loadFixture(FILE, 'opguard.select.fixture', 2);

// Known failures by case id -> reason. Never edit the fixture to make a case pass.
const KNOWN_FAILURES = new Map();

function run(request, options) {
  try {
    return [opguard.seamVerdict(request, options), null];
  } catch (e) {
    if (!(e instanceof opguard.SelectError)) throw e;
    return [null, e];
  }
}

caseTests(FILE, DOC.cases, KNOWN_FAILURES, (c) => {
  const file = path.join(DIR, c.request);
  const byFile = run(file);
  const inline = run(loadJson(file), { base: DIR });
  for (const [verdict, error] of [byFile, inline]) {
    if (c.expect.error !== undefined) {
      assert.equal(verdict, null);
      assert.equal(error.code, `select.${c.expect.error}`);
    } else {
      assert.equal(error, null);
      for (const [key, want] of Object.entries(c.expect)) assert.deepStrictEqual(verdict[key], want, key);
    }
  }
  assert.deepStrictEqual(byFile[0], inline[0]);
});

test('profile rows declare their entity kind', () => {
  const doc = opguard.profileTopN(path.join(DIR, 'attention.pid-4242.json.gz'), 5);
  assert.equal(doc.top, 5);
  assert.ok(doc.rows.length > 0);
  for (const r of doc.rows) assert.equal(typeof r.entity_kind, 'string');
  assert.throws(() => opguard.profileTopN(path.join(DIR, 'no-such-trace.json'), 5),
    (e) => e instanceof opguard.SelectError && e.code === 'select.trace_unreadable');
});

test('a capture without device activity gets its host profile', () => {
  const trace = path.join(DIR, '..', 'producers', 'traces', 'jax_perfetto_trace.json.gz');
  const doc = opguard.profileTopN(trace, 100);
  assert.equal(doc.device_activity, false);
  assert.equal(doc.trace.provider, 'jax');
  const xla = doc.host.rows.filter((r) => r.evidence.basis === 'xla_hlo_op');
  assert.ok(xla.length > 0);
  for (const r of xla) assert.equal(r.evidence.hlo_module, 'jit_layer');
  assert.ok(doc.host.rows.every((r) => !r.name.startsWith('end: ')));
  assert.ok(doc.host.markers > 0);
  assert.equal(opguard.profileTopN(trace, 100, 'unknown').host.markers, 0);
});
