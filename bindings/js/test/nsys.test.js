'use strict';
// Nsight Systems SQLite exports through the Node binding: traceInfo and
// traceLaunchRegions on a shared export, held against counts sqlite3 gives
// for the same file (Python's sqlite3, the referee the Rust tests use).
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const opguard = require('..');
const { ROOT } = require('./support');

const NSYS = path.join(ROOT, '..', 'shared', 'data', 'nsys');
const EXPORT = path.join(NSYS, 'pipit_perlmutter-cloverleaf-cuda.sqlite');
const REPORT = path.join(NSYS, 'test-cuda_report1.nsys-rep');
const haveData = fs.existsSync(EXPORT) && fs.existsSync(REPORT);
if (!haveData && process.env.CI === 'true') throw new Error(`CI=true but ${NSYS} is missing`);
const skip = !haveData && `no shared data at ${NSYS} (real exports, see its README)`;

const referee = () => JSON.parse(execFileSync('python3',
  [path.join(ROOT, 'opguard-nsys', 'tests', 'referee.py'), EXPORT], { encoding: 'utf8' }));

test('traceInfo reads an Nsight Systems export', { skip }, () => {
  const info = opguard.traceInfo(EXPORT);
  const want = referee();
  assert.equal(info.format, 'nsys_sqlite');
  assert.equal(info.provider, 'nsight_systems');
  assert.equal(info.meta.product_version, want.product_version);
  const kernels = info.tables.find((t) => t.table === 'CUPTI_ACTIVITY_KIND_KERNEL');
  assert.equal(kernels.rows, want.kernels[0]);
});

test('traceLaunchRegions proves launches as the SQL referee does', { skip }, () => {
  const region = opguard.traceLaunchRegions([EXPORT]).regions[0];
  const want = referee();
  assert.deepStrictEqual([region.kernel_count, region.kernel_duration_ns], want.kernels);
  assert.equal(region.correlated_kernel_count, want.proven_kernels);
  assert.equal(region.direct_launch_count, want.launches.direct);
});

test('a binary report is refused with the export command', { skip }, () => {
  assert.throws(() => opguard.traceInfo(REPORT),
    (e) => e instanceof opguard.TraceError && e.code === 'trace.nsight_report'
      && e.message.includes('nsys export --type sqlite'));
});
