//! The decode thread changes where work happens, never what is read.

use std::io::{Cursor, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use std::hash::{DefaultHasher, Hash, Hasher};

use opguard_trace::{Event, ReaderOptions, TraceReader, Value};

use crate::gzip;

fn both(bytes: &[u8], options: ReaderOptions) -> [Result<(u64, String), String>; 2] {
    let run = |threaded: bool| {
        let input = Cursor::new(bytes.to_vec());
        let mut r = TraceReader::sendable(input, options.clone().decode_thread(threaded))
            .map_err(|e| e.code().to_owned())?;
        let mut read = DefaultHasher::new();
        loop {
            match r.next_event() {
                Ok(Some(e)) => {
                    // Where each event sits, not only its text: a reader
                    // that scans chunks in place must keep its offsets. And
                    // every typed field: events scanned ahead on the decode
                    // thread carry their field spans over.
                    e.offset().hash(&mut read);
                    e.raw().hash(&mut read);
                    typed_fields(&e).hash(&mut read);
                }
                Ok(None) => break,
                Err(e) => {
                    return Err(format!(
                        "{} {:?} {:?}",
                        e.code(),
                        e.offset(),
                        e.event_index()
                    ))
                }
            }
        }
        let s = r.finish().map_err(|e| e.code().to_owned())?;
        Ok((
            s.events,
            format!("{} {} {:x}", s.sha256, s.encoded_bytes, read.finish()),
        ))
    };
    [run(false), run(true)]
}

/// What the typed getters of `e` return, as text.
fn typed_fields(e: &Event<'_>) -> Vec<Option<String>> {
    let text = |v: Option<&dyn std::fmt::Display>| v.map(|v| v.to_string());
    let value = |v: Option<Value<'_>>| v.map(|v| v.raw().to_owned());
    vec![
        text(e.ph().as_ref().map(|v| v as _)),
        text(e.name().as_ref().map(|v| v as _)),
        text(e.cat().as_ref().map(|v| v as _)),
        text(e.pid().as_ref().map(|v| v as _)),
        text(e.tid().as_ref().map(|v| v as _)),
        text(e.ts().as_ref().map(|v| v as _)),
        text(e.dur().as_ref().map(|v| v as _)),
        text(e.id().as_ref().map(|v| v as _)),
        text(e.bind_id().as_ref().map(|v| v as _)),
        text(e.bp().as_ref().map(|v| v as _)),
        text(e.scope().as_ref().map(|v| v as _)),
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
}

#[test]
fn real_traces_read_the_same_on_a_second_thread() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for path in traces {
        let bytes = std::fs::read(&path).unwrap();
        let [inline, threaded] = both(&bytes, ReaderOptions::default());
        assert!(inline.is_ok(), "{}", path.display());
        assert_eq!(inline, threaded, "{}", path.display());
    }
}

#[test]
fn errors_and_limits_are_the_same_on_a_second_thread() {
    let doc = br#"{"traceEvents":[{"ph":"X","ts":1},{"ph":"X","ts":NaN}]}"#;
    let gz = gzip(doc);
    let cases: Vec<(Vec<u8>, ReaderOptions)> = vec![
        (doc.to_vec(), ReaderOptions::default()),
        (gz[..gz.len() - 10].to_vec(), ReaderOptions::default()),
        (gz.clone(), ReaderOptions::new().max_decoded_bytes(20)),
        (gz.clone(), ReaderOptions::new().max_encoded_bytes(20)),
        (
            [gz.clone(), b"junk".to_vec()].concat(),
            ReaderOptions::default(),
        ),
    ];
    for (bytes, options) in cases {
        let [inline, threaded] = both(&bytes, options);
        assert!(inline.is_err());
        assert_eq!(inline, threaded);
    }
}

/// The decoded nccl trace (9.8 MB, 38 of the decode thread's chunks), or
/// `None` without the shared data.
fn nccl_json() -> Option<Vec<u8>> {
    let path = opguard_testdata::shared_file("traces/hta/nccl_parser_config__nccl_data.json.gz")?;
    Some(opguard_testdata::decoded(&path))
}

#[test]
fn errors_deep_in_a_large_trace_are_the_same_on_a_second_thread() {
    // 9.8 MB decoded: dozens of the decode thread's chunks before the
    // error, each scanned where it lies, with events cut between them.
    let Some(json) = nccl_json() else { return };
    let colon = json.len() * 7 / 10
        + json[json.len() * 7 / 10..]
            .iter()
            .position(|&b| b == b':')
            .unwrap();
    let mut broken = json.clone();
    broken[colon] = b'x';
    for bytes in [broken.clone(), gzip(&broken)] {
        let [inline, threaded] = both(&bytes, ReaderOptions::default());
        let err = inline.clone().unwrap_err();
        assert!(err.contains(&format!("Some({colon})")), "{err}");
        assert_eq!(inline, threaded);
    }
    let [inline, threaded] = both(&gzip(&json), ReaderOptions::default());
    assert!(inline.is_ok());
    assert_eq!(inline, threaded);
}

/// Decoded offsets on 256 KiB boundaries (where the decode thread cuts its
/// chunks) with three plain string bytes on either side: whatever is
/// written there stays inside a string.
fn boundaries_inside_strings(json: &[u8]) -> Vec<usize> {
    let mut plain_in_string = vec![false; json.len()];
    let (mut in_string, mut escape) = (false, false);
    for (i, &c) in json.iter().enumerate() {
        if in_string && !escape && c != b'"' && c != b'\\' && c.is_ascii() {
            plain_in_string[i] = true;
        }
        match c {
            _ if escape => escape = false,
            b'\\' if in_string => escape = true,
            b'"' => in_string = !in_string,
            _ => {}
        }
    }
    (1..json.len() / (256 << 10))
        .map(|k| k * (256 << 10))
        .filter(|&b| plain_in_string[b - 3..b + 3].iter().all(|&p| p))
        .collect()
}

#[test]
fn utf8_across_a_chunk_boundary_is_checked_exactly() {
    // Buffers checked whole on the decode thread must not move or hide
    // the fault the event-by-event check finds: a multi-byte character
    // cut by a chunk's end, invalid or valid, in a real gzip trace.
    let Some(json) = nccl_json() else { return };
    let event_around = |at: usize| {
        let mut r = TraceReader::new(&json[..]).unwrap();
        while let Some(e) = r.next_event().unwrap() {
            if e.offset() as usize + e.raw().len() > at {
                return e.index();
            }
        }
        panic!("no event at {at}");
    };
    let found = boundaries_inside_strings(&json);
    let (b, c) = (found[0], found[found.len() - 1]);
    let cases: [(usize, &[u8], usize); 3] = [
        // An invalid continuation after a lead byte ending the chunk.
        (b - 1, b"\xc3(", b - 1),
        // A three-byte sequence cut after two, the third byte wrong.
        (c - 2, b"\xe2\x82(", c - 2),
        // A valid character split between two chunks.
        (b - 1, "\u{e9}".as_bytes(), usize::MAX),
    ];
    for (at, bytes, fault) in cases {
        let mut doc = json.clone();
        doc[at..at + bytes.len()].copy_from_slice(bytes);
        let [inline, threaded] = both(&gzip(&doc), ReaderOptions::default());
        assert_eq!(inline, threaded, "{bytes:?} at {at}");
        if fault == usize::MAX {
            assert!(inline.is_ok(), "{inline:?}");
            continue;
        }
        let want = format!("invalid_utf8 Some({fault}) Some({})", event_around(fault));
        assert_eq!(inline, Err(want), "{bytes:?} at {at}");
        let lossy = ReaderOptions::new().lossy_utf8(true);
        let mut r =
            TraceReader::sendable(Cursor::new(gzip(&doc)), lossy.decode_thread(true)).unwrap();
        while r.next_event().unwrap().is_some() {}
        assert_eq!(r.finish().unwrap().utf8_replacements, 1, "{bytes:?}");
    }
}

#[test]
fn dropping_a_threaded_reader_early_stops_its_thread() {
    // 64 MiB of events; read one and drop. The producer must not block
    // forever on its bounded channel (the test would hang).
    let mut doc = b"[".to_vec();
    for i in 0..1_000_000 {
        doc.extend_from_slice(format!("{{\"ph\":\"i\",\"ts\":{i}}},").as_bytes());
    }
    doc.extend_from_slice(b"{}]");
    let mut r = TraceReader::sendable(
        Cursor::new(gzip(&doc)),
        ReaderOptions::new().decode_thread(true),
    )
    .unwrap();
    assert!(r.next_event().unwrap().is_some());
    drop(r);
}

/// An endless trace that reads slowly and says when it has been dropped.
struct SlowEndlessTrace {
    started: bool,
    reads: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
}

impl Read for SlowEndlessTrace {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(20));
        let event: &[u8] = if self.started {
            b"{\"ph\":\"i\"},"
        } else {
            self.started = true;
            b"[{\"ph\":\"i\"},"
        };
        let n = event.len().min(buf.len());
        buf[..n].copy_from_slice(&event[..n]);
        Ok(n)
    }
}

impl Drop for SlowEndlessTrace {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

#[test]
fn dropping_a_threaded_reader_releases_its_input_before_returning() {
    // Finding 5 of the fuzz report: the decode thread used to be detached, so
    // the input (a file descriptor, a pipe) stayed open after the reader was
    // dropped, and an endless input kept being read until the next send.
    let reads = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicBool::new(false));
    let input = SlowEndlessTrace {
        started: false,
        reads: Arc::clone(&reads),
        dropped: Arc::clone(&dropped),
    };
    let r = TraceReader::sendable(input, ReaderOptions::new().decode_thread(true)).unwrap();
    // A chunk is 256 KiB: the thread is still filling its first one, a read
    // in progress or about to start, when the reader goes.
    std::thread::sleep(Duration::from_millis(100));
    // Drop on another thread so a drop that never returns fails the test
    // instead of hanging it.
    let (done, dropping) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(r);
        let _ = done.send(());
    });
    assert!(
        dropping.recv_timeout(Duration::from_secs(30)).is_ok(),
        "dropping the reader did not return: its thread kept reading the endless input"
    );
    assert!(
        dropped.load(Ordering::SeqCst),
        "the input outlived its reader"
    );
    let after_drop = reads.load(Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        reads.load(Ordering::SeqCst),
        after_drop,
        "the input was read after its reader was dropped"
    );
}

/// The offset of one event in the last fifth of each decode chunk, where
/// the decode thread scans events ahead of the reader.
fn events_late_in_chunks(json: &[u8]) -> Vec<usize> {
    let chunk = 256 << 10;
    let mut r = TraceReader::new(json).unwrap();
    let mut found: Vec<usize> = Vec::new();
    while let Some(e) = r.next_event().unwrap() {
        let at = e.offset() as usize;
        let late = at % chunk > chunk * 4 / 5 && at % chunk < chunk - 1024;
        if late && found.last().is_none_or(|f| f / chunk < at / chunk) {
            found.push(at);
        }
    }
    found
}

#[test]
fn events_scanned_ahead_read_like_events_scanned_by_the_reader() {
    // Where the decode thread starts scanning ahead is a guess: a `{` after
    // `},`. Strings of a real trace that contain exactly that (and `{}`,
    // which scans as an event) put guesses inside strings; the reader must
    // only take events that start where its own scan arrives.
    let Some(json) = nccl_json() else { return };
    let traps: [&[u8]; 3] = [b"}, {}, {} ", b"},{}", b"}, {"];
    let key = b"\"name\": \"";
    let mut trapped = Vec::with_capacity(json.len() + json.len() / 20);
    let mut rest = &json[..];
    let mut n = 0;
    while let Some(at) = rest.windows(key.len()).position(|w| w == key) {
        trapped.extend_from_slice(&rest[..at + key.len()]);
        if n % 5 == 0 {
            trapped.extend_from_slice(traps[n / 5 % traps.len()]);
        }
        n += 1;
        rest = &rest[at + key.len()..];
    }
    trapped.extend_from_slice(rest);
    assert!(n > 10_000, "{n} names");
    for bytes in [trapped.clone(), gzip(&trapped)] {
        let [inline, threaded] = both(&bytes, ReaderOptions::default());
        assert!(inline.is_ok(), "{inline:?}");
        assert_eq!(inline, threaded);
    }
}

#[test]
fn events_are_scanned_ahead_at_the_depth_of_their_form() {
    // The same real events in the array form sit one level higher than in
    // the object form: the depth limit falls one level deeper inside them.
    // 1.5 MB of the nccl trace's events, six decode chunks, each form.
    let Some(json) = nccl_json() else { return };
    let (mut first, mut end) = (None, 0);
    let mut r = TraceReader::new(&json[..]).unwrap();
    while let Some(e) = r.next_event().unwrap() {
        first = first.or(Some(e.offset() as usize));
        end = e.offset() as usize + e.raw().len();
        if end > 1_500_000 {
            break;
        }
    }
    let events = &json[first.unwrap()..end];
    let array = [b"[", events, b"]"].concat();
    let object = [&json[..end], b"]}"].concat();
    // `max_depth(6)`: `[[[1]]]` in `args` reaches depth 6 in the array
    // form, 7 in the object form.
    for (form, bytes, event_depth) in [("array", &array, 2), ("object", &object, 3)] {
        let [inline, threaded] = both(bytes, ReaderOptions::default());
        assert!(inline.is_ok(), "{form}: {inline:?}");
        assert_eq!(inline, threaded, "{form}");
        let late = events_late_in_chunks(bytes);
        assert!(late.len() >= 5, "{form}: {late:?}");
        for at in late.into_iter().skip(1).step_by(3) {
            let args = at
                + bytes[at..]
                    .windows(9)
                    .position(|w| w == b"\"args\": {")
                    .unwrap();
            for nesting in [1, 2, 3] {
                let deep = format!(
                    "\"deep\": {}1{}, ",
                    "[".repeat(nesting),
                    "]".repeat(nesting)
                );
                let mut doc = bytes.to_vec();
                doc.splice(args + 9..args + 9, deep.bytes());
                let [inline, threaded] = both(&doc, ReaderOptions::new().max_depth(6));
                let fits = event_depth + 1 + nesting <= 6;
                assert_eq!(inline.is_ok(), fits, "{form} {nesting} at {at}: {inline:?}");
                assert_eq!(inline, threaded, "{form} {nesting} at {at}");
            }
        }
    }
}
