//! The example that opens the `opguard-report` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example report`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_report::{render, write_new, ArtifactReport, Report};
    use opguard_formats::ReadOptions;
    use opguard_model::{ArtifactSpec, ModelOptions};

    // One host thread launches two kernels on stream 7 (as the PyTorch
    // profiler writes it: microseconds, launch and kernel joined by their
    // correlation id); one kernel is named like an attack.
    let trace_text = r#"{"traceEvents": [
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
       "ts": 0, "dur": 1, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "gemm_kernel<float>", "pid": 0, "tid": 7,
       "ts": 2, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 1}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
       "ts": 1.5, "dur": 0.5, "args": {"correlation": 2}},
      {"ph": "X", "cat": "kernel", "name": "<script>alert(1)</script>", "pid": 0, "tid": 7,
       "ts": 6, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 2}}
    ], "schemaVersion": 1}"#;
    let dir = tempfile::tempdir()?;
    let trace = dir.path().join("trace.json");
    std::fs::write(&trace, trace_text)?;

    let model = opguard_formats::read(&trace, ArtifactSpec::new(), &ReadOptions::new(ModelOptions::new()))?;
    let report = Report::new(vec![ArtifactReport::from_model("trace.json", &model, 10)]);
    let html = render(&report);
    assert!(html.contains("<svg class=\"chart timeline\""));
    assert!(html.contains("<svg class=\"chart bars\""));
    // Both launches are proven by their correlation ids, and the coverage chart
    // says so.
    let proven = html.lines().find(|row| row.contains(">launch proven by correlation<"));
    assert!(proven.is_some_and(|row| row.ends_with(">2</text></g>")));
    // Trace text is escaped: the name is shown, never run.
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains("<script"));

    let out = dir.path().join("report.html");
    write_new(&out, &html)?;
    assert!(write_new(&out, &html).is_err(), "an existing file is never replaced");
    println!("wrote {} ({} bytes)", out.display(), html.len());
    Ok(())
}
