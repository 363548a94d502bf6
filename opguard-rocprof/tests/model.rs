//! The capture in opguard-model: the model's launch proofs against the
//! referee's joins, for the CSV capture and the JSON and rocpd made from
//! it, with and without API records.

use std::collections::BTreeMap;
use std::path::Path;

use opguard_model::analysis::launch_region;
use opguard_model::{
    ArtifactSpec, Format, LaunchProof, ModelOptions, Provider, SliceClass, TraceModel,
};
use opguard_rocprof::{read_model, ReadOptions};
use serde_json::{json, Value};

use crate::common::{generate, prefill_kernel_trace, referee};

fn model(path: &Path) -> TraceModel {
    read_model(
        path,
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &ReadOptions::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The referee's join summary, from the model's own launch proofs.
fn joins(model: &TraceModel) -> Value {
    let mut joined: BTreeMap<String, u64> = BTreeMap::new();
    let (mut unjoined, mut ambiguous, mut dispatches, mut ns) = (0u64, 0u64, 0u64, 0i64);
    for (i, s) in model.slices().iter().enumerate() {
        if s.class != SliceClass::Kernel {
            continue;
        }
        dispatches += 1;
        ns += s.dur_ns;
        match model.launch_proof(i) {
            LaunchProof::Proven(launch) => {
                let name = model.name(model.slices()[launch].name).to_owned();
                *joined.entry(name).or_default() += 1;
            }
            LaunchProof::Ambiguous(_) => ambiguous += 1,
            LaunchProof::Unproven(_) => unjoined += 1,
        }
    }
    json!({"dispatches": dispatches, "dispatch_ns": ns, "joined": joined,
           "unjoined": unjoined, "ambiguous": ambiguous})
}

fn referee_joins(format: &str, path: &Path) -> Value {
    let r = referee(format, path);
    json!({"dispatches": r["dispatches"], "dispatch_ns": r["dispatch_ns"], "joined": r["joined"],
           "unjoined": r["unjoined"], "ambiguous": r["ambiguous"]})
}

#[test]
fn every_format_of_the_shared_capture_proves_the_graph_launch_of_1123_kernels() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    for (format, path, expected) in [
        ("csv", kernels.clone(), Format::RocprofCsv),
        ("json", made.json.clone(), Format::RocprofJson),
        ("rocpd", made.rocpd.clone(), Format::RocpdSqlite),
    ] {
        let m = model(&path);
        assert_eq!(m.artifact().format, expected);
        assert_eq!(m.artifact().provider, Provider::Rocprofv3);
        assert_eq!(joins(&m), referee_joins(format, &path), "{format}");
        let region = launch_region(&m, 3);
        assert_eq!(region.kernel_count, 1128, "{format}");
        // 1,123 kernels of the one hipGraphLaunch that has them, and the
        // copy kernel of a hipMemcpyAsync.
        assert_eq!(region.correlated_kernel_count, 1124, "{format}");
        assert_eq!(region.graph_launch_count, 3, "{format}");
        assert!(
            region.coverage.host_to_device_correlation_proven,
            "{format}"
        );
        assert_eq!(region.kernel_duration_ns, 66_066_571, "{format}");
    }
}

#[test]
fn a_capture_without_api_records_has_kernels_and_no_proven_launch() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let alone = dir.path().join("prefill_kernel_trace.csv");
    std::fs::copy(&kernels, &alone).expect("copy");
    let made = generate(&kernels, &["--kernels-only"]);
    for path in [alone, made.json.clone(), made.rocpd.clone()] {
        let m = model(&path);
        let region = launch_region(&m, 3);
        assert_eq!(
            (region.kernel_count, region.correlated_kernel_count),
            (1128, 0),
            "{}",
            path.display()
        );
        assert!(!region.coverage.host_to_device_correlation_proven);
        assert!(region.coverage.correlation_ids_present);
    }
}

#[test]
fn the_model_keeps_the_capture_identity_and_reuses_its_buffers_after_an_error() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let m = model(&kernels);
    let (_, summary) = crate::common::read(&kernels);
    assert_eq!(m.artifact().sha256, summary.sha256);
    let mut storage = opguard_model::ModelStorage::new();
    let err = opguard_rocprof::read_model_reusing(
        kernels.with_file_name("missing_kernel_trace.csv"),
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &ReadOptions::new(),
        &mut storage,
    )
    .expect_err("no such capture");
    assert!(matches!(err.code(), "io" | "not_rocprofv3"), "{err}");
    let again = opguard_rocprof::read_model_reusing(
        &kernels,
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &ReadOptions::new(),
        &mut storage,
    )
    .expect("the same capture");
    assert_eq!(again.slices().len(), m.slices().len());
}
