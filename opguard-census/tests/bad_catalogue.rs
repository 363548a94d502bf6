//! The `census-*` rows of the bad-input catalogue (`fixtures/bad-input/`,
//! table in its README): each capture's exact error code, read from the file
//! by path and from bytes; reading writes nothing.

use std::path::{Path, PathBuf};

use opguard_census::Capture;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/bad-input")
}

#[test]
fn every_bad_capture_has_its_exact_code() {
    let cases = [
        ("census-truncated.capture.json", "json_syntax"),
        ("census-duplicate-key.capture.json", "duplicate_key"),
        ("census-nan.capture.json", "json_syntax"),
        // serde_json reads 2^64 as a float; the message must still call it
        // an integer beyond range, not "a non-integer number" (finding 8).
        ("census-integer-beyond-u64.capture.json", "wrong_type"),
        ("census-invalid-utf8-name.capture.json", "json_syntax"),
        ("census-negative-dimension.capture.json", "invalid_value"),
    ];
    let before: Vec<_> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for (name, code) in cases {
        let path = dir().join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let from_path = Capture::from_path(&path).expect_err(name);
        let from_bytes = Capture::from_slice(&bytes).expect_err(name);
        assert_eq!(from_path.code(), from_bytes.code(), "{name}");
        assert_eq!(from_path.code(), code, "{name}: {from_path}");
        if name == "census-integer-beyond-u64.capture.json" {
            let message = from_path.to_string();
            assert!(
                message.contains("a number beyond the 64-bit integer range"),
                "{message}"
            );
        }
    }
    let after: Vec<_> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after, "reading wrote something");
}
