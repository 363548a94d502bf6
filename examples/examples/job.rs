//! The example that opens the `opguard-job` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example job`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_job::{summarize, Job, SummaryOptions};
    use opguard_testdata::kineto_writer::KinetoTrace;
    // (opguard-testdata is the workspace's unpublished test support: here it
    // writes the trace a PyTorch profiler would.)

    let dir = tempfile::tempdir()?;
    let mut paths = Vec::new();
    // Rank 1's all-reduce takes three times as long as rank 0's.
    for (rank, dur) in [(0, 1_000), (1, 3_000)] {
        let mut t = KinetoTrace::new();
        t.set_metadata("distributedInfo", &serde_json::json!({"rank": rank}));
        t.launch((10, 10), "cudaLaunchKernel", 0, 50, 1, None)
            .kernel(0, 7, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 100, dur);
        let path = dir.path().join(format!("rank{rank}.json.gz"));
        std::fs::write(&path, t.to_gzip()?)?;
        paths.push(path);
    }
    let options = SummaryOptions::new();
    let summaries: Vec<_> = paths.iter().map(|p| summarize(p, &options)).collect();
    assert_eq!(summaries[1].rank.collectives[0].total_ns, 3_000);

    // Merge in any grouping: the same bytes.
    let all = Job::from_summaries(summaries.clone());
    let [a, b] = [summaries[0].clone(), summaries[1].clone()].map(Job::from);
    assert_eq!(serde_json::to_string(&b.merge(a))?, serde_json::to_string(&all)?);

    let frame = &all.frames[0];
    assert_eq!((frame.max_ns, frame.median_ns), (3_000, 2_000));
    assert_eq!(frame.slowest_rank, Some(1));
    println!("slowest rank of {}: {:?}", frame.name, frame.slowest_rank);
    Ok(())
}
