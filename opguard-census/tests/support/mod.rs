//! Shared test support: where the data lives, and the capture builder.

pub mod builder;
pub mod seed004;

use std::path::PathBuf;

/// A real capture by stem, e.g. `clean_sym_w2`; `None` (the test skips,
/// saying so) without the shared data, see [`opguard_testdata::shared_data`].
#[track_caller]
pub fn real_capture_path(stem: &str) -> Option<PathBuf> {
    opguard_testdata::shared_file(&format!("torch/census/{stem}.json"))
}

/// `fixtures/census/<name>` in the workspace.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/census")
        .join(name)
}
