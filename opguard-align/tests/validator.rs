//! The structural validator accepts real views and catches broken ones.

use serde_json::Value;

use opguard_align::validate_export;

use crate::{export_fixture, read_view};

/// Writes a modified copy of the fixture view and validates it.
fn problems_after(edit: impl FnOnce(&mut Value)) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let (view, _) = export_fixture(dir.path());
    let mut doc = read_view(&view);
    edit(&mut doc);
    let path = dir.path().join("edited.json");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    validate_export(&path).unwrap().problems
}

fn events(doc: &mut Value) -> &mut Vec<Value> {
    doc["traceEvents"].as_array_mut().unwrap()
}

fn position(doc: &mut Value, f: impl Fn(&Value) -> bool) -> usize {
    events(doc).iter().position(f).unwrap()
}

#[test]
fn an_unedited_view_is_valid() {
    assert_eq!(problems_after(|_| {}), Vec::<String>::new());
}

#[test]
fn a_flow_without_its_end_is_caught() {
    let p = problems_after(|d| {
        let i = position(d, |e| {
            e["cat"] == "opguard.correspondence" && e["ph"] == "f"
        });
        events(d).remove(i);
    });
    assert!(p.iter().any(|m| m.contains("0 end(s)")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("active pairs but")), "{p:?}");
}

#[test]
fn a_flow_end_outside_its_operation_is_caught() {
    let p = problems_after(|d| {
        let i = position(d, |e| {
            e["cat"] == "opguard.correspondence" && e["ph"] == "f"
        });
        events(d)[i]["ts"] = Value::from(999_999);
    });
    assert!(p.iter().any(|m| m.contains("not bound")), "{p:?}");
}

#[test]
fn a_flow_between_operations_that_are_not_a_pair_is_caught() {
    let p = problems_after(|d| {
        let i = position(d, |e| {
            e["cat"] == "opguard.correspondence" && e["ph"] == "f"
        });
        let pid = events(d)[i]["pid"].clone();
        // Point the end at another operation of the same process.
        let other = events(d)
            .iter()
            .position(|e| {
                e["cat"] == "opguard.op"
                    && e["pid"] == pid
                    && e["args"]["correspondence"]["status"] == "unpaired"
            })
            .unwrap();
        let ts = events(d)[other]["ts"].clone();
        events(d)[i]["args"]["to"] = Value::from(other);
        events(d)[i]["ts"] = ts;
    });
    assert!(p.iter().any(|m| m.contains("not an active pair")), "{p:?}");
}

#[test]
fn a_status_lane_entry_that_points_at_no_operation_is_caught() {
    let p = problems_after(|d| {
        let i = position(d, |e| e["cat"] == "opguard.status");
        events(d)[i]["args"]["operation"] = Value::from(16);
    });
    assert!(p.iter().any(|m| m.contains("not an operation")), "{p:?}");
    assert!(
        p.iter().any(|m| m.contains("0 status lane entries")),
        "{p:?}"
    );
}

#[test]
fn a_status_lane_that_disagrees_with_its_operation_is_caught() {
    let p = problems_after(|d| {
        let i = position(d, |e| e["cat"] == "opguard.status" && e["name"] == "ok");
        events(d)[i]["name"] = Value::from("differs");
    });
    assert!(p.iter().any(|m| m.contains("status lane says")), "{p:?}");
}

#[test]
fn a_marker_that_is_not_the_first_difference_is_caught() {
    let p = problems_after(|d| {
        let i = position(d, |e| e["cat"] == "opguard.first_difference");
        let k = events(d)[i]["args"]["operation"].as_u64().unwrap() as usize;
        // The next difference of the same process.
        let pid = events(d)[k]["pid"].clone();
        let later = events(d)
            .iter()
            .enumerate()
            .position(|(j, e)| {
                j > k
                    && e["cat"] == "opguard.op"
                    && e["pid"] == pid
                    && e["args"]["correspondence"]["status"] == "unpaired"
            })
            .unwrap();
        let ts = events(d)[later]["ts"].clone();
        events(d)[i]["args"]["operation"] = Value::from(later);
        events(d)[i]["ts"] = ts;
    });
    assert!(
        p.iter().any(|m| m.contains("not the first difference")),
        "{p:?}"
    );
}

#[test]
fn an_asymmetric_relation_and_a_duplicate_id_are_caught() {
    let p = problems_after(|d| {
        events(d)[0]["args"]["correspondence"]["peer"]["event"] = Value::from(9);
        let id = events(d)[0]["args"]["op"]["record_id"].clone();
        events(d)[1]["args"]["op"]["record_id"] = id;
    });
    assert!(p.iter().any(|m| m.contains("not symmetric")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("not unique")), "{p:?}");
}

#[test]
fn metadata_counts_must_match_the_events() {
    let p = problems_after(|d| {
        d["opguard"]["statuses"]["ok"] = Value::from(0);
        d["opguard"]["pairs"] = Value::from(1);
    });
    assert!(p.iter().any(|m| m.contains("statuses")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("opguard.pairs")), "{p:?}");
    let p = problems_after(|d| {
        d.as_object_mut().unwrap().remove("opguard");
    });
    assert!(p.iter().any(|m| m.contains("no top-level")), "{p:?}");
}

#[test]
fn a_claim_of_tensor_equality_is_caught() {
    let p = problems_after(|d| {
        events(d)[0]["args"]["correspondence"]["tensor_equality"] = Value::from("established");
    });
    assert!(p.iter().any(|m| m.contains("tensor_equality")), "{p:?}");
}
