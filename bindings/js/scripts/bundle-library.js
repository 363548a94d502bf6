'use strict';
// `npm pack` runs this (prepack): it copies the host platform's opguard
// library into native/<platform>-<arch>/ so the tarball carries it; postpack
// runs it with --clean so the source tree keeps no copy. The library is
// $OPGUARD_LIB, else the workspace's release build (build it first with
// `cargo build --release -p opguard-capi`). A pack without it fails.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { libName, bundledDir } = require('../platform');

const here = path.resolve(__dirname, '..');
const native = path.join(here, 'native');

if (process.argv.includes('--clean')) {
  fs.rmSync(native, { recursive: true, force: true });
  process.exit(0);
}

const workspace = path.resolve(here, '..', '..');
const target = process.env.CARGO_TARGET_DIR || path.join(workspace, 'target');
const source = process.env.OPGUARD_LIB || path.join(target, 'release', libName());
if (!fs.existsSync(source)) {
  console.error(`error: ${source} does not exist; build it with \`cargo build --release -p opguard-capi\` `
    + 'or set OPGUARD_LIB to the library to bundle');
  process.exit(1);
}
const dir = bundledDir(here);
fs.mkdirSync(dir, { recursive: true });
const bundled = path.join(dir, libName());
fs.copyFileSync(source, bundled);
// The release profile keeps line tables for development backtraces; the
// package carries the library without debug info (`strip -S` is GNU's and
// Apple's spelling). Without a strip tool the library ships as built.
const strip = spawnSync('strip', ['-S', bundled], { stdio: 'inherit' });
if (strip.status !== 0) console.error('warning: `strip -S` failed; bundling the library with its debug info');
console.error(`bundled ${source} as ${path.relative(here, bundled)}`);
