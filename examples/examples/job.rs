//! The example that opens the `opguard-job` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example job`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_job::{summarize, Job, SummaryOptions};

    let dir = tempfile::tempdir()?;
    let mut paths = Vec::new();
    // Rank 1's all-reduce takes three times as long as rank 0's (durations
    // in microseconds, as the PyTorch profiler writes them).
    for (rank, dur_us) in [(0, 1), (1, 3)] {
        let trace = format!(r#"{{"traceEvents": [
          {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10,
            "ts": 0, "dur": 0.05, "args": {{"correlation": 1}}}},
          {{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)",
            "pid": 0, "tid": 7, "ts": 0.1, "dur": {dur_us},
            "args": {{"device": 0, "stream": 7, "correlation": 1}}}},
          {{"ph": "s", "cat": "ac2g", "name": "ac2g", "pid": 10, "tid": 10, "ts": 0, "id": 1}},
          {{"ph": "f", "cat": "ac2g", "name": "ac2g", "pid": 0, "tid": 7, "ts": 0.1, "id": 1, "bp": "e"}}
        ], "schemaVersion": 1, "distributedInfo": {{"rank": {rank}}}}}"#);
        let path = dir.path().join(format!("rank{rank}.json"));
        std::fs::write(&path, trace)?;
        paths.push(path);
    }
    let options = SummaryOptions::new();
    let summaries: Vec<_> = paths.iter().map(|p| summarize(p, &options)).collect();
    assert_eq!(summaries[1].rank.collectives[0].total_ns, 3_000);

    // Merge in any grouping: the same bytes.
    let all = Job::from_summaries(summaries.clone())?;
    let [a, b] = [summaries[0].clone(), summaries[1].clone()].map(Job::try_from);
    assert_eq!(serde_json::to_string(&b?.merge(a?)?)?, serde_json::to_string(&all)?);

    let frame = &all.frames[0];
    assert_eq!((frame.max_ns, frame.median_ns), (3_000, 2_000));
    assert_eq!(frame.slowest_rank, Some(1));
    println!("slowest rank of {}: {:?}", frame.name, frame.slowest_rank);
    Ok(())
}
