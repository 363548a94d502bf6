//! Reads a rocprofv3 capture (CSV, JSON or rocpd, by content) and prints
//! what it holds: records by kind, summed dispatch time, and the dispatches
//! whose correlation id one API call of their process has.
//!
//! `cargo run --release -p opguard-rocprof --example rocprof_count -- CAPTURE [MAX_BYTES]`

use std::collections::HashMap;

use opguard_rocprof::{read_capture, ReadOptions, Record};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: count CAPTURE [MAX_BYTES]")?;
    let mut options = ReadOptions::new().decode_thread(true);
    if let Some(max) = args.next() {
        let max: u64 = max.parse()?;
        options = options.max_encoded_bytes(max).max_decoded_bytes(max);
    }
    let mut dispatch_ns = 0i64;
    let mut calls: HashMap<(i64, u64), u32> = HashMap::new();
    let mut dispatch_keys: Vec<(i64, u64)> = Vec::new();
    let summary = read_capture(path.as_ref(), &options, &mut |r: &Record<'_>| match r {
        Record::Dispatch(d) => {
            dispatch_ns += d.base.span.duration_ns();
            if let (Some(p), Some(c)) = (d.base.process, d.base.correlation) {
                dispatch_keys.push((p, c));
            }
        }
        Record::Api(a) => {
            if let (Some(p), Some(c)) = (a.base.process, a.base.correlation) {
                *calls.entry((p, c)).or_default() += 1;
            }
        }
        _ => {}
    })?;
    let joined = dispatch_keys
        .iter()
        .filter(|k| calls.get(k) == Some(&1))
        .count();
    println!(
        "{} {}: {} dispatches ({} ns), {} API calls, {} markers, {} copies; {} dispatches joined",
        summary.format.as_str(),
        summary.sha256,
        summary.records.dispatches,
        dispatch_ns,
        summary.records.api_calls,
        summary.records.markers,
        summary.records.memory_copies,
        joined
    );
    Ok(())
}
