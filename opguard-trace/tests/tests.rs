//! Integration tests for opguard-trace: one binary, one module per concern.
mod bad_catalogue;
mod bad_input;
mod host_totals;
mod input;
mod job_model;
mod limits;
mod model;
mod operation_args;
mod producers;
mod real_data;
mod round_trip;
mod salvage;
mod threaded;

use std::io::Write;

/// gzip-compresses `bytes` (a real gzip stream, via flate2).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).expect("in-memory write");
    enc.finish().expect("in-memory finish")
}

/// Reads every event of `bytes`, returning the first error.
pub fn read_all(
    bytes: &[u8],
    options: opguard_trace::ReaderOptions,
) -> Result<opguard_trace::TraceSummary, opguard_trace::Error> {
    let mut r = opguard_trace::TraceReader::with_options(bytes, options)?;
    while r.next_event()?.is_some() {}
    r.finish()
}
