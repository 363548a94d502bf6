//! What a review reports and renders: decisions per kind, operations per
//! validation, where the first-observed difference marker goes (the
//! smallest sequence of its run and rank, ties to the first in file order,
//! the same rule for the writer and the validator), and which file a map
//! error concerns.

use std::path::{Path, PathBuf};

use serde_json::Value;

use opguard_align::{apply, export_records, validate_export, Record};

use crate::{map_json, ops_by_id, read_view, record, review, sha256sum, write_records};

/// Run a: mm, relu. Run b: mm in half precision, relu, and an extra cast.
/// Candidates: (a/0/0, b/0/0) differs, (a/0/1, b/0/1) ok; b/0/2 unpaired.
/// `b_order` is the order b's records are written in (by sequence).
fn records(b_order: &[u64]) -> Vec<Record> {
    let mut out = vec![
        record("a", 0, 0, "aten::mm", 10, &[4, 4], "float"),
        record("a", 0, 1, "aten::relu", 11, &[4, 4], "float"),
    ];
    for &s in b_order {
        out.push(match s {
            0 => record("b", 0, 0, "aten::mm", 10, &[4, 4], "c10::Half"),
            1 => record("b", 0, 1, "aten::relu", 11, &[4, 4], "float"),
            _ => record("b", 0, 2, "aten::to", 12, &[4, 4], "float"),
        });
    }
    out
}

fn export_view(dir: &Path, b_order: &[u64]) -> PathBuf {
    let path = write_records(dir, "runs.jsonl", &records(b_order));
    let view = dir.join("view.json");
    export_records(&path, &view).unwrap();
    view
}

/// The record id each first-difference marker points at, by process.
fn marked(view: &Value) -> Vec<String> {
    let events = view["traceEvents"].as_array().unwrap();
    events
        .iter()
        .filter(|e| e["cat"] == "opguard.first_difference")
        .map(|e| {
            let k = e["args"]["operation"].as_u64().unwrap() as usize;
            assert_eq!(e["args"]["record_id"], events[k]["args"]["op"]["record_id"]);
            e["args"]["record_id"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_review_counts_its_decisions_and_the_operations_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let view = export_view(dir.path(), &[0, 1, 2]);
    let sha = sha256sum(&view);
    let ops = ops_by_id(&read_view(&view));
    let at = |id: &str| ops[id].0;
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        map_json(
            &sha,
            serde_json::json!([
                review(&sha, at("a/0/1"), at("b/0/1"), "comparable", None),
                review(&sha, at("a/0/0"), at("b/0/0"), "undetermined", None),
            ]),
        ),
    )
    .unwrap();
    let out = dir.path().join("reviewed.json");
    let r = apply(&view, &map, &out).unwrap();
    assert_eq!(r.active_reviews, 2);
    assert_eq!(
        (
            r.decisions.comparable,
            r.decisions.not_comparable,
            r.decisions.undetermined
        ),
        (1, 0, 1)
    );
    // Every operation an active entry names is agent_reviewed: four of five.
    assert_eq!(
        (r.validation.unreviewed, r.validation.agent_reviewed),
        (1, 4)
    );
    // The events say the same (serde oracle over the output).
    let doc = read_view(&out);
    let reviewed = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["cat"] == "opguard.op"
                && e["args"]["correspondence"]["validation"] == "agent_reviewed"
        })
        .count();
    assert_eq!(reviewed, 4);
    assert!(validate_export(&out).unwrap().is_valid());
}

#[test]
fn the_marker_goes_to_the_smallest_sequence_whatever_the_file_order() {
    let dir = tempfile::tempdir().unwrap();
    // b's records written cast first: sequence 2, then 0, then 1.
    let view = export_view(dir.path(), &[2, 0, 1]);
    let doc = read_view(&view);
    assert_eq!(marked(&doc), ["a/0/0", "b/0/0"]);
    // A marker is a thread-scoped instant named after the difference.
    let events = doc["traceEvents"].as_array().unwrap();
    let markers: Vec<&Value> = events
        .iter()
        .filter(|e| e["cat"] == "opguard.first_difference")
        .collect();
    for m in markers {
        assert_eq!(m["ph"], "i");
        assert_eq!(m["s"], "t");
        assert_eq!(m["tid"], 3);
        assert_eq!(m["name"], "first observed difference: differs");
        assert_eq!(m["args"]["status"], "differs");
    }
    let report = validate_export(&view).unwrap();
    assert!(report.is_valid(), "{:?}", report.problems);
}

#[test]
fn writer_and_validator_break_a_sequence_tie_by_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let view = export_view(dir.path(), &[0, 1, 2]);
    // Give the unpaired cast (a difference) the sequence of the differing
    // mm before it: two first differences of b at sequence 0.
    let mut doc = read_view(&view);
    let (k, _) = ops_by_id(&doc)["b/0/2"].clone();
    doc["traceEvents"][k]["args"]["op"]["sequence"] = Value::from(0);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    let sha = sha256sum(&edited);
    let map = dir.path().join("map.json");
    std::fs::write(&map, map_json(&sha, serde_json::json!([]))).unwrap();
    let out = dir.path().join("reviewed.json");
    apply(&edited, &map, &out).unwrap();
    assert_eq!(marked(&read_view(&out)), ["a/0/0", "b/0/0"]);
    let report = validate_export(&out).unwrap();
    assert!(report.is_valid(), "{:?}", report.problems);
}

#[test]
fn a_map_error_names_the_map_file() {
    let dir = tempfile::tempdir().unwrap();
    let view = export_view(dir.path(), &[0, 1, 2]);
    let map = dir.path().join("map.json");
    std::fs::write(&map, b"{\"version\": 1, \"reviews\": [").unwrap();
    let out = dir.path().join("reviewed.json");
    let err = apply(&view, &map, &out).unwrap_err();
    assert_eq!(err.path(), Some(map.as_path()), "{err}");
    assert!(!out.exists());
}

#[test]
fn each_process_names_its_three_threads() {
    let dir = tempfile::tempdir().unwrap();
    let view = export_view(dir.path(), &[0, 1, 2]);
    let doc = read_view(&view);
    let mut names: Vec<(i64, i64, String)> = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["pid"].as_i64().unwrap(),
                e["tid"].as_i64().expect("a thread name has its tid"),
                e["args"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    names.sort();
    let expected: Vec<(i64, i64, String)> = [1, 2]
        .into_iter()
        .flat_map(|pid| {
            [
                (pid, 1, "operations".to_owned()),
                (pid, 2, "status (ok = recorded-field agreement)".to_owned()),
                (pid, 3, "first observed difference".to_owned()),
            ]
        })
        .collect();
    assert_eq!(names, expected);
}

#[test]
fn operations_sit_in_one_microsecond_columns_and_pairs_share_one() {
    let dir = tempfile::tempdir().unwrap();
    let view = export_view(dir.path(), &[0, 1, 2]);
    let doc = read_view(&view);
    let ops = ops_by_id(&doc);
    let ts = |id: &str| ops[id].1["ts"].as_f64().unwrap();
    // Pairs share a column; columns are whole microseconds, in order.
    assert_eq!(ts("a/0/0"), ts("b/0/0"));
    assert_eq!(ts("a/0/1"), ts("b/0/1"));
    assert_eq!(ts("a/0/1") - ts("a/0/0"), 1.0);
    assert!(ts("b/0/2") >= ts("b/0/1") + 1.0);
    for (id, (_, e)) in &ops {
        let t = e["ts"].as_f64().unwrap();
        assert_eq!(t.fract(), 0.0, "{id} at {t}");
        assert_eq!(e["dur"].as_f64().unwrap(), 0.8, "{id}");
    }
}
