//! Input stage: a file's decoded bytes with the SHA-256 of its encoded
//! bytes, gzip detected from the first bytes, and byte limits on both.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;
use opguard_trace::Sha256Digest;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind};

/// Hashes, counts and limits the encoded bytes.
struct Hashing {
    inner: File,
    hasher: Sha256,
    count: u64,
    limit: u64,
}

#[derive(Debug)]
struct LimitHit;

impl std::fmt::Display for LimitHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("limit exceeded")
    }
}

impl std::error::Error for LimitHit {}

impl Read for Hashing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.count += n as u64;
        if self.count > self.limit {
            return Err(io::Error::other(LimitHit));
        }
        Ok(n)
    }
}

enum Inner {
    Plain(BufReader<Hashing>),
    Gzip(Box<MultiGzDecoder<BufReader<Hashing>>>),
}

/// The decoded bytes of a file.
pub(crate) struct Decoded {
    inner: Inner,
    decoded: u64,
    max_decoded: u64,
    what: &'static str,
}

impl Decoded {
    /// Opens `path`; `what` names it in limit errors.
    pub(crate) fn open(
        path: &Path,
        max_encoded: u64,
        max_decoded: u64,
        what: &'static str,
    ) -> Result<Self, Error> {
        let file = File::open(path).map_err(|e| Error::io("opening an input", e).with_path(path))?;
        let mut buffered = BufReader::with_capacity(
            256 << 10,
            Hashing {
                inner: file,
                hasher: Sha256::new(),
                count: 0,
                limit: max_encoded,
            },
        );
        let gzip = {
            let head = buffered
                .fill_buf()
                .map_err(|e| map_err(e, what, max_encoded).with_path(path))?;
            head.starts_with(&[0x1f, 0x8b])
        };
        let inner = if gzip {
            Inner::Gzip(Box::new(MultiGzDecoder::new(buffered)))
        } else {
            Inner::Plain(buffered)
        };
        Ok(Decoded {
            inner,
            decoded: 0,
            max_decoded,
            what,
        })
    }

    /// Reads to the end and returns the SHA-256 of the encoded bytes.
    pub(crate) fn finish(mut self) -> Result<Sha256Digest, Error> {
        io::copy(&mut self, &mut io::sink()).map_err(|e| map_err(e, self.what, u64::MAX))?;
        let hashing = match self.inner {
            Inner::Plain(b) => b.into_inner(),
            Inner::Gzip(d) => d.into_inner().into_inner(),
        };
        Ok(Sha256Digest(hashing.hasher.finalize().into()))
    }

    /// Turns a read error into this crate's error.
    pub(crate) fn error(&self, e: io::Error) -> Error {
        let limit = match &self.inner {
            Inner::Plain(b) => b.get_ref().limit,
            Inner::Gzip(d) => d.get_ref().get_ref().limit,
        };
        if e.get_ref().is_some_and(|i| i.is::<DecodedLimit>()) {
            return Error::new(ErrorKind::LimitExceeded {
                what: self.what,
                limit: self.max_decoded,
            });
        }
        map_err(e, self.what, limit)
    }
}

#[derive(Debug)]
struct DecodedLimit;

impl std::fmt::Display for DecodedLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("decoded limit exceeded")
    }
}

impl std::error::Error for DecodedLimit {}

fn map_err(e: io::Error, what: &'static str, limit: u64) -> Error {
    if e.get_ref().is_some_and(|i| i.is::<LimitHit>()) {
        Error::new(ErrorKind::LimitExceeded { what, limit })
    } else {
        Error::io("reading an input", e)
    }
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match &mut self.inner {
            Inner::Plain(b) => b.read(buf)?,
            Inner::Gzip(d) => d.read(buf)?,
        };
        self.decoded += n as u64;
        if self.decoded > self.max_decoded {
            return Err(io::Error::other(DecodedLimit));
        }
        Ok(n)
    }
}
