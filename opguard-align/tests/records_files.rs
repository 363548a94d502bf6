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
        assert_eq!(err.code(), "wrong_type");
        assert!(err.to_string().contains("line 5: not a record"), "{err}");
        // The document's own error, at the records file's line.
        let opguard_align::ErrorKind::Document { source, .. } = err.kind() else {
            panic!("{err:?} is not the document's error");
        };
        assert_eq!(
            (source.path().as_str(), source.line()),
            ("record_id", Some(5))
        );
    }
}

#[test]
fn a_record_and_every_object_inside_it_are_read_by_name_never_by_position() {
    // Each line fits its struct by position, which serde alone would accept.
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"record_id":"a/0/0","run":"a","rank":0,"sequence":0,"op":"aten::mm","callsite":{"file":"m.py","function":"f","line":1},"stack":[{"function":"f"}],"io":{"inputs":[{"shape":[4],"dtype":"float"}],"outputs":[]}}"#;
    let other = good
        .replace("a/0/0", "b/0/0")
        .replace("\"run\":\"a\"", "\"run\":\"b\"");
    let lines = [
        ("record", r#"["a/0/0","a",0,0,"aten::mm"]"#.to_owned()),
        (
            "callsite",
            good.replace(
                r#"{"file":"m.py","function":"f","line":1}"#,
                r#"["m.py","f",1]"#,
            ),
        ),
        (
            "stack frame",
            good.replace(r#"[{"function":"f"}]"#, r#"[[null,"f"]]"#),
        ),
        (
            "io",
            good.replace(
                r#"{"inputs":[{"shape":[4],"dtype":"float"}],"outputs":[]}"#,
                "[[],[]]",
            ),
        ),
        (
            "tensor",
            good.replace(r#"{"shape":[4],"dtype":"float"}"#, r#"[[4],"float"]"#),
        ),
    ];
    for (what, line) in lines {
        let path = dir.path().join(format!("{}.jsonl", what.replace(' ', "_")));
        let text = format!("{{\"format\":\"opguard.records/v1\"}}\n{other}\n{line}\n");
        std::fs::write(&path, text).unwrap();
        let out = dir
            .path()
            .join(format!("{}.view.json", what.replace(' ', "_")));
        for err in [
            read_records(&path).unwrap_err(),
            export_records(&path, &out).unwrap_err(),
        ] {
            assert_eq!(err.code(), "wrong_type", "{what}: {err}");
            assert!(
                err.to_string().contains("line 3: not a record"),
                "{what}: {err}"
            );
            assert!(
                err.to_string().contains("found an array, expected struct"),
                "{what}: {err}"
            );
        }
        assert!(!out.exists(), "{what}");
    }
    // The same records written by name read.
    let path = dir.path().join("good.jsonl");
    std::fs::write(
        &path,
        format!("{{\"format\":\"opguard.records/v1\"}}\n{other}\n{good}\n"),
    )
    .unwrap();
    assert_eq!(read_records(&path).unwrap().len(), 2);
}
