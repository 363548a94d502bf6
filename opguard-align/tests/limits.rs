//! Limits: map 8 MiB, export 256 MiB encoded and decoded (N passes, N+1
//! fails; the 256 MiB boundary is exercised through the same code path
//! with a configured limit).

use std::io::Write;

use opguard_align::{apply, apply_with, ApplyOptions, MAX_EXPORT_BYTES, MAX_MAP_BYTES};

use crate::{export_fixture, listing, review};

#[test]
fn the_seed_limits_are_the_defaults() {
    assert_eq!(MAX_MAP_BYTES, 8 * 1024 * 1024);
    assert_eq!(MAX_EXPORT_BYTES, 256 * 1024 * 1024);
    let o = ApplyOptions::default();
    assert_eq!(
        (o.max_map_bytes, o.max_artifact_bytes, o.max_output_bytes),
        (MAX_MAP_BYTES, MAX_EXPORT_BYTES, MAX_EXPORT_BYTES)
    );
}

/// A valid map padded (inside its reason) to exactly `len` bytes.
fn map_of_len(sha: &str, len: usize) -> Vec<u8> {
    let mut r = review(sha, 1, 9, "not_comparable", None);
    r["reason"] = serde_json::Value::String(String::new());
    let base =
        serde_json::json!({"version": 1, "artifact_sha256": sha, "reviews": [r]}).to_string();
    let pad = len - base.len();
    r["reason"] = serde_json::Value::String("x".repeat(pad));
    let text =
        serde_json::json!({"version": 1, "artifact_sha256": sha, "reviews": [r]}).to_string();
    assert_eq!(text.len(), len);
    text.into_bytes()
}

#[test]
fn a_map_of_8_mib_passes_and_one_byte_more_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (view, s) = export_fixture(dir.path());
    let map = dir.path().join("map.json");
    std::fs::write(&map, map_of_len(&s.output_sha256, MAX_MAP_BYTES as usize)).unwrap();
    apply(&view, &map, &dir.path().join("ok.json")).unwrap();
    std::fs::write(
        &map,
        map_of_len(&s.output_sha256, MAX_MAP_BYTES as usize + 1),
    )
    .unwrap();
    let out = dir.path().join("no.json");
    let err = apply(&view, &map, &out).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    assert!(err.to_string().contains("alignment map"), "{err}");
    assert!(!out.exists());
}

#[test]
fn an_artifact_over_the_encoded_or_decoded_limit_fails_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let (view, s) = export_fixture(dir.path());
    let len = std::fs::metadata(&view).unwrap().len();
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        crate::map_json(&s.output_sha256, serde_json::json!([])),
    )
    .unwrap();
    let out = dir.path().join("o.json");
    apply_with(
        &view,
        &map,
        &out,
        &ApplyOptions::new().max_artifact_bytes(len),
    )
    .unwrap();
    std::fs::remove_file(&out).unwrap();
    let err = apply_with(
        &view,
        &map,
        &out,
        &ApplyOptions::new().max_artifact_bytes(len - 1),
    )
    .unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    assert!(!out.exists());
    // gzip: small encoded, large decoded (a bomb in miniature).
    let gz = dir.path().join("view.json.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&std::fs::read(&view).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let gz_len = std::fs::metadata(&gz).unwrap().len();
    assert!(gz_len < len);
    let err = apply_with(
        &gz,
        &map,
        &out,
        &ApplyOptions::new().max_artifact_bytes(len - 1),
    )
    .unwrap_err();
    assert_eq!(err.code(), "limit_exceeded", "decoded limit");
    assert!(!out.exists());
    assert_eq!(
        listing(dir.path()),
        ["map.json", "view.json", "view.json.gz"]
    );
}

#[test]
fn a_gzip_bomb_artifact_stops_at_the_default_limit() {
    // 300 MiB of whitespace inside a valid document, as concatenated gzip
    // members (one member of 1 MiB of spaces, repeated): under 1 MiB
    // encoded.
    let dir = tempfile::tempdir().unwrap();
    let (_, s) = export_fixture(dir.path());
    let gz = dir.path().join("bomb.json.gz");
    let member = |bytes: &[u8]| {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    };
    let spaces = member(&vec![b' '; 1 << 20]);
    let mut file = member(b"{\"traceEvents\":[");
    for _ in 0..300 {
        file.extend_from_slice(&spaces);
    }
    file.extend_from_slice(&member(b"]}"));
    assert!(file.len() < 1 << 20, "{} bytes encoded", file.len());
    std::fs::write(&gz, file).unwrap();
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        crate::map_json(&s.output_sha256, serde_json::json!([])),
    )
    .unwrap();
    let err = apply(&gz, &map, &dir.path().join("o.json")).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    assert!(!dir.path().join("o.json").exists());
}

#[test]
fn a_trace_that_is_not_an_export_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, s) = export_fixture(dir.path());
    let plain = dir.path().join("plain.json");
    std::fs::write(
        &plain,
        r#"{"traceEvents":[{"ph":"X","name":"k","ts":1,"dur":1}]}"#,
    )
    .unwrap();
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        crate::map_json(&s.output_sha256, serde_json::json!([])),
    )
    .unwrap();
    let err = apply(&plain, &map, &dir.path().join("o.json")).unwrap_err();
    assert_eq!(err.code(), "not_an_export");
    let broken = dir.path().join("broken.json");
    std::fs::write(
        &broken,
        r#"{"traceEvents":[{"ph":"X","cat":"opguard.op","name":"k","ts":1,"dur":1}]}"#,
    )
    .unwrap();
    let err = apply(&broken, &map, &dir.path().join("o.json")).unwrap_err();
    assert_eq!(err.code(), "invalid_export");
    let truncated = dir.path().join("t.json");
    std::fs::write(&truncated, r#"{"traceEvents":[{"ph":"X""#).unwrap();
    let err = apply(&truncated, &map, &dir.path().join("o.json")).unwrap_err();
    assert_eq!(err.code(), "json_truncated");
    assert!(!dir.path().join("o.json").exists());
}
