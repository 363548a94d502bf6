//! What every native-format harness asks of the door (`opguard-formats`)
//! beside its reader: documented codes, and `info` on the same file.

use std::fmt::Debug;
use std::path::Path;

use opguard_model::Format;

/// Asserts `code` is one of `codes`' (each a crate's `ERROR_CODES`).
pub(crate) fn assert_documented(code: &str, codes: &[&[(&str, &str)]], error: &dyn Debug) {
    assert!(
        codes.iter().flat_map(|c| c.iter()).any(|(c, _)| *c == code),
        "undocumented code {code}: {error:?}"
    );
}

/// Every code the door can answer: its own and its readers'.
pub(crate) fn door_codes() -> [&'static [(&'static str, &'static str)]; 5] {
    [
        opguard_formats::ERROR_CODES,
        opguard_trace::ERROR_CODES,
        opguard_nsys::ERROR_CODES,
        opguard_rocprof::ERROR_CODES,
        opguard_xplane::ERROR_CODES,
    ]
}

/// `opguard_formats::info` on the capture at `path`: never a panic, a
/// documented code, facts that serialize, and, when the door's `read`
/// accepted the capture as `read_format`, the facts of that format.
pub(crate) fn check_info(path: &Path, read_format: Option<Format>) {
    let options = opguard_formats::ReadOptions::default();
    match opguard_formats::info(path, &options) {
        Ok(info) => {
            serde_json::to_string(&info).expect("info serializes");
            if let Some(format) = read_format {
                assert_eq!(
                    info.format(),
                    format,
                    "info and read disagree on the format"
                );
            }
        }
        Err(e) => assert_documented(e.code(), &door_codes(), &e),
    }
}
