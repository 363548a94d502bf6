//! The door decides by content, and says what it cannot read.

use opguard_formats::{detect, read, Detected, ReadOptions};
use opguard_model::{ArtifactSpec, ModelOptions};

fn shared(path: &str) -> Option<std::path::PathBuf> {
    opguard_testdata::shared_file(path)
}

#[test]
fn an_nsight_report_is_named_and_the_export_command_given() {
    let Some(report) = shared("nsys/test-cuda_report1.nsys-rep") else {
        return;
    };
    assert_eq!(detect(&report).unwrap(), Detected::NsightReport);
    let err = read(
        &report,
        ArtifactSpec::new(),
        &ReadOptions::new(ModelOptions::new()),
    )
    .unwrap_err();
    assert_eq!(err.code(), "nsight_report");
    assert!(err.message().contains("nsys export --type sqlite"), "{err}");
    assert_eq!(err.file(), Some(report.as_path()));
}

#[test]
fn json_is_json_whatever_the_name_and_bad_json_keeps_the_readers_code() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite_named = dir.path().join("export.sqlite");
    std::fs::write(&sqlite_named, br#"[{"ph":"X","name":"a","ts":1,"dur":1}]"#).unwrap();
    assert_eq!(detect(&sqlite_named).unwrap(), Detected::ChromeJson);
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, br#"{"traceEvents":[{"ph":"X","#).unwrap();
    let err = read(&cut, ArtifactSpec::new(), &ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "json_truncated");
    assert!(matches!(err.kind(), opguard_formats::ErrorKind::Json(_)));
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let err = read(&missing, ArtifactSpec::new(), &ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "io");
    assert_eq!(err.file(), Some(missing.as_path()));
}
