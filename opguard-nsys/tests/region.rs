//! The streaming launch region (rows in time order, no model) against the
//! model's, field for field, on every shared export and on exports derived
//! from a real one; and against the SQL referee.

use std::path::Path;

use opguard_model::analysis::launch_region as model_region;
use opguard_model::{ArtifactSpec, ModelOptions, Provider};
use opguard_nsys::{launch_region, read_model, ReadOptions};
use opguard_testdata::shared_file;

use crate::support::{derive, proposed_dir, referee, CLOVERLEAF, SHARED_EXPORTS};

fn same_region(path: &Path) {
    let spec = || ArtifactSpec::new().stage("decode");
    let streamed = launch_region(path, spec(), &ReadOptions::new(), 10)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let model = read_model(
        path,
        spec(),
        &ModelOptions::launches_only(),
        &ReadOptions::new(),
    )
    .expect("reads");
    let from_model = model_region(&model, 10);
    assert_eq!(
        serde_json::to_value(&streamed).unwrap(),
        serde_json::to_value(&from_model).unwrap(),
        "{}",
        path.display()
    );
    let answer = referee(path);
    assert_eq!(
        streamed.correlated_kernel_count,
        answer["proven_kernels"].as_u64().unwrap()
    );
    assert_eq!(
        streamed.direct_launch_count,
        answer["launches"]["direct"].as_u64().unwrap()
    );
}

#[test]
fn the_streamed_region_is_the_models_on_every_shared_export() {
    for (file, _, _) in SHARED_EXPORTS {
        let Some(path) = shared_file(file) else {
            return;
        };
        same_region(&path);
    }
}

#[test]
fn the_streamed_region_is_the_models_on_derived_exports() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, args) in [
        ("two_processes", &["--processes", "2"][..]),
        ("graph", &["--graph-launch", "10"]),
        ("backtraces", &["--backtrace-runtime"]),
        ("runtime_twice", &["--repeat-runtime"]),
        ("grown", &["--grow", "3"]),
    ] {
        let derived = dir.path().join(format!("{name}.sqlite"));
        derive(&src, &derived, args);
        same_region(&derived);
    }
}

#[test]
fn the_streamed_region_is_the_models_on_every_proposed_export() {
    let Some(dir) = proposed_dir() else {
        return;
    };
    for entry in std::fs::read_dir(&dir).expect("lists") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "sqlite")
            && opguard_nsys::Export::open(&path, &ReadOptions::new()).is_ok()
        {
            same_region(&path);
        }
    }
}

/// A provider the caller gives instead of Nsight Systems' is the model's
/// business (no namespace, nothing proven).
#[test]
fn an_overridden_provider_goes_through_the_model() {
    let Some(path) = shared_file(CLOVERLEAF) else {
        return;
    };
    let region = launch_region(
        &path,
        ArtifactSpec::new().provider(Provider::Unknown),
        &ReadOptions::new(),
        10,
    )
    .expect("reads");
    assert_eq!(region.correlated_kernel_count, 0);
    assert_eq!(region.kernel_count, 1312);
}
