//! The join keys on exports derived from real ones (tests/derive_export.py):
//! correlation ids are per process, and one call written twice counts once.

use opguard_testdata::shared_file;

use crate::support::{derive, open, proposed_export, referee, Facts, CLOVERLEAF, TEST_CUDA};

/// Two processes with the same correlation ids, as real multi-process
/// exports have them (a real 2×H100 export: 4,280 rows joined on
/// correlationId alone for 4,010 kernels). Keyed by (process, correlation
/// id), every kernel has exactly one launch; keyed by correlation id alone,
/// none would.
#[test]
fn a_correlation_id_is_proven_only_within_its_process() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let two = dir.path().join("two_processes.sqlite");
    derive(&src, &two, &["--processes", "2"]);
    let answer = referee(&two);
    let facts = Facts::read(&open(&two)).expect("reads");
    assert_eq!(facts, Facts::from_referee(&answer));
    assert_eq!(facts.kernels.0, 2 * 1312);
    assert_eq!(facts.calls, 2 * 3048);
    assert_eq!(facts.proven_kernels, 2 * 1312);
    assert_eq!(facts.ambiguous_kernels, 0);
    // What a join on correlationId alone gives: every kernel twice.
    assert_eq!(answer["naive_join_rows"], 4 * 1312);
}

/// A runtime call's backtrace row beside it (eventClass 67, the call's
/// thread and correlation id, as 2022.x exports write them) is not a call:
/// the kernels stay proven, not ambiguous, and calls and their durations
/// count once.
#[test]
fn backtrace_rows_are_not_calls() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let with = dir.path().join("with_backtraces.sqlite");
    derive(&src, &with, &["--backtrace-runtime"]);
    let answer = referee(&with);
    let facts = Facts::read(&open(&with)).expect("reads");
    assert_eq!(facts, Facts::from_referee(&answer));
    assert_eq!(facts.runtime_rows, 2 * 3048);
    assert_eq!(facts.backtrace_rows, 3048);
    assert_eq!(facts.calls, 3048);
    assert_eq!(facts.calls_ns, 571_656_984, "the original calls' durations");
    assert_eq!(facts.proven_kernels, 1312);
    assert_eq!(facts.ambiguous_kernels, 0);
}

/// Two calls of one process claiming one correlation id, without a
/// backtrace class to explain them, are not merged into one: every kernel
/// they claim is ambiguous, none proven.
#[test]
fn calls_that_share_a_key_unexplained_prove_nothing() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let twice = dir.path().join("runtime_twice.sqlite");
    derive(&src, &twice, &["--repeat-runtime"]);
    let answer = referee(&twice);
    let facts = Facts::read(&open(&twice)).expect("reads");
    assert_eq!(facts, Facts::from_referee(&answer));
    assert_eq!(facts.calls, 2 * 3048);
    assert_eq!(facts.proven_kernels, 0);
    assert_eq!(facts.ambiguous_kernels, 1312);
}

/// The 2022.2 export (schema 2.9.1) writes each runtime call twice: the
/// call (eventClass 0, `cudaLaunchKernel_v7000`) and its backtrace
/// (eventClass 67, `cudaLaunchKernel`, a little wider). Read when the file is in the shared
/// data (hpcgroup/pipit @ 46d41f2:
/// pipit/tests/data/saxpy-mpi-cuda_nsys_perlmutter0.sqlite).
#[test]
fn a_2022_export_counts_each_call_once_as_its_runtime_row() {
    let Some(path) = proposed_export(
        "pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
        "hpcgroup/pipit @ 46d41f2: pipit/tests/data/saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
    ) else {
        return;
    };
    let export = open(&path);
    assert_eq!(export.meta().product_version, "2022.2.1.31");
    assert_eq!(export.meta().metadata_table, "EXPORT_META_DATA");
    let facts = Facts::read(&export).expect("reads");
    assert_eq!(facts, Facts::from_referee(&referee(&path)));
    assert_eq!(
        (facts.runtime_rows, facts.calls, facts.backtrace_rows),
        (95, 57, 38)
    );
    assert_eq!((facts.proven_kernels, facts.ambiguous_kernels), (5, 0));
}

/// A capture without device activity (the CUPTI device tables dropped from
/// a real export): read, with its API calls and no kernels.
#[test]
fn an_export_without_a_kernel_table_is_read() {
    let Some(src) = shared_file(TEST_CUDA) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let cpu = dir.path().join("no_device_tables.sqlite");
    let mut args = Vec::new();
    for table in [
        "CUPTI_ACTIVITY_KIND_KERNEL",
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
        "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
    ] {
        args.extend(["--drop-table", table]);
    }
    derive(&src, &cpu, &args);
    let export = open(&cpu);
    assert!(!export.has_kernels());
    let facts = Facts::read(&export).expect("reads");
    assert_eq!(facts, Facts::from_referee(&referee(&cpu)));
    assert_eq!(facts.kernels, (0, 0));
    assert_eq!(facts.calls, 44);
    assert_eq!(facts.proven_kernels, 0);
}

/// The real two-process export issue 27 names (GindaChen/nsys-ai @ ab196ea:
/// tests/fixtures/mfu_2gpu_before.sqlite; Nsight Systems 2026.2.1.210,
/// schema 3.25.0, 2× H100, one python3 process per GPU): correlation ids
/// overlap across the two processes.
#[test]
fn the_two_process_h100_export_proves_3986_of_4010_kernels() {
    let Some(path) = proposed_export(
        "nsys-ai_mfu_2gpu_before.sqlite",
        "GindaChen/nsys-ai @ ab196ea: tests/fixtures/mfu_2gpu_before.sqlite",
    ) else {
        return;
    };
    let export = open(&path);
    assert_eq!(export.meta().product_version, "2026.2.1.210");
    let answer = referee(&path);
    let facts = Facts::read(&export).expect("reads");
    assert_eq!(facts, Facts::from_referee(&answer));
    assert_eq!(facts.kernels.0, 4010);
    assert_eq!(facts.proven_kernels, 3986);
    assert_eq!(facts.ambiguous_kernels, 0);
    assert_eq!(answer["naive_join_rows"], 4280);
}
