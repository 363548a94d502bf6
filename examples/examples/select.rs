//! The example that opens the `opguard-select` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example select`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_select::{verdict_from_request_file, Failure};

    // One server thread, as the PyTorch profiler writes it: an outer wrapper
    // calls the launcher, which issues a Triton kernel (a correlation edge and
    // no External id).
    let trace = r#"{"traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "opguard.seam::pkg.mod:outer",
       "pid": 1234, "tid": 1234, "ts": 0, "dur": 10, "args": {"External id": 1}},
      {"ph": "X", "cat": "user_annotation", "name": "opguard.seam::pkg.mod:Runner.run",
       "pid": 1234, "tid": 1234, "ts": 1, "dur": 5, "args": {"External id": 2}},
      {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel",
       "pid": 1234, "tid": 1234, "ts": 2, "dur": 0.5, "args": {"correlation": 7}},
      {"ph": "X", "cat": "kernel", "name": "fused_moe_kernel", "pid": 0, "tid": 7,
       "ts": 6, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 7}},
      {"ph": "s", "cat": "ac2g", "name": "ac2g", "pid": 1234, "tid": 1234, "ts": 2, "id": 7},
      {"ph": "f", "cat": "ac2g", "name": "ac2g", "pid": 0, "tid": 7, "ts": 6, "id": 7, "bp": "e"}
    ], "schemaVersion": 1}"#;
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("trace.pid-1234.json"), trace)?;

    let request = |target: &str| format!(r#"{{"protocol_version": 1,
        "target": "{target}", "device_kernel": "fused_moe_kernel",
        "capture_target": "{target}",
        "candidates": [{{"spec": "pkg.mod:outer"}}, {{"spec": "pkg.mod:Runner.run"}}],
        "processes": [{{"name": "pid-1234", "trace": "trace.pid-1234.json",
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
