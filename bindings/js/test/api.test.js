'use strict';
// The binding itself: typed errors, ownership, version, loading.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const opguard = require('opguard');
const { ROOT, FIXTURES, loadJson, sharedData, logSkip } = require('./support');

const W2 = path.join(FIXTURES, 'census', 'hint_guard_w2.capture.json');
const W8 = path.join(FIXTURES, 'census', 'hint_guard_w8.capture.json');
const TRACE = JSON.stringify({
  traceEvents: [
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 2, ts: 100, dur: 5, args: { correlation: 7 } },
    { ph: 'X', cat: 'kernel', name: 'void gemm_kernel<float>(float*)', pid: 0, tid: 7, ts: 110, dur: 20, args: { correlation: 7, device: 0, stream: 7 } },
  ],
});

function cargoVersion() {
  const text = fs.readFileSync(path.join(ROOT, 'opguard-capi', 'Cargo.toml'), 'utf8');
  const pkg = text.split('[package]')[1].split('\n[')[0];
  return /^version = "([^"]+)"/m.exec(pkg)[1];
}

test('version is the crate version and the ABI is 1', () => {
  assert.equal(opguard.version(), cargoVersion());
  assert.equal(opguard.abiVersion(), 1);
});

test('every JSON entry point of the header is wrapped', () => {
  const header = fs.readFileSync(path.join(ROOT, 'opguard-capi', 'include', 'opguard.h'), 'utf8');
  const declared = [...header.matchAll(/^char \*(opguard_\w+)\(const char \*request\);/gm)].map((m) => m[1]);
  assert.deepStrictEqual([...declared].sort(), [...opguard.JSON_ENTRY_POINTS].sort());
});

test('request errors are typed', () => {
  assert.throws(() => opguard.call('opguard_kernel_canonicalize', '{'),
    (e) => e instanceof opguard.RequestError && e.code === 'document.json_syntax' && e.details.line === 1);
  assert.throws(() => opguard.call('opguard_kernel_canonicalize', { sym: 'x' }),
    (e) => e instanceof opguard.DocumentError && e.code === 'document.unknown_field'
      && e.details.json_path === 'sym');
  assert.throws(() => opguard.call('opguard_kernel_canonicalize', '{"symbol": "a\0b"}'),
    (e) => e instanceof opguard.OpguardError && e.code === 'document.json_syntax');
});

test('library errors are typed by family', () => {
  assert.throws(() => opguard.traceInfo('/nonexistent/opguard/trace.json'),
    (e) => e instanceof opguard.TraceError && e.code === 'trace.io');
  assert.throws(() => opguard.traceInfo(null, { text: '{"traceEvents": [' }),
    (e) => e instanceof opguard.TraceError && e.code === 'trace.json_truncated' && 'byte_offset' in e.details);
  assert.throws(() => opguard.census(path.join(FIXTURES, 'census', 'width1_numeric_axis.capture.json')),
    (e) => e instanceof opguard.CensusError && e.code === 'census.step_axis_not_symbolic');
  assert.throws(() => opguard.censusCompareWidths(W2, W2),
    (e) => e instanceof opguard.CensusError && e.code === 'census.same_width');
  assert.throws(() => opguard.scalingCorrelate(path.join(FIXTURES, 'scaling', 'seed003', 'trials.json'), { metric: 'wall_ns' }),
    (e) => e instanceof opguard.ScalingError && e.code === 'scaling.unknown_metric');
});

test('an incomplete census is not a pass unless asked for by name (seed 004)', () => {
  const capture = path.join(FIXTURES, 'census', 'prefix_traps.capture.json');
  const families = path.join(FIXTURES, 'census', 'seed004_families.json');
  const declaredHostResolutions = path.join(FIXTURES, 'census', 'seed004_host_resolutions.declared.json');
  for (const extra of [{}, { declaredHostResolutions }, { requireClassified: true }]) {
    assert.throws(() => opguard.census(capture, { families, ...extra }),
      (e) => e instanceof opguard.CensusError && e.code === 'census.unclassified_operators');
  }
  assert.equal(opguard.census(capture, { families, requireClassified: false }).census.unclassified.ops, 4);
});

test('every entry point answers', () => {
  assert.equal(opguard.kernelShortName('main_kernel[prefill]'), 'main_kernel');
  assert.equal(opguard.kernelMatch('clamp_position_kernel',
    'void (anonymous namespace)::clamp_position_kernel<long>(long*)'), true);
  assert.equal(opguard.kernelMatch('void', 'void'), false);
  // U+0000 cannot cross a C string; the JSON call carries it instead of cutting the name.
  assert.equal(opguard.kernelCanonicalize('clamp_position_kernel\0junk').base, 'junk');
  assert.equal(opguard.kernelMatch('clamp_position_kernel\0junk', 'clamp_position_kernel'), false);
  const info = opguard.traceInfo(null, { text: TRACE });
  assert.equal(info.events, 2);
  assert.equal(info.sha256.length, 64);
  const regions = opguard.traceLaunchRegions([{ text: TRACE, provider: 'kineto_cuda' }]);
  assert.equal(regions.regions[0].kernel_count, 1);
  assert.equal(regions.regions[0].correlated_kernel_count, 1);
  assert.equal(opguard.census(loadJson(W2)).census.label, loadJson(W2).label);
  assert.equal(opguard.censusCompareWidths(W2, W8).free_symbol, true);
  // Seed 004's family table claims none of these operators: not free.
  const seed004 = path.join(FIXTURES, 'census', 'seed004_families.json');
  assert.equal(opguard.censusCompareWidths(W2, W8, undefined, { families: seed004 }).free_symbol, false);
  const report = opguard.scalingCorrelate(path.join(FIXTURES, 'scaling', 'seed003', 'trials.json'));
  assert.equal(report.hotspots[0].name, 'reverse_scan');
});

test('export and apply', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opguard-js-'));
  try {
    const view = path.join(dir, 'view.json');
    const records = path.join(FIXTURES, 'align', 'two_runs.records.jsonl');
    const summary = opguard.exportBuild(view, { records });
    assert.equal(summary.verdict, 'not_evaluated');
    assert.throws(() => opguard.exportBuild(view, { records }),
      (e) => e instanceof opguard.AlignError && e.code === 'align.output_exists');
    const map = path.join(dir, 'map.json');
    fs.writeFileSync(map, JSON.stringify({ version: 1, artifact_sha256: summary.output_sha256, reviews: [] }));
    assert.equal(opguard.alignmentMapApply(view, map, path.join(dir, 'out.json')).verdict, 'not_evaluated');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every returned string is released through opguard_string_free', () => {
  const before = opguard.freedCount();
  let calls = 0;
  for (const request of [{ symbol: 'a' }, '{', { nope: 1 }]) {
    try {
      opguard.call('opguard_kernel_canonicalize', request);
    } catch (e) {
      assert.ok(e instanceof opguard.OpguardError);
    }
    calls += 1;
  }
  opguard.kernelCanonicalizeBatch(['a', 'b']);
  calls += 1;
  assert.equal(opguard.freedCount() - before, calls);
});

test('a missing library is a clear error', () => {
  assert.throws(() => opguard.loadLibrary(path.join(os.tmpdir(), 'no-such-dir', 'libopguard_capi.so')),
    (e) => e instanceof opguard.LibraryNotFoundError);
});

test('salvage reads the complete events of a cut real trace', (t) => {
  const zlib = require('node:zlib');
  const { file: real, skip } = sharedData('traces', 'hta', 'trace_compare__base__base.json.gz');
  if (skip) {
    logSkip(t.name, skip);
    t.skip(skip);
    return;
  }
  const text = zlib.gunzipSync(fs.readFileSync(real)).toString('utf8');
  const cutText = text.slice(0, Math.floor(text.length / 2));
  // Complete events counted by JSON.parse on growing prefixes of the array.
  const body = cutText.slice(cutText.indexOf('[', cutText.indexOf('"traceEvents"')) + 1);
  let want = 0;
  for (let end = body.indexOf('}'); end !== -1; end = body.indexOf('}', end + 1)) {
    try {
      want = JSON.parse(`[${body.slice(0, end + 1)}]`).length;
    } catch {
      // not at the end of an event
    }
  }
  assert.ok(want > 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opguard-salvage-'));
  const cut = path.join(dir, 'cut.json');
  fs.writeFileSync(cut, cutText);
  assert.throws(() => opguard.traceInfo(cut),
    (e) => e instanceof opguard.TraceError && e.code === 'trace.json_truncated' && e.message.includes(`${want} complete events`));
  const info = opguard.traceInfo(cut, { reader: { salvage: true } });
  assert.equal(info.events, want);
  assert.equal(info.warnings[0].code, 'truncated');
  fs.rmSync(dir, { recursive: true });
});

test('an XSpace reads like the JSON its JAX run wrote', () => {
  // The committed JAX run's .xplane.pb: its facts by format, the profile of
  // the JSON the run wrote beside it, a cut copy refused with the XSpace
  // reader's code.
  const producers = path.join(FIXTURES, 'producers', 'traces');
  const xspace = path.join(producers, 'jax_tensorboard.xplane.pb');
  const info = opguard.traceInfo(xspace);
  assert.equal(info.format, 'xspace');
  assert.equal(info.provider, 'xla');
  assert.equal(info.producer, 'jax 0.10.2');
  assert.equal(info.events, 72);
  assert.deepEqual(info.planes.map((p) => p.name), ['/host:metadata', '/host:CPU', 'Task Environment']);

  const fromXspace = opguard.profileTopN(xspace, 25);
  const fromJson = opguard.profileTopN(path.join(producers, 'jax_tensorboard.trace.json.gz'), 25);
  assert.deepEqual([fromXspace.trace.provider, fromJson.trace.provider], ['xla', 'jax']);
  for (const doc of [fromXspace, fromJson]) {
    for (const key of ['provider', 'sha256', 'source']) delete doc.trace[key];
  }
  assert.deepEqual(fromXspace, fromJson);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opguard-xspace-'));
  const cut = path.join(dir, 'cut.xplane.pb');
  const bytes = fs.readFileSync(xspace);
  fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  assert.throws(() => opguard.traceInfo(cut),
    (e) => e instanceof opguard.TraceError && e.code === 'trace.protobuf_truncated');
  fs.rmSync(dir, { recursive: true });
});

// ---- packaging ---------------------------------------------------------------

test('the package reports the version of the library it carries (opguard-capi)', () => {
  assert.equal(require('opguard/package.json').version, cargoVersion());
});

test('an installed package loads the library it carries, with no environment', (t) => {
  const entry = require.resolve('opguard');
  if (!entry.split(path.sep).includes('node_modules')) {
    t.skip('source-tree run; bindings/test.sh runs the tests beside an installed package');
    return;
  }
  assert.equal(process.env.OPGUARD_LIB, undefined);
  assert.equal(process.env.CARGO_TARGET_DIR, undefined);
  const pkg = path.dirname(entry);
  assert.ok(!pkg.startsWith(ROOT + path.sep), `loaded from the checkout: ${pkg}`);
  const lib = opguard.libraryPath();
  assert.equal(path.dirname(path.dirname(path.dirname(lib))), pkg);
  assert.equal(path.basename(path.dirname(lib)), `${process.platform}-${process.arch}`);
});

test('index.d.ts declares every export of index.js, and nothing else', () => {
  const dts = fs.readFileSync(require.resolve('opguard').replace(/index\.js$/, 'index.d.ts'), 'utf8');
  const declared = [...dts.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepStrictEqual([...new Set(declared)].sort(), Object.keys(opguard).sort());
});
