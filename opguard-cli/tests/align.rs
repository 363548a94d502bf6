//! `opguard export`, `opguard align` and `opguard tools align`: the two real
//! HTA runs exported, one candidate pair reviewed, the map applied by both
//! entry points; refusals write nothing and leave existing files alone.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::common::{run, Run};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sha256(p: &Path) -> String {
    Sha256::digest(std::fs::read(p).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The two runs of HTA's trace_compare example.
fn hta_runs() -> Option<[PathBuf; 2]> {
    Some([
        opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz")?,
        opguard_testdata::shared_file("traces/hta/trace_compare__test__test.json.gz")?,
    ])
}

/// `opguard export --json --from-profile A --from-profile B --out OUT`.
fn export_runs(runs: &[PathBuf; 2], out: &Path) -> Run {
    run(&[
        "export",
        "--json",
        "--from-profile",
        s(&runs[0]),
        "--from-profile",
        s(&runs[1]),
        "--out",
        s(out),
    ])
}

/// Exports the two runs into `dir/view.json`; returns the summary.
fn export_hta(dir: &Path, runs: &[PathBuf; 2]) -> Value {
    let r = export_runs(runs, &dir.join("view.json"));
    assert_eq!(r.status, 0, "{}", r.stderr);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 1);
    lines[0].clone()
}

/// `opguard align [--json] --artifact A --alignment-map M --out O`.
fn align(json: bool, artifact: &Path, map: &Path, out: &Path) -> Run {
    let mut args = vec!["align"];
    if json {
        args.push("--json");
    }
    args.extend([
        "--artifact",
        s(artifact),
        "--alignment-map",
        s(map),
        "--out",
        s(out),
    ]);
    run(&args)
}

/// (left index, right index) of the first automatic candidate pair in the
/// view, read from the view itself.
fn first_candidate_pair(view: &Path) -> (usize, usize) {
    let v: Value = serde_json::from_slice(&std::fs::read(view).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let ops: Vec<(usize, &Value)> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["cat"] == "opguard.op")
        .collect();
    for (i, e) in &ops {
        let c = &e["args"]["correspondence"];
        if c["status"] == "ok" {
            let peer = c["peer"]["record_id"].as_str().unwrap();
            let (j, _) = ops
                .iter()
                .find(|(_, p)| p["args"]["op"]["record_id"] == peer)
                .unwrap();
            return (*i, *j);
        }
    }
    panic!("the export has no candidate pair");
}

fn review_map(sha: &str, left: usize, right: usize) -> Value {
    json!({
        "version": 1,
        "artifact_sha256": sha,
        "reviews": [{
            "left_ref": format!("{sha}:{left}"),
            "right_ref": format!("{sha}:{right}"),
            "decision": "not_comparable",
            "reason": "the test run changed this operator's inputs on purpose",
            "evidence": [{"basis": "observed", "reference": "opguard-cli tests/align.rs"}]
        }]
    })
}

const RESPONSE_KEYS: &[&str] = &[
    "protocol_version",
    "output",
    "output_sha256",
    "artifact_sha256",
    "alignment_map_sha256",
    "verdict",
    "operations",
    "pairs",
    "statuses",
];

fn check_response(resp: &Value, out: &Path, artifact_sha: &str, map: &Path, pairs_before: u64) {
    for key in RESPONSE_KEYS {
        assert!(resp.get(*key).is_some(), "the response lacks {key}: {resp}");
    }
    assert_eq!(resp["protocol_version"], 1);
    assert_eq!(resp["verdict"], "not_evaluated");
    assert!(out.is_file(), "no output at {}", out.display());
    assert_eq!(resp["output_sha256"], sha256(out));
    assert_eq!(resp["artifact_sha256"], artifact_sha);
    assert_eq!(resp["alignment_map_sha256"], sha256(map));
    // The reviewed pair is no longer a comparable candidate.
    assert_eq!(resp["pairs"], pairs_before - 1);
    assert_eq!(resp["statuses"]["not_comparable"], 2);
    assert_eq!(resp["decisions"]["not_comparable"], 1);
}

#[test]
fn export_the_hta_runs_and_apply_a_review_by_both_entry_points() {
    let Some(runs) = hta_runs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let summary = export_hta(dir.path(), &runs);
    let view = dir.path().join("view.json");
    let sha = sha256(&view);
    assert_eq!(summary["output_sha256"], sha);
    assert_eq!(summary["format"], "opguard.export/v1");
    assert_eq!(summary["verdict"], "not_evaluated");
    let pairs = summary["pairs"].as_u64().unwrap();
    assert!(pairs > 0, "{summary}");
    let statuses = summary["statuses"].as_object().unwrap();
    let counted: u64 = statuses.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(Some(counted), summary["operations"].as_u64());
    assert_eq!(
        statuses["ok"].as_u64().unwrap() + statuses["differs"].as_u64().unwrap(),
        2 * pairs
    );

    let (left, right) = first_candidate_pair(&view);
    let map = dir.path().join("map.json");
    std::fs::write(&map, review_map(&sha, left, right).to_string()).unwrap();

    // opguard align
    let out = dir.path().join("reviewed.json");
    let r = align(true, &view, &map, &out);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 1, "one line with --json");
    check_response(&lines[0], &out, &sha, &map, pairs);
    assert_eq!(sha256(&view), sha, "the artifact changed");

    // opguard tools align, paths relative to the request
    let request = dir.path().join("request.json");
    std::fs::write(
        &request,
        json!({"protocol_version": 1, "artifact": "view.json", "alignment_map": "map.json",
               "output": "reviewed.tools.json"})
        .to_string(),
    )
    .unwrap();
    let r = run(&["tools", "align", "--json", "--request", s(&request)]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let tools = &r.json_lines()[0];
    check_response(
        tools,
        &dir.path().join("reviewed.tools.json"),
        &sha,
        &map,
        pairs,
    );
    // Both entry points render the same view.
    assert_eq!(tools["output_sha256"], lines[0]["output_sha256"]);
    assert_eq!(sha256(&view), sha, "the artifact changed");

    // The human form.
    let out3 = dir.path().join("reviewed3.json.gz");
    let r = align(false, &view, &map, &out3);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.contains("not_evaluated"), "{}", r.stdout);
    assert!(r.stdout.contains(&sha), "{}", r.stdout);
}

#[test]
fn an_existing_output_or_a_stale_map_exits_2_and_writes_nothing() {
    let Some(runs) = hta_runs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    export_hta(dir.path(), &runs);
    let view = dir.path().join("view.json");
    let sha = sha256(&view);
    let (left, right) = first_candidate_pair(&view);
    let map = dir.path().join("map.json");
    std::fs::write(&map, review_map(&sha, left, right).to_string()).unwrap();

    // An existing output is never overwritten.
    let existing = dir.path().join("existing.json");
    std::fs::write(&existing, "keep me").unwrap();
    let r = align(true, &view, &map, &existing);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "");
    let e = r.json_error();
    assert_eq!(e["code"], "output_exists");
    assert!(!e["message"].as_str().unwrap().is_empty());
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    // Same for export.
    let r = export_runs(&runs, &existing);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "output_exists");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");

    // A map written for another artifact: nothing is written.
    let stale_sha = "0".repeat(64);
    let mut stale = review_map(&sha, left, right);
    stale["artifact_sha256"] = stale_sha.clone().into();
    let stale_map = dir.path().join("stale.map.json");
    std::fs::write(&stale_map, stale.to_string()).unwrap();
    let listing = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let before = listing(dir.path());
    let out = dir.path().join("never.json");
    let r = align(true, &view, &stale_map, &out);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "stale_artifact_hash");
    let request = dir.path().join("stale.request.json");
    std::fs::write(
        &request,
        json!({"protocol_version": 1, "artifact": "view.json", "alignment_map": "stale.map.json",
               "output": "never.json"})
        .to_string(),
    )
    .unwrap();
    let mut before = before;
    before.push("stale.request.json".into());
    before.sort();
    let r = run(&["tools", "align", "--json", "--request", s(&request)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "stale_artifact_hash");
    let r = run(&["tools", "align", "--request", s(&request)]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.starts_with("error[stale_artifact_hash]: "),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
    assert_eq!(listing(dir.path()), before, "a refused map wrote something");
    assert_eq!(sha256(&view), sha);
}

#[test]
fn export_of_the_records_fixture_and_request_errors() {
    // No shared data needed: the align fixture's records file.
    let records =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/align/two_runs.records.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let view = dir.path().join("view.json.gz");
    let r = run(&[
        "export",
        "--json",
        "--records",
        s(&records),
        "--out",
        s(&view),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let summary = &r.json_lines()[0];
    assert_eq!(summary["output_sha256"], sha256(&view));
    for key in [
        "operations",
        "pairs",
        "statuses",
        "runs",
        "first_differences",
    ] {
        assert!(summary.get(key).is_some(), "{key}");
    }
    assert_eq!(summary["runs"], json!(["original", "candidate"]));
    let human = run(&[
        "export",
        "--records",
        s(&records),
        "--out",
        s(&dir.path().join("v2.json")),
    ]);
    assert_eq!(human.status, 0);
    assert!(human.stdout.contains("candidate pairs"), "{}", human.stdout);

    // Exactly one source: both or neither is a usage error.
    let r = run(&["export", "--out", s(&dir.path().join("x.json"))]);
    assert_eq!(r.status, 64);
    let r = run(&[
        "export",
        "--records",
        s(&records),
        "--from-profile",
        s(&records),
        "--out",
        s(&dir.path().join("x.json")),
    ]);
    assert_eq!(r.status, 64);

    let request = dir.path().join("request.json");
    std::fs::write(
        &request,
        r#"{"protocol_version": 2, "artifact": "view.json.gz", "alignment_map": "m.json", "output": "o.json"}"#,
    )
    .unwrap();
    let r = run(&["tools", "align", "--json", "--request", s(&request)]);
    assert_eq!(r.status, 2);
    let e = r.json_error();
    assert_eq!(e["code"], "unsupported_protocol_version");
    assert_eq!(e["input"], s(&request));
}
