//! Harness functions for the opguard fuzz targets.
//!
//! Every fuzz target in `fuzz_targets/` is one line that calls a function
//! here, so the same oracle runs under libFuzzer (`cargo fuzz run <target>`)
//! and in `cargo test` over the committed seeds and regression inputs
//! (`tests/regressions.rs`), on stable Rust.
//!
//! A harness panics when an oracle is violated: besides "no panic, no hang,
//! bounded memory" (which libFuzzer checks with `-timeout` and
//! `-rss_limit_mb`), each one checks an answer against an independent
//! implementation, a second path through the library, or a documented rule.
//! One module per input surface; `README.md` lists the targets and their
//! oracles.

// The Chrome JSON reader: bytes, gzip streams, the tolerant options.
mod trace;
// The trace model and launch regions on generated Kineto-like traces.
mod model;
// Kernel names: canonicalizer, matcher, short names, the memo.
mod kernel;
// Census captures.
mod census;
// Alignment maps applied to a fixed export.
mod align;
// Job documents (rank summaries and jobs) and their merge.
mod job;
// Seam requests and their verdict.
mod select;
// Scaling trials documents and the correlation.
mod scaling;
// Which files a harness may let an input name.
mod sandbox;
// The C ABI's JSON entry points.
mod capi;
// XSpace protobufs (opguard-xplane) and the door.
mod xplane;
// rocprofv3 CSV captures and JSON documents (opguard-rocprof) and the door.
mod rocprof;
// SQLite captures: Nsight Systems exports and rocpd databases.
mod sqlite;
// What the native-format harnesses ask of the door.
mod door;
// The C ABI's Arrow C streams and a consumer that stops early.
mod table;

pub use align::{align_map, align_view, resolve_map_placeholders, AlignView};
pub use capi::{capi_json, CAPI_ENTRIES};
pub use census::census_capture;
pub use job::job_document;
pub use kernel::{kernel_memo, kernel_name};
pub use model::{check_model, fingerprint, model_of, trace_model};
pub use rocprof::rocprof_capture;
pub use sandbox::fixtures_dir;
pub use scaling::{scaling_correlation, scaling_trials};
pub use select::seam_request;
pub use sqlite::sqlite_capture;
pub use table::table_stream;
pub use trace::{
    read_outcome, read_outcome_threaded, trace_gzip, trace_reader, trace_tolerant, OneByte, Outcome,
};
pub use xplane::xspace_reader;
