//! The example that opens the `opguard-model` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example model`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_model::{
        ArtifactSpec, Format, IdValue, ModelBuilder, ModelOptions, Provider, ReadSummary,
        SliceClass, SliceRecord, Sha256Digest,
    };
    use opguard_model::analysis::launch_region;

    let mut builder = ModelBuilder::new(&ModelOptions::new());
    let launch = SliceRecord {
        class: SliceClass::Runtime, // a runtime call that a kernel correlates with becomes a launch
        name: "cudaLaunchKernel",
        category: "cuda_runtime",
        pid: Some(IdValue::Int(4242)),
        tid: Some(IdValue::Int(4242)),
        ts_ns: 1_000,
        dur_ns: 200,
        correlation: Some(IdValue::Int(7)),
        ..SliceRecord::new(0)
    };
    let kernel = SliceRecord {
        class: SliceClass::Kernel,
        name: "void gemm<float>(float*)",
        category: "kernel",
        pid: Some(IdValue::Int(0)),
        tid: Some(IdValue::Int(7)),
        ts_ns: 1_500,
        dur_ns: 3_000,
        correlation: Some(IdValue::Int(7)),
        ..SliceRecord::new(1)
    };
    builder.push_slice(&launch);
    builder.push_slice(&kernel);
    let bytes = b"the capture's bytes";
    let summary = ReadSummary::new(Sha256Digest::of(bytes), Format::ChromeJson, Provider::KinetoCuda);
    let model = builder.finish(summary, ArtifactSpec::new().stage("decode"));

    let region = launch_region(&model, 10);
    assert_eq!((region.kernel_count, region.correlated_kernel_count), (1, 1));
    assert_eq!(region.direct_launch_count, 1);
    assert_eq!(region.region_duration_ns, Some(3_500));
    Ok(())
}
