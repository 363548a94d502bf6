/*
 * opguard.h: the C ABI of opguard (crate opguard-capi).
 *
 * Checked in, and checked against the library by its tests: every
 * declaration below is an exported symbol and every exported symbol is
 * declared here (opguard-capi/tests/header.rs), and a C program built with
 * -Wall -Wextra -Werror -pedantic calls each one (opguard-capi/tests/c/).
 *
 * Conventions
 *   - Every symbol starts with opguard_.
 *   - JSON entry points take `const char *request`: NUL-terminated UTF-8
 *     JSON, read only, not kept after the call. They return an envelope the
 *     caller owns:
 *         {"ok":true,"value":...}
 *         {"ok":false,"error":{"code":"...","message":"...",...}}
 *     never NULL, released with opguard_string_free() (never libc free()).
 *     A NULL request or invalid UTF-8 gives an error envelope.
 *   - Direct calls return an int: >= 0 is an answer, < 0 a status
 *     (OPGUARD_STATUS_*); opguard_status_name() names it.
 *   - No global mutable state: every function is reentrant and may be called
 *     from any number of threads at once. No panic crosses the boundary.
 *   - Error codes are stable strings; see opguard-capi/README.md.
 */
#ifndef OPGUARD_H
#define OPGUARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The value opguard_abi_version() returns for this header. */
#define OPGUARD_ABI_VERSION 1

/* Negative results of direct calls. Retired values are never reused. */
#define OPGUARD_STATUS_NULL_ARGUMENT (-1)   /* "capi.null_argument" */
#define OPGUARD_STATUS_INVALID_UTF8 (-2)    /* "capi.invalid_utf8" */
#define OPGUARD_STATUS_INTERNAL_PANIC (-3)  /* "capi.internal_panic" */

/* ---- library ---------------------------------------------------------- */

/* The library version, e.g. "0.1.0". Static: do not free. */
const char *opguard_version(void);

/* The ABI version; compare with OPGUARD_ABI_VERSION. */
uint32_t opguard_abi_version(void);

/* Releases a string returned by a JSON entry point. NULL is ignored. */
void opguard_string_free(char *s);

/* The code string of a negative status ("capi.null_argument", ...);
 * NULL for any other value. Static: do not free. */
const char *opguard_status_name(int status);

/* ---- kernel names ----------------------------------------------------- */

/* 1 when want and got name the same kernel, 0 when not, or a negative
 * OPGUARD_STATUS_*. */
int opguard_kernel_match(const char *want, const char *got);

/* {"symbol": s, "fields"?: [name, ...]} -> the canonical form: base,
 * qualification, template, annotation, memory_op, mangling, degenerate,
 * truncated, short_name, identity, ...; or only the named fields. */
char *opguard_kernel_canonicalize(const char *request);

/* {"symbols": [s, ...], "fields"?: [name, ...]} -> [canonical form, ...]
 * in order. */
char *opguard_kernel_canonicalize_batch(const char *request);

/* {"symbol": s} -> {"short_name": ...}. */
char *opguard_kernel_short_name(const char *request);

/* {"want": a, "got": b} -> {"is_match": bool, "reason": code|null,
 * "basis": code|null}. */
char *opguard_kernel_match_json(const char *request);

/* {"pairs": [[want, got], ...]} -> [verdict, ...] in order. */
char *opguard_kernel_match_batch(const char *request);

/* ---- traces ----------------------------------------------------------- */

/* {"path": file | "text": json, "reader"?: {limits}} -> the capture's facts,
 * by format ("format": "chrome_json": sha256, compression, form, sizes,
 * events, provider, time_span, counts, warnings, ...; "xspace" for an XLA
 * .xplane.pb given by path: planes and lines with their events, what is not
 * modeled, time_span, ...). A path's format is detected by content. */
char *opguard_trace_info(const char *request);

/* {"artifacts": [{"path"|"text", "role"?, "stage"?, "provider"?}, ...],
 *  "top"?: n, "reader"?: {limits}} -> {"regions": [...], "aggregate": ...} */
char *opguard_trace_launch_regions(const char *request);

/* ---- census ----------------------------------------------------------- */

/* {"capture": {...} | "capture_path": file, "families"?, "families_path"?,
 *  "declared_host_resolutions"?, "declared_host_resolutions_path"?,
 *  "require_classified"?: bool (default true), "require_host_resolutions"?: bool}
 * -> {"census": ..., "host_resolution_diff": ... | null}; an operator no family
 * claims is census.unclassified_operators unless "require_classified": false */
char *opguard_census(const char *request);

/* {"first"|"first_path", "second"|"second_path", "control"?|"control_path"?}
 * -> the two-width comparison (free_symbol, verdict, evidence, ...). */
char *opguard_census_compare_widths(const char *request);

/* ---- selection -------------------------------------------------------- */

/* {"path": trace, "top": n, "provider"?: name} -> the Top-N profile: device
 * rows with their entity_kind and evidence, dispatcher aggregates expanded;
 * a capture without device activity also gets "host": its host operations
 * by self time, and its regions. */
char *opguard_profile_top_n(const char *request);

/* {"request": {seam request} | "request_path": file, "base"?: dir} -> the
 * seam verdict (ok, deepest_verified, failed, ...). */
char *opguard_seam_verdict(const char *request);

/* ---- alignment (relative paths: the process's working directory) ----- */

/* {"records": file | "from_profile": [{"path", "run"?, "rank"?}, ...],
 *  "output": file (must not exist)} -> the export summary. */
char *opguard_export_build(const char *request);

/* {"protocol_version": 1, "artifact": file, "alignment_map": file,
 *  "output": file (must not exist)} -> the apply response
 * (verdict "not_evaluated"). Nothing is written unless every rule holds. */
char *opguard_alignment_map_apply(const char *request);

/* ---- scaling ---------------------------------------------------------- */

/* {"trials": {...} | "trials_path": file, "base"?: dir, "metric"?:
 *  "inclusive_ns"|"self_ns"|"count", "reader"?: {limits}} -> the report. */
char *opguard_scaling_correlate(const char *request);

/* ---- whole jobs: map (one rank) and reduce (merge) --------------------- */

/* {"path": trace, "file"?: name in the job (default: path), "top"?: n,
 *  "reader"?: {limits}} -> one rank's summary
 * (opguard.job.rank/v1: file, artifact, rank, launch durations, Top-N,
 * collectives, cost per semantic frame). An unreadable trace is not a
 * failed call: the summary carries its "error". */
char *opguard_job_summary(const char *request);

/* {"summaries": [rank summary | job, ...]} -> the merged job
 * (opguard.job/v1: ranks, frames with per_rank, max_ns, median_ns,
 * slowest_rank, missing). Associative and commutative: any order and
 * grouping gives the same document, or job.frame_conflict when two
 * documents disagree on what one frame id is. */
char *opguard_job_merge(const char *request);

/* ---- tables (Arrow C stream) ------------------------------------------ */

/* The Arrow C data and stream interfaces, as the Arrow specification gives
 * them (https://arrow.apache.org/docs/format/CDataInterface.html and
 * CStreamInterface.html); the guards let a program that includes Arrow's
 * own definitions first keep them. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* {"path": capture (any format opguard reads), "table": "device" | "host" |
 *  "launches" | "metadata", "batch_rows"?: n, "provider"?: name,
 *  "reader"?: {limits}} -> {"table", "rows", "batches", "artifact",
 *  "format", "provider", "warnings"}, and *out an Arrow C stream of the
 * table's record batches (columns: opguard-arrow's README). The caller owns
 * the stream and ends it with out->release(out), whether or not it read
 * every batch; the batches it took are released on their own. On an error
 * (an error envelope) *out has release == NULL. The envelope is released
 * with opguard_string_free() as always. */
char *opguard_table_stream(const char *request, struct ArrowArrayStream *out);

/* Several tables from one read of the capture: {"path", "tables": [name,
 *  ...], "batch_rows"?, "provider"?, "reader"?} and out, an array of count
 * streams, one per table named, in order (count must equal their number)
 * -> the envelope of opguard_table_stream for the first table, with
 * "tables": [{"table", "rows", "batches"}, ...]. Each stream is the
 * caller's, released on its own; on an error every one has release == NULL. */
char *opguard_table_streams(const char *request, struct ArrowArrayStream *out, size_t count);

/* ---- comparing runs: the regression gate ------------------------------ */

/* {"baseline": [trace | dir, ...], "candidate": [trace | dir, ...],
 *  "fail_above"?: ratio (0.05 = 5%), "fdr"?: rate, "confidence"?: level,
 *  "step"?: range name, "python_frames"?: bool, "reader"?: {limits}}
 * -> the comparison (opguard.compare/v1: sample_unit, baseline and
 * candidate runs with provider and format, per entity and total the two
 * distributions, ratio, interval, p_value, q_value and verdict, then the
 * gate). A failed gate is a result, not an error: gate.status says it. */
char *opguard_compare(const char *request);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPGUARD_H */
