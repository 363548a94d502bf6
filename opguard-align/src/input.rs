//! Input stage: a file's decoded bytes with the SHA-256 of its encoded
//! bytes, gzip detected from the first bytes, and byte limits on both.
//!
//! Reading, hashing and decompressing run on a helper thread that hands
//! decoded chunks over a bounded channel, so they overlap with the caller's
//! parsing. Memory is a few chunks.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use flate2::bufread::MultiGzDecoder;
use opguard_trace::Sha256Digest;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind};

const CHUNK: usize = 1 << 20;

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

/// This crate's error carried through `io::Error`.
#[derive(Debug)]
struct Carried(Error);

impl std::fmt::Display for Carried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Carried {}

enum Msg {
    Data(Vec<u8>),
    End(Result<Sha256Digest, Error>),
}

/// The decoded bytes of a file.
pub(crate) struct Decoded {
    rx: Receiver<Msg>,
    spare: Sender<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
    end: Option<Result<Sha256Digest, Error>>,
}

/// The helper thread: read, hash, decompress, count, send.
fn produce(
    file: File,
    max_encoded: u64,
    max_decoded: u64,
    what: &'static str,
    tx: std::sync::mpsc::SyncSender<Msg>,
    spare: Receiver<Vec<u8>>,
) {
    let map_err = |e: io::Error| {
        if e.get_ref().is_some_and(|i| i.is::<LimitHit>()) {
            Error::new(ErrorKind::LimitExceeded {
                what,
                limit: max_encoded,
            })
        } else {
            Error::io("reading an input", e)
        }
    };
    let mut buffered = BufReader::with_capacity(
        256 << 10,
        Hashing {
            inner: file,
            hasher: Sha256::new(),
            count: 0,
            limit: max_encoded,
        },
    );
    let gzip = match buffered.fill_buf() {
        Ok(head) => head.starts_with(&[0x1f, 0x8b]),
        Err(e) => {
            let _ = tx.send(Msg::End(Err(map_err(e))));
            return;
        }
    };
    let mut decoder: Box<dyn Read> = if gzip {
        Box::new(MultiGzDecoder::new(&mut buffered))
    } else {
        Box::new(&mut buffered)
    };
    let mut decoded = 0u64;
    loop {
        let mut chunk = spare.try_recv().unwrap_or_default();
        chunk.resize(CHUNK, 0);
        let n = loop {
            match decoder.read(&mut chunk) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let n = match n {
            Ok(n) => n,
            Err(e) => {
                let _ = tx.send(Msg::End(Err(map_err(e))));
                return;
            }
        };
        if n == 0 {
            break;
        }
        decoded += n as u64;
        if decoded > max_decoded {
            let _ = tx.send(Msg::End(Err(Error::new(ErrorKind::LimitExceeded {
                what,
                limit: max_decoded,
            }))));
            return;
        }
        chunk.truncate(n);
        if tx.send(Msg::Data(chunk)).is_err() {
            // The reader went away.
            return;
        }
    }
    drop(decoder);
    let digest = Sha256Digest(buffered.into_inner().hasher.finalize().into());
    let _ = tx.send(Msg::End(Ok(digest)));
}

impl Decoded {
    /// Opens `path`; `what` names it in limit errors.
    pub(crate) fn open(
        path: &Path,
        max_encoded: u64,
        max_decoded: u64,
        what: &'static str,
    ) -> Result<Self, Error> {
        let file =
            File::open(path).map_err(|e| Error::io("opening an input", e).with_path(path))?;
        let (tx, rx) = sync_channel(4);
        let (spare_tx, spare_rx) = channel();
        std::thread::Builder::new()
            .name("opguard-align-input".into())
            .spawn(move || produce(file, max_encoded, max_decoded, what, tx, spare_rx))
            .map_err(|e| Error::io("starting the input thread", e).with_path(path))?;
        Ok(Decoded {
            rx,
            spare: spare_tx,
            cur: Vec::new(),
            pos: 0,
            end: None,
        })
    }

    /// Reads to the end and returns the SHA-256 of the encoded bytes.
    pub(crate) fn finish(mut self) -> Result<Sha256Digest, Error> {
        loop {
            self.pos = self.cur.len();
            match self.next_chunk() {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => return Err(self.error(e)),
            }
        }
        self.end.take().unwrap_or_else(|| {
            Err(Error::io(
                "reading an input",
                io::ErrorKind::UnexpectedEof.into(),
            ))
        })
    }

    /// Turns a read error into this crate's error.
    pub(crate) fn error(&self, e: io::Error) -> Error {
        if e.get_ref().is_some_and(|i| i.is::<Carried>()) {
            if let Some(inner) = e.into_inner() {
                if let Ok(carried) = inner.downcast::<Carried>() {
                    return carried.0;
                }
            }
            return Error::io("reading an input", io::Error::other("input failed"));
        }
        Error::io("reading an input", e)
    }

    /// Moves to the next chunk; false at the end of input.
    fn next_chunk(&mut self) -> io::Result<bool> {
        if self.end.is_some() {
            return self.end_state();
        }
        match self.rx.recv() {
            Ok(Msg::Data(chunk)) => {
                let old = std::mem::replace(&mut self.cur, chunk);
                let _ = self.spare.send(old);
                self.pos = 0;
                Ok(true)
            }
            Ok(Msg::End(result)) => {
                self.end = Some(result);
                self.end_state()
            }
            Err(_) => Err(io::Error::other(Carried(Error::io(
                "reading an input",
                io::Error::other("the input thread stopped"),
            )))),
        }
    }

    fn end_state(&mut self) -> io::Result<bool> {
        match &self.end {
            Some(Ok(_)) | None => Ok(false),
            Some(Err(_)) => match self.end.take() {
                Some(Err(e)) => Err(io::Error::other(Carried(e))),
                _ => Ok(false),
            },
        }
    }
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.cur.len() {
            if !self.next_chunk()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.cur.len() - self.pos);
        buf[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl BufRead for Decoded {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos >= self.cur.len() {
            if !self.next_chunk()? {
                return Ok(&[]);
            }
        }
        Ok(&self.cur[self.pos..])
    }
    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.cur.len());
    }
}
