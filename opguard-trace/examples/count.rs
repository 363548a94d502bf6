//! Reads a trace and prints its digest, event count and throughput.
//! `cargo run --release -p opguard-trace --example count -- [--thread] TRACE`
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let threaded = args.iter().any(|a| a == "--thread");
    args.retain(|a| a != "--thread");
    let path = args.first().ok_or("usage: count [--thread] TRACE")?;
    let start = Instant::now();
    let options = opguard_trace::ReaderOptions::new().decode_thread(threaded);
    let mut reader = opguard_trace::TraceReader::open_with(path, options)?;
    let mut with_ts = 0u64;
    while let Some(event) = reader.next_event()? {
        let _ = (
            event.ph(),
            event.name(),
            event.cat(),
            event.pid(),
            event.tid(),
        );
        if event.ts_ns()?.is_some() {
            with_ts += 1;
        }
        let _ = (event.dur_ns()?, event.correlation(), event.external_id());
    }
    let summary = reader.finish()?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} events={} with_ts={} decoded={} MB/s={:.0}",
        summary.sha256,
        summary.events,
        with_ts,
        summary.decoded_bytes,
        summary.decoded_bytes as f64 / 1e6 / secs
    );
    Ok(())
}
