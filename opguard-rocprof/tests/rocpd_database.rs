//! The rocpd database: made from the shared capture with ROCm's own schema
//! files (tests/data/rocpd-schema-3.0) by tests/data/make_captures.py, read
//! against the referee's own SQL; a kernels-only database; a SQLite file
//! that is not rocpd; a cut database; limits.

use std::fs;

use opguard_rocprof::{CaptureFormat, ReadOptions};

use crate::common::{generate, prefill_kernel_trace, read, read_with, referee, summarize};

#[test]
fn the_database_made_from_the_shared_capture_matches_the_referee_and_the_csv() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let (rows, summary) = read(&made.rocpd);
    assert_eq!(summary.format, CaptureFormat::Rocpd);
    assert_eq!(summary.producer, "rocprofv3 (rocpd schema 3)");
    let expected = referee("rocpd", &made.rocpd);
    assert_eq!(summarize(&rows), expected);
    assert_eq!(expected, referee("csv", &kernels));
    assert!(rows
        .iter()
        .all(|r| r.process == Some(3985093) && r.thread == Some(3985093)));
    // Regions first (the API calls), then dispatches by id.
    assert_eq!(rows[..5].iter().filter(|r| r.kind == "api").count(), 5);
    let dispatch_device = rows[5].device.clone().expect("a dispatch");
    assert_eq!(dispatch_device.0, "Agent 1");
    let bytes = fs::read(&made.rocpd).expect("db");
    assert_eq!(summary.sha256, opguard_trace::Sha256Digest::of(&bytes));
}

#[test]
fn a_database_without_api_records_has_its_kernels_and_no_proven_launch() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &["--kernels-only"]);
    let (rows, _) = read(&made.rocpd);
    let expected = referee("rocpd", &made.rocpd);
    assert_eq!(summarize(&rows), expected);
    assert_eq!(
        (
            expected["dispatches"].as_u64(),
            expected["unjoined"].as_u64()
        ),
        (Some(1128), Some(1128))
    );
}

#[test]
fn an_nsight_systems_export_is_not_a_rocpd_database() {
    let Some(nsys) = opguard_testdata::shared_file("nsys/nsys-ai_mock.sqlite") else {
        return;
    };
    assert_eq!(opguard_rocprof::detect(&nsys), None);
    let err = opguard_rocprof::read_rocpd(
        &nsys,
        &ReadOptions::new(),
        &mut |_: &opguard_rocprof::Record<'_>| {},
    )
    .expect_err("not rocpd");
    assert_eq!(err.code(), "not_rocprofv3");
    assert!(err.to_string().contains("rocpd_kernel_dispatch"), "{err}");
}

#[test]
fn a_cut_database_is_refused() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let cut = made.dir.path().join("cut.db");
    opguard_testdata::write_cut_copy(&made.rocpd, &cut);
    let err = opguard_rocprof::read_rocpd(
        &cut,
        &ReadOptions::new(),
        &mut |_: &opguard_rocprof::Record<'_>| {},
    )
    .expect_err("a cut database");
    assert_eq!(err.code(), "sqlite", "{err}");
    assert!(err.to_string().contains("it was cut"), "{err}");
}

/// A database cut inside its last page: SQLite reads the missing bytes as
/// zeros and may read on; the file's size is held against the size its
/// header states (fuzz/README.md, finding 15, as in opguard-nsys).
#[test]
fn a_database_cut_inside_its_last_page_is_refused() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let bytes = std::fs::read(&made.rocpd).expect("reads");
    let cut = made.dir.path().join("cut.db");
    std::fs::write(&cut, &bytes[..bytes.len() - 300]).expect("writes");
    let err = opguard_rocprof::read_rocpd(
        &cut,
        &ReadOptions::new(),
        &mut |_: &opguard_rocprof::Record<'_>| {},
    )
    .expect_err("a cut database");
    assert_eq!(err.code(), "sqlite", "{err}");
    let stated = format!(
        "{} bytes where its header states {}",
        bytes.len() - 300,
        bytes.len()
    );
    assert!(err.to_string().contains(&stated), "{err}");
}

#[test]
fn the_limits_hold_at_the_database_size_and_refuse_one_byte_less() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let size = fs::metadata(&made.rocpd).unwrap().len();
    let at = |o: ReadOptions| read_with(&made.rocpd, &o).map(|(rows, _)| rows.len());
    assert_eq!(
        at(ReadOptions::new().max_encoded_bytes(size)).unwrap(),
        1133
    );
    assert_eq!(
        at(ReadOptions::new().max_encoded_bytes(size - 1))
            .unwrap_err()
            .code(),
        "limit_exceeded"
    );
    assert_eq!(
        at(ReadOptions::new().max_decoded_bytes(size - 1))
            .unwrap_err()
            .code(),
        "limit_exceeded"
    );
}
