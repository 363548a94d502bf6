//! Each bad input gets its own error code, with the byte offset and the
//! event index where the reader stopped.

use opguard_trace::{ErrorKind, ReaderOptions};

use crate::{gzip, read_all};

struct Expect {
    code: &'static str,
    offset: Option<u64>,
    event: Option<u64>,
}

fn check(input: &[u8], want: Expect) {
    let err = read_all(input, ReaderOptions::default()).expect_err("must fail");
    let shown = String::from_utf8_lossy(input);
    assert_eq!(err.code(), want.code, "{shown}: {err}");
    assert_eq!(err.offset(), want.offset, "{shown}: {err}");
    assert_eq!(err.event_index(), want.event, "{shown}: {err}");
    // Display carries the position too.
    if let Some(o) = want.offset {
        assert!(err.to_string().contains(&format!("byte {o}")), "{err}");
    }
}

fn e(code: &'static str, offset: u64, event: Option<u64>) -> Expect {
    Expect {
        code,
        offset: Some(offset),
        event,
    }
}

const OK2: &str = r#"{"traceEvents":[{"ph":"X","ts":1},{"ph":"X","ts":2}]}"#;

#[test]
fn a_valid_document_reads() {
    assert_eq!(
        read_all(OK2.as_bytes(), ReaderOptions::default())
            .unwrap()
            .events,
        2
    );
    let bare = read_all(br#" [ {"ph":"i"} , {} ] "#, ReaderOptions::default()).unwrap();
    assert_eq!(bare.events, 2);
    assert_eq!(bare.form, opguard_trace::TopLevelForm::Array);
    let bom = read_all(b"\xEF\xBB\xBF[]", ReaderOptions::default()).unwrap();
    assert_eq!(bom.events, 0);
}

#[test]
fn truncated_json() {
    // Cut inside the second event.
    let cut = &OK2.as_bytes()[..40];
    check(cut, e("json_truncated", 40, Some(1)));
    check(br#"{"traceEvents":["#, e("json_truncated", 16, None));
    check(br#"{"traceEvents":[]"#, e("json_truncated", 17, None));
}

#[test]
fn truncated_gzip() {
    let gz = gzip(OK2.as_bytes());
    let cut = &gz[..gz.len() - 12];
    let err = read_all(cut, ReaderOptions::default()).unwrap_err();
    assert_eq!(err.code(), "gzip_truncated", "{err}");
    assert!(err.encoded_offset().is_some(), "{err:?}");
}

#[test]
fn gzip_with_trailing_garbage_is_refused_but_members_concatenate() {
    let mut gz = gzip(OK2.as_bytes());
    gz.extend_from_slice(b"garbage after the stream");
    let err = read_all(&gz, ReaderOptions::default()).unwrap_err();
    assert_eq!(err.code(), "gzip_invalid", "{err}");
    // Two members are one stream, as `gzip -d` reads them.
    let half = OK2.len() / 2;
    let mut two = gzip(&OK2.as_bytes()[..half]);
    two.extend(gzip(&OK2.as_bytes()[half..]));
    assert_eq!(read_all(&two, ReaderOptions::default()).unwrap().events, 2);
}

#[test]
fn invalid_utf8_in_a_name() {
    let mut doc = br#"{"traceEvents":[{"ph":"X"},{"name":"ab"#.to_vec();
    let at = doc.len() as u64;
    doc.extend_from_slice(b"\xff\xfe\"}]}");
    check(&doc, e("invalid_utf8", at, Some(1)));
    // Opt-in lossy mode replaces and counts.
    let summary = read_all(&doc, ReaderOptions::new().lossy_utf8(true)).unwrap();
    // Two invalid bytes, two replacements (as String::from_utf8_lossy).
    assert_eq!(summary.utf8_replacements, 2);
    let mut r =
        opguard_trace::TraceReader::with_options(&doc[..], ReaderOptions::new().lossy_utf8(true))
            .unwrap();
    r.next_event().unwrap();
    let second = r.next_event().unwrap().unwrap();
    assert_eq!(second.name().unwrap().as_cow(), "ab\u{FFFD}\u{FFFD}");
}

/// Lossy mode replaces in top-level metadata too, keys and values (found by
/// the `trace_tolerant` fuzz target: it was `invalid_utf8` there, as in the
/// exact mode).
#[test]
fn invalid_utf8_in_metadata_is_replaced_in_lossy_mode() {
    let doc = b"{\"o\xff\":{\"k\":\"v\xfe\"},\"traceEvents\":[],\"n\":\"\xff\"}";
    check(doc, e("invalid_utf8", 3, None));
    let mut r =
        opguard_trace::TraceReader::with_options(&doc[..], ReaderOptions::new().lossy_utf8(true))
            .unwrap();
    assert!(r.next_event().unwrap().is_none());
    assert_eq!(
        r.metadata().entries(),
        [
            ("o\u{FFFD}".to_owned(), "{\"k\":\"v\u{FFFD}\"}".to_owned()),
            ("n".to_owned(), "\"\u{FFFD}\"".to_owned())
        ]
    );
    assert_eq!(r.finish().unwrap().utf8_replacements, 3);
}

#[test]
fn nan_and_infinity() {
    check(
        br#"{"traceEvents":[{"ts":NaN}]}"#,
        e("non_finite_number", 22, Some(0)),
    );
    check(
        br#"[{"ts":1},{"dur":-Infinity}]"#,
        e("non_finite_number", 17, Some(1)),
    );
    check(
        br#"[{"args":{"x":Infinity}}]"#,
        e("non_finite_number", 14, Some(0)),
    );
}

#[test]
fn unescaped_quotes_from_old_kineto() {
    // `"name": "f("x")"`: the quote before x closes the string early.
    let doc = br#"[{"ph":"X","name":"f("x")","ts":1}]"#;
    check(doc, e("unescaped_quote", 21, Some(0)));
}

#[test]
fn structure_errors() {
    check(
        br#"{"traceEvents":{}}"#,
        e("trace_events_not_array", 15, None),
    );
    check(br#"[{"ph":"X"},[1]]"#, e("event_not_object", 12, Some(1)));
    check(br#"[1]"#, e("event_not_object", 1, Some(0)));
    check(br#""a""#, e("top_level_not_container", 0, None));
    check(
        br#"{"schemaVersion":1}"#,
        e("missing_trace_events", 18, None),
    );
    check(
        br#"{"traceEvents":[],"traceEvents":[]}"#,
        e("duplicate_key", 18, None),
    );
    check(br#"{"traceEvents":[]} x"#, e("trailing_data", 19, None));
    check(b"  ", e("empty_input", 2, None));
    check(br#"[{"ph":"X" "ts":1}]"#, e("json_syntax", 11, Some(0)));
    check(br#"[{"ph":"X"},]"#, e("json_syntax", 12, Some(1)));
}

#[test]
fn wrong_field_types_name_the_field() {
    let err = read_all(br#"[{},{"ts":"5"}]"#, ReaderOptions::default()).unwrap_err();
    assert_eq!(err.code(), "wrong_type");
    assert_eq!(err.path(), Some("traceEvents[1].ts"));
    assert_eq!(err.offset(), Some(10));
    assert!(
        matches!(err.kind(), ErrorKind::WrongType { .. }),
        "{:?}",
        err.kind()
    );
    assert!(err.to_string().contains("expected a number"), "{err}");
    for (doc, path) in [
        (&br#"[{"args":[]}]"#[..], "traceEvents[0].args"),
        (br#"[{"pid":true}]"#, "traceEvents[0].pid"),
        (br#"[{"name":1}]"#, "traceEvents[0].name"),
    ] {
        let err = read_all(doc, ReaderOptions::default()).unwrap_err();
        assert_eq!((err.code(), err.path()), ("wrong_type", Some(path)));
    }
}

#[test]
fn duplicate_typed_fields_are_refused_not_resolved() {
    let err = read_all(br#"[{"ts":1,"ts":2}]"#, ReaderOptions::default()).unwrap_err();
    assert_eq!(err.code(), "duplicate_key");
    assert_eq!(err.path(), Some("traceEvents[0].ts"));
    // Keys the reader does not type may repeat; they stay in the raw text.
    assert!(read_all(br#"[{"x":1,"x":2}]"#, ReaderOptions::default()).is_ok());
}

#[test]
fn errors_end_the_read() {
    let doc = br#"[{"ts":NaN},{"ts":1}]"#;
    let mut r = opguard_trace::TraceReader::new(&doc[..]).unwrap();
    assert!(r.next_event().is_err());
    assert!(r.next_event().unwrap().is_none());
    assert!(r.finish().is_err());
}
