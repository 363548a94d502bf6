//! Helper threads change where work happens, never the bytes: exports and
//! reviewed views written with and without the input and output threads
//! are byte-identical (plain and gzip), and so are their errors.

use std::path::Path;

use opguard_align::{
    apply_with, export_with, ApplyOptions, ExportOptions, ExportRequest, ProfileInput,
};
use opguard_trace::ReaderOptions;

use crate::{fixture, sha256sum};

fn export_options(threads: bool) -> ExportOptions {
    ExportOptions::new()
        .reader(ReaderOptions::new().decode_thread(threads))
        .output_thread(threads)
}

fn apply_options(threads: bool) -> ApplyOptions {
    ApplyOptions::new()
        .decode_thread(threads)
        .output_thread(threads)
}

/// Exports `request` (output renamed per run) and applies an empty map,
/// with and without threads; returns the bytes of each output.
fn both_ways(dir: &Path, request: &ExportRequest, ext: &str) -> [(Vec<u8>, Vec<u8>); 2] {
    [false, true].map(|threads| {
        let tag = if threads { "threads" } else { "inline" };
        let view = dir.join(format!("view-{tag}.{ext}"));
        let request = ExportRequest {
            output: view.clone(),
            ..request.clone()
        };
        let summary = export_with(&request, &export_options(threads)).unwrap();
        assert_eq!(summary.output_sha256, sha256sum(&view));
        let map = dir.join(format!("map-{tag}.json"));
        std::fs::write(
            &map,
            format!(
                r#"{{"version":1,"artifact_sha256":"{}","reviews":[]}}"#,
                summary.output_sha256
            ),
        )
        .unwrap();
        let reviewed = dir.join(format!("reviewed-{tag}.{ext}"));
        let response = apply_with(&view, &map, &reviewed, &apply_options(threads)).unwrap();
        assert_eq!(response.output_sha256, sha256sum(&reviewed));
        (
            std::fs::read(&view).unwrap(),
            std::fs::read(&reviewed).unwrap(),
        )
    })
}

#[test]
fn records_exports_and_reviews_are_the_same_bytes_with_and_without_threads() {
    let dir = tempfile::tempdir().unwrap();
    let request = ExportRequest {
        records: Some(fixture("two_runs.records.jsonl")),
        from_profile: Vec::new(),
        output: dir.path().join("unused"),
    };
    for ext in ["json", "json.gz"] {
        let [inline, threaded] = both_ways(dir.path(), &request, ext);
        assert!(inline == threaded, "{ext}: the bytes differ");
        std::fs::remove_dir_all(dir.path()).unwrap();
        std::fs::create_dir(dir.path()).unwrap();
    }
}

#[test]
fn profile_exports_and_reviews_are_the_same_bytes_with_and_without_threads() {
    let (Some(a), Some(b)) = (
        opguard_testdata::shared_file("traces/hta/trace_filter__sampled_rank-0.json.gz"),
        opguard_testdata::shared_file("traces/hta/trace_filter__sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let request = ExportRequest {
        records: None,
        from_profile: vec![ProfileInput::new(a), ProfileInput::new(b)],
        output: dir.path().join("unused"),
    };
    let [inline, threaded] = both_ways(dir.path(), &request, "json.gz");
    assert!(inline == threaded, "the bytes differ");
}

#[test]
fn a_limit_fails_the_same_with_and_without_threads() {
    let dir = tempfile::tempdir().unwrap();
    let records = fixture("two_runs.records.jsonl");
    let len = std::fs::metadata(&records).unwrap().len();
    let errors = [false, true].map(|threads| {
        let request = ExportRequest {
            records: Some(records.clone()),
            from_profile: Vec::new(),
            output: dir.path().join(format!("view-{threads}.json")),
        };
        let options = export_options(threads).reader(
            ReaderOptions::new()
                .max_encoded_bytes(len - 1)
                .decode_thread(threads),
        );
        let err = export_with(&request, &options).unwrap_err();
        (err.code(), err.to_string())
    });
    assert_eq!(errors[0], errors[1]);
    assert_eq!(errors[0].0, "limit_exceeded");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let errors = [false, true].map(|threads| {
        let request = ExportRequest {
            records: Some(records.clone()),
            from_profile: Vec::new(),
            output: dir.path().join(format!("view-{threads}.json")),
        };
        let err =
            export_with(&request, &export_options(threads).max_export_bytes(1000)).unwrap_err();
        (err.code(), err.to_string())
    });
    assert_eq!(errors[0].0, "limit_exceeded", "{:?}", errors[0]);
    assert_eq!(errors[0].1.replace("view-false", "view-true"), errors[1].1);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
