//! The decode thread as a host sees it: the constructors whose input can
//! move to a thread start one, named `opguard-decode`, and only when the
//! options ask. A test binary of its own: it looks at every thread of the
//! process, and the other tests start decode threads of their own.
#![cfg(target_os = "linux")]

use std::io::{Cursor, Read};

use opguard_trace::{DecodedInput, InputOptions, ReaderOptions, TraceReader};

/// This process's threads named as the decode thread, by the names a
/// profiler or `top -H` shows.
fn decode_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim_end() == "opguard-decode")
        .count()
}

/// Dropping the input stops its thread and joins it. The kernel may list
/// a joined thread for a moment longer (it is reaped just after it wakes
/// the joiner), so this waits for the list, a few seconds at most.
fn assert_no_decode_thread_remains() {
    for _ in 0..5_000 {
        if decode_threads() == 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("a decode thread outlived its input");
}

/// A trace larger than the thread runs ahead by (four chunks of 256 KiB in
/// flight, one being read), so after the first event the thread is still
/// there, waiting to hand over the next chunk.
fn trace() -> Vec<u8> {
    let mut doc = b"{\"traceEvents\":[".to_vec();
    for i in 0..200_000 {
        doc.extend_from_slice(format!("{{\"ph\":\"i\",\"name\":\"e\",\"ts\":{i}}},").as_bytes());
    }
    doc.extend_from_slice(b"{}]}");
    doc
}

/// Reading the first byte (or event) waits for the thread's first chunk, so
/// a thread that was started has named itself by then.
fn threads_while_reading(decode_thread: bool, doc: &[u8], path: &std::path::Path) -> [usize; 3] {
    let input_options = InputOptions::new().decode_thread(decode_thread);
    let mut byte = [0u8; 1];

    let mut input = DecodedInput::sendable(Cursor::new(doc.to_vec()), input_options).unwrap();
    input.read_exact(&mut byte).unwrap();
    let sendable = decode_threads();
    drop(input);
    assert_no_decode_thread_remains();

    let mut input = DecodedInput::open(path, input_options).unwrap();
    input.read_exact(&mut byte).unwrap();
    let opened = decode_threads();
    drop(input);
    assert_no_decode_thread_remains();

    let options = ReaderOptions::new().decode_thread(decode_thread);
    let mut reader = TraceReader::sendable(Cursor::new(doc.to_vec()), options).unwrap();
    assert!(reader.next_event().unwrap().is_some());
    let trace_reader = decode_threads();
    drop(reader);
    assert_no_decode_thread_remains();
    [sendable, opened, trace_reader]
}

#[test]
fn a_decode_thread_is_started_only_when_asked_and_is_named() {
    let doc = trace();
    assert!(doc.len() > 6 << 18, "{} bytes", doc.len());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.json");
    std::fs::write(&path, &doc).unwrap();
    assert_eq!(threads_while_reading(false, &doc, &path), [0, 0, 0]);
    assert_eq!(threads_while_reading(true, &doc, &path), [1, 1, 1]);
}
