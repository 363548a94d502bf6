//! Records files read back whole, and errors that give the right line.

use opguard_align::{export_records, read_records};

use crate::{record, write_records};

#[test]
fn read_records_returns_every_record_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let records = vec![
        record("a", 0, 1, "aten::relu", 11, &[4], "float"),
        record("a", 0, 0, "aten::mm", 10, &[4, 4], "float"),
        record("b", 3, 0, "aten::mm", 10, &[4, 4], "c10::Half"),
    ];
    let path = write_records(dir.path(), "r.jsonl", &records);
    assert_eq!(read_records(&path).unwrap(), records);
}

#[test]
fn a_bad_record_is_reported_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_records(
        dir.path(),
        "r.jsonl",
        &[
            record("a", 0, 0, "aten::mm", 10, &[4, 4], "float"),
            record("b", 0, 0, "aten::mm", 10, &[4, 4], "float"),
        ],
    );
    // Header on line 1, two records, a blank line, then a broken record on
    // line 5.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\n{\"record_id\": 5}\n");
    std::fs::write(&path, text).unwrap();
    for err in [
        read_records(&path).unwrap_err(),
        export_records(&path, &dir.path().join("v.json")).unwrap_err(),
    ] {
        assert_eq!(err.code(), "invalid_records");
        assert!(err.to_string().contains("line 5: not a record"), "{err}");
    }
}
