//! `opguard scaling` end to end on the seed 003 fixture.

use std::path::PathBuf;
use std::process::Command;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scaling/seed003/trials.json")
}

#[test]
fn the_seed_trials_give_one_hotspot_with_rho_one() {
    let out = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .args(["scaling", "--json", "--trials"])
        .arg(fixture())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let correlated: Vec<&serde_json::Value> = doc["hotspots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["spearman_rho"] == 1.0)
        .collect();
    assert_eq!(correlated.len(), 1);
    let h = correlated[0];
    assert_eq!(h["name"], "reverse_scan");
    assert_eq!(h["independent_trial_count"], 3);
    for key in [
        "semantic_frame_id",
        "metric",
        "unit",
        "p_value",
        "adjusted_p_value",
        "tested_hypothesis_count",
        "multiplicity_method",
        "supported_min",
        "supported_max",
    ] {
        assert!(h.get(key).is_some(), "{key}");
    }
    assert!(!doc["unmatched"].as_array().unwrap().is_empty());
    let human = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .args(["scaling", "--trials"])
        .arg(fixture())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("reverse_scan"));
}

#[test]
fn errors_carry_the_library_code_and_bad_metrics_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("trials.json");
    std::fs::write(
        &doc,
        r#"{"trials": [{"id": "t1", "input": 1, "variant": "v", "traces": ["missing.json.gz"]}]}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .args(["scaling", "--json", "--trials"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "trace_unreadable");
    let out = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .args(["scaling", "--metric", "wall_time", "--trials"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r#""wall_time""#) && stderr.contains("inclusive_ns, self_ns or count"),
        "{stderr}"
    );
}
