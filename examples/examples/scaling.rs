//! The example that opens the `opguard-scaling` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example scaling`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_scaling::{run_trials_file, Metric};

    let dir = tempfile::tempdir()?;
    for (i, cost_us) in ["0.010", "0.020", "0.030"].into_iter().enumerate() {
        // Two PyTorch profiler `cpu_op`s per trial; different timestamps and
        // process ids make each trace its own artifact.
        let (pid, ts) = (1000 + i, 5 * i);
        let trace = format!(r#"{{"traceEvents": [
          {{"ph": "X", "cat": "cpu_op", "name": "reverse_scan", "pid": {pid}, "tid": 7,
            "ts": {ts}, "dur": {cost_us}, "args": {{"External id": 1}}}},
          {{"ph": "X", "cat": "cpu_op", "name": "aten::zeros", "pid": {pid}, "tid": 7,
            "ts": 100, "dur": 0.5, "args": {{"External id": 2}}}}
        ], "schemaVersion": 1}}"#);
        std::fs::write(dir.path().join(format!("t{}.json", i + 1)), trace)?;
    }
    let trials = r#"{"trials": [
      {"id": "t1", "input": 1, "variant": "base", "traces": ["t1.json"]},
      {"id": "t2", "input": 2, "variant": "base", "traces": ["t2.json"]},
      {"id": "t3", "input": 3, "variant": "base", "traces": ["t3.json"]}
    ], "metric": "inclusive_ns"}"#;
    std::fs::write(dir.path().join("trials.json"), trials)?;

    let report = run_trials_file(dir.path().join("trials.json"), Some(Metric::InclusiveNs))?;
    assert_eq!(report.hotspots.len(), 1);
    let hot = &report.hotspots[0];
    assert_eq!(hot.series.name, "reverse_scan");
    assert_eq!((hot.spearman_rho, hot.independent_trial_count), (1.0, 3));
    // aten::zeros costs the same everywhere: no rho, and not a rho of 0.
    assert_eq!(report.not_correlatable[0].series.name, "aten::zeros");
    println!("opguard-scaling: the documented example ran");
    Ok(())
}
