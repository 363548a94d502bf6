'use strict';
// One meaning, one code: every document-reading door of the binding reports
// one repeated key as `document.duplicate_key` and one wrong type as
// `document.wrong_type` (a DocumentError), at the same JSON path. The Rust
// side walks the library, the command and the C ABI in
// opguard-cli/tests/one_code.rs; the Python binding in test_one_code.py.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const opguard = require('opguard');

const CAPTURE = {
  format: 'opguard.census/capture-v1', label: 'a', step_axis: 's0', step_hint: 2,
  ops: [], guards: [], replacements: {}, host_resolutions: [],
};
const RECORD = {
  record_id: 'a/0/0', run: 'a', rank: 0, sequence: 0, op: 'aten::mm',
  stack: [], io: { inputs: [], outputs: [] },
};

/** `doc` as JSON text with `key` given twice. */
const repeated = (doc, key) =>
  `{${JSON.stringify(key)}:${JSON.stringify(doc[key])},${JSON.stringify(doc).slice(1)}`;
/** `doc` as JSON text with `key` holding a value of another JSON type. */
const wrongType = (doc, key) =>
  JSON.stringify({ ...doc, [key]: typeof doc[key] === 'number' ? '5' : 5 });
const FAULTS = { duplicate_key: repeated, wrong_type: wrongType };

/** Each door of the binding that reads a `kind` document, as calls. */
function doors(kind, dir, text) {
  const file = path.join(dir, 'doc.json');
  fs.writeFileSync(file, text);
  const goodCapture = path.join(dir, 'good-capture.json');
  fs.writeFileSync(goodCapture, JSON.stringify(CAPTURE));
  const raw = opguard.call;
  return {
    'seam request': [
      ['seamVerdict(path)', () => opguard.seamVerdict(file)],
      ['opguard_seam_verdict request', () => raw('opguard_seam_verdict', `{"request": ${text}}`)],
    ],
    'apply request': [
      ['opguard_alignment_map_apply', () => raw('opguard_alignment_map_apply', text)],
    ],
    'alignment map': [
      ['alignmentMapApply', () => opguard.alignmentMapApply(
        path.join(dir, 'view.json'), file, path.join(dir, 'reviewed.json'))],
    ],
    'records line': [
      ['exportBuild({records})', () => opguard.exportBuild(path.join(dir, 'view.json'), { records: file })],
    ],
    'trials document': [
      ['scalingCorrelate(path)', () => opguard.scalingCorrelate(file)],
      ['opguard_scaling_correlate trials', () => raw('opguard_scaling_correlate', `{"trials": ${text}}`)],
    ],
    'job document': [
      ['opguard_job_merge summaries', () => raw('opguard_job_merge', `{"summaries": [${text}]}`)],
    ],
    capture: [
      ['census(path)', () => opguard.census(file)],
      ['opguard_census capture', () => raw('opguard_census', `{"capture": ${text}}`)],
      ['censusCompareWidths(path, ...)', () => opguard.censusCompareWidths(file, goodCapture)],
    ],
    'family table': [
      ['census({families})', () => opguard.census(goodCapture, { families: file })],
    ],
    'declared host resolutions': [
      ['census({declaredHostResolutions})',
        () => opguard.census(goodCapture, { declaredHostResolutions: file })],
    ],
    'C ABI request': [
      ['opguard_kernel_canonicalize', () => raw('opguard_kernel_canonicalize', text)],
      ['opguard_kernel_short_name', () => raw('opguard_kernel_short_name', text)],
    ],
  }[kind];
}

// [kind, a document of that kind, the field the fault is written into, its JSON path]
const KINDS = [
  ['seam request', { protocol_version: 1, target: 'pkg.mod:f' }, 'target', 'target'],
  ['apply request', {
    protocol_version: 1, artifact: 'view.json', alignment_map: 'map.json', output: 'out.json',
  }, 'artifact', 'artifact'],
  ['alignment map', { version: 1, artifact_sha256: '0'.repeat(64), reviews: [] },
    'artifact_sha256', 'artifact_sha256'],
  ['trials document', { trials: [{ id: 'a', input: 1, variant: 'v', traces: ['t.json'] }] },
    'trials', 'trials'],
  ['job document', { format: 'opguard.job/v1', ranks: [], frames: [] }, 'format', 'format'],
  ['capture', CAPTURE, 'label', 'label'],
  ['family table', { format: 'opguard.census/families-v1', families: [] }, 'families', 'families'],
  ['declared host resolutions', { 'pkg/a.py:1 in f': 1 }, 'pkg/a.py:1 in f', '$["pkg/a.py:1 in f"]'],
  ['C ABI request', { symbol: 'clamp_position_kernel' }, 'symbol', 'symbol'],
];

for (const [code, fault] of Object.entries(FAULTS)) {
  const cases = KINDS.map(([kind, doc, key, jsonPath]) => [kind, fault(doc, key), jsonPath]);
  cases.push(['records line', `{"format":"opguard.records/v1"}\n${fault(RECORD, 'run')}\n`, 'run']);
  for (const [kind, text, jsonPath] of cases) {
    test(`${kind}::${code}`, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opguard-one-code-'));
      try {
        for (const [door, run] of doors(kind, dir, text)) {
          assert.throws(run, (e) => {
            assert.ok(e instanceof opguard.DocumentError, `${door}: ${e}`);
            assert.equal(e.code, `document.${code}`, door);
            assert.equal(e.details.json_path, jsonPath, door);
            return true;
          });
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
}
