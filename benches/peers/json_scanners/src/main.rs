//! Passes of one JSON scanner over a decoded (plain) trace held in memory,
//! on one core: `opguard-json-scanners SCANNER TRACE.json [PASSES]`.
//!
//! Prints one JSON line: the scanner, the seconds of the fastest of PASSES
//! (default 5) passes in this process, the bytes, and, where the scanner
//! reports them, the event count and the `(ph, cat)` pair counts
//! (`benches/peers/json_scanners.py` checks that every scanner reporting
//! them agrees). Reading the file is not timed.
//!
//! Scanners:
//! - `opguard-trace-info`: `opguard_trace::trace_info` over the
//!   bytes, one thread (no decode thread: nothing to inflate). Everything
//!   `opguard trace info` does after inflating, including the SHA-256 of
//!   the bytes it reads.
//! - `sha256`: that SHA-256 alone (part of the row above; of a `.gz` trace
//!   the reader hashes the compressed bytes instead).
//! - `serde_json`: `serde_json::from_slice::<IgnoredAny>`, the whole document
//!   validated, nothing kept.
//! - `simd-json`: `simd_json::to_tape` on a copy (it parses in place; the
//!   copy is not timed), runtime-detected SIMD kernel.
//! - `sonic-rs`: `sonic_rs::from_slice::<IgnoredAny>` (SIMD width chosen at
//!   compile time: SSE2 on a default x86_64 build).
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What one pass reports besides its time.
#[derive(Default)]
struct Pass {
    events: Option<u64>,
    pairs: Option<BTreeMap<String, u64>>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(scanner), Some(path)) = (args.next(), args.next()) else {
        return Err("usage: opguard-json-scanners SCANNER TRACE.json [PASSES]".into());
    };
    let passes: u32 = args.next().map_or(Ok(5), |p| p.parse())?;
    let bytes = std::fs::read(&path)?;
    let mut fastest = Duration::MAX;
    let mut last = Pass::default();
    for _ in 0..passes {
        let (elapsed, pass) = one_pass(&scanner, &bytes)?;
        fastest = fastest.min(elapsed);
        last = pass;
    }
    let line = serde_json::json!({
        "scanner": scanner,
        "seconds": fastest.as_secs_f64(),
        "bytes": bytes.len(),
        "events": last.events,
        "pairs": last.pairs,
    });
    println!("{line}");
    Ok(())
}

fn one_pass(scanner: &str, bytes: &[u8]) -> Result<(Duration, Pass), Box<dyn std::error::Error>> {
    let mut pass = Pass::default();
    // simd-json parses in place: its copy is made before the clock starts.
    let mut copy = if scanner == "simd-json" {
        bytes.to_vec()
    } else {
        Vec::new()
    };
    let start = Instant::now();
    match scanner {
        "opguard-trace-info" => {
            let reader = opguard_trace::TraceReader::new(bytes)?;
            let info = opguard_trace::trace_info(reader, &mut |_| {})?;
            let elapsed = start.elapsed();
            pass.events = Some(info.events);
            pass.pairs = Some(
                info.counts
                    .iter()
                    .map(|c| {
                        let ph = c.ph.as_deref().unwrap_or("");
                        let cat = c.cat.as_deref().unwrap_or("");
                        (format!("{ph}/{cat}"), c.count)
                    })
                    .collect(),
            );
            return Ok((elapsed, pass));
        }
        "sha256" => {
            use sha2::Digest;
            std::hint::black_box(sha2::Sha256::digest(bytes));
        }
        "serde_json" => {
            serde_json::from_slice::<serde::de::IgnoredAny>(bytes)?;
        }
        "simd-json" => {
            std::hint::black_box(simd_json::to_tape(&mut copy)?);
        }
        "sonic-rs" => {
            sonic_rs::from_slice::<serde::de::IgnoredAny>(bytes)?;
        }
        other => return Err(format!("unknown scanner {other:?}").into()),
    }
    Ok((start.elapsed(), pass))
}
