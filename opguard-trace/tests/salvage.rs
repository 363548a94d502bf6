//! Cut-off and unterminated real traces: the array form may end without
//! `]` by default; with salvage a file cut anywhere gives back exactly its
//! complete events. Every count is held against an independent one:
//! serde_json's stream deserializer finds where each event of the whole
//! file ends, so the complete events of a cut are those ending before it.

use std::io::Read;

use opguard_trace::{ReaderOptions, TraceReader};

use crate::gzip;

fn shared(relative: &str) -> Option<Vec<u8>> {
    let path = opguard_testdata::shared_file(relative)?;
    let raw = std::fs::read(path).expect("readable");
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return Some(raw);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_end(&mut out)
        .expect("inflates");
    Some(out)
}

/// Where `traceEvents` opens (the byte after `[`) and where each event ends
/// (one past its `}`), found by serde_json, not by our scanner.
fn event_ends(doc: &[u8]) -> (usize, Vec<usize>) {
    let key = b"\"traceEvents\"";
    let at = doc
        .windows(key.len())
        .position(|w| w == key)
        .expect("traceEvents key");
    let open = at + doc[at..].iter().position(|&b| b == b'[').expect("[") + 1;
    let mut ends = Vec::new();
    let mut i = open;
    loop {
        while doc[i].is_ascii_whitespace() || doc[i] == b',' {
            i += 1;
        }
        if doc[i] == b']' {
            return (open, ends);
        }
        let mut stream =
            serde_json::Deserializer::from_slice(&doc[i..]).into_iter::<serde::de::IgnoredAny>();
        stream.next().expect("a value").expect("valid");
        i += stream.byte_offset();
        ends.push(i);
    }
}

/// The raw text of every event a read returns, and its summary.
fn read(
    bytes: &[u8],
    options: ReaderOptions,
) -> Result<(Vec<String>, opguard_trace::TraceSummary), opguard_trace::Error> {
    let mut r = TraceReader::with_options(bytes, options)?;
    let mut texts = Vec::new();
    while let Some(e) = r.next_event()? {
        texts.push(e.raw().to_owned());
    }
    Ok((texts, r.finish()?))
}

const CPU_ONLY: &str = "traces/hta/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz";
const ROCM: &str = "traces/hta/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz";

#[test]
fn the_array_form_may_end_without_its_bracket() {
    let Some(doc) = shared(ROCM) else { return };
    let (open, ends) = event_ends(&doc);
    let last = *ends.last().expect("events");
    // The real events, verbatim, in the bare-array form the format allows
    // to end without `]`: with and without a comma after the last event.
    let mut array = b"[".to_vec();
    array.extend_from_slice(&doc[open..last]);
    for tail in [&b""[..], b",", b",\n", b"\n  "] {
        let mut cut = array.clone();
        cut.extend_from_slice(tail);
        let (texts, summary) = read(&cut, ReaderOptions::default()).expect("default reads it");
        assert_eq!(texts.len(), ends.len());
        assert_eq!(summary.warnings.len(), 1, "{:?}", summary.warnings);
        let w = &summary.warnings[0];
        assert_eq!(w.code, "array_unterminated");
        assert_eq!(w.complete_events, ends.len() as u64);
        assert_eq!(w.offset, cut.len() as u64);
    }
    // Closed, it is exact and says nothing.
    array.extend_from_slice(b"]");
    let (_, summary) = read(&array, ReaderOptions::default()).unwrap();
    assert!(summary.warnings.is_empty());
}

#[test]
fn the_object_form_cut_anywhere_is_refused_with_the_count_or_salvaged() {
    for name in [CPU_ONLY, ROCM] {
        let Some(doc) = shared(name) else { return };
        let (_, ends) = event_ends(&doc);
        let (full, _) = read(&doc, ReaderOptions::default()).unwrap();
        assert_eq!(full.len(), ends.len());
        // Every offset near the start and end, and a stride in between.
        let first = doc.iter().position(|b| !b.is_ascii_whitespace()).unwrap();
        // Past the last `}` only whitespace is cut: the document is whole.
        let last = doc.iter().rposition(|b| !b.is_ascii_whitespace()).unwrap();
        let cuts = (first + 1..=last).filter(|c| *c < first + 400 || last - c < 400 || c % 61 == 0);
        let mut seen_partial = 0;
        for cut in cuts {
            let complete = ends.iter().filter(|&&end| end <= cut).count();
            let bytes = &doc[..cut];
            let Err(err) = read(bytes, ReaderOptions::default()) else {
                panic!("cut {cut}: strict reading accepted a cut document");
            };
            assert_eq!(err.code(), "json_truncated", "cut {cut}: {err}");
            assert!(
                err.to_string()
                    .contains(&format!("{complete} complete events precede the cut")),
                "cut {cut}: {err}"
            );
            let (texts, summary) = read(bytes, ReaderOptions::new().salvage(true))
                .unwrap_or_else(|e| panic!("cut {cut}: {e}"));
            assert_eq!(texts.len(), complete, "cut {cut}");
            assert_eq!(
                texts[..],
                full[..complete],
                "cut {cut}: never a partial event"
            );
            let w = summary.warnings.last().expect("a warning");
            assert_eq!(w.code, "truncated", "cut {cut}");
            assert_eq!(w.offset, cut as u64);
            assert_eq!(w.complete_events, complete as u64);
            if w.message.contains("partial value") {
                seen_partial += 1;
            }
        }
        assert!(seen_partial > 50, "cuts inside events were exercised");
    }
}

#[test]
fn a_torch_trace_missing_only_its_closing_brackets() {
    let Some(doc) = shared(CPU_ONLY) else { return };
    let (_, ends) = event_ends(&doc);
    let end = doc.iter().rposition(|&b| b == b']').expect("]");
    for cut in [&doc[..end], &doc[..end + 1]] {
        let err = read(cut, ReaderOptions::default()).unwrap_err();
        assert_eq!(err.code(), "json_truncated");
        assert!(
            err.to_string()
                .contains(&format!("{} complete events", ends.len())),
            "{err}"
        );
        assert!(err.to_string().contains("--salvage"), "{err}");
        let (texts, summary) = read(cut, ReaderOptions::new().salvage(true)).unwrap();
        assert_eq!(texts.len(), ends.len());
        assert_eq!(summary.warnings[0].code, "truncated");
    }
}

#[test]
fn trailing_commas_are_salvaged_and_only_salvaged() {
    let Some(doc) = shared(CPU_ONLY) else { return };
    let (open, ends) = event_ends(&doc);
    let last = *ends.last().unwrap();
    let mut commas = doc[..last].to_vec();
    commas.extend_from_slice(b",]");
    let after = doc[last..].iter().position(|&b| b == b']').unwrap() + last + 1;
    let tail = String::from_utf8_lossy(&doc[after..])
        .trim_end()
        .to_string();
    // `,}`: a comma after the last top-level member too.
    let tail = format!("{},}}", tail.strip_suffix('}').expect("object"));
    commas.extend_from_slice(tail.as_bytes());
    assert!(open > 0);
    let err = read(&commas, ReaderOptions::default()).unwrap_err();
    assert_ne!(err.code(), "json_truncated", "{err}");
    let (texts, summary) = read(&commas, ReaderOptions::new().salvage(true)).unwrap();
    assert_eq!(texts.len(), ends.len());
    let codes: Vec<_> = summary.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["trailing_comma", "trailing_comma"]);
    assert!(!summary.metadata.is_empty());
}

#[test]
fn a_gzip_stream_cut_short_gives_back_what_inflated() {
    let Some(path) = opguard_testdata::shared_file(CPU_ONLY) else {
        return;
    };
    let gz = std::fs::read(path).unwrap();
    let doc = shared(CPU_ONLY).unwrap();
    let (_, ends) = event_ends(&doc);
    let (full, _) = read(&doc, ReaderOptions::default()).unwrap();
    for cut in 20..gz.len() {
        let bytes = &gz[..cut];
        // What an independent inflater gets out of the cut stream.
        let mut inflated = Vec::new();
        let _ = flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut inflated);
        let complete = ends.iter().filter(|&&end| end <= inflated.len()).count();
        assert!(read(bytes, ReaderOptions::default()).is_err(), "cut {cut}");
        if inflated.iter().all(u8::is_ascii_whitespace) {
            // No document began: nothing to salvage.
            let err = read(bytes, ReaderOptions::new().salvage(true)).unwrap_err();
            assert_eq!(err.code(), "empty_input", "cut {cut}");
            continue;
        }
        let (texts, summary) = read(bytes, ReaderOptions::new().salvage(true))
            .unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        assert_eq!(texts.len(), complete, "cut {cut}");
        assert_eq!(texts[..], full[..complete], "cut {cut}");
        assert_eq!(summary.warnings[0].code, "gzip_truncated", "cut {cut}");
        assert_eq!(summary.decoded_bytes, inflated.len() as u64, "cut {cut}");
    }
    // A gzip of a cut document (the job died, the stream was closed).
    let cut = gzip(&doc[..doc.len() / 2]);
    let (texts, summary) = read(&cut, ReaderOptions::new().salvage(true)).unwrap();
    assert_eq!(
        texts.len(),
        ends.iter().filter(|&&e| e <= doc.len() / 2).count()
    );
    assert_eq!(summary.warnings.len(), 1);
}

#[test]
fn salvage_still_refuses_what_is_not_a_cut() {
    for bad in [
        &br#"{"traceEvents":[{"ph":"X"} {"ph":"X"}]}"#[..],
        br#"{"traceEvents":[{"ph":"X"},,{"ph":"X"}]}"#,
        br#"{"traceEvents":[{"ph":"X"},3]}"#,
        br#"{"traceEvents":[{"ph":"X","ts":NaN}]}"#,
        br#"{"traceEvents":[{"ph":"X"}]} trailing"#,
        br#"[{"ph":"X","ts":1,"ts":2}"#,
    ] {
        let err = read(bad, ReaderOptions::new().salvage(true)).unwrap_err();
        assert_ne!(
            err.code(),
            "json_truncated",
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}
