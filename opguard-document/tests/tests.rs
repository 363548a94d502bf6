//! The strict reader against real serde types, real files and real readers.

use std::collections::BTreeMap;
use std::io::Write;

use opguard_document::{from_path, from_reader, from_slice, Error, Value, ERROR_CODES};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // read to be refused, not used
struct Evidence {
    basis: String,
    #[serde(default)]
    weight: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Review {
    evidence: Vec<Evidence>,
    #[serde(default)]
    note: Option<serde_json::Value>,
    #[serde(default)]
    tags: BTreeMap<String, u32>,
}

#[derive(Debug, Deserialize)]
struct Map {
    reviews: Vec<Review>,
    #[serde(default)]
    kind: Option<Kind>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Plain,
    Weighted { by: String },
}

const BIG: u64 = 1 << 20;

fn err<T: for<'a> Deserialize<'a> + std::fmt::Debug>(text: &str) -> Error {
    from_slice::<T>(text.as_bytes(), BIG).expect_err(text)
}

#[test]
fn a_well_formed_document_reads_whole() {
    let text = r#"{"reviews": [{"evidence": [{"basis": "name", "weight": 2}],
        "note": {"a": [1, {"b": null}]}, "tags": {"x": 1, "y": 2}}],
        "kind": {"weighted": {"by": "time"}}}"#;
    let map: Map = from_slice(text.as_bytes(), BIG).unwrap();
    assert_eq!(map.reviews[0].evidence[0].weight, Some(2));
    assert_eq!(map.reviews[0].tags.len(), 2);
    assert!(matches!(map.kind, Some(Kind::Weighted { ref by }) if by == "time"));
}

#[test]
fn limit_holds_at_n_and_fails_at_n_plus_one_for_slice_reader_and_path() {
    let text = br#"{"reviews": []}"#;
    let n = text.len() as u64;
    from_slice::<Map>(text, n).unwrap();
    let e = from_slice::<Map>(text, n - 1).unwrap_err();
    assert_eq!((e.code(), e.limit()), ("limit_exceeded", Some(n - 1)));

    from_reader::<_, Map>(&text[..], n).unwrap();
    let e = from_reader::<_, Map>(&text[..], n - 1).unwrap_err();
    assert_eq!((e.code(), e.limit()), ("limit_exceeded", Some(n - 1)));

    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text).unwrap();
    from_path::<Map>(file.path(), n).unwrap();
    let e = from_path::<Map>(file.path(), n - 1).unwrap_err();
    assert_eq!((e.code(), e.limit()), ("limit_exceeded", Some(n - 1)));
}

#[test]
fn an_endless_reader_stops_one_byte_past_the_limit() {
    let endless = std::io::repeat(b' ');
    let e = from_reader::<_, Map>(endless, 4096).unwrap_err();
    assert_eq!(e.code(), "limit_exceeded");
}

#[test]
fn a_missing_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = from_path::<Map>(&dir.path().join("absent.json"), BIG).unwrap_err();
    assert_eq!(e.code(), "io");
}

#[test]
fn repeated_keys_are_refused_at_every_depth_with_their_path() {
    let cases = [
        (r#"{"reviews": [], "reviews": []}"#, "reviews"),
        (
            r#"{"reviews": [{"evidence": [{"basis": "a", "basis": "b"}]}]}"#,
            "reviews[0].evidence[0].basis",
        ),
        (
            r#"{"reviews": [{"evidence": [], "note": {"x": 1, "x": 2}}]}"#,
            "reviews[0].note.x",
        ),
        (
            r#"{"reviews": [{"evidence": [], "note": [0, {"odd key": 1, "odd key": 2}]}]}"#,
            r#"reviews[0].note[1]["odd key"]"#,
        ),
        (
            r#"{"reviews": [{"evidence": [], "tags": {"t": 1, "t": 1}}]}"#,
            "reviews[0].tags.t",
        ),
        // A key serde skips is still a key of the document.
        (r#"{"reviews": [], "extra": 1, "extra": 2}"#, "extra"),
    ];
    for (text, path) in cases {
        let e = err::<Map>(text);
        assert_eq!(e.code(), "duplicate_key", "{text}: {e}");
        assert_eq!(e.path(), path, "{text}");
        assert!(e.line().is_some(), "{text}: no position in {e:?}");
    }
}

#[test]
fn a_repeated_key_is_found_in_a_large_object_too() {
    for n in [15, 16, 17, 40] {
        let mut keys: Vec<String> = (0..n).map(|k| format!("\"k{k}\": {k}")).collect();
        let clean = format!("{{{}}}", keys.join(", "));
        from_slice::<Value>(clean.as_bytes(), BIG).unwrap();
        keys.push("\"k3\": 0".into());
        let text = format!("{{{}}}", keys.join(", "));
        let e = from_slice::<Value>(text.as_bytes(), BIG).unwrap_err();
        assert_eq!(
            (e.code(), e.path().as_str()),
            ("duplicate_key", "k3"),
            "{n} keys"
        );
    }
}

#[test]
fn the_tree_refuses_repeated_keys_too() {
    let e = from_slice::<Value>(br#"{"a": {"b": [{"c": 1, "c": 1}]}}"#, BIG).unwrap_err();
    assert_eq!((e.code(), e.path().as_str()), ("duplicate_key", "a.b[0].c"));
    let v: Value = from_slice(br#"{"a": [1, "s", 18446744073709551615]}"#, BIG).unwrap();
    let a = v.get("a").unwrap();
    assert_eq!(a.to_string(), r#"[1,"s",18446744073709551615]"#);
    assert!(matches!(a, Value::Array(items) if items[2] == Value::BigUint(u64::MAX)));
}

#[test]
fn the_top_and_every_struct_are_objects_only() {
    let e = err::<Map>(r#"[[]]"#);
    assert_eq!((e.code(), e.path().as_str()), ("wrong_type", "$"));
    let e = from_slice::<Value>(b"[1]", BIG).unwrap_err();
    assert_eq!(e.code(), "wrong_type");
    // A hand-written validator reads any top and names what it expected.
    let v = opguard_document::tree_from_slice(b"[1, {\"a\": 2}]", BIG).unwrap();
    assert_eq!(v.to_string(), r#"[1,{"a":2}]"#);
    let e = opguard_document::tree_from_slice(br#"[{"a": 1, "a": 2}]"#, BIG).unwrap_err();
    assert_eq!((e.code(), e.path().as_str()), ("duplicate_key", "$[0].a"));
    let e = opguard_document::tree_from_slice(b"[1] ", 3).unwrap_err();
    assert_eq!(e.code(), "limit_exceeded");
    let e = err::<Map>(r#"{"reviews": [[[["name", 1]]]]}"#);
    assert_eq!(
        (e.code(), e.path().as_str()),
        ("wrong_type", "reviews[0]"),
        "{e}"
    );
    let e = err::<Map>(r#"{"reviews": [{"evidence": [["name"]]}]}"#);
    assert_eq!(
        (e.code(), e.path().as_str()),
        ("wrong_type", "reviews[0].evidence[0]")
    );
    assert!(e.to_string().contains("found an array"), "{e}");
}

#[test]
fn type_field_and_syntax_errors_have_codes_paths_and_positions() {
    let e = err::<Map>("{\"reviews\": [{\"evidence\": [{\"basis\": 5}]}]}");
    assert_eq!(
        (e.code(), e.path().as_str()),
        ("wrong_type", "reviews[0].evidence[0].basis")
    );
    let e = err::<Map>(r#"{"reviews": [{"evidence": [{}]}]}"#);
    assert_eq!(
        (e.code(), e.path().as_str()),
        ("missing_field", "reviews[0].evidence[0]")
    );
    let e = err::<Map>(r#"{"reviews": [{"evidence": [{"basis": "x", "bassis": 1}]}]}"#);
    assert_eq!(
        (e.code(), e.path().as_str()),
        ("unknown_field", "reviews[0].evidence[0].bassis")
    );
    let e = err::<Map>(r#"{"reviews": [{"evidence": [{"basis": "x", "weight": -1}]}]}"#);
    assert_eq!(
        (e.code(), e.path().as_str()),
        ("invalid_value", "reviews[0].evidence[0].weight")
    );
    let e = err::<Map>(r#"{"reviews": [], "kind": "sideways"}"#);
    assert_eq!((e.code(), e.path().as_str()), ("invalid_value", "kind"));
    let e = err::<Map>("{\"reviews\": [\n  {\"evidence\": [}]}");
    assert_eq!(e.code(), "json_syntax");
    assert_eq!(e.line(), Some(2), "{e}");
    let e = err::<Map>(r#"{"reviews": []} x"#);
    assert_eq!(e.code(), "json_syntax");
    let e = err::<Map>(r#"{"reviews": [], "note""#);
    assert_eq!(e.code(), "json_syntax");
    let e = err::<Map>("");
    assert_eq!(e.code(), "json_syntax");
}

#[test]
fn the_message_says_what_and_where() {
    let e = err::<Map>("{\"reviews\": [{\"evidence\": [{\"basis\": \"a\",\n \"basis\": \"b\"}]}]}");
    let text = e.to_string();
    assert!(text.contains("duplicate key \"basis\""), "{text}");
    assert!(
        text.contains("at reviews[0].evidence[0].basis (line 2, column"),
        "{text}"
    );
}

#[test]
fn every_code_is_listed_once_with_a_meaning() {
    let produced = [
        from_path::<Map>(std::path::Path::new("/nonexistent/x"), BIG).unwrap_err(),
        from_slice::<Map>(b"{}", 1).unwrap_err(),
        err::<Map>("{"),
        err::<Map>(r#"{"reviews": [], "reviews": []}"#),
        err::<Map>(r#"{"reviews": 1}"#),
        err::<Map>("{}"),
        err::<Map>(r#"{"reviews": [{"evidence": [{"basis": "x", "y": 1}]}]}"#),
        err::<Map>(r#"{"reviews": [], "kind": "sideways"}"#),
    ];
    let codes: Vec<&str> = produced.iter().map(Error::code).collect();
    let listed: Vec<&str> = ERROR_CODES.iter().map(|(code, _)| *code).collect();
    assert_eq!(codes, listed);
    opguard_document::check_error_codes(ERROR_CODES).unwrap();
    assert!(opguard_document::check_error_codes(&[("a", "x"), ("a", "y")]).is_err());
    assert!(opguard_document::check_error_codes(&[("kernel_name.degenerate", "x")]).is_err());
}

#[test]
fn a_value_quoted_in_a_message_keeps_its_json_number_form() {
    let v: Value = from_slice(
        br#"{"a": 1.0, "b": 1, "c": 0.5, "d": 1e300, "e": true}"#,
        1024,
    )
    .expect("reads");
    assert_eq!(
        v.to_string(),
        r#"{"a":1.0,"b":1,"c":0.5,"d":1e300,"e":true}"#
    );
}

#[test]
fn a_hand_reader_builds_the_same_errors_as_the_typed_reader() {
    use opguard_document::JsonPath;
    // The typed reader's error for a wrong type at `ops[1].name`...
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Op {
        name: String,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        ops: Vec<Op>,
    }
    let typed = err::<Doc>(r#"{"ops": [{"name": "a"}, {"name": 3}]}"#);
    // ...and a hand reader's, walking a tree to the same place.
    let root = JsonPath::Root;
    let ops = root.key("ops");
    let op = ops.index(1);
    let by_hand = Error::wrong_type(&op.key("name"), "the integer 3", "a string");
    assert_eq!(
        (typed.code(), typed.path()),
        (by_hand.code(), by_hand.path())
    );
    assert_eq!(
        by_hand.to_string(),
        "found the integer 3, expected a string at ops[1].name"
    );
    assert_eq!(by_hand.line(), None);

    let missing = Error::missing_field(&op, "name");
    assert_eq!(
        (missing.code(), missing.path().as_str()),
        ("missing_field", "ops[1].name")
    );
    let unknown = Error::unknown_field(&op.key("nmae"), "nmae", &["name"]);
    assert_eq!(
        (unknown.code(), unknown.path().as_str()),
        ("unknown_field", "ops[1].nmae")
    );
    let twice = Error::duplicate_key(&root.key("ops"), "ops");
    assert_eq!(
        (twice.code(), twice.path().as_str()),
        ("duplicate_key", "ops")
    );
    let invalid = Error::invalid_value(&root, "the document is empty");
    assert_eq!(
        (invalid.code(), invalid.path().as_str()),
        ("invalid_value", "$")
    );
}

#[test]
fn a_line_of_a_larger_file_reports_the_file_line() {
    let text = "{\"a\": 1,\n \"a\": 2}";
    let alone = err::<BTreeMap<String, u32>>(text);
    let in_file = err::<BTreeMap<String, u32>>(text).in_file_from_line(40);
    assert_eq!(alone.line(), Some(2));
    assert_eq!(
        (in_file.line(), in_file.column()),
        (Some(41), alone.column())
    );
}

#[test]
fn a_string_that_is_not_utf8_is_a_syntax_error_in_the_tree_and_in_a_type() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Op {
        name: String,
    }
    let bytes = b"{\"name\": \"a\xffb\"}";
    let typed = from_slice::<Op>(bytes, BIG).unwrap_err();
    let tree = opguard_document::tree_from_slice(bytes, BIG).unwrap_err();
    for e in [typed, tree] {
        assert_eq!(
            (e.code(), e.path().as_str()),
            ("json_syntax", "name"),
            "{e}"
        );
    }
}
