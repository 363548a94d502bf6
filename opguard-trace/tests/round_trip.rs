//! Writing events and reading them back yields the same events.

use opguard_trace::{OwnedEvent, RawJson, ScalarKey, TraceReader, TraceWriter};
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = ScalarKey> {
    prop_oneof![
        any::<u64>().prop_map(|v| ScalarKey::Number(v.to_string())),
        any::<i64>().prop_map(|v| ScalarKey::Number(v.to_string())),
        // Beyond u64: kept exactly.
        (1u32..9).prop_map(|d| ScalarKey::Number(format!("{}{}", u64::MAX, d))),
        "\\PC{0,12}".prop_map(ScalarKey::String),
    ]
}

fn event() -> impl Strategy<Value = OwnedEvent> {
    let text = || proptest::option::of("\\PC{0,16}|[\"\\\\\\n\\t\\u{1}]{1,3}");
    (
        (text(), text(), text(), proptest::option::of(scalar())),
        (
            proptest::option::of(scalar()),
            proptest::option::of(any::<i64>()),
            proptest::option::of(any::<i64>()),
            proptest::option::of(scalar()),
        ),
        (
            proptest::option::of(scalar()),
            text(),
            text(),
            proptest::option::of(prop_oneof![
                Just(r#"{}"#.to_owned()),
                Just(r#"{"External id":18446744073709551617,"Input Dims":[[1,2],[]]}"#.to_owned()),
                "\\PC{0,8}"
                    .prop_map(|s| serde_json::json!({ "k": s, "n": [1.5, null] }).to_string()),
            ]),
        ),
    )
        .prop_map(
            |((ph, cat, name, pid), (tid, ts_ns, dur_ns, id), (bind_id, bp, scope, args))| {
                OwnedEvent {
                    ph,
                    cat,
                    name,
                    pid,
                    tid,
                    ts_ns,
                    dur_ns,
                    id,
                    bind_id,
                    bp,
                    scope,
                    args: args.map(|a| RawJson::new(a).expect("valid json")),
                }
            },
        )
}

proptest! {
    #[test]
    fn write_then_read_is_identity(events in proptest::collection::vec(event(), 0..20)) {
        let mut w = TraceWriter::new(Vec::new()).unwrap();
        for e in &events {
            w.write_event(e).unwrap();
        }
        let meta = RawJson::new(r#"{"k":1}"#).unwrap();
        let bytes = w.finish(&[("deviceProperties", &meta)]).unwrap();
        let mut r = TraceReader::new(&bytes[..]).unwrap();
        let mut back = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            back.push(OwnedEvent::from_event(&e).unwrap());
        }
        let summary = r.finish().unwrap();
        prop_assert_eq!(&back, &events);
        prop_assert_eq!(summary.metadata.get("deviceProperties"), Some(r#"{"k":1}"#));
        // Deterministic: the same events give the same bytes.
        let mut again = TraceWriter::new(Vec::new()).unwrap();
        for e in &events {
            again.write_event(e).unwrap();
        }
        prop_assert_eq!(again.finish(&[("deviceProperties", &meta)]).unwrap(), bytes);
    }

    #[test]
    fn reading_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = crate::read_all(&bytes, opguard_trace::ReaderOptions::default());
    }

    #[test]
    fn small_buffers_see_the_same_events(split in 1usize..64) {
        // A reader fed one small read at a time must rescan events cut by
        // the buffer boundary and still see the same thing.
        let doc = br#"{"a":[1,{"b":"c"}],"traceEvents":[{"ph":"X","name":"n\"q","ts":1.5},{"ph":"i","args":{"x":[1,2,3]}}],"z":null}"#;
        let reader = Trickle { data: doc, pos: 0, step: split };
        let mut r = TraceReader::new(reader).unwrap();
        let mut names = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            names.push(e.raw().to_owned());
        }
        let s = r.finish().unwrap();
        prop_assert_eq!(names.len(), 2);
        prop_assert_eq!(s.metadata.get("z"), Some("null"));
        prop_assert_eq!(s.metadata.get("a"), Some(r#"[1,{"b":"c"}]"#));
    }
}

struct Trickle<'a> {
    data: &'a [u8],
    pos: usize,
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// What a read came to: every event's text, or the error's code, offset
/// and event index.
fn outcome(reader: impl std::io::Read) -> Result<Vec<String>, (String, Option<u64>, Option<u64>)> {
    let fail = |e: opguard_trace::Error| (e.code().to_owned(), e.offset(), e.event_index());
    let mut r = TraceReader::new(reader).map_err(fail)?;
    let mut events = Vec::new();
    while let Some(e) = r.next_event().map_err(fail)? {
        events.push(e.raw().to_owned());
    }
    r.finish().map_err(fail)?;
    Ok(events)
}

/// The fuzzer's reproducers: the same bytes once gave another error code
/// when the reads ended right after a string.
#[test]
fn errors_do_not_depend_on_read_boundaries_reproducers() {
    // Fuzz finding 9: a corrupt gzip stream whose first decoded bytes are
    // already not JSON (gzip_invalid whole, top_level_not_container one
    // byte at a time, before the fix).
    let corrupt_gzip: &[u8] = &[
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x22, 0x3a, 0x22, 0x58, 0x22, 0x02, 0xac,
        0x1c, 0x40,
    ];
    for doc in [
        corrupt_gzip,
        &b"{\"k\":\"\xd0\"x}"[..],
        br#"{"h":"X"x}"#,
        br#"[{"ts":"t"x}]"#,
        br#"{"traceEvents":[{"name":"a"b"}]}"#,
    ] {
        let whole = outcome(doc);
        for step in [1, 2, 3, 7] {
            let chunked = outcome(Trickle {
                data: doc,
                pos: 0,
                step,
            });
            assert_eq!(
                chunked,
                whole,
                "{} with reads of {step}",
                String::from_utf8_lossy(doc)
            );
        }
        assert!(whole.is_err());
    }
}

proptest! {
    #[test]
    fn outcomes_do_not_depend_on_read_boundaries(
        at in 0usize..120,
        byte in prop_oneof![Just(b'"'), Just(b'x'), Just(b','), Just(b'}'), Just(0xd0u8), Just(b' '), Just(b'N')],
        step in 1usize..9,
    ) {
        let mut doc = br#"{"meta":"v","traceEvents":[{"ph":"X","name":"n","ts":1.5,"args":{"correlation":7,"s":"q"}},{"ph":"i","ts":2}],"tail":[1,"z"]}"#.to_vec();
        let at = at % doc.len();
        doc[at] = byte;
        let whole = outcome(&doc[..]);
        let chunked = outcome(Trickle { data: &doc, pos: 0, step });
        prop_assert_eq!(chunked, whole);
    }
}
