//! The validator and apply read a view through one reader (the view's
//! field names, its order, the values it allows): the same defect is a
//! listed problem for the one and the first error for the other, and both
//! read the same value when a key repeats.

use serde_json::Value;

use opguard_align::{apply, validate_export};

use crate::{export_fixture, map_json, read_view, sha256sum};

/// The fixture view after `edit`, written beside an empty map for it.
/// Returns (view, map, output path).
fn edited(
    dir: &std::path::Path,
    edit: impl FnOnce(&mut Vec<Value>),
) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let (view, _) = export_fixture(dir);
    let mut doc = read_view(&view);
    edit(doc["traceEvents"].as_array_mut().unwrap());
    write_with_map(dir, &serde_json::to_vec(&doc).unwrap())
}

fn write_with_map(
    dir: &std::path::Path,
    bytes: &[u8],
) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let path = dir.join("edited.json");
    std::fs::write(&path, bytes).unwrap();
    let map = dir.join("map.json");
    std::fs::write(&map, map_json(&sha256sum(&path), Value::Array(vec![]))).unwrap();
    (path, map, dir.join("out.json"))
}

/// Moves the last operation behind the first non-operation event (every
/// index before it stays).
fn operation_after_the_others(ev: &mut Vec<Value>) {
    let first_other = ev.iter().position(|e| e["cat"] != "opguard.op").unwrap();
    let op = ev.remove(first_other - 1);
    ev.insert(first_other, op);
}

/// Gives the first paired operation a status that takes no peer.
fn paired_status_without_a_paired_meaning(ev: &mut [Value]) {
    let i = ev
        .iter()
        .position(|e| !e["args"]["correspondence"]["peer"].is_null())
        .unwrap();
    ev[i]["args"]["correspondence"]["status"] = Value::from("unpaired");
}

#[test]
fn the_validator_lists_an_operation_after_other_events() {
    let dir = tempfile::tempdir().unwrap();
    let (view, _, _) = edited(dir.path(), operation_after_the_others);
    let p = validate_export(&view).unwrap().problems;
    assert!(
        p.iter()
            .any(|m| m.ends_with("an operation after non-operation events")),
        "{p:?}"
    );
}

#[test]
fn apply_refuses_an_operation_after_other_events() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, out) = edited(dir.path(), operation_after_the_others);
    let err = apply(&view, &map, &out).unwrap_err();
    assert_eq!(err.code(), "invalid_export", "{err}");
    assert!(
        err.to_string().contains("operation events must come first"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn the_validator_lists_a_peer_of_an_unpaired_status() {
    let dir = tempfile::tempdir().unwrap();
    let (view, _, _) = edited(dir.path(), |ev| paired_status_without_a_paired_meaning(ev));
    let p = validate_export(&view).unwrap().problems;
    assert!(
        p.iter()
            .any(|m| m.ends_with("a peer must be present exactly for ok/differs")),
        "{p:?}"
    );
}

#[test]
fn apply_refuses_a_peer_of_an_unpaired_status() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, out) = edited(dir.path(), |ev| paired_status_without_a_paired_meaning(ev));
    let err = apply(&view, &map, &out).unwrap_err();
    assert_eq!(err.code(), "invalid_export", "{err}");
    assert!(
        err.to_string()
            .contains("a peer is present exactly when the status is ok or differs"),
        "{err}"
    );
    assert!(!out.exists());
}

/// A repeated `correspondence` key in an operation's args: the first value
/// (here another operation's, whose peer points back at someone else) is
/// the one both read. Apply used to read the last one before `op` and
/// write a reviewed view the validator rejects.
#[test]
fn a_repeated_args_key_reads_its_first_value_in_the_validator_and_apply() {
    let dir = tempfile::tempdir().unwrap();
    let (view, _) = export_fixture(dir.path());
    let text = std::fs::read_to_string(&view).unwrap();
    let doc = read_view(&view);
    let events = doc["traceEvents"].as_array().unwrap();
    let paired = events
        .iter()
        .position(|e| !e["args"]["correspondence"]["peer"].is_null())
        .unwrap();
    let other = events
        .iter()
        .position(|e| {
            e["cat"] == "opguard.op"
                && !e["args"]["correspondence"]["peer"].is_null()
                && e["args"]["correspondence"]["peer"]["event"] != paired
                && e["args"]["op"]["record_id"] != events[paired]["args"]["op"]["record_id"]
        })
        .unwrap();
    let first = serde_json::to_string(&events[other]["args"]["correspondence"]).unwrap();
    // The writer puts one event per line, correspondence first in args.
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let line = &mut lines[paired + 1];
    let at = line.find("\"args\":{").unwrap() + "\"args\":{".len();
    assert!(line[at..].starts_with("\"correspondence\":"), "{line}");
    line.insert_str(at, &format!("\"correspondence\":{first},"));
    let (edited, map, out) = write_with_map(dir.path(), lines.join("\n").as_bytes());

    let p = validate_export(&edited).unwrap().problems;
    assert!(
        p.iter().any(|m| m.contains("is not symmetric across runs")),
        "{p:?}"
    );
    let err = apply(&edited, &map, &out).unwrap_err();
    assert_eq!(err.code(), "invalid_export", "{err}");
    assert!(
        err.to_string().contains("is not a symmetric relation"),
        "{err}"
    );
    assert!(!out.exists());
}
