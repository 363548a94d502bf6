//! The trace reader: arbitrary bytes, gzip streams, and the reader's options.

use std::io::{Read, Write};

use opguard_trace::{ReaderOptions, TraceReader};

/// Limits small enough that a fuzz iteration stays fast; the real defaults
/// are exercised by the boundary tests in the crates.
pub(crate) fn fuzz_options() -> ReaderOptions {
    ReaderOptions::new()
        .max_encoded_bytes(1 << 20)
        .max_decoded_bytes(4 << 20)
        // Below serde_json's own recursion limit (128), so the differential
        // check never disagrees because of the oracle's limit.
        .max_depth(64)
        .max_value_bytes(1 << 20)
}

/// What one read established: the raw text of every event, in order, what
/// the read accepted that a strict reader would not, and how it ended.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Raw JSON text of each event read before the end or the error.
    pub events: Vec<String>,
    /// Decoded byte offset of each of those events.
    pub offsets: Vec<u64>,
    /// What the typed getters of each of those events return: the decode
    /// thread scans events ahead and hands their field spans over.
    pub fields: Vec<String>,
    /// The summary's warnings (a read that ends with an error has none).
    pub warnings: Vec<opguard_trace::ReadWarning>,
    /// Invalid UTF-8 sequences replaced (lossy reads only).
    pub replacements: u64,
    /// `Ok(event count)` or `Err(code)`.
    pub end: Result<u64, &'static str>,
}

impl Outcome {
    fn failed(code: &'static str) -> Outcome {
        Outcome {
            events: Vec::new(),
            offsets: Vec::new(),
            fields: Vec::new(),
            warnings: Vec::new(),
            replacements: 0,
            end: Err(code),
        }
    }

    /// Whether `self`'s events (text, offsets, fields) are where `other`'s
    /// begin.
    fn is_prefix_of(&self, other: &Outcome) -> bool {
        other.events.starts_with(&self.events)
            && other.offsets.starts_with(&self.offsets)
            && other.fields.starts_with(&self.fields)
    }
}

/// Reads `input` to the end, touching every typed accessor of every event.
pub fn read_outcome<R: Read>(input: R, options: ReaderOptions) -> Outcome {
    match TraceReader::with_options(input, options) {
        Ok(reader) => drain(reader),
        Err(e) => Outcome::failed(e.code()),
    }
}

/// Like [`read_outcome`], through the reader's decode thread.
pub fn read_outcome_threaded(input: Vec<u8>, options: ReaderOptions) -> Outcome {
    match TraceReader::sendable(std::io::Cursor::new(input), options.decode_thread(true)) {
        Ok(reader) => drain(reader),
        Err(e) => Outcome::failed(e.code()),
    }
}

fn drain<R: Read>(mut reader: TraceReader<R>) -> Outcome {
    let mut out = Outcome::failed("unfinished");
    loop {
        match reader.next_event() {
            Ok(Some(e)) => {
                touch_event(&e);
                out.events.push(e.raw().to_owned());
                out.offsets.push(e.offset());
                out.fields.push(typed_fields(&e));
            }
            Ok(None) => break,
            Err(e) => {
                // After an error the reader is finished.
                assert!(matches!(reader.next_event(), Ok(None)));
                out.end = Err(e.code());
                return out;
            }
        }
    }
    out.end = match reader.finish() {
        Ok(s) => {
            assert_eq!(s.events, out.events.len() as u64, "summary event count");
            check_warnings(&s.warnings, s.events);
            out.warnings = s.warnings;
            out.replacements = s.utf8_replacements;
            Ok(s.events)
        }
        Err(e) => Err(e.code()),
    };
    out
}

/// The documented shape of a read's warnings: in input order, each counting
/// the complete events before its place (never more than were returned), and
/// `truncated` last, with every returned event before it ("salvage drops
/// only what follows the last complete event").
fn check_warnings(warnings: &[opguard_trace::ReadWarning], events: u64) {
    let mut last = 0;
    for (i, w) in warnings.iter().enumerate() {
        assert!(
            [
                "array_unterminated",
                "truncated",
                "trailing_comma",
                "gzip_truncated"
            ]
            .contains(&w.code),
            "undocumented warning {w:?}"
        );
        assert!(
            w.complete_events >= last && w.complete_events <= events,
            "warning {w:?} counts {} events of {events}",
            w.complete_events
        );
        last = w.complete_events;
        if w.code == "truncated" {
            assert_eq!(w.complete_events, events, "events after a cut: {w:?}");
            assert!(
                warnings[i + 1..].iter().all(|w| w.code != "truncated"),
                "two cuts: {warnings:?}"
            );
        }
        assert_eq!(
            w.encoded_offset.is_some(),
            w.code == "gzip_truncated",
            "{w:?}"
        );
    }
}

/// The typed getters of `e`, as text.
fn typed_fields(e: &opguard_trace::Event<'_>) -> String {
    let text = |s: Option<&dyn std::fmt::Display>| s.map(|s| s.to_string());
    let value = |v: Option<opguard_trace::Value<'_>>| v.map(|v| v.raw().to_owned());
    format!(
        "{:?}",
        [
            text(e.ph().as_ref().map(|v| v as _)),
            text(e.name().as_ref().map(|v| v as _)),
            text(e.cat().as_ref().map(|v| v as _)),
            text(e.bp().as_ref().map(|v| v as _)),
            text(e.scope().as_ref().map(|v| v as _)),
            text(e.pid().as_ref().map(|v| v as _)),
            text(e.tid().as_ref().map(|v| v as _)),
            text(e.id().as_ref().map(|v| v as _)),
            text(e.bind_id().as_ref().map(|v| v as _)),
            text(e.ts().as_ref().map(|v| v as _)),
            text(e.dur().as_ref().map(|v| v as _)),
            e.args().map(|a| a.raw().to_owned()),
            text(e.external_id().as_ref().map(|v| v as _)),
            text(e.correlation().as_ref().map(|v| v as _)),
            text(e.device().as_ref().map(|v| v as _)),
            text(e.stream().as_ref().map(|v| v as _)),
            text(e.context().as_ref().map(|v| v as _)),
            text(e.sequence_number().as_ref().map(|v| v as _)),
            value(e.input_dims()),
            value(e.input_type()),
            value(e.arg("hlo_op")),
            value(e.arg("hlo_module")),
        ]
    )
}

/// Calls every accessor of an event and checks the time conversions.
fn touch_event(e: &opguard_trace::Event<'_>) {
    let _ = (e.index(), e.offset());
    for s in [e.ph(), e.name(), e.cat(), e.bp(), e.scope()]
        .into_iter()
        .flatten()
    {
        let _ = s.as_cow();
        let _ = s.eq_str("X");
    }
    for s in [
        e.pid(),
        e.tid(),
        e.id(),
        e.bind_id(),
        e.external_id(),
        e.correlation(),
        e.device(),
        e.stream(),
        e.context(),
        e.sequence_number(),
    ]
    .into_iter()
    .flatten()
    {
        let _ = (s.to_key(), s.as_i64());
    }
    if let Some(args) = e.args() {
        for (k, v) in args.iter().take(64) {
            let _ = k.as_cow();
            touch_value(v, 0);
        }
        let _ = args.get("correlation");
    }
    for v in [e.input_dims(), e.input_type()].into_iter().flatten() {
        touch_value(v, 0);
    }
    check_micros(e.ts(), e.ts_ns());
    check_micros(e.dur(), e.dur_ns());
}

fn touch_value(v: opguard_trace::Value<'_>, depth: usize) {
    let _ = v.raw();
    if depth > 8 {
        return;
    }
    if let Some(items) = v.as_array() {
        for item in items.take(16) {
            touch_value(item, depth + 1);
        }
    }
    if let Some(obj) = v.as_object() {
        for (k, item) in obj.iter().take(16) {
            let _ = k.as_cow();
            touch_value(item, depth + 1);
        }
    }
}

/// Exact microsecond-to-nanosecond conversion agrees with `f64` within
/// `f64`'s precision, and refuses only values out of `i64` range.
fn check_micros(
    number: Option<opguard_trace::Number<'_>>,
    nanos: Result<Option<i64>, opguard_trace::NumberError>,
) {
    let Some(number) = number else {
        assert!(matches!(nanos, Ok(None)), "{nanos:?}");
        return;
    };
    let text = number.as_str();
    let approx: f64 = text.parse::<f64>().expect("a JSON number parses as f64") * 1000.0;
    match nanos {
        Ok(Some(n)) => {
            let tolerance = approx.abs() * 1e-14 + 1.0;
            assert!(
                (n as f64 - approx).abs() <= tolerance,
                "{text} us read as {n} ns, f64 says {approx}"
            );
        }
        Ok(None) => panic!("{text} present but read as absent"),
        Err(err) => assert!(
            !approx.is_finite() || approx.abs() >= 9.223e18,
            "{text} us refused ({err}) though f64 puts it at {approx} ns"
        ),
    }
}

fn assert_same(a: &Outcome, b: &Outcome, what: &str) {
    assert_eq!(a, b, "{what}");
}

/// A reader that returns one byte per `read` call.
pub struct OneByte<'a>(pub &'a [u8]);

impl Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

fn gzip_members(bytes: &[u8], cuts: &[usize], level: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.sort_unstable();
    points.push(bytes.len());
    for end in points {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        enc.write_all(&bytes[start..end]).expect("in memory");
        out.extend(enc.finish().expect("in memory"));
        start = end;
    }
    out
}

fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data)
}

/// The trace reader on arbitrary bytes, checked against `serde_json`, the
/// decode thread, gzip and its own tolerant options.
pub fn trace_reader(data: &[u8]) {
    let plain = read_outcome(data, fuzz_options());

    // Buffer boundaries must not change the answer: the same bytes
    // delivered one byte per read end the same way.
    let trickle = read_outcome(OneByte(data), fuzz_options());
    assert_same(&plain, &trickle, "one-byte reads disagree with one slice");

    // The decode thread is a different path through the same contract.
    let threaded = read_outcome_threaded(data.to_vec(), fuzz_options());
    assert_eq!(plain, threaded, "decode thread disagrees");

    // Plain JSON (not already gzip) read through gzip gives the same events
    // and the same end, except for limits counted in encoded bytes.
    if !data.starts_with(&[0x1f, 0x8b]) {
        let cut = data.len() / 2;
        let gz = gzip_members(data, &[cut], 6);
        let through_gzip = read_outcome(gz.as_slice(), fuzz_options());
        if plain.end != Err("limit_exceeded") && through_gzip.end != Err("limit_exceeded") {
            assert_same(&plain, &through_gzip, "gzip disagrees with plain");
        }
    }

    check_tolerant_options(data, &plain);

    // What the reader accepts is JSON, with the same events; a bare array
    // without its `]` (which the Trace Event Format allows, reported as
    // `array_unterminated`) is JSON once the `]` is written.
    let Ok(count) = plain.end else { return };
    if data.starts_with(&[0x1f, 0x8b]) {
        return;
    }
    let mut strict = strip_bom(data).to_vec();
    if plain
        .warnings
        .iter()
        .any(|w| w.code == "array_unterminated")
    {
        close_array(&mut strict);
    }
    let doc: serde_json::Value = match serde_json::from_slice(&strict) {
        Ok(v) => v,
        // RFC 8259's grammar allows lone surrogates in escapes; the reader
        // keeps them (as U+FFFD when decoded), serde_json refuses them.
        Err(_) if has_surrogate_escape(data) => return,
        Err(e) => panic!("the reader accepted a document serde_json refuses: {e}"),
    };
    let events = match &doc {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => match o.get("traceEvents") {
            Some(serde_json::Value::Array(a)) => a,
            other => panic!("accepted an object whose traceEvents is {other:?}"),
        },
        other => panic!("accepted a top-level {other:?}"),
    };
    assert_eq!(
        events.len() as u64,
        count,
        "event count differs from serde_json"
    );
    for (raw, want) in plain.events.iter().zip(events) {
        let got: serde_json::Value =
            serde_json::from_str(raw).expect("an event's raw text is JSON");
        assert_eq!(&got, want, "event text differs from serde_json's element");
    }
}

/// Ends a bare array the reader read without its `]`: drops the whitespace
/// and the one comma the format allows after the last event, writes the `]`.
fn close_array(doc: &mut Vec<u8>) {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    while doc.last().is_some_and(is_space) {
        doc.pop();
    }
    if doc.last() == Some(&b',') {
        doc.pop();
    }
    doc.push(b']');
}

/// The reader's options that accept more than the exact default (salvage,
/// lossy UTF-8) against the exact read of the same bytes. The contract: a
/// strict read is a prefix of what the tolerant read returns, warnings
/// included: what the exact read accepts, a tolerant read returns the same
/// (events, offsets, fields, warnings, end); what it refuses, a tolerant read
/// returns at least the events before the refusal, and refuses only what the
/// exact read refused too. Salvage reads through the decode thread and one
/// byte per `read` give the same events and warnings as one slice.
fn check_tolerant_options(data: &[u8], exact: &Outcome) {
    // Codes the salvage option turns into warnings: a cut (`json_truncated`,
    // `gzip_truncated`) and a trailing comma (`json_syntax`).
    const SALVAGED: [&str; 3] = ["json_truncated", "gzip_truncated", "json_syntax"];
    let salvage_options = fuzz_options().salvage(true);
    let salvage = read_outcome(data, salvage_options.clone());
    strict_is_prefix(exact, &salvage, &SALVAGED, "salvage");
    // Without a warning only salvage gives, the exact read read it too.
    if salvage.end.is_ok()
        && salvage
            .warnings
            .iter()
            .all(|w| w.code == "array_unterminated")
    {
        assert_eq!(exact, &salvage, "salvage read with no salvage warning");
    }
    let threaded = read_outcome_threaded(data.to_vec(), salvage_options.clone());
    assert_eq!(salvage, threaded, "salvage: decode thread disagrees");
    let trickle = read_outcome(OneByte(data), salvage_options);
    assert_same(&salvage, &trickle, "salvage: one-byte reads disagree");

    let lossy = read_outcome(data, fuzz_options().lossy_utf8(true));
    strict_is_prefix(exact, &lossy, &["invalid_utf8"], "lossy UTF-8");
    if lossy.end.is_ok() {
        if lossy.replacements == 0 {
            assert_eq!(exact, &lossy, "lossy read with no replacement");
        } else {
            assert_eq!(exact.end, Err("invalid_utf8"), "replaced, yet valid");
        }
    }
}

fn strict_is_prefix(exact: &Outcome, tolerant: &Outcome, excused: &[&str], what: &str) {
    assert!(
        exact.is_prefix_of(tolerant),
        "{what}: the exact read's events are not where the tolerant read's begin\n\
         exact: {exact:?}\n{what}: {tolerant:?}"
    );
    match (exact.end, tolerant.end) {
        (Ok(_), _) => assert_eq!(exact, tolerant, "{what} changed an exact read"),
        (Err(e), Err(t)) => assert!(
            e == t || excused.contains(&e),
            "{what} refused with {t} what the exact read refused with {e}"
        ),
        (Err(_), Ok(_)) => {}
    }
}

/// Whether the bytes contain a `\\uD800`-`\\uDFFF` escape.
fn has_surrogate_escape(data: &[u8]) -> bool {
    data.windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && (w[2] == b'd' || w[2] == b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    })
}

/// Hostile gzip streams: arbitrary bytes after the gzip magic, and
/// arbitrary JSON split into several members.
pub fn trace_gzip(data: &[u8]) {
    // 1. Whatever follows the magic, the reader ends with a code.
    let mut hostile = vec![0x1f, 0x8b];
    hostile.extend_from_slice(data);
    let out = read_outcome(hostile.as_slice(), fuzz_options());
    if let Err(code) = out.end {
        assert!(
            [
                "gzip_invalid",
                "gzip_truncated",
                "limit_exceeded",
                "invalid_utf8",
                "empty_input",
                "json_truncated",
                "json_syntax",
                "unescaped_quote",
                "non_finite_number",
                "event_not_object",
                "trace_events_not_array",
                "top_level_not_container",
                "missing_trace_events",
                "duplicate_key",
                "wrong_type",
                "trailing_data",
            ]
            .contains(&code),
            "unexpected code {code}"
        );
    }

    // 2. The bytes as JSON, split into members at points taken from the
    //    input itself, read exactly as the plain bytes.
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let cuts: Vec<usize> = body
        .iter()
        .take(4)
        .map(|&b| b as usize * 7 + selector as usize)
        .collect();
    let members = gzip_members(body, &cuts, u32::from(selector % 10));
    let plain = read_outcome(body, fuzz_options());
    let zipped = read_outcome(members.as_slice(), fuzz_options());
    if plain.end != Err("limit_exceeded") && zipped.end != Err("limit_exceeded") {
        assert_same(&plain, &zipped, "multi-member gzip disagrees with plain");
    }
    // 3. Truncating a valid stream is never a success with fewer events.
    if plain.end.is_ok() && members.len() > 1 {
        let cut = members.len() - 1 - (selector as usize % members.len().min(24));
        let truncated = read_outcome(&members[..cut], fuzz_options());
        if let Ok(n) = truncated.end {
            // Only a cut exactly between members can still be a whole
            // document, and then it is the same document's prefix members.
            assert!(n <= plain.end.unwrap_or(0));
            let decoded = decode_members(&members[..cut]);
            let direct = read_outcome(decoded.as_slice(), fuzz_options());
            assert_eq!(
                direct.end, truncated.end,
                "truncated gzip read as a different document"
            );
        }
    }
}

fn decode_members(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("the reader accepted it, so flate2 decodes it");
    out
}

/// A valid trace made imperfect the ways real files are, against the
/// documented reading of each (`opguard-trace/README.md`, "Exact by default,
/// tolerant on request"). The input is five parameter bytes and a document;
/// a document the exact reader refuses is skipped. By the fifth byte:
///
/// - cut at a chosen byte (before the whitespace that may end a document):
///   salvage returns exactly the events that end before the cut, then warns
///   `truncated` (or, for a bare array, `array_unterminated`) counting them;
///   the exact read ends with `json_truncated` or reads the bare array as
///   salvage does; a cut in the trailing whitespace reads the whole document;
/// - a comma before the closing `]` of the events: the exact read refuses it
///   (`json_syntax`), salvage reads every event and warns `trailing_comma`;
/// - gzip-compressed and cut: the exact read ends with `gzip_truncated`;
///   salvage returns the events that end within what inflated (its
///   `gzip_truncated` warning says how much), never a partial one;
/// - one ASCII byte inside a string (not the `traceEvents` key) made invalid
///   UTF-8: the exact read and salvage refuse it (`invalid_utf8`); a lossy
///   read returns every event, one replacement counted, the text around it
///   unchanged.
pub fn trace_tolerant(data: &[u8]) {
    let Some((params, doc)) = data.split_first_chunk::<5>() else {
        return;
    };
    if doc.starts_with(&[0x1f, 0x8b]) {
        return;
    }
    let full = read_outcome(doc, fuzz_options());
    let Ok(count) = full.end else { return };
    let at = usize::from(u16::from_le_bytes([params[0], params[1]]));
    let ends: Vec<usize> = full
        .offsets
        .iter()
        .zip(&full.events)
        .map(|(&o, e)| o as usize + e.len())
        .collect();
    match params[4] % 4 {
        0 => cut_document(doc, at % (doc.len() + 1), &full, &ends),
        1 => trailing_comma(doc, &full, &ends),
        2 => cut_gzip(doc, at, params[2], &full, &ends),
        _ => invalid_byte_in_a_string(doc, at, &full, count),
    }
}

fn salvage_options() -> ReaderOptions {
    fuzz_options().salvage(true)
}

/// Events of `full` that end at or before decoded byte `at`.
fn complete_before(ends: &[usize], at: usize) -> usize {
    ends.iter().take_while(|&&end| end <= at).count()
}

fn same_events(got: &Outcome, want: &Outcome, n: usize, what: &str) {
    assert_eq!(got.events, want.events[..n], "{what}: events");
    assert_eq!(got.offsets, want.offsets[..n], "{what}: offsets");
    assert_eq!(got.fields, want.fields[..n], "{what}: fields");
}

fn cut_document(doc: &[u8], at: usize, full: &Outcome, ends: &[usize]) {
    let cut = &doc[..at];
    let salvaged = read_outcome(cut, salvage_options());
    let exact = read_outcome(cut, fuzz_options());
    // Cut in the whitespace after the document (or not at all): nothing of
    // the document is missing.
    let whole = doc
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .map_or(0, |p| p + 1);
    if at >= whole {
        // Only where a bare array without its `]` is said to end moves: to
        // the end of what is left.
        let shape = |o: &Outcome| {
            let warnings: Vec<_> = o
                .warnings
                .iter()
                .map(|w| {
                    let end = (w.code == "array_unterminated").then_some(at as u64);
                    (w.code, end.unwrap_or(w.offset), w.complete_events)
                })
                .collect();
            (
                o.events.clone(),
                o.offsets.clone(),
                o.fields.clone(),
                warnings,
                o.end,
            )
        };
        assert_eq!(shape(&salvaged), shape(full), "salvage of a whole document");
        assert_eq!(
            shape(&exact),
            shape(full),
            "a whole document without its trailing blanks"
        );
        return;
    }
    let complete = complete_before(ends, at);
    let blank = cut
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    match salvaged.end {
        Ok(n) => {
            assert_eq!(n as usize, complete, "salvage of a cut: event count");
            same_events(&salvaged, full, complete, "salvage of a cut");
            let last = salvaged.warnings.last().expect("a cut is reported");
            assert!(
                ["truncated", "array_unterminated"].contains(&last.code),
                "a cut reported as {last:?}"
            );
            assert_eq!(last.complete_events as usize, complete, "{last:?}");
        }
        // Nothing of the events array was read: what the document is cannot
        // be told yet (an object without `traceEvents`, nothing at all).
        Err(code) => assert!(
            complete == 0 || blank,
            "salvage refused a document cut after {complete} complete events: {code}"
        ),
    }
    match exact.end {
        Ok(_) => assert_eq!(exact, salvaged, "an exact read of a cut"),
        Err("empty_input") => assert!(blank, "a cut document read as empty"),
        Err(code) => assert!(
            code == "json_truncated" || (salvaged.end.is_err() && complete == 0),
            "a document cut at byte {at} refused with {code}, not json_truncated"
        ),
    }
}

fn trailing_comma(doc: &[u8], full: &Outcome, ends: &[usize]) {
    let Some(&last_end) = ends.last() else {
        return;
    };
    let after = doc[last_end..]
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if after.map(|p| doc[last_end + p]) != Some(b']') {
        return;
    }
    let mut with_comma = doc.to_vec();
    with_comma.insert(last_end, b',');
    let exact = read_outcome(with_comma.as_slice(), fuzz_options());
    assert_eq!(
        exact.end,
        Err("json_syntax"),
        "a trailing comma, read exactly"
    );
    let salvaged = read_outcome(with_comma.as_slice(), salvage_options());
    assert_eq!(salvaged.end, full.end, "a trailing comma, salvaged");
    same_events(&salvaged, full, full.events.len(), "a trailing comma");
    let codes: Vec<&str> = salvaged.warnings.iter().map(|w| w.code).collect();
    let mut want: Vec<&str> = full.warnings.iter().map(|w| w.code).collect();
    want.push("trailing_comma");
    want.sort_unstable();
    let mut sorted = codes.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, want, "warnings of a trailing comma");
}

fn cut_gzip(doc: &[u8], at: usize, level: u8, full: &Outcome, ends: &[usize]) {
    let gz = gzip_members(doc, &[], u32::from(level % 10));
    let at = at % gz.len();
    let cut = &gz[..at];
    let exact = read_outcome(cut, fuzz_options());
    let salvaged = read_outcome(cut, salvage_options());
    assert!(
        exact.is_prefix_of(full) && salvaged.is_prefix_of(full),
        "a cut gzip stream gave events the whole one does not have"
    );
    if at < 2 {
        return;
    }
    assert!(
        exact.end == Err("gzip_truncated"),
        "a gzip stream cut at byte {at} of {} read exactly: {:?}",
        gz.len(),
        exact.end
    );
    if let Ok(n) = salvaged.end {
        let inflated = salvaged
            .warnings
            .iter()
            .find(|w| w.code == "gzip_truncated")
            .expect("a cut gzip stream is reported");
        let complete = complete_before(ends, inflated.offset as usize);
        assert_eq!(n as usize, complete, "{inflated:?}");
        same_events(&salvaged, full, complete, "salvage of a cut gzip stream");
    }
}

/// Byte positions inside JSON strings that hold a plain ASCII character
/// (not a quote, a backslash or part of an escape).
fn plain_string_bytes(doc: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut in_string, mut skip) = (false, 0);
    for (i, &b) in doc.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        match (in_string, b) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            // `\x` is two bytes; `\uXXXX` six.
            (true, b'\\') => skip = if doc.get(i + 1) == Some(&b'u') { 5 } else { 1 },
            (true, 0x20..=0x7e) => out.push(i),
            _ => {}
        }
    }
    out
}

fn invalid_byte_in_a_string(doc: &[u8], at: usize, full: &Outcome, count: u64) {
    // Not inside the `traceEvents` key: spelt otherwise, it is another key
    // (a lossy read then rightly finds no events array).
    let key = b"\"traceEvents\"";
    let in_key = |p: usize| {
        doc.windows(key.len())
            .enumerate()
            .any(|(at, w)| w == key && (at..at + key.len()).contains(&p))
    };
    let places: Vec<usize> = plain_string_bytes(doc)
        .into_iter()
        .filter(|&p| !in_key(p))
        .collect();
    if places.is_empty() {
        return;
    }
    let p = places[at % places.len()];
    let mut broken = doc.to_vec();
    broken[p] = 0xFF;
    for options in [fuzz_options(), salvage_options()] {
        let refused = read_outcome(broken.as_slice(), options);
        assert_eq!(refused.end, Err("invalid_utf8"), "an invalid byte at {p}");
        assert!(refused.is_prefix_of(full), "events past an invalid byte");
    }
    let lossy = read_outcome(broken.as_slice(), fuzz_options().lossy_utf8(true));
    assert_eq!(
        lossy.end,
        Ok(count),
        "lossy read of one invalid byte at {p}"
    );
    assert_eq!(lossy.replacements, 1, "one invalid byte at {p}");
    for (i, (got, want)) in lossy.events.iter().zip(&full.events).enumerate() {
        let start = full.offsets[i] as usize;
        if (start..start + want.len()).contains(&p) {
            let mut expected = want.as_bytes().to_vec();
            expected.splice(p - start..=p - start, "\u{FFFD}".bytes());
            assert_eq!(got.as_bytes(), expected, "the replaced event");
        } else {
            assert_eq!(got, want, "an event without the invalid byte");
        }
    }
}
