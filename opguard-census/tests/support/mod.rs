//! Shared test support: where the data lives, and the capture builder.

pub mod builder;
pub mod seed004;

use std::path::PathBuf;

/// `../shared/data` relative to the workspace root. Missing data fails loudly under
/// `CI=true`; elsewhere the caller skips with a printed message.
pub fn data_dir() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    if p.is_dir() {
        return Some(p);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "CI=true but the shared data directory {} is missing",
            p.display()
        );
    }
    eprintln!("skipping: shared data directory {} is missing", p.display());
    None
}

/// A real capture by stem, e.g. `clean_sym_w2`.
pub fn real_capture_path(stem: &str) -> Option<PathBuf> {
    data_dir().map(|d| d.join("torch/census").join(format!("{stem}.json")))
}

/// `fixtures/census/<name>` in the workspace.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/census")
        .join(name)
}
