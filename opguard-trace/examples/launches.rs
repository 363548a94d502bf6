//! Times a bare read against the launch-region analysis of one trace.
//! `cargo run --release -p opguard-trace --example launches -- TRACE`
use std::time::Instant;

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions};
use opguard_trace::TraceReader;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: launches TRACE")?;
    for _ in 0..3 {
        let t = Instant::now();
        let mut r = TraceReader::open(&path)?;
        while r.next_event()?.is_some() {}
        r.finish()?;
        let read = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let m = opguard_trace::read_model(
            &path,
            ArtifactSpec::new(),
            &ModelOptions::launches_only(),
            &opguard_trace::ReaderOptions::default(),
        )?;
        let region = launch_region(&m, 10);
        let launches = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let full = opguard_trace::read_model(
            &path,
            ArtifactSpec::new(),
            &ModelOptions::new(),
            &opguard_trace::ReaderOptions::default(),
        )?;
        let model = t.elapsed().as_secs_f64();
        println!(
            "read {read:.3}s  launch analysis {launches:.3}s ({:.2}x)  full model {model:.3}s ({:.2}x)  kernels={} slices={}",
            launches / read,
            model / read,
            region.kernel_count,
            full.slices().len()
        );
    }
    Ok(())
}
