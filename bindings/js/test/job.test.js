'use strict';
// Whole jobs through the Node binding: jobSummary (map) and jobMerge (reduce)
// on real rank traces.
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const opguard = require('..');
const { sharedData, logSkip } = require('./support');

const ranks = [0, 1].map((i) => sharedData('traces', 'hta', `trace_filter__sampled_rank-${i}.json.gz`));
const { skip } = ranks[0];
const RANKS = ranks.map((r) => r.file);
const HTA = skip ? null : path.dirname(RANKS[0]);
const name = 'jobSummary reads real ranks and jobMerge ignores order and grouping';
if (skip) logSkip(name, skip);

test(name, { skip }, () => {
  const summaries = RANKS.map((p) => opguard.jobSummary(p, { top: 3 }));
  assert.deepStrictEqual(summaries.map((s) => s.rank.rank), [0, 1]);
  assert.equal(summaries[0].rank.top.length, 3);
  summaries.push(opguard.jobSummary(path.join(HTA, 'no-such-rank.json.gz')));
  assert.equal(summaries[2].rank.error.code, 'trace.io');

  const job = opguard.jobMerge(summaries);
  assert.equal(job.format, 'opguard.job/v1');
  assert.deepStrictEqual(job.ranks.map((r) => r.rank), [null, 0, 1]);
  assert.deepStrictEqual(opguard.jobMerge([...summaries].reverse()), job);
  const partial = opguard.jobMerge([summaries[2], summaries[0]]);
  assert.deepStrictEqual(opguard.jobMerge([summaries[1], partial]), job);
  for (const f of job.frames) {
    assert.equal(f.max_ns, Math.max(...f.per_rank.map((c) => c.cost_ns)));
    assert.ok(f.missing.some((m) => m.file.endsWith('no-such-rank.json.gz')));
  }
});

test('jobMerge refuses what is not a summary', () => {
  assert.throws(() => opguard.jobMerge([{ format: 'x' }]),
    (e) => e instanceof opguard.JobError && e.code === 'job.wrong_format');
});
