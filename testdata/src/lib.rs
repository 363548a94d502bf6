//! Locates `../shared/data`, the real traces and captures the tests read.
//!
//! The folder sits beside the workspace (CI has it too); nothing from it is
//! copied into the repository. When it is missing, tests skip with a message,
//! except under `CI=true`, where a missing folder must fail the run loudly.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::path::PathBuf;

/// `../shared/data` relative to the workspace root, if it exists.
///
/// # Panics
/// When the folder is missing and the environment has `CI=true`.
pub fn shared_data() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    if dir.is_dir() {
        return dir.canonicalize().ok();
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "CI=true but the shared data folder {} is missing: the real-data tests cannot run",
            dir.display()
        );
    }
    eprintln!(
        "skipping: shared data folder {} not found (set up ../shared/data to run real-data tests)",
        dir.display()
    );
    None
}

/// A file under the shared data folder; `None` when the folder is missing
/// (see [`shared_data`]).
///
/// # Panics
/// When the folder exists but the file does not: the data set is incomplete.
pub fn shared_file(relative: &str) -> Option<PathBuf> {
    let path = shared_data()?.join(relative);
    assert!(
        path.is_file(),
        "{} is missing from the shared data",
        path.display()
    );
    Some(path)
}

/// Every trace under `traces/hta/`, sorted by name.
pub fn hta_traces() -> Vec<PathBuf> {
    let Some(dir) = shared_data() else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("traces/hta"))
        .expect("traces/hta is readable")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "traces/hta holds no traces");
    files
}

/// A real-producer trace committed under `fixtures/producers/traces/`
/// (recorded by `fixtures/producers/record.sh`; always present).
///
/// # Panics
/// When the file is not there: the committed fixture set is incomplete.
pub fn producer_trace(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/producers/traces")
        .join(name);
    assert!(path.is_file(), "{} is not committed", path.display());
    path
}
