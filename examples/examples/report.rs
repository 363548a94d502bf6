//! The example that opens the `opguard-report` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example report`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_report::{render, write_new, ArtifactReport, Report};
    use opguard_testdata::kineto_writer::KinetoTrace;
    // (opguard-testdata is the workspace's unpublished test support: here it
    // writes the trace a PyTorch profiler would.)
    use opguard_trace::model::{ArtifactSpec, ModelOptions, TraceModel};

    // One host thread launches two kernels on stream 7; one kernel is named
    // like an attack.
    let host = (1, 1);
    let mut t = KinetoTrace::new();
    t.launch(host, "cudaLaunchKernel", 0, 1_000, 1, None)
        .kernel(0, 7, "gemm_kernel<float>", 2_000, 3_000);
    t.launch(host, "cudaLaunchKernel", 1_500, 500, 2, None)
        .kernel(0, 7, "<script>alert(1)</script>", 6_000, 1_000);
    let dir = tempfile::tempdir()?;
    let trace = dir.path().join("trace.json.gz");
    std::fs::write(&trace, t.to_gzip()?)?;

    let model = TraceModel::read(&trace, ArtifactSpec::new(), &ModelOptions::new())?;
    let report = Report::new(vec![ArtifactReport::from_model("trace.json.gz", &model, 10)]);
    let html = render(&report);
    assert!(html.contains("<svg class=\"chart timeline\""));
    assert!(html.contains("<svg class=\"chart bars\""));
    // Trace text is escaped: the name is shown, never run.
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains("<script"));

    let out = dir.path().join("report.html");
    write_new(&out, &html)?;
    assert!(write_new(&out, &html).is_err(), "an existing file is never replaced");
    println!("wrote {} ({} bytes)", out.display(), html.len());
    Ok(())
}
