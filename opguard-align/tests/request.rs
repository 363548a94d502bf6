//! The request protocol and the response shape.

use opguard_align::{apply, apply_request_file, export_request_file, parse_request};

use crate::{export_fixture, listing, map_json, review};

#[test]
fn a_request_file_resolves_paths_relative_to_itself_and_returns_the_same_response() {
    let dir = tempfile::tempdir().unwrap();
    let (view, s) = export_fixture(dir.path());
    let sha = s.output_sha256;
    std::fs::create_dir(dir.path().join("inv")).unwrap();
    std::fs::write(
        dir.path().join("inv/map.json"),
        map_json(
            &sha,
            serde_json::json!([review(&sha, 1, 9, "not_comparable", None)]),
        ),
    )
    .unwrap();
    let request = dir.path().join("inv/request.json");
    std::fs::write(
        &request,
        r#"{"protocol_version":1,"artifact":"../view.json","alignment_map":"map.json","output":"reviewed.json.gz"}"#,
    )
    .unwrap();
    let via_request = apply_request_file(&request).unwrap();
    let direct = apply(
        &view,
        &dir.path().join("inv/map.json"),
        &dir.path().join("direct.json.gz"),
    )
    .unwrap();
    assert_eq!(via_request.output, dir.path().join("inv/reviewed.json.gz"));
    assert_eq!(via_request.output_sha256, direct.output_sha256);
    assert_eq!(via_request.artifact_sha256, direct.artifact_sha256);
    assert_eq!(
        via_request.alignment_map_sha256,
        direct.alignment_map_sha256
    );
    assert_eq!(via_request.statuses, direct.statuses);
    // The response's JSON keys.
    let json = serde_json::to_value(&via_request).unwrap();
    for key in [
        "protocol_version",
        "output",
        "output_sha256",
        "artifact_sha256",
        "alignment_map_sha256",
        "verdict",
        "decisions",
        "statuses",
        "operations",
        "pairs",
    ] {
        assert!(json.get(key).is_some(), "response lacks {key}");
    }
    assert_eq!(json["protocol_version"], 1);
    assert_eq!(json["verdict"], "not_evaluated");
    assert_eq!(json["workload_launched"], false);
    for d in ["comparable", "not_comparable", "undetermined"] {
        assert!(json["decisions"].get(d).is_some());
    }
    for st in [
        "ok",
        "differs",
        "unpaired",
        "no_corresponding_trace_file",
        "undetermined",
        "not_comparable",
    ] {
        assert!(json["statuses"].get(st).is_some());
    }
    // The response round-trips through its serde type.
    let back: opguard_align::Response = serde_json::from_value(json).unwrap();
    assert_eq!(back, via_request);
}

#[test]
fn bad_requests_fail_with_codes_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    export_fixture(dir.path());
    let cases = [
        (
            r#"{"protocol_version":2,"artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#,
            "unsupported_protocol_version",
        ),
        (
            r#"{"protocol_version":"1","artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#,
            "unsupported_protocol_version",
        ),
        // #30: one rule with the Python request path: 1 is the integer 1.
        (
            r#"{"protocol_version":1.0,"artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#,
            "unsupported_protocol_version",
        ),
        (
            r#"{"protocol_version":true,"artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#,
            "unsupported_protocol_version",
        ),
        (
            r#"{"artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#,
            "missing_field",
        ),
        (
            r#"{"protocol_version":1,"artifact":"view.json","output":"o.json"}"#,
            "missing_field",
        ),
        (
            r#"{"protocol_version":1,"artifact":"view.json","alignment_map":"m.json","output":"o.json","force":true}"#,
            "unknown_field",
        ),
        (r#"{"protocol_version":1,"#, "json_syntax"),
        (
            r#"{"protocol_version":1,"artifact":"view.json","alignment_map":"missing.json","output":"o.json"}"#,
            "io",
        ),
    ];
    for (text, code) in cases {
        std::fs::write(dir.path().join("req.json"), text).unwrap();
        let err = apply_request_file(&dir.path().join("req.json")).unwrap_err();
        assert_eq!(err.code(), code, "{text}: {err}");
        assert_eq!(listing(dir.path()), ["req.json", "view.json"]);
    }
    assert!(parse_request("{}", dir.path()).is_err());
    let float = r#"{"protocol_version":1.0,"artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#;
    let message = parse_request(float, dir.path()).unwrap_err().to_string();
    assert!(message.contains("protocol_version 1.0"), "{message}");
}

#[test]
fn a_repeated_key_in_an_apply_request_is_refused_not_read_as_the_last() {
    // Issue 20: `"artifact":"a","artifact":"b"` used to read as `b`.
    let dir = tempfile::tempdir().unwrap();
    export_fixture(dir.path());
    std::fs::write(dir.path().join("m.json"), "{}").unwrap();
    for text in [
        r#"{"protocol_version":1,"artifact":"a.json","artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#,
        r#"{"protocol_version":1,"protocol_version":1,"artifact":"view.json","alignment_map":"m.json","output":"o.json"}"#,
    ] {
        std::fs::write(dir.path().join("req.json"), text).unwrap();
        let err = apply_request_file(&dir.path().join("req.json")).unwrap_err();
        assert_eq!(err.code(), "duplicate_key", "{text}: {err}");
        assert!(err.to_string().contains("duplicate key"), "{text}: {err}");
        let err = parse_request(text, dir.path()).unwrap_err();
        assert_eq!(err.code(), "duplicate_key", "{text}: {err}");
    }
    assert_eq!(listing(dir.path()), ["m.json", "req.json", "view.json"]);
}

#[test]
fn a_request_one_byte_over_its_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    export_fixture(dir.path());
    let text = r#"{"protocol_version":1,"artifact":"view.json","alignment_map":"missing.json","output":"o.json"}"#;
    let limit = opguard_align::MAX_REQUEST_BYTES as usize;
    let padded = |n: usize| format!("{text}{}", " ".repeat(n - text.len()));
    let path = dir.path().join("req.json");
    std::fs::write(&path, padded(limit)).unwrap();
    // At the limit the request is read; the missing map is the next failure.
    assert_eq!(apply_request_file(&path).unwrap_err().code(), "io");
    std::fs::write(&path, padded(limit + 1)).unwrap();
    let err = apply_request_file(&path).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded", "{err}");
}

#[test]
fn an_export_request_file_runs_records_and_profiles() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        crate::fixture("two_runs.records.jsonl"),
        dir.path().join("r.jsonl"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("req.json"),
        r#"{"records":"r.jsonl","output":"v.json"}"#,
    )
    .unwrap();
    let s = export_request_file(&dir.path().join("req.json")).unwrap();
    assert_eq!(s.operations, 16);
    assert_eq!(s.output, dir.path().join("v.json"));
    // Neither or both inputs: refused.
    std::fs::write(dir.path().join("req2.json"), r#"{"output":"w.json"}"#).unwrap();
    assert_eq!(
        export_request_file(&dir.path().join("req2.json"))
            .unwrap_err()
            .code(),
        "invalid_request"
    );
    std::fs::write(
        dir.path().join("req3.json"),
        r#"{"records":"r.jsonl","from_profile":[{"path":"a"},{"path":"b"}],"output":"w.json"}"#,
    )
    .unwrap();
    assert_eq!(
        export_request_file(&dir.path().join("req3.json"))
            .unwrap_err()
            .code(),
        "invalid_request"
    );
    std::fs::write(
        dir.path().join("req4.json"),
        r#"{"from_profile":[{"path":"a"}],"output":"w.json"}"#,
    )
    .unwrap();
    assert_eq!(
        export_request_file(&dir.path().join("req4.json"))
            .unwrap_err()
            .code(),
        "invalid_request"
    );
    assert!(!dir.path().join("w.json").exists());
}

#[test]
fn an_export_request_and_its_traces_are_objects_never_fields_by_position() {
    // serde alone reads ["r.jsonl", [], "v.json"] as a records request, and
    // a trace entry ["a.json", "run", 0] as {"path", "run", "rank"}.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        crate::fixture("two_runs.records.jsonl"),
        dir.path().join("r.jsonl"),
    )
    .unwrap();
    for (name, text) in [
        ("whole.json", r#"["r.jsonl", [], "v.json"]"#),
        (
            "entries.json",
            r#"{"from_profile": [["a.json", "a", 0], ["b.json", "b", 0]], "output": "w.json"}"#,
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let err = export_request_file(&path).unwrap_err();
        assert_eq!(err.code(), "wrong_type", "{name}: {err}");
        assert!(
            err.to_string().contains("found an array, expected struct"),
            "{name}: {err}"
        );
    }
    assert!(!dir.path().join("v.json").exists());
}
