#!/usr/bin/env node
'use strict';
// Per-call cost of opguard's C ABI from Node (koffi): the direct
// opguard_kernel_match, the JSON call, an empty call, and the batch calls over
// the fixture's names.
//
//   OPGUARD_LIB=target/release/libopguard_capi.so node benches/peers/binding_overhead.js [SECONDS]
//
// Run by benches/peers/binding_overhead.sh (after `npm ci` in bindings/js).
// Medians of 5 runs, wall and CPU time.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const opguard = require(path.join(ROOT, 'bindings', 'js'));
const koffi = require(path.join(ROOT, 'bindings', 'js', 'node_modules', 'koffi'));

const WANT = 'clamp_position_kernel';
const GOT = 'void (anonymous namespace)::clamp_position_kernel<long>(long*, int)';
const seconds = Number(process.argv[2] || 2);

function measure(fn, items) {
  const walls = [];
  const cpus = [];
  for (let r = 0; r < 5; r++) {
    let done = 0;
    const w0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    let w1;
    do {
      fn();
      done += items;
      w1 = process.hrtime.bigint();
    } while (Number(w1 - w0) < (seconds / 5) * 1e9);
    const c = process.cpuUsage(c0);
    walls.push(Number(w1 - w0) / done);
    cpus.push(((c.user + c.system) * 1e3) / done);
  }
  const median = (a) => a.sort((x, y) => x - y)[2];
  return [median(walls), median(cpus)];
}

function report(label, [wall, cpu], unit = 'call') {
  console.log(`node   ${label.padEnd(52)} ${wall.toFixed(1).padStart(10)} ns/${unit} wall ${cpu.toFixed(1).padStart(10)} ns/${unit} cpu`);
}

const fixture = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures', 'kernel-name', 'kernel_symbols.json'), 'utf8'));
const names = fixture.symbol_cases.map((c) => c.symbol);
const pairs = fixture.verdict_cases.map((c) => [c.want, c.got]);
console.log(`library ${opguard.libraryPath()} (opguard ${opguard.version()}), Node ${process.version}`);
if (!opguard.kernelMatch(WANT, GOT)) throw new Error('unexpected verdict');

const lib = koffi.load(opguard.libraryPath());
const abi = lib.func('uint32_t opguard_abi_version(void)');
const rawMatch = lib.func('int opguard_kernel_match(const char *want, const char *got)');
console.log('\n-- per call --');
report('koffi opguard_abi_version() (empty call)', measure(() => { for (let i = 0; i < 1000; i++) abi(); }, 1000));
report('koffi opguard_kernel_match(str, str)', measure(() => { for (let i = 0; i < 1000; i++) rawMatch(WANT, GOT); }, 1000));
report('opguard.kernelMatch(str, str)', measure(() => { for (let i = 0; i < 1000; i++) opguard.kernelMatch(WANT, GOT); }, 1000));
report('opguard.kernelVerdict(str, str) (JSON)', measure(() => { for (let i = 0; i < 1000; i++) opguard.kernelVerdict(WANT, GOT); }, 1000));
console.log(`\n-- corpus: ${names.length} symbols, ${pairs.length} pairs --`);
report('opguard.kernelCanonicalize, loop', measure(() => names.forEach((n) => opguard.kernelCanonicalize(n)), names.length), 'name');
report('opguard.kernelCanonicalizeBatch (one call)', measure(() => opguard.kernelCanonicalizeBatch(names), names.length), 'name');
report('opguard.kernelMatch, loop (direct)', measure(() => pairs.forEach(([w, g]) => opguard.kernelMatch(w, g)), pairs.length), 'pair');
report('opguard.kernelMatchBatch (one call)', measure(() => opguard.kernelMatchBatch(pairs), pairs.length), 'pair');
