//! The example that opens the `opguard-formats` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example formats`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_formats::{read, ReadOptions};
    use opguard_model::analysis::launch_region;
    use opguard_model::{ArtifactSpec, ModelOptions};

    let dir = tempfile::tempdir()?;
    let path = dir.path().join("decode.json");
    std::fs::write(&path, br#"{"traceEvents":[
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":7,"ts":1,"dur":1,"args":{"correlation":5}},
      {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":3,"ts":2,"dur":4,"args":{"correlation":5}}]}"#)?;
    let options = ReadOptions::new(ModelOptions::launches_only());
    let model = read(&path, ArtifactSpec::new().stage("decode"), &options)?;
    let region = launch_region(&model, 10);
    assert_eq!((region.kernel_count, region.correlated_kernel_count), (1, 1));
    Ok(())
}
