//! Input limits and map errors that say what is wrong: a gzip records file
//! is held to the decoded-bytes limit, a map without a version says so, a
//! decision is named by its JSON name, and an I/O error keeps its cause.

use std::io::Write;

use opguard_align::{apply, export_with, Decision, ExportOptions, ExportRequest};
use opguard_trace::ReaderOptions;

use crate::{export_fixture, fixture, listing, map_json, review};

#[test]
fn a_gzip_records_file_is_held_to_the_decoded_limit() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read(fixture("two_runs.records.jsonl")).unwrap();
    let gz = dir.path().join("runs.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&plain).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let run = |limit: u64, name: &str| {
        export_with(
            &ExportRequest {
                records: Some(gz.clone()),
                from_profile: vec![],
                output: dir.path().join(name),
            },
            &ExportOptions::new().reader(ReaderOptions::new().max_decoded_bytes(limit)),
        )
    };
    let decoded = plain.len() as u64;
    let err = run(decoded - 1, "short.json").unwrap_err();
    assert_eq!(err.code(), "limit_exceeded", "{err}");
    assert!(!dir.path().join("short.json").exists());
    let s = run(decoded, "exact.json").unwrap();
    assert_eq!(s.operations, 16);
}

#[test]
fn a_map_without_a_version_says_the_version_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (view, s) = export_fixture(dir.path());
    let map = dir.path().join("map.json");
    let doc = serde_json::json!({"artifact_sha256": s.output_sha256, "reviews": []});
    std::fs::write(&map, doc.to_string()).unwrap();
    let err = apply(&view, &map, &dir.path().join("out.json")).unwrap_err();
    assert_eq!(err.code(), "missing_field");
    assert!(err.to_string().contains("missing field `version`"), "{err}");
}

#[test]
fn a_decision_is_named_by_its_json_name() {
    for d in [
        Decision::Comparable,
        Decision::NotComparable,
        Decision::Undetermined,
    ] {
        assert_eq!(serde_json::to_value(d).unwrap(), d.as_str());
    }
    // The name reaches the error of a decision that takes no selectors.
    let dir = tempfile::tempdir().unwrap();
    let (view, s) = export_fixture(dir.path());
    let sha = s.output_sha256;
    let map = dir.path().join("map.json");
    let sel = (
        serde_json::json!(["inputs", 0]),
        serde_json::json!(["inputs", 0]),
    );
    let reviews = serde_json::json!([review(&sha, 1, 9, "not_comparable", Some(sel))]);
    std::fs::write(&map, map_json(&sha, reviews)).unwrap();
    let err = apply(&view, &map, &dir.path().join("out.json")).unwrap_err();
    assert_eq!(err.code(), "selectors_not_allowed");
    assert!(
        err.to_string()
            .contains("decision not_comparable takes null selectors"),
        "{err}"
    );
}

/// An I/O failure keeps the operating system's error as its source.
#[test]
fn an_io_error_keeps_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let before = listing(dir.path());
    let out = dir.path().join(format!("{}.json", "v".repeat(240)));
    let err = opguard_align::export_records(&fixture("two_runs.records.jsonl"), &out).unwrap_err();
    assert_eq!(err.code(), "io");
    let cause = std::error::Error::source(&err).expect("a cause");
    let io = cause
        .downcast_ref::<std::io::Error>()
        .expect("the cause is the I/O error");
    assert!(err.to_string().contains(&io.to_string()), "{err}");
    assert_eq!(listing(dir.path()), before);
}

#[test]
fn an_export_reports_its_decoded_and_encoded_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let records = fixture("two_runs.records.jsonl");
    for name in ["v.json", "v.json.gz"] {
        let out = dir.path().join(name);
        let s = opguard_align::export_records(&records, &out).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(s.output_bytes, bytes.len() as u64, "{name}");
        let decoded = if name.ends_with(".gz") {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut v)
                .unwrap();
            v
        } else {
            bytes
        };
        assert_eq!(s.decoded_bytes, decoded.len() as u64, "{name}");
    }
}

/// A view many chunks over its limit: the output thread stops at the first
/// chunk, the export's later writes fail because it stopped, and the error
/// reported is the limit that stopped it, not the broken hand-over.
#[test]
fn an_export_far_over_its_limit_fails_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<_> = ["a", "b"]
        .into_iter()
        .flat_map(|run| {
            (0..12_000u64).map(move |i| {
                crate::record(run, 0, i, "aten::mm", (i % 50) as u32, &[64, 64], "float")
            })
        })
        .collect();
    let path = crate::write_records(dir.path(), "big.jsonl", &records);
    let before = listing(dir.path());
    let out = dir.path().join("v.json");
    let err = export_with(
        &ExportRequest {
            records: Some(path),
            from_profile: vec![],
            output: out.clone(),
        },
        &ExportOptions::new().max_export_bytes(1000),
    )
    .unwrap_err();
    assert_eq!(err.code(), "limit_exceeded", "{err}");
    assert_eq!(listing(dir.path()), before);
}

#[test]
fn a_map_review_or_evidence_written_as_an_array_is_refused_at_its_path() {
    // serde would read each of these by position; a hand-edited map must
    // say what it means by name.
    let dir = tempfile::tempdir().unwrap();
    let (view, s) = export_fixture(dir.path());
    let sha = s.output_sha256;
    let out = dir.path().join("out.json");
    let good = serde_json::json!([review(&sha, 1, 9, "undetermined", None)]);
    let mut evidence_array = good.clone();
    evidence_array[0]["evidence"][0] = serde_json::json!(["observed", "trace"]);
    let review_array = serde_json::json!([[
        format!("{sha}:1"),
        format!("{sha}:9"),
        null,
        null,
        "undetermined",
        "reason",
        [{"basis": "observed", "reference": "trace"}]
    ]]);
    for (doc, expected) in [
        (
            serde_json::json!([1, sha, []]).to_string(),
            "found an array, expected struct AlignmentMap at $",
        ),
        (
            map_json(&sha, review_array),
            "found an array, expected struct Review at reviews[0] ",
        ),
        (
            map_json(&sha, evidence_array),
            "found an array, expected struct Evidence at reviews[0].evidence[0] ",
        ),
        (
            "\"map\"".to_owned(),
            "found the string \"map\", expected struct AlignmentMap at $",
        ),
    ] {
        let map = dir.path().join("map.json");
        std::fs::write(&map, &doc).unwrap();
        let err = apply(&view, &map, &out).unwrap_err();
        assert_eq!(err.code(), "wrong_type", "{doc}");
        assert!(err.to_string().contains(expected), "{doc}: {err}");
        assert!(!out.exists());
    }
    // The same review written as an object applies.
    let map = dir.path().join("map.json");
    std::fs::write(&map, map_json(&sha, good)).unwrap();
    apply(&view, &map, &out).unwrap();
}
