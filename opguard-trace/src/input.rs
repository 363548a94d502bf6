//! Input stage: the decoded bytes of a file, plain or gzip.
//!
//! Bytes flow `input → (SHA-256, encoded limit) → gzip? → (decoded limit)`.
//! gzip is detected from the first two bytes, never from a file name. At
//! most one byte past either limit is read, enough to know it is exceeded.
//! [`TraceReader`](crate::TraceReader) parses through a [`DecodedInput`];
//! any other file that needs the same identity and limits (a records file,
//! a second pass over an export) reads through one too.
//!
//! Work stays on the caller's thread unless
//! [`InputOptions::decode_thread`] asks for a second one: a library
//! embedded in a profiler starts no thread its host did not ask for.
//!
//! This stage knows bytes, not events: it depends on nothing of the reader.
//! A stage above may give the decode thread work to do on each chunk it
//! decodes ([`ChunkWork`]) and gets the result handed over with the chunk;
//! for a [`TraceReader`](crate::TraceReader) that work scans events ahead
//! of the reader, about half of each chunk.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use flate2::bufread::MultiGzDecoder;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Limit};
use opguard_model::Sha256Digest;

/// Default limit on encoded (file) bytes: 256 MiB.
pub const DEFAULT_MAX_ENCODED_BYTES: u64 = 256 << 20;
/// Default limit on decoded bytes: 256 MiB.
pub const DEFAULT_MAX_DECODED_BYTES: u64 = 256 << 20;

/// Bytes the decode thread hands over at a time.
#[cfg(not(feature = "fuzzing-small-chunks"))]
const HANDOFF_BYTES: usize = 256 << 10;
/// With `fuzzing-small-chunks`: inputs of a few KiB cross chunk boundaries.
#[cfg(feature = "fuzzing-small-chunks")]
const HANDOFF_BYTES: usize = 1 << 10;

/// Room the decode thread leaves in front of each chunk it fills, so a
/// reader can put the unscanned end of its previous buffer there and scan
/// the chunk where it is instead of copying it into a buffer of its own.
#[cfg(not(feature = "fuzzing-small-chunks"))]
pub(crate) const HEADROOM: usize = 4 << 10;
/// With `fuzzing-small-chunks`: a reader reaches the swap of chunks (and the
/// events scanned ahead in them) after a few hundred bytes.
#[cfg(feature = "fuzzing-small-chunks")]
pub(crate) const HEADROOM: usize = 256;

/// Decoded bytes, held as a `String` when all of them are valid UTF-8.
///
/// The decode thread checks each chunk as it hands it over (and the
/// reader, without the thread, its own buffer once per refill that fills it), so
/// events sliced out of a valid buffer at their ASCII delimiters need no
/// UTF-8 check of their own on the scanning thread. A buffer that is not
/// valid as a whole (an invalid byte, or a multi-byte character cut by the
/// buffer's end) stays bytes, and its events are checked one by one, which
/// finds the exact event and offset of a fault.
pub(crate) enum Buffer {
    /// Every byte is valid UTF-8.
    Text(String),
    /// Not known to be valid UTF-8.
    Bytes(Vec<u8>),
}

impl Buffer {
    /// Checks `bytes` once: text if valid.
    pub(crate) fn checked(bytes: Vec<u8>) -> Buffer {
        match String::from_utf8(bytes) {
            Ok(text) => Buffer::Text(text),
            Err(e) => Buffer::Bytes(e.into_bytes()),
        }
    }
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Buffer::Text(t) => t.as_bytes(),
            Buffer::Bytes(b) => b,
        }
    }
    /// The whole buffer as text, when it is known to be valid.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Buffer::Text(t) => Some(t),
            Buffer::Bytes(_) => None,
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.as_bytes().len()
    }
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            Buffer::Text(t) => t.into_bytes(),
            Buffer::Bytes(b) => b,
        }
    }
    /// The bytes, to write into: the buffer is no longer known to be text.
    pub(crate) fn bytes_mut(&mut self) -> &mut Vec<u8> {
        if let Buffer::Text(t) = self {
            *self = Buffer::Bytes(std::mem::take(t).into_bytes());
        }
        match self {
            Buffer::Bytes(b) => b,
            Buffer::Text(_) => unreachable!("converted to bytes above"),
        }
    }
}

/// What [`Pipeline::take_chunk`] could hand over.
pub(crate) enum Handoff<A> {
    /// A decoded chunk, its bytes from [`HEADROOM`] on (never empty); the
    /// room in front of them holds NUL bytes. With what the decode thread's
    /// [`ChunkWork`] made of it.
    Chunk(Buffer, A),
    /// The end of input.
    End,
    /// No chunk to hand over: read into a buffer instead.
    Copy,
}

/// The name of the decode thread, so a host can see whose thread it is.
const DECODE_THREAD_NAME: &str = "opguard-decode";

/// How the input was encoded, detected from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// Plain JSON.
    None,
    /// gzip (one or more members, as `gzip -d` accepts).
    Gzip,
}

/// How a [`DecodedInput`] reads: its two byte limits and whether a second
/// thread decodes. Build with [`InputOptions::new`] and the setters, or
/// take a [`ReaderOptions`](crate::ReaderOptions)' own
/// (`InputOptions::from(&reader_options)`): every constructor of
/// [`DecodedInput`] accepts either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputOptions {
    /// Most bytes read from the input (compressed size for gzip).
    pub max_encoded_bytes: u64,
    /// Most bytes after decompression.
    pub max_decoded_bytes: u64,
    /// Read, hash and decompress on a second thread, named
    /// `opguard-decode`, for the constructors whose input can move to one
    /// ([`DecodedInput::open`], [`DecodedInput::sendable`]). Off by
    /// default: a library embedded in a profiler must not start threads its
    /// host did not ask for.
    pub decode_thread: bool,
}

impl Default for InputOptions {
    fn default() -> Self {
        InputOptions {
            max_encoded_bytes: DEFAULT_MAX_ENCODED_BYTES,
            max_decoded_bytes: DEFAULT_MAX_DECODED_BYTES,
            decode_thread: false,
        }
    }
}

impl InputOptions {
    /// The defaults: 256 MiB encoded and decoded, no thread.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`InputOptions::max_encoded_bytes`].
    pub fn max_encoded_bytes(mut self, n: u64) -> Self {
        self.max_encoded_bytes = n;
        self
    }
    /// Sets [`InputOptions::max_decoded_bytes`].
    pub fn max_decoded_bytes(mut self, n: u64) -> Self {
        self.max_decoded_bytes = n;
        self
    }
    /// Sets [`InputOptions::decode_thread`].
    pub fn decode_thread(mut self, on: bool) -> Self {
        self.decode_thread = on;
        self
    }
}

/// Work the decode thread does on each chunk it hands over, for the stage
/// that reads the chunks (the trace reader scans events ahead of itself).
/// This stage only carries the result with the chunk and takes it back,
/// spent, to be reused: it never looks inside.
pub(crate) trait ChunkWork: Send + 'static {
    /// What the work makes of one chunk.
    type Output: Default + Send + 'static;
    /// Works on `chunk` (its bytes from [`HEADROOM`] on); `first` when it
    /// holds the input's first decoded bytes. `spent` is an output the
    /// reader gave back, to reuse its allocations.
    fn work(&mut self, chunk: &Buffer, first: bool, spent: Self::Output) -> Self::Output;
}

/// No work: the chunks alone.
impl ChunkWork for () {
    type Output = ();
    fn work(&mut self, _: &Buffer, _: bool, _: ()) {}
}

/// What reading a whole input established.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputSummary {
    /// SHA-256 of the encoded bytes: the file's identity.
    pub sha256: Sha256Digest,
    /// Bytes read from the input.
    pub encoded_bytes: u64,
    /// Bytes after decompression.
    pub decoded_bytes: u64,
    /// Detected encoding.
    pub compression: Compression,
}

/// The decoded bytes of one input, with the SHA-256 of its encoded bytes
/// and the byte limits of [`InputOptions`] enforced while streaming.
///
/// Errors carry this crate's codes: `limit_exceeded` (with the limit),
/// `gzip_invalid` / `gzip_truncated` (with the compressed offset), `io`.
/// Through [`io::Read`] they travel inside an [`io::Error`];
/// `Error::from` that `io::Error` gives the original back.
///
/// ```
/// use std::io::Read;
/// use opguard_trace::{Compression, DecodedInput, InputOptions};
///
/// let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// std::io::Write::write_all(&mut gz, b"{\"format\":\"x\"}\n")?;
/// let encoded = gz.finish()?;
///
/// let mut input = DecodedInput::new(&encoded[..], InputOptions::new())?;
/// assert_eq!(input.compression(), Compression::Gzip);
/// let mut text = String::new();
/// input.read_to_string(&mut text)?;
/// assert_eq!(text, "{\"format\":\"x\"}\n");
/// let summary = input.finish()?;
/// assert_eq!(summary.encoded_bytes, encoded.len() as u64);
/// assert_eq!(summary.decoded_bytes, 15);
///
/// // One byte over the decoded limit is an error, never a shorter read.
/// let mut small = DecodedInput::new(&encoded[..], InputOptions::new().max_decoded_bytes(14))?;
/// let err = opguard_trace::Error::from(small.read_to_end(&mut Vec::new()).unwrap_err());
/// assert_eq!(err.code(), "limit_exceeded");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DecodedInput<R> {
    pipeline: Pipeline<R, ()>,
}

impl DecodedInput<File> {
    /// Opens a file; with [`InputOptions::decode_thread`] set, a second
    /// thread reads, hashes and decompresses it.
    pub fn open(path: impl AsRef<Path>, options: impl Into<InputOptions>) -> Result<Self, Error> {
        let pipeline = Pipeline::open(path, &options.into(), ())?;
        Ok(DecodedInput { pipeline })
    }
}

impl<R: Read + Send + 'static> DecodedInput<R> {
    /// Reads from `input`, which can move to another thread: with
    /// [`InputOptions::decode_thread`] set, a second thread reads, hashes
    /// and decompresses while this one works; without, none is started.
    /// The thread never outlives the input: dropping it stops the thread
    /// and waits for the `read` call it has in progress.
    pub fn sendable(input: R, options: impl Into<InputOptions>) -> Result<Self, Error> {
        let pipeline = Pipeline::sendable(input, &options.into(), ())?;
        Ok(DecodedInput { pipeline })
    }
}

impl<R: Read> DecodedInput<R> {
    /// Reads from `input` on this thread (whatever
    /// [`InputOptions::decode_thread`] says). Reads the first two bytes
    /// to detect gzip.
    pub fn new(input: R, options: impl Into<InputOptions>) -> Result<Self, Error> {
        let pipeline = Pipeline::new(input, &options.into())?;
        Ok(DecodedInput { pipeline })
    }

    /// The detected encoding.
    pub fn compression(&self) -> Compression {
        self.pipeline.compression()
    }

    /// Bytes decoded so far.
    pub fn decoded_bytes(&self) -> u64 {
        self.pipeline.decoded_bytes()
    }

    /// Bytes read from the input so far.
    pub fn encoded_bytes(&self) -> u64 {
        self.pipeline.encoded_bytes()
    }

    /// Reads decoded bytes into `dst`; 0 at the end of input. Never reads
    /// more than one byte past the decoded limit, and fails on that byte.
    pub fn read_decoded(&mut self, dst: &mut [u8]) -> Result<usize, Error> {
        self.pipeline.read_decoded(dst)
    }

    /// Reads what is left (checking the limits and the gzip stream) and
    /// returns the digest and counts of the whole input.
    pub fn finish(self) -> Result<InputSummary, Error> {
        self.pipeline.finish()
    }
}

/// Errors travel inside the `io::Error`; `Error::from` recovers them.
impl<R: Read> Read for DecodedInput<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_decoded(buf).map_err(io::Error::other)
    }
}

/// What a [`DecodedInput`] is, with the decode thread's [`ChunkWork`]
/// results (of type `A`) handed over with the chunks: the
/// [`TraceReader`](crate::TraceReader)'s input.
pub(crate) struct Pipeline<R, A> {
    source: Source<R, A>,
    compression: Compression,
    max_decoded_bytes: u64,
    decoded: u64,
    eof: bool,
}

impl<A: Default + Send + 'static> Pipeline<File, A> {
    /// Opens a file; with [`InputOptions::decode_thread`] set, a second
    /// thread reads, hashes and decompresses it and does `work` on each
    /// chunk.
    pub(crate) fn open<W: ChunkWork<Output = A>>(
        path: impl AsRef<Path>,
        options: &InputOptions,
        work: W,
    ) -> Result<Self, Error> {
        Self::sendable(File::open(path)?, options, work)
    }
}

impl<R: Read + Send + 'static, A: Default + Send + 'static> Pipeline<R, A> {
    /// Reads from `input`; with [`InputOptions::decode_thread`] set, a
    /// second thread reads, hashes and decompresses while this one works,
    /// and does `work` on each chunk.
    pub(crate) fn sendable<W: ChunkWork<Output = A>>(
        input: R,
        options: &InputOptions,
        work: W,
    ) -> Result<Self, Error> {
        let (decoder, compression) = start_decoder(input, options)?;
        let source = if options.decode_thread {
            Source::Threaded(Threaded::start(decoder, options, work)?)
        } else {
            Source::Inline(decoder)
        };
        Ok(Self::from_source(source, compression, options))
    }
}

impl<R: Read, A> Pipeline<R, A> {
    /// Reads from `input` on this thread (whatever
    /// [`InputOptions::decode_thread`] says).
    pub(crate) fn new(input: R, options: &InputOptions) -> Result<Self, Error> {
        let (decoder, compression) = start_decoder(input, options)?;
        Ok(Self::from_source(
            Source::Inline(decoder),
            compression,
            options,
        ))
    }

    fn from_source(source: Source<R, A>, compression: Compression, options: &InputOptions) -> Self {
        Pipeline {
            source,
            compression,
            max_decoded_bytes: options.max_decoded_bytes,
            decoded: 0,
            eof: false,
        }
    }

    pub(crate) fn compression(&self) -> Compression {
        self.compression
    }

    pub(crate) fn decoded_bytes(&self) -> u64 {
        self.decoded
    }

    pub(crate) fn encoded_bytes(&self) -> u64 {
        self.source.encoded_count()
    }

    /// [`DecodedInput::read_decoded`].
    pub(crate) fn read_decoded(&mut self, dst: &mut [u8]) -> Result<usize, Error> {
        if self.eof {
            return Ok(0);
        }
        let allowed = self
            .max_decoded_bytes
            .saturating_add(1)
            .saturating_sub(self.decoded);
        let room = dst
            .len()
            .min(usize::try_from(allowed).unwrap_or(usize::MAX));
        if room == 0 && !dst.is_empty() {
            return Err(self.decoded_limit_error());
        }
        let n = self.source.read(&mut dst[..room])?;
        if n == 0 && room > 0 {
            self.eof = true;
        }
        self.decoded += n as u64;
        if self.decoded > self.max_decoded_bytes {
            return Err(self.decoded_limit_error());
        }
        Ok(n)
    }

    /// With the decode thread: the next decoded chunk as a whole buffer,
    /// its bytes at `[HEADROOM..]`, instead of a copy into the caller's.
    /// [`Handoff::Copy`] when this input cannot hand over a chunk now (no
    /// thread, or part of a chunk still to read): then use
    /// [`Pipeline::read_decoded`]. Limits and counts are those of
    /// [`Pipeline::read_decoded`].
    pub(crate) fn take_chunk(&mut self) -> Result<Handoff<A>, Error> {
        let Source::Threaded(threaded) = &mut self.source else {
            return Ok(Handoff::Copy);
        };
        if self.eof || threaded.chunk_pos != threaded.chunk.len() {
            return Ok(Handoff::Copy);
        }
        if self.decoded > self.max_decoded_bytes {
            return Err(self.decoded_limit_error());
        }
        let Some((chunk, done)) = threaded.next_chunk()? else {
            self.eof = true;
            return Ok(Handoff::End);
        };
        self.decoded += (chunk.len() - HEADROOM) as u64;
        if self.decoded > self.max_decoded_bytes {
            return Err(self.decoded_limit_error());
        }
        Ok(Handoff::Chunk(chunk, done))
    }

    /// Returns a chunk and its work's output the caller is done with to the
    /// decode thread, which fills them again instead of allocating (and
    /// faulting in) new ones.
    pub(crate) fn give_back(&mut self, spent: Vec<u8>, done: A) {
        if let Source::Threaded(threaded) = &mut self.source {
            // The thread may have ended; then the buffers are just freed.
            let _ = threaded.spare.send((spent, done));
        }
    }

    /// Treats the input as ended where it stands: a reader salvaging a
    /// gzip stream cut short keeps what inflated, and [`Pipeline::finish`]
    /// then hashes what was read instead of failing on the cut again.
    pub(crate) fn end_at_cut(&mut self) {
        self.eof = true;
    }

    fn decoded_limit_error(&self) -> Error {
        Error::new(ErrorKind::LimitExceeded {
            which: Limit::DecodedBytes,
            limit: self.max_decoded_bytes,
        })
        .at(self.max_decoded_bytes)
    }

    /// [`DecodedInput::finish`].
    pub(crate) fn finish(mut self) -> Result<InputSummary, Error> {
        let mut sink = vec![0u8; 64 << 10];
        while self.read_decoded(&mut sink)? > 0 {}
        let (sha256, encoded_bytes) = self.source.digest()?;
        Ok(InputSummary {
            sha256,
            encoded_bytes,
            decoded_bytes: self.decoded,
            compression: self.compression,
        })
    }
    /// After a parse error in gzip input: whether the gzip stream itself is
    /// broken further on. A corrupt stream outranks what was parsed out of
    /// it; otherwise the answer would depend on how many decoded bytes the
    /// reads had produced before the decompressor noticed (a file and a pipe
    /// of the same bytes would disagree). Reads at most up to the decoded
    /// limit, on the error path only.
    pub(crate) fn gzip_error_behind(&mut self, parse_error: &Error) -> Option<Error> {
        let parse_level = !matches!(
            parse_error.kind(),
            ErrorKind::Io(_)
                | ErrorKind::GzipInvalid(_)
                | ErrorKind::GzipTruncated
                | ErrorKind::LimitExceeded {
                    which: Limit::EncodedBytes | Limit::DecodedBytes,
                    ..
                }
        );
        if self.compression != Compression::Gzip || self.eof || !parse_level {
            return None;
        }
        let mut sink = vec![0u8; 64 << 10];
        loop {
            match self.read_decoded(&mut sink) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => {
                    return matches!(
                        e.kind(),
                        ErrorKind::GzipInvalid(_) | ErrorKind::GzipTruncated
                    )
                    .then_some(e)
                }
            }
        }
    }
}

/// Counts, hashes and limits the bytes read from the input.
struct Encoded<R> {
    inner: R,
    hasher: Sha256,
    count: u64,
    limit: u64,
}

/// Marker carried through the decompressor's `io::Error`.
#[derive(Debug)]
struct EncodedLimitExceeded;

impl std::fmt::Display for EncodedLimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("encoded byte limit exceeded")
    }
}

impl std::error::Error for EncodedLimitExceeded {}

impl<R: Read> Read for Encoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Read at most one byte past the limit: enough to know it is
        // exceeded, never more.
        let allowed = self.limit.saturating_add(1).saturating_sub(self.count);
        if allowed == 0 {
            return Err(io::Error::other(EncodedLimitExceeded));
        }
        let take = buf
            .len()
            .min(usize::try_from(allowed).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..take])?;
        self.hasher.update(&buf[..n]);
        self.count += n as u64;
        if self.count > self.limit {
            return Err(io::Error::other(EncodedLimitExceeded));
        }
        Ok(n)
    }
}

type Prefixed<R> = io::Chain<io::Cursor<Vec<u8>>, Encoded<R>>;

/// Decompression (or not) over the counted, hashed input.
enum Decoder<R> {
    Plain(Prefixed<R>),
    Gzip(Box<MultiGzDecoder<BufReader<Prefixed<R>>>>),
}

impl<R: Read> Decoder<R> {
    fn new(encoded: Encoded<R>, magic: Vec<u8>) -> (Self, Compression) {
        let chained = io::Cursor::new(magic.clone()).chain(encoded);
        if magic == [0x1f, 0x8b] {
            let buffered = BufReader::with_capacity(64 << 10, chained);
            (
                Decoder::Gzip(Box::new(MultiGzDecoder::new(buffered))),
                Compression::Gzip,
            )
        } else {
            (Decoder::Plain(chained), Compression::None)
        }
    }
    fn encoded(&self) -> &Encoded<R> {
        match self {
            Decoder::Plain(c) => c.get_ref().1,
            Decoder::Gzip(d) => d.get_ref().get_ref().get_ref().1,
        }
    }
    fn encoded_mut(&mut self) -> &mut Encoded<R> {
        match self {
            Decoder::Plain(c) => c.get_mut().1,
            Decoder::Gzip(d) => d.get_mut().get_mut().get_mut().1,
        }
    }
    /// Reads decoded bytes; errors carry their code and encoded offset.
    fn read_mapped(&mut self, dst: &mut [u8]) -> Result<usize, Error> {
        loop {
            let read = match self {
                Decoder::Plain(r) => r.read(dst),
                Decoder::Gzip(r) => r.read(dst),
            };
            match read {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let gzip = matches!(self, Decoder::Gzip(_));
                    let encoded = self.encoded();
                    return Err(map_io(e, encoded.limit, encoded.count, gzip));
                }
                Ok(n) => return Ok(n),
            }
        }
    }
    fn digest(&mut self) -> (Sha256Digest, u64) {
        let encoded = self.encoded_mut();
        let hasher = std::mem::take(&mut encoded.hasher);
        (Sha256Digest(hasher.finalize().into()), encoded.count)
    }
}

/// Decoded chunks produced by a second thread.
struct Threaded<A> {
    /// Each chunk with what the [`ChunkWork`] made of it.
    rx: mpsc::Receiver<Result<(Buffer, A), Error>>,
    /// Chunks read out go back to the thread, which refills them instead of
    /// allocating (and the allocator zeroing and faulting in) new ones.
    spare: mpsc::Sender<(Vec<u8>, A)>,
    chunk: Buffer,
    chunk_pos: usize,
    encoded: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<(Sha256Digest, u64)>>,
}

impl<A: Default + Send + 'static> Threaded<A> {
    /// The thread does `work` on each chunk before it hands it over.
    fn start<R: Read + Send + 'static, W: ChunkWork<Output = A>>(
        mut decoder: Decoder<R>,
        options: &InputOptions,
        mut chunk_work: W,
    ) -> Result<Self, Error> {
        // Four chunks in flight bound the memory the thread can run ahead
        // by. With the scan split between the threads neither is much
        // faster than the other, and two were too few to absorb the
        // chunks that take one of them longer (wall time 0.265 -> 0.226 s
        // on the MTIA trace, same CPU).
        let (tx, rx) = mpsc::sync_channel::<Result<(Buffer, A), Error>>(4);
        let (spare, spares) = mpsc::channel::<(Vec<u8>, A)>();
        let encoded = Arc::new(AtomicU64::new(0));
        let progress = Arc::clone(&encoded);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let max_decoded_bytes = options.max_decoded_bytes;
        let work = move || {
            let mut decoded = 0u64;
            while !stopped.load(Ordering::Relaxed) {
                let (mut chunk, spent) = spares.try_recv().unwrap_or_default();
                chunk.resize(HEADROOM + HANDOFF_BYTES, 0);
                let mut filled = 0;
                let allowed = max_decoded_bytes.saturating_add(1).saturating_sub(decoded);
                let want = HANDOFF_BYTES.min(usize::try_from(allowed).unwrap_or(usize::MAX));
                let mut failed = None;
                while filled < want && !stopped.load(Ordering::Relaxed) {
                    match decoder.read_mapped(&mut chunk[HEADROOM + filled..HEADROOM + want]) {
                        Ok(0) => break,
                        Ok(n) => filled += n,
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    }
                }
                progress.store(decoder.encoded().count, Ordering::Relaxed);
                decoded += filled as u64;
                chunk.truncate(HEADROOM + filled);
                // A recycled chunk's room still holds the reader's last
                // cut event; NULs keep the check to the chunk's own bytes.
                chunk[..HEADROOM].fill(0);
                let more = filled == want && want > 0;
                let chunk = Buffer::checked(chunk);
                if filled > 0 {
                    let first = decoded == filled as u64;
                    let done = chunk_work.work(&chunk, first, spent);
                    if tx.send(Ok((chunk, done))).is_err() {
                        break;
                    }
                }
                if let Some(e) = failed {
                    let _ = tx.send(Err(e));
                    break;
                }
                if !more {
                    break;
                }
            }
            decoder.digest()
        };
        let handle = std::thread::Builder::new()
            .name(DECODE_THREAD_NAME.into())
            .spawn(work)?;
        Ok(Threaded {
            rx,
            spare,
            chunk: Buffer::Bytes(Vec::new()),
            chunk_pos: 0,
            encoded,
            stop,
            handle: Some(handle),
        })
    }
}

impl<A> Threaded<A> {
    fn read(&mut self, dst: &mut [u8]) -> Result<usize, Error> {
        while self.chunk_pos == self.chunk.len() {
            match self.rx.recv() {
                Ok(Ok((chunk, done))) => {
                    let used = std::mem::replace(&mut self.chunk, chunk);
                    // Copied out, the work's output is not needed: it goes
                    // back for reuse. The thread may have ended; then the
                    // chunk is just freed.
                    let _ = self.spare.send((used.into_bytes(), done));
                    self.chunk_pos = HEADROOM;
                }
                Ok(Err(e)) => return Err(e),
                Err(mpsc::RecvError) => return Ok(0),
            }
        }
        let n = dst.len().min(self.chunk.len() - self.chunk_pos);
        dst[..n].copy_from_slice(&self.chunk.as_bytes()[self.chunk_pos..self.chunk_pos + n]);
        self.chunk_pos += n;
        Ok(n)
    }

    /// The next chunk itself, its bytes from [`HEADROOM`] on; `None` at
    /// the end of input.
    fn next_chunk(&mut self) -> Result<Option<(Buffer, A)>, Error> {
        match self.rx.recv() {
            Ok(Ok(chunk)) => Ok(Some(chunk)),
            Ok(Err(e)) => Err(e),
            Err(mpsc::RecvError) => Ok(None),
        }
    }
}

impl<A> Drop for Threaded<A> {
    /// Stops the thread and waits for it, so the input (a file, a pipe) is
    /// released when the reader is, not at the thread's next wake-up.
    fn drop(&mut self) {
        let Some(handle) = self.handle.take() else {
            return;
        };
        self.stop.store(true, Ordering::Relaxed);
        // Draining unblocks a send on the full channel; the thread checks
        // `stop` before its next read and hangs up.
        while self.rx.recv().is_ok() {}
        let _ = handle.join();
    }
}

enum Source<R, A> {
    Inline(Decoder<R>),
    Threaded(Threaded<A>),
}

impl<R: Read, A> Source<R, A> {
    fn read(&mut self, dst: &mut [u8]) -> Result<usize, Error> {
        match self {
            Source::Inline(d) => d.read_mapped(dst),
            Source::Threaded(t) => t.read(dst),
        }
    }
    fn encoded_count(&self) -> u64 {
        match self {
            Source::Inline(d) => d.encoded().count,
            Source::Threaded(t) => t.encoded.load(Ordering::Relaxed),
        }
    }
    fn digest(&mut self) -> Result<(Sha256Digest, u64), Error> {
        match self {
            Source::Inline(d) => Ok(d.digest()),
            Source::Threaded(t) => {
                t.handle.take().and_then(|h| h.join().ok()).ok_or_else(|| {
                    Error::new(ErrorKind::Io(io::Error::other("decode thread failed")))
                })
            }
        }
    }
}

fn start_decoder<R: Read>(
    input: R,
    options: &InputOptions,
) -> Result<(Decoder<R>, Compression), Error> {
    let mut encoded = Encoded {
        inner: input,
        hasher: Sha256::new(),
        count: 0,
        limit: options.max_encoded_bytes,
    };
    let mut magic = Vec::with_capacity(2);
    while magic.len() < 2 {
        let mut byte = [0u8; 1];
        match encoded.read(&mut byte) {
            Ok(0) => break,
            Ok(_) => magic.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(map_io(e, encoded.limit, encoded.count, false)),
        }
    }
    Ok(Decoder::new(encoded, magic))
}

fn map_io(e: io::Error, max_encoded_bytes: u64, encoded: u64, gzip: bool) -> Error {
    let is_limit = e
        .get_ref()
        .is_some_and(|inner| inner.is::<EncodedLimitExceeded>());
    if is_limit {
        return Error::new(ErrorKind::LimitExceeded {
            which: Limit::EncodedBytes,
            limit: max_encoded_bytes,
        })
        .at_encoded(max_encoded_bytes);
    }
    if gzip {
        match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                return Error::new(ErrorKind::GzipTruncated).at_encoded(encoded)
            }
            io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => {
                return Error::new(ErrorKind::GzipInvalid(e.to_string())).at_encoded(encoded)
            }
            _ => {}
        }
    }
    Error::new(ErrorKind::Io(e))
}
