//! The decoded input on its own: limits at N and N + 1, never more than one
//! byte past a limit read, errors that survive `io::Read`, and the same
//! bytes and digest on a second thread.

use std::io::{Cursor, Read};

use opguard_trace::{
    Compression, DecodedInput, ErrorKind, InputOptions, Limit, ReaderOptions, TraceReader,
};
use sha2::Digest;

use crate::gzip;

const DOC: &[u8] = br#"{"traceEvents":[{"ph":"X","args":{"a":[[1]]}}]}"#;

/// Counts the bytes its reader handed out.
struct Counted<'a> {
    inner: &'a [u8],
    handed: usize,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.handed += n;
        Ok(n)
    }
}

fn decode(bytes: &[u8], options: impl Into<InputOptions>) -> Result<Vec<u8>, opguard_trace::Error> {
    let mut input = DecodedInput::new(bytes, options)?;
    let mut out = Vec::new();
    input.read_to_end(&mut out)?;
    Ok(out)
}

#[test]
fn decoded_bytes_and_digest_match_an_independent_decoder() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for path in traces.into_iter().take(4) {
        let encoded = std::fs::read(&path).unwrap();
        let mut expected = Vec::new();
        if encoded.starts_with(&[0x1f, 0x8b]) {
            flate2::read::MultiGzDecoder::new(&encoded[..])
                .read_to_end(&mut expected)
                .unwrap();
        } else {
            expected = encoded.clone();
        }
        for threaded in [false, true] {
            let options = ReaderOptions::new().decode_thread(threaded);
            let mut input = DecodedInput::sendable(Cursor::new(encoded.clone()), &options)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut got = Vec::new();
            input.read_to_end(&mut got).unwrap();
            assert!(got == expected, "{}", path.display());
            let summary = input.finish().unwrap();
            assert_eq!(
                summary.sha256.0,
                <[u8; 32]>::from(sha2::Sha256::digest(&encoded)),
                "{}",
                path.display()
            );
            assert_eq!(summary.encoded_bytes, encoded.len() as u64);
            assert_eq!(summary.decoded_bytes, expected.len() as u64);
        }
    }
}

#[test]
fn decoded_limit_at_n_and_n_plus_one_through_io_read() {
    let gz = gzip(DOC);
    let n = DOC.len() as u64;
    for bytes in [DOC, &gz[..]] {
        // The input's own options, and a reader's, which carry the same limit.
        let at = |limit| InputOptions::new().max_decoded_bytes(limit);
        let reader_at = |limit| ReaderOptions::new().max_decoded_bytes(limit);
        assert_eq!(decode(bytes, at(n)).unwrap(), DOC);
        assert_eq!(decode(bytes, &reader_at(n)).unwrap(), DOC);
        for err in [
            decode(bytes, at(n - 1)).unwrap_err(),
            decode(bytes, &reader_at(n - 1)).unwrap_err(),
        ] {
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::LimitExceeded { which: Limit::DecodedBytes, limit } if *limit == n - 1
                ),
                "{err:?}"
            );
        }
    }
}

#[test]
fn nothing_past_one_byte_over_the_encoded_limit_is_read() {
    let gz = gzip(DOC);
    for limit in [0u64, 1, 5, gz.len() as u64 - 1] {
        let mut counted = Counted {
            inner: &gz,
            handed: 0,
        };
        let options = ReaderOptions::new().max_encoded_bytes(limit);
        let result = DecodedInput::new(&mut counted, &options)
            .and_then(|mut input| Ok(input.read_to_end(&mut Vec::new())?));
        let err = result.unwrap_err();
        assert_eq!(err.code(), "limit_exceeded", "limit {limit}: {err}");
        assert!(
            counted.handed as u64 <= limit + 1,
            "limit {limit}: {} bytes read",
            counted.handed
        );
    }
}

#[test]
fn a_broken_gzip_stream_keeps_its_code_and_compressed_offset_through_io_read() {
    let gz = gzip(DOC);
    let err = decode(&gz[..gz.len() - 10], &ReaderOptions::new()).unwrap_err();
    assert_eq!(err.code(), "gzip_truncated", "{err}");
    assert!(err.encoded_offset().is_some(), "{err:?}");
    let mut input = DecodedInput::new(&gz[..], &ReaderOptions::new()).unwrap();
    assert_eq!(input.compression(), Compression::Gzip);
    input.read_to_end(&mut Vec::new()).unwrap();
}

#[test]
fn the_largest_limits_mean_no_limit() {
    // `u64::MAX + 1` used to overflow (a panic in debug builds).
    let options = ReaderOptions::new()
        .max_encoded_bytes(u64::MAX)
        .max_decoded_bytes(u64::MAX);
    let gz = gzip(DOC);
    for bytes in [DOC, &gz[..]] {
        for threaded in [false, true] {
            let options = options.clone().decode_thread(threaded);
            let mut reader = TraceReader::sendable(Cursor::new(bytes.to_vec()), options).unwrap();
            while reader.next_event().unwrap().is_some() {}
            assert_eq!(reader.finish().unwrap().events, 1);
        }
    }
}
