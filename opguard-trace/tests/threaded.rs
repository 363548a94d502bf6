//! The decode thread changes where work happens, never what is read.

use std::io::{Cursor, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use opguard_trace::{ReaderOptions, TraceReader};

use crate::gzip;

fn both(bytes: &[u8], options: ReaderOptions) -> [Result<(u64, String), String>; 2] {
    let run = |threaded: bool| {
        let input = Cursor::new(bytes.to_vec());
        let mut r = TraceReader::with_thread(input, options.clone().decode_thread(threaded))
            .map_err(|e| e.code().to_owned())?;
        let mut raw = String::new();
        loop {
            match r.next_event() {
                Ok(Some(e)) => {
                    // Where each event sits, not only its text: a reader
                    // that scans chunks in place must keep its offsets.
                    raw.push_str(&e.offset().to_string());
                    raw.push_str(e.raw());
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
            format!("{} {} {}", s.sha256, s.encoded_bytes, raw.len()),
        ))
    };
    [run(false), run(true)]
}

#[test]
fn real_traces_read_the_same_on_a_second_thread() {
    for path in opguard_testdata::hta_traces() {
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

#[test]
fn errors_deep_in_a_large_trace_are_the_same_on_a_second_thread() {
    // 9.8 MB decoded: dozens of the decode thread's chunks before the
    // error, each scanned where it lies, with events cut between them.
    let Some(path) =
        opguard_testdata::shared_file("traces/hta/nccl_parser_config__nccl_data.json.gz")
    else {
        return;
    };
    let json = opguard_testdata::decoded(&path);
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
    let Some(path) =
        opguard_testdata::shared_file("traces/hta/nccl_parser_config__nccl_data.json.gz")
    else {
        return;
    };
    let json = opguard_testdata::decoded(&path);
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
            TraceReader::with_thread(Cursor::new(gzip(&doc)), lossy.decode_thread(true)).unwrap();
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
    let mut r = TraceReader::with_thread(
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
    let r = TraceReader::with_thread(input, ReaderOptions::new().decode_thread(true)).unwrap();
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
