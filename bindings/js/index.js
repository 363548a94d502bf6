'use strict';
/**
 * Node bindings for opguard's C ABI, through koffi.
 *
 * The shared library is the one the package carries for this platform
 * (native/<platform>-<arch>/, put there by `npm pack`), else $OPGUARD_LIB,
 * else the workspace's target/{release,debug} ($CARGO_TARGET_DIR first; for
 * development). It is loaded on first use; `libraryPath()` says which file.
 * Every function returns the envelope's `value` or throws the typed error of
 * its code. Returned strings are a koffi disposable type whose dispose
 * function is `opguard_string_free`: koffi copies the envelope into a JS
 * string and then releases the original pointer with the library's own free
 * function (never libc `free`).
 */
const fs = require('node:fs');
const path = require('node:path');
const koffi = require('koffi');
const { libName, bundledDir } = require('./platform');

const ABI_VERSION = 1;

const JSON_ENTRY_POINTS = [
  'opguard_kernel_canonicalize',
  'opguard_kernel_canonicalize_batch',
  'opguard_kernel_short_name',
  'opguard_kernel_match_json',
  'opguard_kernel_match_batch',
  'opguard_trace_info',
  'opguard_trace_launch_regions',
  'opguard_census',
  'opguard_census_compare_widths',
  'opguard_profile_top_n',
  'opguard_seam_verdict',
  'opguard_export_build',
  'opguard_alignment_map_apply',
  'opguard_scaling_correlate',
  'opguard_job_summary',
  'opguard_job_merge',
  'opguard_compare',
];

// ---- errors ----------------------------------------------------------------

/** An error envelope: `code`, `message` and the envelope's other fields in `details`. */
class OpguardError extends Error {
  constructor(code, message, details = {}) {
    super(`${code}: ${message}`);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
    this.rawMessage = message;
  }
}
/** NULL, invalid UTF-8, or not the entry point's request (`capi.*`, and `document.*`). */
class RequestError extends OpguardError {}
/**
 * A JSON document could not be read, the request itself or one it carries or
 * names (`document.*`); `details` has `json_path`, `line`, `column` (or `limit`).
 */
class DocumentError extends RequestError {}
/** A bug in opguard (`capi.internal_panic`, `capi.internal_error`). */
class InternalError extends OpguardError {}
/** The trace reader refused an input (`trace.*`). */
class TraceError extends OpguardError {}
/** The census refused (`census.*`). */
class CensusError extends OpguardError {}
/** Export or alignment-map apply refused (`align.*`). */
class AlignError extends OpguardError {}
/** The scaling run refused (`scaling.*`). */
class ScalingError extends OpguardError {}
/** The profile or seam verdict could not be computed (`select.*`). */
class SelectError extends OpguardError {}
/** A rank summary or job document given to the merge is refused (`job.*`). */
class JobError extends OpguardError {}
/** The comparison refused its inputs (`compare.*`); a failed gate is a result, not an error. */
class CompareError extends OpguardError {}
/** The shared library could not be found or loaded, or its ABI differs. */
class LibraryNotFoundError extends Error {}

const BY_PREFIX = {
  capi: RequestError, document: DocumentError, trace: TraceError, census: CensusError, align: AlignError,
  scaling: ScalingError, select: SelectError, job: JobError, compare: CompareError,
};

function errorFromEnvelope(error = {}) {
  const { code = 'capi.internal_error', message = '', ...details } = error;
  const Cls = code === 'capi.internal_panic' || code === 'capi.internal_error'
    ? InternalError
    : BY_PREFIX[code.split('.')[0]] || OpguardError;
  return new Cls(code, message, details);
}

// ---- loading ---------------------------------------------------------------

/** Where the library is looked for, in order. */
function candidates() {
  const out = [path.join(bundledDir(__dirname), libName())];
  if (process.env.OPGUARD_LIB) {
    // An explicit choice: the workspace is not searched behind it.
    out.push(process.env.OPGUARD_LIB);
    return out;
  }
  const roots = [];
  if (process.env.CARGO_TARGET_DIR) roots.push(process.env.CARGO_TARGET_DIR);
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'Cargo.toml')) && fs.existsSync(path.join(dir, 'opguard-capi'))) {
      roots.push(path.join(dir, 'target'));
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out.concat(roots.flatMap((root) => ['release', 'debug'].map((p) => path.join(root, p, libName()))));
}

let native = null;
let freed = 0;

function load(file) {
  let handle;
  try {
    handle = koffi.load(file);
  } catch (e) {
    throw new LibraryNotFoundError(`cannot load ${file}: ${e.message}`);
  }
  const abiVersion = handle.func('uint32_t opguard_abi_version(void)')();
  if (abiVersion !== ABI_VERSION) {
    throw new LibraryNotFoundError(`${file} has ABI version ${abiVersion}; this package needs ${ABI_VERSION}`);
  }
  const stringFree = handle.func('void opguard_string_free(void *s)');
  const OwnedStr = koffi.disposable('OpguardOwnedStr', 'str', (ptr) => {
    freed += 1;
    stringFree(ptr);
  });
  const entries = {};
  for (const name of JSON_ENTRY_POINTS) {
    entries[name] = handle.func(name, OwnedStr, ['str']);
  }
  return {
    path: file,
    abiVersion,
    version: handle.func('const char *opguard_version(void)')(), // static: not freed
    statusName: handle.func('const char *opguard_status_name(int status)'), // static
    kernelMatch: handle.func('int opguard_kernel_match(const char *want, const char *got)'),
    entries,
  };
}

function library() {
  if (native === null) {
    const tried = [];
    for (const file of candidates()) {
      if (fs.existsSync(file)) {
        native = load(file);
        break;
      }
      tried.push(file);
    }
    if (native === null) {
      throw new LibraryNotFoundError(
        'opguard shared library not found: this package carries none for '
        + `${process.platform}-${process.arch}, OPGUARD_LIB is unset, and no workspace build exists `
        + `(\`cargo build --release -p opguard-capi\`). Tried: ${tried.join(', ')}`);
    }
  }
  return native;
}

// ---- calls -----------------------------------------------------------------

/** Calls any JSON entry point by its C symbol with an object (or JSON text). */
function call(entryPoint, request) {
  const fn = library().entries[entryPoint];
  if (!fn) throw new TypeError(`no JSON entry point ${entryPoint}`);
  const text = typeof request === 'string' ? request : JSON.stringify(request);
  if (text.includes('\0')) {
    // A NUL would silently cut the C string; JSON text never holds one.
    throw new DocumentError('document.json_syntax', 'request holds a NUL character; JSON escapes it as \\u0000');
  }
  const envelope = JSON.parse(fn(text));
  if (envelope.ok === true) return envelope.value;
  throw errorFromEnvelope(envelope.error);
}

const dropUndefined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** `name` for an inline document (an object), `name_path` for a path. */
function doc(name, value) {
  if (value === undefined || value === null) return {};
  if (typeof value === 'object') return { [name]: value };
  return { [`${name}_path`]: String(value) };
}

const api = {
  version: () => library().version,
  abiVersion: () => library().abiVersion,
  libraryPath: () => library().path,
  call,

  /** The canonical form, or only `fields` (e.g. `['identity', 'short_name']`). */
  kernelCanonicalize: (symbol, { fields } = {}) => call('opguard_kernel_canonicalize',
    dropUndefined({ symbol, fields: fields === undefined ? undefined : [...fields] })),
  kernelCanonicalizeBatch: (symbols, { fields } = {}) => call('opguard_kernel_canonicalize_batch',
    dropUndefined({ symbols: [...symbols], fields: fields === undefined ? undefined : [...fields] })),
  kernelShortName: (symbol) => call('opguard_kernel_short_name', { symbol }).short_name,
  kernelVerdict: (want, got) => call('opguard_kernel_match_json', { want, got }),
  /** The direct call: no JSON. */
  kernelMatch(want, got) {
    if (want.includes('\0') || got.includes('\0')) {
      // The direct call takes C strings; the JSON call carries U+0000 exactly.
      return api.kernelVerdict(want, got).is_match;
    }
    const lib = library();
    const r = lib.kernelMatch(want, got);
    if (r < 0) {
      const code = lib.statusName(r) || `status ${r}`;
      const Cls = code === 'capi.internal_panic' ? InternalError : RequestError;
      throw new Cls(code, `opguard_kernel_match returned ${r}`);
    }
    return r === 1;
  },
  kernelMatchBatch: (pairs) => call('opguard_kernel_match_batch', { pairs: [...pairs].map(([w, g]) => [w, g]) }),

  traceInfo: (file, { text, reader } = {}) => call('opguard_trace_info',
    dropUndefined({ path: file === undefined || file === null ? undefined : String(file), text, reader })),
  traceLaunchRegions: (artifacts, { top, reader } = {}) => call('opguard_trace_launch_regions',
    dropUndefined({ artifacts: artifacts.map((a) => (typeof a === 'object' ? a : { path: String(a) })), top, reader })),

  census: (capture, { families, declaredHostResolutions, requireClassified, requireHostResolutions } = {}) =>
    call('opguard_census', {
      ...doc('capture', capture),
      ...doc('families', families),
      ...doc('declared_host_resolutions', declaredHostResolutions),
      // An incomplete census is not a pass (seed 004): only false opts out.
      ...(requireClassified === false ? { require_classified: false } : {}),
      ...(requireHostResolutions ? { require_host_resolutions: true } : {}),
    }),
  censusCompareWidths: (first, second, control, { families } = {}) => call('opguard_census_compare_widths', {
    ...doc('first', first), ...doc('second', second), ...doc('control', control), ...doc('families', families),
  }),

  /** The Top-`top` profile of a trace (entity kinds, evidence, expanded aggregates). */
  profileTopN: (file, top, provider) => call('opguard_profile_top_n',
    provider === undefined ? { path: String(file), top } : { path: String(file), top, provider }),
  /** The seam verdict for a seam request (an object, trace paths against `base`; or a request file). */
  seamVerdict: (request, { base } = {}) => call('opguard_seam_verdict', {
    ...doc('request', request), ...dropUndefined({ base: base === undefined ? undefined : String(base) }),
  }),

  exportBuild: (output, { records, fromProfile } = {}) => call('opguard_export_build', dropUndefined({
    output: String(output),
    records: records === undefined ? undefined : String(records),
    from_profile: fromProfile === undefined ? undefined
      : fromProfile.map((p) => (typeof p === 'object' ? p : { path: String(p) })),
  })),
  alignmentMapApply: (artifact, alignmentMap, output) => call('opguard_alignment_map_apply', {
    protocol_version: 1, artifact: String(artifact), alignment_map: String(alignmentMap), output: String(output),
  }),
  scalingCorrelate: (trials, { base, metric, reader } = {}) => call('opguard_scaling_correlate', {
    ...doc('trials', trials),
    ...dropUndefined({ base: base === undefined ? undefined : String(base), metric, reader }),
  }),

  // ---- whole jobs: map (one rank) and reduce (merge) ----
  /** One rank's summary (`opguard.job.rank/v1`); an unreadable trace gives a summary carrying its `error`. */
  jobSummary: (tracePath, { file, top, reader } = {}) => call('opguard_job_summary', {
    path: String(tracePath),
    ...dropUndefined({ file: file === undefined ? undefined : String(file), top, reader }),
  }),
  /** Merges rank summaries and partial jobs into one `opguard.job/v1` job, the same for any order and grouping. */
  jobMerge: (summaries) => call('opguard_job_merge', { summaries: [...summaries] }),

  // ---- comparing runs: the regression gate ----
  /**
   * Baseline runs against candidate runs (traces of any format, or directories): the
   * `opguard.compare/v1` comparison with its gate. A failed gate is a result
   * (`gate.status === 'failed'`), not an exception; bad input throws `CompareError`.
   */
  compare: (baseline, candidate, { failAbove, fdr, confidence, step, pythonFrames, reader } = {}) =>
    call('opguard_compare', {
      baseline: [...baseline].map(String),
      candidate: [...candidate].map(String),
      ...dropUndefined({
        fail_above: failAbove, fdr, confidence, step, python_frames: pythonFrames, reader,
      }),
    }),

  /** How many returned strings were released through opguard_string_free. */
  freedCount: () => freed,
  /** Loads a library file without caching it (for tests). */
  loadLibrary: load,

  OpguardError, RequestError, DocumentError, InternalError, TraceError, CensusError, AlignError, ScalingError, SelectError, JobError, CompareError,
  LibraryNotFoundError, JSON_ENTRY_POINTS, ABI_VERSION,
};

module.exports = api;
