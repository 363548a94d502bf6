//! One defect at a time: each broken rule is reported by name, and a view
//! with very many broken rules lists the first thousand and says more exist.

use serde_json::Value;

use opguard_align::validate_export;

use crate::{export_fixture, read_view};

/// Validates a copy of the fixture view after `edit`.
fn problems_after(edit: impl FnOnce(&mut Vec<Value>)) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let (view, _) = export_fixture(dir.path());
    let mut doc = read_view(&view);
    edit(doc["traceEvents"].as_array_mut().unwrap());
    let path = dir.path().join("edited.json");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    validate_export(&path).unwrap().problems
}

/// The first status-lane entry and the operation it stands beside.
fn first_lane(events: &[Value]) -> (usize, usize) {
    let i = events
        .iter()
        .position(|e| e["cat"] == "opguard.status")
        .unwrap();
    let k = events[i]["args"]["operation"].as_u64().unwrap() as usize;
    (i, k)
}

fn only_not_beside(p: &[String]) {
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("is not beside operation"), "{p:?}");
}

#[test]
fn a_status_lane_entry_on_another_thread_is_not_beside_its_operation() {
    let p = problems_after(|ev| {
        let (i, _) = first_lane(ev);
        ev[i]["tid"] = Value::from(3);
    });
    only_not_beside(&p);
}

#[test]
fn a_status_lane_entry_at_another_time_is_not_beside_its_operation() {
    let p = problems_after(|ev| {
        let (i, k) = first_lane(ev);
        let ts = ev[k]["ts"].as_f64().unwrap();
        ev[i]["ts"] = Value::from(ts + 0.5);
    });
    only_not_beside(&p);
}

#[test]
fn a_status_lane_entry_in_another_process_is_not_beside_its_operation() {
    let p = problems_after(|ev| {
        let (i, k) = first_lane(ev);
        let pid = ev[k]["pid"].as_i64().unwrap();
        let other = ev
            .iter()
            .filter_map(|e| e["pid"].as_i64())
            .find(|&q| q != pid)
            .unwrap();
        ev[i]["pid"] = Value::from(other);
    });
    only_not_beside(&p);
}

#[test]
fn more_than_a_thousand_problems_are_cut_at_a_thousand_with_a_note() {
    // 1,200 status-lane entries without args.operation: one problem each.
    let p = problems_after(|ev| {
        let lane = serde_json::json!({
            "ph": "X", "cat": "opguard.status", "name": "ok", "pid": 1, "tid": 2,
            "ts": 0, "dur": 0.8, "args": {}
        });
        ev.extend(std::iter::repeat_n(lane, 1200));
    });
    assert_eq!(p.len(), 1001);
    assert!(p[..1000]
        .iter()
        .all(|m| m.ends_with("status lane entry without args.operation")));
    assert_eq!(p[1000], "... more problems not listed");
}

#[test]
fn a_valid_view_reports_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let (view, s) = export_fixture(dir.path());
    let report = validate_export(&view).unwrap();
    assert!(report.is_valid(), "{:?}", report.problems);
    // One status-lane entry per operation, one flow per pair, one marker
    // per process with a difference (serde oracle over the same file).
    let doc = read_view(&view);
    let count = |cat: &str| {
        doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["cat"] == cat)
            .count() as u64
    };
    assert_eq!(report.operations, s.operations);
    assert_eq!(report.status_lanes, s.operations);
    assert_eq!(report.flows, s.pairs);
    assert_eq!(report.markers, s.first_differences.len() as u64);
    assert_eq!(report.markers, count("opguard.first_difference"));
    assert_eq!(report.status_lanes, count("opguard.status"));
}

#[test]
fn an_operation_lacking_any_one_identity_field_is_caught() {
    for field in ["record_id", "run", "rank", "sequence"] {
        let p = problems_after(|ev| {
            ev[0]["args"]["op"].as_object_mut().unwrap().remove(field);
        });
        assert!(
            p.iter()
                .any(|m| m.contains("args.op lacks record_id, run, rank or sequence")),
            "{field}: {p:?}"
        );
    }
}

#[test]
fn an_operation_without_a_pid_belongs_to_no_process() {
    let p = problems_after(|ev| {
        assert_eq!(ev[0]["pid"], 1);
        ev[0].as_object_mut().unwrap().remove("pid");
    });
    assert!(
        p.iter()
            .any(|m| m == "traceEvents[0]: operation without pid, ts or dur"),
        "{p:?}"
    );
    // Not silently taken for process 1: its lane entry is not beside it
    // and it has no process name.
    assert!(
        p.iter().any(|m| m.contains("not beside operation 0")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|m| m.starts_with("operation 0: process") && m.ends_with("has no process_name")),
        "{p:?}"
    );
}

#[test]
fn a_mutual_relation_within_one_run_is_caught() {
    let p = problems_after(|ev| {
        let run = ev[0]["args"]["op"]["run"].clone();
        let j = (1..ev.len())
            .find(|&j| ev[j]["cat"] == "opguard.op" && ev[j]["args"]["op"]["run"] == run)
            .unwrap();
        for (a, b) in [(0, j), (j, 0)] {
            let id = ev[b]["args"]["op"]["record_id"].clone();
            let c = &mut ev[a]["args"]["correspondence"];
            c["status"] = Value::from("ok");
            c["peer"] = serde_json::json!({"record_id": id, "event": b});
        }
    });
    for m in ["operation 0: relation to", "is not symmetric across runs"] {
        assert!(p.iter().any(|x| x.contains(m)), "{m}: {p:?}");
    }
    assert!(
        p.iter()
            .any(|x| x.ends_with("relation to 0 is not symmetric across runs")),
        "{p:?}"
    );
}
