//! Limits hold at N and fail at N + 1, while streaming.

use opguard_trace::{ErrorKind, Limit, ReaderOptions};

use crate::{gzip, read_all};

const DOC: &[u8] = br#"{"traceEvents":[{"ph":"X","args":{"a":[[1]]}}]}"#;

#[test]
fn decoded_limit_at_n_and_n_plus_one() {
    let n = DOC.len() as u64;
    assert!(read_all(DOC, ReaderOptions::new().max_decoded_bytes(n)).is_ok());
    let err = read_all(DOC, ReaderOptions::new().max_decoded_bytes(n - 1)).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::LimitExceeded {
            which: Limit::DecodedBytes,
            limit
        } if *limit == n - 1
    ));
    assert_eq!(err.offset(), Some(n - 1));
}

#[test]
fn encoded_limit_at_n_and_n_plus_one() {
    let gz = gzip(DOC);
    let n = gz.len() as u64;
    assert!(read_all(&gz, ReaderOptions::new().max_encoded_bytes(n)).is_ok());
    let err = read_all(&gz, ReaderOptions::new().max_encoded_bytes(n - 1)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::LimitExceeded {
                which: Limit::EncodedBytes,
                ..
            }
        ),
        "{err:?}"
    );
    // Plain input: encoded and decoded are the same bytes.
    let plain = DOC.len() as u64;
    assert!(read_all(DOC, ReaderOptions::new().max_encoded_bytes(plain)).is_ok());
    assert_eq!(
        read_all(DOC, ReaderOptions::new().max_encoded_bytes(plain - 1))
            .unwrap_err()
            .code(),
        "limit_exceeded"
    );
}

#[test]
fn depth_limit_at_n_and_n_plus_one() {
    // The top-level object is depth 1, traceEvents 2, the event 3, args 4,
    // "a" 5 and its inner array 6.
    assert!(read_all(DOC, ReaderOptions::new().max_depth(6)).is_ok());
    let err = read_all(DOC, ReaderOptions::new().max_depth(5)).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::LimitExceeded {
            which: Limit::Depth,
            limit: 5
        }
    ));
    assert_eq!(err.event_index(), Some(0));
}

#[test]
fn deep_nesting_cannot_overflow_the_stack() {
    let mut doc = b"[{\"args\":".to_vec();
    doc.extend(std::iter::repeat_n(b'[', 1_000_000));
    let err = read_all(&doc, ReaderOptions::default()).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
}

#[test]
fn a_gzip_bomb_stops_at_the_limit() {
    // 1 GiB of whitespace inside an array compresses to about 1 MiB.
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    use std::io::Write;
    enc.write_all(b"[").unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..1024 {
        enc.write_all(&spaces).unwrap();
    }
    enc.write_all(b"]").unwrap();
    let bomb = enc.finish().unwrap();
    assert!(bomb.len() < 4 << 20, "{}", bomb.len());
    let limit = 8 << 20;
    let mut r = opguard_trace::TraceReader::with_options(
        &bomb[..],
        ReaderOptions::new().max_decoded_bytes(limit),
    )
    .unwrap();
    let err = r.next_event().unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    assert_eq!(err.offset(), Some(limit));
    // It stopped within one read of the limit rather than inflating it all.
    assert!(r.decoded_bytes() <= limit + 1, "{}", r.decoded_bytes());
}

#[test]
fn one_value_larger_than_the_value_limit_is_refused() {
    let big = format!(r#"[{{"name":"{}"}}]"#, "x".repeat(1 << 20));
    let ok = read_all(
        big.as_bytes(),
        ReaderOptions::new().max_value_bytes(2 << 20),
    );
    assert!(ok.is_ok());
    let err = read_all(
        big.as_bytes(),
        ReaderOptions::new().max_value_bytes(512 << 10),
    )
    .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::LimitExceeded {
            which: Limit::ValueBytes,
            ..
        }
    ));
}

/// A value limit below the reader's buffer holds at N and fails at N + 1,
/// for events and for top-level metadata values (it used to be checked only
/// when one value filled the 256 KiB buffer, so `max_value_bytes(1000)` let
/// a 100 KB event through).
#[test]
fn value_limit_below_the_buffer_at_n_and_n_plus_one() {
    let event = format!(r#"{{"ph":"X","name":"{}"}}"#, "k".repeat(100_000));
    let doc = format!(r#"{{"traceEvents":[{{"ph":"i"}}, {event}]}}"#);
    let n = event.len();
    assert!(read_all(doc.as_bytes(), ReaderOptions::new().max_value_bytes(n)).is_ok());
    let err = read_all(doc.as_bytes(), ReaderOptions::new().max_value_bytes(n - 1)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::LimitExceeded { which: Limit::ValueBytes, limit } if *limit == (n - 1) as u64
        ),
        "{err:?}"
    );
    assert_eq!(err.offset(), Some(doc.find(&event).unwrap() as u64));
    assert_eq!(err.event_index(), Some(1));

    let meta = format!(r#"{{"big":"{}"}}"#, "m".repeat(5_000));
    let doc = format!(r#"{{"deviceProperties":{meta},"traceEvents":[]}}"#);
    let n = meta.len();
    assert!(read_all(doc.as_bytes(), ReaderOptions::new().max_value_bytes(n)).is_ok());
    let err = read_all(doc.as_bytes(), ReaderOptions::new().max_value_bytes(n - 1)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::LimitExceeded {
                which: Limit::ValueBytes,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.offset(), Some(doc.find(&meta).unwrap() as u64));
    assert_eq!(err.path(), Some("deviceProperties"));
}
