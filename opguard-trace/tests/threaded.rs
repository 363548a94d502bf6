//! The decode thread changes where work happens, never what is read.

use std::io::Cursor;

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
                Ok(Some(e)) => raw.push_str(e.raw()),
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
