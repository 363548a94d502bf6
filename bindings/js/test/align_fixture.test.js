'use strict';
// fixtures/align/map_cases.json (alignment maps v1, seed 000) through the
// binding, one test per case: export the records, substitute the case's
// references, apply its map, compare with what the case expects.
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test, after } = require('node:test');
const opguard = require('opguard');
const {
  FIXTURES, loadJson, loadFixture, caseTests, abiCode,
} = require('./support');

const FILE = 'align/map_cases.json';
const DIR = path.join(FIXTURES, 'align');
const DOC = loadFixture(FILE, 'opguard.align.fixture', 2);

// Known failures by case id -> reason. Never edit the fixture to make a case pass.
const KNOWN_FAILURES = new Map();

const sha256sum = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

function opsById(view) {
  const out = new Map();
  view.traceEvents.forEach((e, i) => {
    if (e.cat === 'opguard.op') out.set(e.args.op.record_id, [i, e]);
  });
  return out;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'opguard-js-align-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let exported = null;
function exportOnce() {
  if (exported === null) {
    const view = path.join(scratch, 'view.json');
    const summary = opguard.exportBuild(view, { records: path.join(DIR, DOC.records) });
    exported = { view, summary, ops: opsById(loadJson(view)) };
  }
  return exported;
}

function substitute(v, sha, index) {
  if (typeof v === 'string') {
    if (v === '$ARTIFACT') return sha;
    if (v.startsWith('@')) return `${sha}:${index.get(v.slice(1))[0]}`;
    if (v.startsWith('#')) return `${sha}:${v.slice(1)}`;
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, sha, index));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, sha, index)]));
  }
  return v;
}

const listOf = (v, key) => (Array.isArray(v) ? v.map((e) => e[key]) : []);

function perOperation(kind, c) {
  switch (kind) {
    case 'statuses': return c.status;
    case 'validation': return c.validation;
    case 'peers': return c.peer ? c.peer.record_id : undefined;
    case 'differences': case 'not_compared': case 'selectors': case 'basis': return c[kind];
    case 'superseded': return listOf(c.original_comparison, 'superseded');
    case 'original_status': return listOf(c.original_comparison, 'status');
    case 'displaced_by': {
      const oc = c.original_comparison;
      return Array.isArray(oc) && oc.length ? oc[oc.length - 1].displaced_by : null;
    }
    case 'review_ids': return c.review ? c.review.id : undefined;
    case 'review_history_ids': return listOf(c.review_history, 'id');
    case 'alternative_count': return (c.alternative_reviews || []).length;
    case 'evidence_references': return listOf(c.review ? c.review.evidence : undefined, 'reference');
    default: throw new Error(`unknown expectation ${kind}`);
  }
}

function checkOk(expected, response, out, sha, mapPath) {
  assert.equal(response.verdict, 'not_evaluated');
  assert.equal(response.workload_launched, false);
  assert.equal(response.protocol_version, 1);
  assert.equal(response.output_sha256, sha256sum(out));
  assert.equal(response.artifact_sha256, sha);
  assert.equal(response.alignment_map_sha256, sha256sum(mapPath));
  const ops = opsById(loadJson(out));
  for (const [key, want] of Object.entries(expected)) {
    if (key === 'result') continue;
    if (key === 'pairs') assert.equal(response.pairs, want);
    else if (key === 'counts') assert.deepStrictEqual(response.statuses, want);
    else if (key === 'decisions') assert.deepStrictEqual(response.decisions, want);
    else if (key === 'validation_counts') assert.deepStrictEqual(response.validation, want);
    else if (['new_mappings', 'displaced', 'active_reviews', 'reviews'].includes(key)) {
      assert.deepStrictEqual(response[key], want, key);
    } else if (key === 'first_differences') {
      const got = Object.fromEntries(response.first_differences.map((f) => [`${f.run}/${f.rank}`, f.record_id]));
      assert.deepStrictEqual(got, want);
    } else if (key === 'absent_paths') {
      for (const p of want) assert.ok(!fs.existsSync(p), p);
    } else {
      for (const [rid, w] of Object.entries(want)) {
        let got = perOperation(key, ops.get(rid)[1].args.correspondence);
        if ((got === undefined || got === null) && Array.isArray(w)) got = [];
        if (got === undefined) got = null;
        assert.deepStrictEqual(got, w, `${key} of ${rid}`);
      }
    }
  }
  for (const [rid, [, e]] of ops) {
    assert.equal(e.args.correspondence.tensor_equality, 'not_established', rid);
  }
}

caseTests(FILE, DOC.cases, KNOWN_FAILURES, (c) => {
  const { view, summary, ops } = exportOnce();
  const sha = summary.output_sha256;
  const dir = fs.mkdtempSync(path.join(scratch, 'case-'));
  const mapPath = path.join(dir, 'map.json');
  fs.writeFileSync(mapPath, JSON.stringify(substitute(c.map, sha, ops)));
  const out = path.join(dir, 'reviewed.json');
  if (c.expected.result === 'error') {
    assert.throws(() => opguard.alignmentMapApply(view, mapPath, out),
      (e) => e instanceof opguard.OpguardError && e.code === abiCode('align', c.expected.code));
    assert.ok(!fs.existsSync(out), 'a refused map wrote its output');
    assert.deepStrictEqual(fs.readdirSync(dir), ['map.json']);
  } else {
    checkOk(c.expected, opguard.alignmentMapApply(view, mapPath, out), out, sha, mapPath);
  }
  assert.equal(sha256sum(view), sha, 'the original export changed');
});

test('align/map_cases.json: the export matches its declared shape', () => {
  const { summary, ops } = exportOnce();
  const declared = DOC.export;
  assert.equal(summary.operations, declared.operations);
  assert.equal(summary.pairs, declared.pairs);
  assert.deepStrictEqual(summary.statuses, declared.statuses);
  for (const [rid, i] of Object.entries(declared.index)) assert.equal(ops.get(rid)[0], i);
  assert.equal(ops.size, declared.first_non_operation_index);
});
