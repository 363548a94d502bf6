'use strict';
// Where a package carries its library: native/<platform>-<arch>/<file>,
// e.g. native/linux-x64/libopguard_capi.so (Node's process.platform and
// process.arch names).
const path = require('node:path');

/** The library's file name on this platform, as cargo names it. */
function libName() {
  if (process.platform === 'darwin') return 'libopguard_capi.dylib';
  if (process.platform === 'win32') return 'opguard_capi.dll';
  return 'libopguard_capi.so';
}

/** The folder of this platform's bundled library inside the package at `root`. */
function bundledDir(root) {
  return path.join(root, 'native', `${process.platform}-${process.arch}`);
}

module.exports = { libName, bundledDir };
