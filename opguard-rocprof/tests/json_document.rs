//! The JSON document: made from the shared capture (the rows of the real CSV
//! capture in rocprofiler-sdk's layout, by tests/data/make_captures.py) and
//! a real rocprofv3 document when present; cut, reordered and foreign
//! documents; limits.

use std::fs;
use std::path::PathBuf;

use opguard_rocprof::{CaptureFormat, ErrorKind, Position, ReadOptions};

use crate::common::{generate, prefill_kernel_trace, read, read_with, referee, summarize};

#[test]
fn the_document_made_from_the_shared_capture_matches_the_referee_and_the_csv() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let (rows, summary) = read(&made.json);
    assert_eq!(summary.format, CaptureFormat::Json);
    let expected = referee("json", &made.json);
    assert_eq!(summarize(&rows), expected);
    // The same capture read as CSV says the same.
    assert_eq!(expected, referee("csv", &kernels));
    assert_eq!(expected["joined"]["hipGraphLaunch"], 1123);
    assert!(rows.iter().all(|r| r.process == Some(3985093)));
    assert_eq!(summary.processes[0].pid, Some(3985093));
    // Records in document order: dispatches, then API calls.
    let indexes: Vec<u64> = rows.iter().map(|r| r.index).collect();
    assert_eq!(indexes, (0..1133).collect::<Vec<_>>());
    assert_eq!(rows[0].kind, "dispatch");
    assert_eq!(rows[1128].kind, "api");
}

#[test]
fn gzip_reads_the_same_and_is_named_by_its_own_bytes() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let plain = generate(&kernels, &[]);
    let gz = generate(&kernels, &["--gzip"]);
    let (rows, _) = read(&plain.json);
    let (gz_rows, gz_summary) = read(&gz.json);
    assert_eq!(rows, gz_rows);
    let bytes = fs::read(&gz.json).expect("gz");
    assert_eq!(gz_summary.sha256, opguard_trace::Sha256Digest::of(&bytes));
    assert_eq!(gz_summary.encoded_bytes, bytes.len() as u64);
    assert_eq!(
        gz_summary.decoded_bytes,
        fs::metadata(&plain.json).unwrap().len()
    );
}

#[test]
fn a_document_with_sorted_keys_gives_the_same_records() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    // `buffer_records` now precedes `kernel_symbols` and `strings`.
    let sorted = made.dir.path().join("sorted.json");
    let script = "import json,sys; d=json.load(open(sys.argv[1])); \
                  open(sys.argv[2],'w').write(json.dumps(d, sort_keys=True))";
    opguard_testdata::python3([
        "-c".as_ref(),
        script.as_ref(),
        made.json.as_os_str(),
        sorted.as_os_str(),
    ]);
    let (rows, _) = read(&made.json);
    let (sorted_rows, _) = read(&sorted);
    assert_eq!(summarize(&rows), summarize(&sorted_rows));
    assert_eq!(rows.len(), sorted_rows.len());
}

#[test]
fn a_capture_without_api_records_has_its_kernels_and_no_proven_launch() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &["--kernels-only"]);
    let (rows, summary) = read(&made.json);
    let expected = referee("json", &made.json);
    assert_eq!(summarize(&rows), expected);
    assert_eq!(
        (
            expected["dispatches"].as_u64(),
            expected["unjoined"].as_u64()
        ),
        (Some(1128), Some(1128))
    );
    assert_eq!(summary.records.api_calls, 0);
}

/// A real rocprofv3 JSON document (rocprofiler-sdk, ROCm 7.x, MI350X, 43,915
/// dispatches, kernel trace only), from AMD-AGI/TraceLens's test data, when
/// the shared data holds it.
fn tracelens_document() -> Option<PathBuf> {
    let path = opguard_testdata::shared_data()?.join("rocprof/tracelens_908_results.json.gz");
    if !path.is_file() {
        eprintln!("skipping: {} not in the shared data yet", path.display());
        return None;
    }
    Some(path)
}

#[test]
fn a_real_rocprofv3_document_matches_the_referee() {
    let Some(path) = tracelens_document() else {
        return;
    };
    let (rows, summary) = read(&path);
    let expected = referee("json", &path);
    assert_eq!(summarize(&rows), expected);
    assert_eq!(expected["dispatches"], 43915);
    assert_eq!(expected["api_calls"], 0);
    assert_eq!(expected["unjoined"], 43915);
    // Agents are named from the agent records: every dispatch ran on the
    // first MI350X (logical node 2).
    let gpu = ("Agent 2".to_owned(), Some("AMD Instinct MI350X".to_owned()));
    assert!(rows.iter().all(|r| r.device.as_ref() == Some(&gpu)));
    assert_eq!(summary.agents.len(), 10);
    assert_eq!(summary.processes[0].pid, Some(908));
}

#[test]
fn a_cut_document_is_refused_where_it_ends() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let cut = made.dir.path().join("cut.json");
    opguard_testdata::write_cut_copy(&made.json, &cut);
    let err = read_with(&cut, &ReadOptions::new()).expect_err("a cut document");
    assert_eq!(err.code(), "json_truncated", "{err}");
    assert_eq!(err.file(), Some(cut.as_path()));
    let len = fs::metadata(&cut).unwrap().len();
    match err.position() {
        Some(Position::Json { offset, path }) => {
            assert_eq!(*offset, len);
            assert!(
                path.starts_with("rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch["),
                "{path}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Cut gzip: the gzip stream says it first.
    let gz = generate(&kernels, &["--gzip"]);
    let cut_gz = made.dir.path().join("cut.json.gz");
    opguard_testdata::write_cut_copy(&gz.json, &cut_gz);
    let err = read_with(&cut_gz, &ReadOptions::new()).expect_err("a cut gzip");
    assert_eq!(err.code(), "gzip_truncated", "{err}");
}

#[test]
fn a_chrome_trace_is_not_a_rocprofv3_document() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kineto = dir.path().join("trace.json");
    fs::write(&kineto, br#"{"schemaVersion":1,"traceEvents":[]}"#).expect("write");
    assert_eq!(opguard_rocprof::detect(&kineto), None);
    let err = opguard_rocprof::read_json(
        &kineto,
        &ReadOptions::new(),
        &mut |_: &opguard_rocprof::Record<'_>| {},
    )
    .expect_err("not rocprofv3");
    assert_eq!(err.code(), "not_rocprofv3", "{err}");
}

#[test]
fn a_repeated_key_is_refused_where_it_repeats() {
    let doc = br#"{"rocprofiler-sdk-tool":[{"metadata":{"pid":1},"kernel_symbols":[],
        "kernel_symbols":[]}]}"#;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("twice.json");
    fs::write(&path, doc).expect("write");
    let err = read_with(&path, &ReadOptions::new()).expect_err("duplicate key");
    assert_eq!(err.code(), "duplicate_key", "{err}");
    match err.position() {
        Some(Position::Json { path, .. }) => {
            assert_eq!(path, "rocprofiler-sdk-tool[0].kernel_symbols")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_dispatch_of_a_kernel_without_a_symbol_is_refused() {
    let doc = br#"{"rocprofiler-sdk-tool":[{"metadata":{"pid":1},"agents":[],
        "strings":{"buffer_records":[]},"kernel_symbols":[],
        "buffer_records":{"kernel_dispatch":[{"kind":11,"operation":2,"thread_id":1,
        "correlation_id":{"internal":5,"external":0},"start_timestamp":10,"end_timestamp":20,
        "dispatch_info":{"agent_id":{"handle":7},"queue_id":{"handle":1},"kernel_id":3,
        "dispatch_id":1,"workgroup_size":{"x":1,"y":1,"z":1},"grid_size":{"x":1,"y":1,"z":1}}}]}}]}"#;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("dangling.json");
    fs::write(&path, doc).expect("write");
    let err = read_with(&path, &ReadOptions::new()).expect_err("dangling kernel id");
    assert_eq!(err.code(), "dangling_reference", "{err}");
    assert!(matches!(
        err.kind(),
        ErrorKind::DanglingReference {
            what: "kernel_id",
            ..
        }
    ));
}

#[test]
fn the_limits_hold_at_the_document_size_and_refuse_one_byte_less() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let made = generate(&kernels, &[]);
    let size = fs::metadata(&made.json).unwrap().len();
    let at = |o: ReadOptions| read_with(&made.json, &o).map(|(rows, _)| rows.len());
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
        at(ReadOptions::new().max_decoded_bytes(size)).unwrap(),
        1133
    );
    assert_eq!(
        at(ReadOptions::new().max_decoded_bytes(size - 1))
            .unwrap_err()
            .code(),
        "limit_exceeded"
    );
    // One value (the largest kernel symbol, a record...) held to its limit.
    let err = at(ReadOptions::new().max_value_bytes(200)).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded", "{err}");
    assert!(matches!(
        err.kind(),
        ErrorKind::LimitExceeded {
            which: opguard_rocprof::Limit::ValueBytes,
            ..
        }
    ));
}
