'use strict';
// Comparing runs through the Node binding: the real HTA pair of two runs of
// one program, and the codes of bad input.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const opguard = require('..');
const { ROOT } = require('./support');

const HTA = path.join(ROOT, '..', 'shared', 'data', 'traces', 'hta');
const BASE = path.join(HTA, 'trace_compare__base__base.json.gz');
const TEST = path.join(HTA, 'trace_compare__test__test.json.gz');
const haveData = fs.existsSync(BASE) && fs.existsSync(TEST);
if (!haveData && process.env.CI === 'true') throw new Error(`CI=true but ${HTA} is missing`);

test('compare: the real pair, two steps a side, is undecided', { skip: !haveData && 'no shared data' }, () => {
  const c = opguard.compare([BASE], [TEST], { failAbove: 0.05, fdr: 0.05 });
  assert.equal(c.format, 'opguard.compare/v1');
  assert.equal(c.sample_unit, 'step');
  assert.equal(c.gate.status, 'undecided');
  assert.equal(c.tested, 0);
  assert.equal(c.settings.fail_above, 0.05);
  assert.ok(c.entities.every((e) => e.verdict !== 'regressed'));
  const only = c.entities.filter((e) => e.verdict === 'only_in_candidate').map((e) => e.name).sort();
  assert.deepStrictEqual(only, ['AddmmBackward0', 'All2All_Pooled_Req', 'CatBackward0']);
});

test('compare: bad input throws CompareError with its code', { skip: !haveData && 'no shared data' }, () => {
  assert.throws(() => opguard.compare([BASE], [TEST], { step: 'train_step' }),
    (e) => e instanceof opguard.CompareError && e.code === 'compare.step_not_found');
  assert.throws(() => opguard.compare([BASE], [path.join(HTA, 'no-such-run.json.gz')]),
    (e) => e instanceof opguard.CompareError && e.code === 'compare.trace_unreadable'
      && e.details.trace_code === 'io');
  assert.throws(() => opguard.compare([], [TEST]),
    (e) => e instanceof opguard.CompareError && e.code === 'compare.no_runs');
});
