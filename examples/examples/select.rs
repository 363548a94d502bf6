//! The example that opens the `opguard-select` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example select`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_select::{verdict_from_request_file, Failure};
    use opguard_testdata::kineto_writer::KinetoTrace;
    // (opguard-testdata is the workspace's unpublished test support: here it
    // writes the trace a PyTorch profiler would.)

    // One server thread: an outer wrapper calls the launcher, which issues a
    // Triton kernel (a correlation edge and no External id).
    let host = (1234, 1234);
    let mut t = KinetoTrace::new();
    t.user_annotation(host, "opguard.seam::pkg.mod:outer", 0, 10_000, Some(1));
    t.user_annotation(host, "opguard.seam::pkg.mod:Runner.run", 1_000, 5_000, Some(2));
    t.launch(host, "cuLaunchKernel", 2_000, 500, 7, None)
        .kernel(0, 7, "fused_moe_kernel", 6_000, 4_000);
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("trace.pid-1234.json.gz"), t.to_gzip()?)?;

    let request = |target: &str| format!(r#"{{"protocol_version": 1,
        "target": "{target}", "device_kernel": "fused_moe_kernel",
        "capture_target": "{target}",
        "candidates": [{{"spec": "pkg.mod:outer"}}, {{"spec": "pkg.mod:Runner.run"}}],
        "processes": [{{"name": "pid-1234", "trace": "trace.pid-1234.json.gz",
                        "installed": ["pkg.mod:outer", "pkg.mod:Runner.run"]}}]}}"#);
    let path = dir.path().join("request.json");

    // The launcher is certified ...
    std::fs::write(&path, request("pkg.mod:Runner.run"))?;
    let v = verdict_from_request_file(&path)?;
    assert!(v.ok && v.deepest_verified);
    assert_eq!((v.target_marker_calls, v.matched_kernel_calls), (1, 1));

    // ... and the outer wrapper is refused: the launcher runs nested inside it.
    std::fs::write(&path, request("pkg.mod:outer"))?;
    let v = verdict_from_request_file(&path)?;
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
    assert_eq!(v.deeper_live_candidates, ["pkg.mod:Runner.run"]);
    println!("opguard-select: the documented example ran");
    Ok(())
}
