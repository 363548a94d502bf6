//! The language-neutral cases of fixtures/align/map_cases.json, one named
//! test per case (one test per rule of seed 000), plus a lint of the file.

use std::collections::{BTreeMap, BTreeSet};

use opguard_testdata::load_fixture;
use serde_json::Value;

use crate::{export_fixture, listing, ops_by_id, read_view, sha256sum};

fn cases() -> Value {
    load_fixture("align/map_cases.json", "opguard.align.fixture", 2)
}

/// Replaces `$ARTIFACT`, `@<record_id>` and `#<n>` in a case's map.
fn substitute(v: &Value, sha: &str, index: &BTreeMap<String, (usize, Value)>) -> Value {
    match v {
        Value::String(s) if s == "$ARTIFACT" => Value::String(sha.to_owned()),
        Value::String(s) if s.starts_with('@') => {
            let (i, _) = index
                .get(&s[1..])
                .unwrap_or_else(|| panic!("unknown record {s}"));
            Value::String(format!("{sha}:{i}"))
        }
        Value::String(s) if s.starts_with('#') => Value::String(format!("{sha}:{}", &s[1..])),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, sha, index)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), substitute(x, sha, index)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn corr<'a>(ops: &'a BTreeMap<String, (usize, Value)>, id: &str) -> &'a Value {
    &ops.get(id).unwrap_or_else(|| panic!("no operation {id}")).1["args"]["correspondence"]
}

fn run_case(id: &str) {
    let doc = cases();
    let case = doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id}"))
        .clone();
    let dir = tempfile::tempdir().expect("tempdir");
    let (view, summary) = export_fixture(dir.path());
    let sha = summary.output_sha256.clone();
    assert_eq!(sha, sha256sum(&view));
    let original = read_view(&view);
    let index = ops_by_id(&original);
    let map = substitute(&case["map"], &sha, &index);
    let map_path = dir.path().join("map.json");
    std::fs::write(&map_path, serde_json::to_vec_pretty(&map).expect("json")).expect("write map");
    let out = dir.path().join("reviewed.json");
    let result = opguard_align::apply(&view, &map_path, &out);
    assert_eq!(sha256sum(&view), sha, "{id}: the original export changed");
    let expected = &case["expected"];
    match expected["result"].as_str() {
        Some("error") => {
            let err = match result {
                Ok(r) => panic!(
                    "{id}: expected {} but apply succeeded: {r:?}",
                    expected["code"]
                ),
                Err(e) => e,
            };
            assert_eq!(
                err.code(),
                expected["code"].as_str().expect("code"),
                "{id}: {err}"
            );
            assert!(!out.exists(), "{id}: an output was written");
            assert_eq!(
                listing(dir.path()),
                ["map.json", "view.json"],
                "{id}: stray files"
            );
            assert_eq!(err.code(), expected["code"]);
            assert!(!err.to_string().is_empty());
        }
        Some("ok") => {
            let response = result.unwrap_or_else(|e| panic!("{id}: {e}"));
            check_ok(id, expected, &response, &out, &sha, &map_path);
        }
        other => panic!("{id}: bad expected.result {other:?}"),
    }
}

fn check_ok(
    id: &str,
    expected: &Value,
    response: &opguard_align::Response,
    out: &std::path::Path,
    sha: &str,
    map_path: &std::path::Path,
) {
    assert_eq!(response.verdict, "not_evaluated");
    assert!(!response.workload_launched);
    assert_eq!(response.protocol_version, 1);
    assert_eq!(response.output_sha256, sha256sum(out), "{id}");
    assert_eq!(response.artifact_sha256, sha);
    assert_eq!(response.alignment_map_sha256, sha256sum(map_path));
    let report = opguard_align::validate_export(out).expect("readable");
    assert!(report.is_valid(), "{id}: {:?}", report.problems);
    let view = read_view(out);
    let ops = ops_by_id(&view);
    let resp = serde_json::to_value(response).expect("json");
    for (key, want) in expected.as_object().expect("object") {
        match key.as_str() {
            "result" => {}
            "pairs" => assert_eq!(resp["pairs"], *want, "{id}: pairs"),
            "counts" => assert_eq!(resp["statuses"], *want, "{id}: status counts"),
            "decisions" => assert_eq!(resp["decisions"], *want, "{id}: decisions"),
            "validation_counts" => assert_eq!(resp["validation"], *want, "{id}"),
            "new_mappings" | "displaced" | "active_reviews" | "reviews" => {
                assert_eq!(resp[key], *want, "{id}: {key}")
            }
            "first_differences" => {
                let got: BTreeMap<String, String> = response
                    .first_differences
                    .iter()
                    .map(|f| (format!("{}/{}", f.run, f.rank), f.record_id.clone()))
                    .collect();
                let want: BTreeMap<String, String> =
                    serde_json::from_value(want.clone()).expect("map");
                assert_eq!(got, want, "{id}: first differences");
            }
            "absent_paths" => {
                for p in want.as_array().expect("list") {
                    let p = p.as_str().expect("path");
                    assert!(!std::path::Path::new(p).exists(), "{id}: {p} exists");
                }
            }
            per_op => {
                for (rid, w) in want.as_object().expect("per-operation object") {
                    let c = corr(&ops, rid);
                    let got = match per_op {
                        "statuses" => c["status"].clone(),
                        "validation" => c["validation"].clone(),
                        "peers" => c["peer"]["record_id"].clone(),
                        "differences" => c["differences"].clone(),
                        "not_compared" => c["not_compared"].clone(),
                        "selectors" => c["selectors"].clone(),
                        "basis" => c["basis"].clone(),
                        "superseded" => list_of(&c["original_comparison"], "superseded"),
                        "original_status" => list_of(&c["original_comparison"], "status"),
                        "displaced_by" => c["original_comparison"]
                            .as_array()
                            .and_then(|a| a.last())
                            .map(|e| e["displaced_by"].clone())
                            .unwrap_or(Value::Null),
                        "review_ids" => c["review"]["id"].clone(),
                        "review_history_ids" => list_of(&c["review_history"], "id"),
                        "alternative_count" => {
                            Value::from(c["alternative_reviews"].as_array().map_or(0, |a| a.len()))
                        }
                        "evidence_references" => list_of(&c["review"]["evidence"], "reference"),
                        other => panic!("{id}: unknown expectation {other}"),
                    };
                    // Absent lists read as empty.
                    let got = if got.is_null() && w.is_array() {
                        Value::Array(vec![])
                    } else {
                        got
                    };
                    assert_eq!(got, *w, "{id}: {per_op} of {rid}");
                }
            }
        }
    }
    // Tensor equality is never claimed.
    for (rid, (_, e)) in &ops {
        assert_eq!(
            e["args"]["correspondence"]["tensor_equality"], "not_established",
            "{id}: {rid}"
        );
    }
}

fn list_of(v: &Value, key: &str) -> Value {
    Value::Array(
        v.as_array()
            .map(|a| a.iter().map(|e| e[key].clone()).collect())
            .unwrap_or_default(),
    )
}

macro_rules! cases {
    ($($name:ident => $id:literal,)*) => {
        $(
            #[test]
            fn $name() {
                run_case($id);
            }
        )*
        const NAMED: &[&str] = &[$($id),*];
    };
}

cases! {
    empty_map_rerenders => "empty-map-rerenders",
    confirm_candidate_keeps_comparison => "confirm-candidate-keeps-comparison",
    reject_candidate_removes_flow => "reject-candidate-removes-flow",
    undetermined_candidate_is_unresolved => "undetermined-candidate-is-unresolved",
    new_mapping_compares_selected_slots => "new-mapping-compares-selected-slots",
    selected_slots_ignore_unrelated_fields => "selected-slots-ignore-unrelated-fields",
    selected_slots_dtype_differs_no_cast => "selected-slots-dtype-differs-no-cast",
    selected_slots_fields_on_one_side_not_compared => "selected-slots-fields-on-one-side-not-compared",
    new_mapping_displaces_automatic_peer => "new-mapping-displaces-automatic-peer",
    new_mapping_displaces_both_peers => "new-mapping-displaces-both-peers",
    history_last_entry_is_active => "history-last-entry-is-active",
    history_later_comparable_restores => "history-later-comparable-restores",
    history_pair_is_unordered => "history-pair-is-unordered",
    conflicting_accepted_mappings_fail => "conflicting-accepted-mappings-fail",
    conflict_with_confirmed_candidate_fails => "conflict-with-confirmed-candidate-fails",
    conflict_resolved_by_later_rejection => "conflict-resolved-by-later-rejection",
    rejected_alternative_keeps_unrelated_mapping => "rejected-alternative-keeps-unrelated-mapping",
    rejected_alternative_keeps_candidate => "rejected-alternative-keeps-candidate",
    undetermined_alternative_on_unpaired => "undetermined-alternative-on-unpaired",
    no_corresponding_trace_file_is_addressable => "no-corresponding-trace-file-is-addressable",
    no_corresponding_trace_file_rejected_alternative => "no-corresponding-trace-file-rejected-alternative",
    provenance_kept_not_executed => "provenance-kept-not-executed",
    same_run_pair_fails => "same-run-pair-fails",
    same_event_pair_fails => "same-event-pair-fails",
    same_run_cross_rank_pair_fails => "same-run-cross-rank-pair-fails",
    stale_artifact_hash_fails => "stale-artifact-hash-fails",
    ref_of_another_artifact_fails => "ref-of-another-artifact-fails",
    ref_index_out_of_range_fails => "ref-index-out-of-range-fails",
    ref_index_not_operation_fails => "ref-index-not-operation-fails",
    slot_out_of_range_fails => "slot-out-of-range-fails",
    slot_outputs_out_of_range_fails => "slot-outputs-out-of-range-fails",
    slot_array_name_fails => "slot-array-name-fails",
    slot_negative_index_fails => "slot-negative-index-fails",
    slot_shape_fails => "slot-shape-fails",
    one_selector_fails => "one-selector-fails",
    new_pair_without_selectors_fails => "new-pair-without-selectors-fails",
    not_comparable_with_selectors_fails => "not-comparable-with-selectors-fails",
    undetermined_with_selectors_fails => "undetermined-with-selectors-fails",
    missing_reason_fails => "missing-reason-fails",
    blank_reason_fails => "blank-reason-fails",
    empty_evidence_fails => "empty-evidence-fails",
    unknown_basis_fails => "unknown-basis-fails",
    blank_evidence_reference_fails => "blank-evidence-reference-fails",
    unknown_decision_fails => "unknown-decision-fails",
    wrong_version_fails => "wrong-version-fails",
    unknown_field_fails => "unknown-field-fails",
    malformed_ref_fails => "malformed-ref-fails",
    malformed_artifact_hash_fails => "malformed-artifact-hash-fails",
}

#[test]
fn fixture_lint_every_case_has_a_named_test_and_ids_are_unique() {
    let doc = cases();
    let list = doc["cases"].as_array().expect("cases");
    let unique: BTreeSet<&str> = list.iter().map(|c| c["id"].as_str().expect("id")).collect();
    let named: BTreeSet<&str> = NAMED.iter().copied().collect();
    assert_eq!(unique, named, "every case has exactly one named test");
    for c in list {
        assert!(c["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert!(c["flags"].as_array().is_some_and(|f| !f.is_empty()));
        assert!(matches!(
            c["expected"]["result"].as_str(),
            Some("ok" | "error")
        ));
    }
}

#[test]
fn fixture_export_matches_its_declared_shape() {
    let doc = cases();
    let dir = tempfile::tempdir().expect("tempdir");
    let (view, summary) = export_fixture(dir.path());
    let declared = &doc["export"];
    assert_eq!(summary.operations, declared["operations"].as_u64().unwrap());
    assert_eq!(summary.pairs, declared["pairs"].as_u64().unwrap());
    assert_eq!(
        serde_json::to_value(summary.statuses).unwrap(),
        declared["statuses"]
    );
    let ops = ops_by_id(&read_view(&view));
    for (rid, i) in declared["index"].as_object().unwrap() {
        assert_eq!(Some(ops[rid].0 as u64), i.as_u64(), "{rid}");
    }
    let first_non_op = declared["first_non_operation_index"].as_u64().unwrap() as usize;
    assert_eq!(ops.len(), first_non_op);
    let firsts: BTreeMap<String, String> = summary
        .first_differences
        .iter()
        .map(|f| (format!("{}/{}", f.run, f.rank), f.record_id.clone()))
        .collect();
    let want: BTreeMap<String, String> =
        serde_json::from_value(declared["first_differences"].clone()).unwrap();
    assert_eq!(firsts, want);
}
