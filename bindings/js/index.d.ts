// Types for opguard's Node bindings. Values are the C ABI's JSON (see
// opguard-capi/README.md); shapes that are large and versioned by their own
// crates are typed as `Json` objects.

/** A JSON value as the library returns it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };
/** A document given inline (an object) or as a file path. */
export type DocOrPath = JsonObject | string;
/** Reader limits and options (`max_encoded_bytes`, `max_decoded_bytes`, `max_depth`, ...). */
export type ReaderOptions = JsonObject;
/** One trace artifact: a path, or `{path | text, role?, stage?, provider?}`. */
export type Artifact = string | { path?: string; text?: string; role?: string; stage?: string; provider?: string };

/** The canonical form of a kernel symbol (the parity fixture's fields). */
export interface CanonicalForm {
  symbol?: string;
  demangled?: string | null;
  base?: string;
  qualification?: string[];
  template?: string | null;
  annotation?: string | null;
  memory_op?: string | null;
  mangling?: string;
  degenerate?: boolean;
  truncated?: boolean;
  short_name?: string;
  identity?: string;
  identity_scheme?: string;
  [field: string]: Json | undefined;
}

/** The strict matcher's verdict for a pair of symbols. */
export interface KernelVerdict {
  is_match: boolean;
  reason: string;
  basis: Json;
}

/** An error envelope: a stable `code`, the library's message, and the envelope's other fields. */
export class OpguardError extends Error {
  constructor(code: string, message: string, details?: JsonObject);
  readonly code: string;
  readonly rawMessage: string;
  readonly details: JsonObject;
}
/** NULL, invalid UTF-8, or not the entry point's request (`capi.*`, and `document.*`). */
export class RequestError extends OpguardError {}
/**
 * A JSON document could not be read, the request itself or one it carries or
 * names (`document.*`); `details` has `json_path`, `line`, `column` (or `limit`).
 */
export class DocumentError extends RequestError {}
/** A bug in opguard (`capi.internal_panic`, `capi.internal_error`). */
export class InternalError extends OpguardError {}
/** The trace reader refused an input (`trace.*`). */
export class TraceError extends OpguardError {}
/** The census refused (`census.*`). */
export class CensusError extends OpguardError {}
/** Export or alignment-map apply refused (`align.*`). */
export class AlignError extends OpguardError {}
/** The scaling run refused (`scaling.*`). */
export class ScalingError extends OpguardError {}
/** The profile or seam verdict could not be computed (`select.*`). */
export class SelectError extends OpguardError {}
/** A job summary or merge request was refused (`job.*`). */
export class JobError extends OpguardError {}
/** The comparison refused its inputs (`compare.*`); a failed gate is a result, not an error. */
export class CompareError extends OpguardError {}
/** The shared library could not be found or loaded, or its ABI differs. */
export class LibraryNotFoundError extends Error {}

/** The library's version: opguard-capi's, which is also this package's. */
export function version(): string;
/** The library's ABI version (this package needs 1). */
export function abiVersion(): number;
/** The file the library was loaded from (inside the package when installed from npm). */
export function libraryPath(): string;
/** Calls any JSON entry point by its C symbol with an object (or JSON text). */
export function call(entryPoint: string, request: JsonObject | string): Json;

/** The canonical form of a symbol, or only `fields` (e.g. `['identity', 'short_name']`). */
export function kernelCanonicalize(symbol: string, options?: { fields?: Iterable<string> }): CanonicalForm;
/** Canonical forms of many symbols, in order. */
export function kernelCanonicalizeBatch(symbols: Iterable<string>, options?: { fields?: Iterable<string> }): CanonicalForm[];
/** The display name used in profile tables. */
export function kernelShortName(symbol: string): string;
/** The verdict for two symbols. */
export function kernelVerdict(want: string, got: string): KernelVerdict;
/** Whether two symbols name the same kernel (the direct call: no JSON). */
export function kernelMatch(want: string, got: string): boolean;
/** Verdicts for many `[want, got]` pairs, in order. */
export function kernelMatchBatch(pairs: Iterable<[string, string]>): KernelVerdict[];

/** What the reader established about a trace file (or JSON text). */
export function traceInfo(file?: string | null, options?: { text?: string; reader?: ReaderOptions }): JsonObject;
/** Launch regions, one per artifact, and their aggregate. */
export function traceLaunchRegions(artifacts: Artifact[], options?: { top?: number; reader?: ReaderOptions }): JsonObject;

/** The census of one capture. An operator no family claims throws
 * `census.unclassified_operators` unless `requireClassified` is `false`. */
export function census(capture: DocOrPath, options?: {
  families?: DocOrPath;
  declaredHostResolutions?: DocOrPath;
  /** Default true: an incomplete census is not a pass (seed 004). */
  requireClassified?: boolean;
  requireHostResolutions?: boolean;
}): JsonObject;
/** The two-width comparison of two captures, with the family table `census` would use (the default one when not given). */
export function censusCompareWidths(first: DocOrPath, second: DocOrPath, control?: DocOrPath, options?: {
  families?: DocOrPath;
}): JsonObject;

/** The Top-`top` profile of a trace (entity kinds, evidence, expanded aggregates). */
export function profileTopN(file: string, top: number, provider?: string): JsonObject;
/** The seam verdict for a seam request (an object, trace paths against `base`; or a request file). */
export function seamVerdict(request: DocOrPath, options?: { base?: string }): JsonObject;

/** Writes an `opguard.export/v1` view to `output` (which must not exist). */
export function exportBuild(output: string, options?: {
  records?: string;
  fromProfile?: Array<string | { path: string; run?: string; rank?: number }>;
}): JsonObject;
/** Applies an alignment map to an export view, writing `output`. */
export function alignmentMapApply(artifact: string, alignmentMap: string, output: string): JsonObject;
/** The scaling report for a trials document. */
export function scalingCorrelate(trials: DocOrPath, options?: { base?: string; metric?: string; reader?: ReaderOptions }): JsonObject;

/** How many returned strings were released through `opguard_string_free`. */
/** One rank's summary (`opguard.job.rank/v1`); an unreadable trace gives a summary carrying its `error`. */
export function jobSummary(tracePath: string, options?: { file?: string; top?: number; reader?: ReaderOptions }): JsonObject;
/** Merges rank summaries and partial jobs into one `opguard.job/v1` job, the same for any order and grouping. */
export function jobMerge(summaries: Iterable<JsonObject>): JsonObject;
/**
 * Baseline runs against candidate runs (traces of any format, or directories): the
 * `opguard.compare/v1` comparison with its gate; a failed gate is a result, not an error.
 */
export function compare(
  baseline: Iterable<string>,
  candidate: Iterable<string>,
  options?: {
    failAbove?: number; fdr?: number; confidence?: number; step?: string;
    pythonFrames?: boolean; reader?: ReaderOptions;
  },
): JsonObject;

export function freedCount(): number;
/** Loads a library file without caching it (for tests). */
export function loadLibrary(file: string): unknown;
/** Every JSON entry point of ABI version 1. */
export const JSON_ENTRY_POINTS: readonly string[];
/** The ABI version this package needs. */
export const ABI_VERSION: number;
