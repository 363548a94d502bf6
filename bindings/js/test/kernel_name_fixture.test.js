'use strict';
// fixtures/kernel-name/kernel_symbols.json through the binding, one test per case.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const opguard = require('opguard');
const path = require('node:path');
const { FIXTURES, loadJson, loadFixture, caseTests } = require('./support');

const FILE = 'kernel_symbols.json';
// The runner implements the rules of fixture version 3.
const FIXTURE = loadFixture(`kernel-name/${FILE}`, 'opguard.kernel-name.fixture', 3);

// Known failures by case id -> reason. Never edit the fixture to make a case pass.
const KNOWN_FAILURES = new Map();

const SYMBOL_FIELDS = ['base', 'qualification', 'template', 'annotation', 'memory_op', 'mangling',
  'degenerate', 'truncated', 'short_name', 'identity'];

caseTests(FILE, FIXTURE.symbol_cases, KNOWN_FAILURES, (c) => {
  const got = opguard.kernelCanonicalize(c.symbol);
  for (const field of SYMBOL_FIELDS) {
    assert.deepStrictEqual(got[field], c.expected[field], field);
  }
  if (c.demangled !== null) assert.equal(got.demangled, c.demangled);
  assert.equal(opguard.kernelShortName(c.symbol), c.expected.short_name);
});

caseTests(FILE, FIXTURE.verdict_cases, KNOWN_FAILURES, (c) => {
  const v = opguard.kernelVerdict(c.want, c.got);
  assert.deepStrictEqual([v.is_match, v.reason, v.basis],
    [c.expected.is_match, c.expected.reason, c.expected.basis]);
  assert.deepStrictEqual(opguard.kernelVerdict(c.got, c.want), v, 'the matcher is symmetric');
  assert.equal(opguard.kernelMatch(c.want, c.got), c.expected.is_match);
  assert.equal(opguard.kernelMatch(c.got, c.want), c.expected.is_match);
});

test('kernel_symbols.json: known failures name cases', () => {
  const ids = [...FIXTURE.symbol_cases, ...FIXTURE.verdict_cases].map((c) => c.id);
  for (const id of KNOWN_FAILURES.keys()) assert.ok(ids.includes(id), `known failure ${id} names no case`);
});

test('batch calls agree with single calls', () => {
  const symbols = FIXTURE.symbol_cases.map((c) => c.symbol);
  assert.deepStrictEqual(opguard.kernelCanonicalizeBatch(symbols),
    symbols.map((s) => opguard.kernelCanonicalize(s)));
  const pairs = FIXTURE.verdict_cases.map((c) => [c.want, c.got]);
  const verdicts = opguard.kernelMatchBatch(pairs);
  assert.deepStrictEqual(verdicts, pairs.map(([w, g]) => opguard.kernelVerdict(w, g)));
  assert.deepStrictEqual(verdicts.map((v) => v.is_match), FIXTURE.verdict_cases.map((c) => c.expected.is_match));
});

test('a field projection is the whole form restricted', () => {
  const symbols = FIXTURE.symbol_cases.map((c) => c.symbol);
  const fields = ['identity', 'short_name', 'template'];
  const whole = opguard.kernelCanonicalizeBatch(symbols);
  const projected = opguard.kernelCanonicalizeBatch(symbols, { fields });
  assert.deepStrictEqual(projected, whole.map((w) => Object.fromEntries(fields.map((f) => [f, w[f]]))));
  assert.deepStrictEqual(Object.keys(opguard.kernelCanonicalize(symbols[0], { fields })), fields);
  assert.throws(() => opguard.kernelCanonicalizeBatch(symbols, { fields: ['nope'] }),
    (e) => e instanceof opguard.RequestError && e.code === 'capi.invalid_request');
});

test('repeated batches through the shared memo answer the same', () => {
  // Real names (TraceLens) and the fixture's, mangled ones included: later
  // batches are served by the C ABI's memo and must equal the first.
  const real = loadJson(path.join(FIXTURES, 'kernel-name', 'real-names', 'tracelens.json'));
  const symbols = [...real.names.map((n) => n.name), ...FIXTURE.symbol_cases.map((c) => c.symbol)];
  assert.ok(symbols.filter((s) => s.trim().startsWith('_Z')).length >= 20);
  const first = opguard.kernelCanonicalizeBatch(symbols);
  for (let i = 0; i < 2; i++) assert.deepStrictEqual(opguard.kernelCanonicalizeBatch(symbols), first);
  const every37 = symbols.filter((_, i) => i % 37 === 0);
  assert.deepStrictEqual(every37.map((s) => opguard.kernelCanonicalize(s)), first.filter((_, i) => i % 37 === 0));
});
