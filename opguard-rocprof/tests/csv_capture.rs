//! The CSV capture: the real shared capture against the referee, the
//! directory and sibling forms, a capture without API records, cut files,
//! foreign headers and limits.

use std::fs;
use std::path::Path;

use opguard_rocprof::{CaptureFormat, ErrorKind, Position, ReadOptions};

use crate::common::{prefill_kernel_trace, read, read_with, referee, summarize};

fn copy_into(dir: &Path, src: &Path, name: &str) -> std::path::PathBuf {
    let dst = dir.join(name);
    fs::copy(src, &dst).expect("copying a capture file");
    dst
}

#[test]
fn the_shared_capture_matches_the_referee() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let (rows, summary) = read(&kernels);
    assert_eq!(summary.format, CaptureFormat::Csv);
    assert_eq!(summarize(&rows), referee("csv", &kernels));
    // The numbers the shared data's README states.
    let dispatches = rows.iter().filter(|r| r.kind == "dispatch").count();
    let graph = rows
        .iter()
        .filter(|r| r.kind == "dispatch" && r.correlation == Some(57328))
        .count();
    assert_eq!((dispatches, graph), (1128, 1123));
    assert_eq!(summary.records.dispatches, 1128);
    assert_eq!(summary.records.api_calls, 5);
    // The API trace's Process_Id is the process of the prefix's dispatches.
    assert!(rows.iter().all(|r| r.process == Some(3985093)));
    assert_eq!(summary.files.len(), 2);
    assert_eq!(summary.files[0].kind, "hip_api_trace");
    assert_eq!(summary.files[1].kind, "kernel_trace");
}

#[test]
fn the_directory_and_every_file_of_the_set_read_as_one_capture() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let dir = kernels.parent().expect("the capture's directory");
    let (by_file, file_summary) = read(&kernels);
    let (by_dir, dir_summary) = read(dir);
    let (by_api_file, api_summary) = read(&dir.join("prefill_hip_api_trace.csv"));
    assert_eq!(by_file, by_dir);
    assert_eq!(by_file, by_api_file);
    assert_eq!(file_summary.sha256, dir_summary.sha256);
    assert_eq!(file_summary.sha256, api_summary.sha256);
}

#[test]
fn the_capture_digest_names_each_file_by_kind_and_sha256() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let (_, summary) = read(&kernels);
    let script = "import hashlib,sys\n\
        h=lambda p: hashlib.sha256(open(p,'rb').read()).hexdigest()\n\
        k,a=sys.argv[1],sys.argv[2]\n\
        print(h(a)); print(h(k))\n\
        print(hashlib.sha256(('hip_api_trace %s\\nkernel_trace %s\\n' % (h(a), h(k))).encode()).hexdigest())";
    let api = kernels.with_file_name("prefill_hip_api_trace.csv");
    let out = opguard_testdata::python3([
        "-c".as_ref(),
        script.as_ref(),
        kernels.as_os_str(),
        api.as_os_str(),
    ]);
    let text = String::from_utf8(out).expect("hex");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(summary.files[0].sha256.to_string(), lines[0]);
    assert_eq!(summary.files[1].sha256.to_string(), lines[1]);
    assert_eq!(summary.sha256.to_string(), lines[2]);
}

#[test]
fn a_kernel_trace_without_api_records_has_its_kernels_and_no_proven_launch() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let alone = copy_into(dir.path(), &kernels, "prefill_kernel_trace.csv");
    let (rows, summary) = read(&alone);
    let expected = referee("csv", &alone);
    assert_eq!(summarize(&rows), expected);
    assert_eq!(expected["dispatches"], 1128);
    assert_eq!(expected["unjoined"], 1128);
    assert_eq!(summary.records.api_calls, 0);
    // No API trace says whose the dispatches are: no process, no proof.
    assert!(rows.iter().all(|r| r.process.is_none()));
    assert_eq!(summary.sha256, summary.files[0].sha256);
}

#[test]
fn two_prefixes_of_one_pid_make_every_launch_ambiguous() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let api = kernels.with_file_name("prefill_hip_api_trace.csv");
    let dir = tempfile::tempdir().expect("tempdir");
    for prefix in ["a_", "b_"] {
        copy_into(dir.path(), &kernels, &format!("{prefix}kernel_trace.csv"));
        copy_into(dir.path(), &api, &format!("{prefix}hip_api_trace.csv"));
    }
    let (rows, summary) = read(dir.path());
    let s = summarize(&rows);
    assert_eq!(s["dispatches"], 2256);
    // Each correlation id now has two launch rows in process 3985093:
    // neither is proven.
    assert_eq!(s["joined"], serde_json::json!({}));
    assert_eq!(s["ambiguous"], 2248);
    assert_eq!(summary.processes.len(), 2);
    // Indexes run on across the prefixes.
    let indexes: Vec<u64> = rows.iter().map(|r| r.index).collect();
    assert_eq!(indexes, (0..indexes.len() as u64).collect::<Vec<_>>());
}

#[test]
fn a_cut_kernel_trace_is_refused_at_its_last_line() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let cut = dir.path().join("prefill_kernel_trace.csv");
    opguard_testdata::write_cut_copy(&kernels, &cut);
    let err = read_with(&cut, &ReadOptions::new()).expect_err("a cut file");
    assert_eq!(err.code(), "csv_truncated", "{err}");
    assert_eq!(err.file(), Some(cut.as_path()));
    let lines = fs::read(&cut)
        .expect("cut copy")
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64;
    match err.position() {
        Some(Position::Csv { line, .. }) => assert_eq!(*line, lines + 1),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("was cut"), "{err}");
}

#[test]
fn a_row_cut_inside_a_quoted_field_is_refused() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let bytes = fs::read(&kernels).expect("kernel trace");
    // Cut inside the last row's last field: the field count is whole, only
    // the missing line break and quote say the row is cut.
    let cut_at = bytes.len() - 3;
    let dir = tempfile::tempdir().expect("tempdir");
    let cut = dir.path().join("x_kernel_trace.csv");
    fs::write(&cut, &bytes[..cut_at]).expect("write");
    let err = read_with(&cut, &ReadOptions::new()).expect_err("a cut file");
    assert_eq!(err.code(), "csv_truncated", "{err}");
}

/// The header Nsight Systems' `cuda_gpu_trace` CSV report starts with.
const NSYS_HEADER: &str =
    "\"Start (ns)\",\"Duration (ns)\",\"CorrId\",\"GrdX\",\"GrdY\",\"GrdZ\",\"Name\"\n\
    \"1000\",\"20\",\"7\",\"1\",\"1\",\"1\",\"gemm\"\n";

#[test]
fn a_foreign_header_is_refused_naming_the_file_and_the_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Named like a rocprofv3 kernel trace.
    let named = dir.path().join("run_kernel_trace.csv");
    fs::write(&named, NSYS_HEADER).expect("write");
    let err = read_with(&named, &ReadOptions::new()).expect_err("foreign header");
    assert_eq!(err.code(), "foreign_csv_header");
    assert_eq!(err.file(), Some(named.as_path()));
    match err.kind() {
        ErrorKind::ForeignHeader {
            file_kind,
            column,
            missing,
            ..
        } => assert_eq!(
            (*file_kind, column.as_str(), *missing),
            ("kernel_trace", "Start (ns)", false)
        ),
        other => panic!("{other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("run_kernel_trace.csv") && text.contains("Start (ns)"),
        "{text}"
    );
    // Named anything else: detection finds no rocprofv3 header, and the CSV
    // reader says why, in the same words.
    let other = dir.path().join("gpu_trace.csv");
    fs::write(&other, NSYS_HEADER).expect("write");
    let err = read_with(&other, &ReadOptions::new()).expect_err("foreign header");
    assert_eq!(err.code(), "foreign_csv_header");
    assert!(err.to_string().contains("Start (ns)"), "{err}");
}

#[test]
fn a_missing_required_column_is_named() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let text = fs::read_to_string(&kernels).expect("kernel trace");
    let (header, rest) = text.split_once('\n').expect("a header line");
    // Drop the Correlation_Id column from the header only.
    let header = header.replace("\"Correlation_Id\",", "");
    let dir = tempfile::tempdir().expect("tempdir");
    let edited = dir.path().join("p_kernel_trace.csv");
    fs::write(&edited, format!("{header}\n{rest}")).expect("write");
    let err = read_with(&edited, &ReadOptions::new()).expect_err("missing column");
    match err.kind() {
        ErrorKind::ForeignHeader {
            column, missing, ..
        } => {
            assert_eq!((column.as_str(), *missing), ("Correlation_Id", true))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_field_that_is_not_a_number_is_refused_with_its_line_and_column() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let text = fs::read_to_string(&kernels).expect("kernel trace");
    let edited_text = text.replacen("\"90754858086907\"", "\"9075485808690x\"", 1);
    assert_ne!(text, edited_text);
    let dir = tempfile::tempdir().expect("tempdir");
    let edited = dir.path().join("p_kernel_trace.csv");
    fs::write(&edited, edited_text).expect("write");
    let err = read_with(&edited, &ReadOptions::new()).expect_err("bad number");
    assert_eq!(err.code(), "invalid_field");
    assert_eq!(
        err.position(),
        Some(&Position::Csv {
            line: 2,
            column: Some("Start_Timestamp".into())
        })
    );
}

#[test]
fn the_limits_hold_at_the_capture_size_and_refuse_one_byte_less() {
    let Some(kernels) = prefill_kernel_trace() else {
        return;
    };
    let api = kernels.with_file_name("prefill_hip_api_trace.csv");
    let total = fs::metadata(&kernels).unwrap().len() + fs::metadata(&api).unwrap().len();
    let at = |o: ReadOptions| read_with(&kernels, &o).map(|(rows, _)| rows.len());
    assert_eq!(
        at(ReadOptions::new().max_encoded_bytes(total)).unwrap(),
        1133
    );
    let err = at(ReadOptions::new().max_encoded_bytes(total - 1)).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    assert_eq!(
        at(ReadOptions::new().max_decoded_bytes(total)).unwrap(),
        1133
    );
    let err = at(ReadOptions::new().max_decoded_bytes(total - 1)).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    assert!(matches!(
        err.kind(),
        ErrorKind::LimitExceeded { limit, .. } if *limit == total - 1
    ));
}
