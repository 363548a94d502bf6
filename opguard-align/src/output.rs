//! Output stage: exclusive, all-or-nothing creation of a view file.
//!
//! The output path must not exist, must not be a symbolic link, and no
//! directory on it may be one. Bytes go to a temporary file created
//! exclusively (`create_new`) in the same directory; on success it is
//! hard-linked to the final name (which fails if the name appeared in the
//! meantime, so concurrent runs cannot clobber each other) and the
//! temporary name is removed. On any failure — including a panic — the
//! temporary file is removed, so an error leaves nothing behind.
//!
//! A path ending in `.gz` is written gzip-compressed (deterministic: no
//! name, no time in the header); anything else is plain JSON.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};

use flate2::write::GzEncoder;
use opguard_trace::Sha256Digest;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind};

/// gzip level of `.gz` outputs (fast: the reviewed view is rewritten
/// often; the size limit applies to decoded bytes anyway).
pub(crate) const GZIP_LEVEL: u32 = 1;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Checks the output path: not existing, not a link, no link on the way,
/// an existing directory.
pub(crate) fn check_output_path(path: &Path) -> Result<(), Error> {
    let fail = |kind: ErrorKind| Err(Error::new(kind).with_path(path));
    if path.file_name().is_none() {
        return fail(ErrorKind::InvalidRequest(
            "the output path has no file name".into(),
        ));
    }
    // Every directory named on the path, as given (relative paths are
    // checked from the current directory down).
    let mut prefix = PathBuf::new();
    let components: Vec<Component<'_>> = path.components().collect();
    for c in &components[..components.len() - 1] {
        prefix.push(c.as_os_str());
        if matches!(c, Component::Normal(_)) {
            if let Ok(m) = std::fs::symlink_metadata(&prefix) {
                if m.file_type().is_symlink() {
                    return fail(ErrorKind::OutputPathSymlink(prefix));
                }
            }
        }
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return fail(ErrorKind::OutputIsSymlink),
        Ok(_) => return fail(ErrorKind::OutputExists),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io("checking the output path", e).with_path(path)),
    }
    let dir = parent_dir(path);
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(()),
        _ => fail(ErrorKind::OutputDirMissing),
    }
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A temporary file that becomes the output on [`PendingOutput::commit`]
/// and disappears otherwise.
pub(crate) struct PendingOutput {
    final_path: PathBuf,
    tmp_path: PathBuf,
    file: File,
    committed: bool,
}

impl PendingOutput {
    /// Checks the path and creates the temporary file exclusively.
    pub(crate) fn create(path: &Path) -> Result<Self, Error> {
        check_output_path(path)?;
        let (tmp_path, file) = create_exclusive(path, "tmp")?;
        Ok(PendingOutput {
            final_path: path.to_path_buf(),
            tmp_path,
            file,
            committed: false,
        })
    }

    /// The temporary file.
    pub(crate) fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Syncs the file and links it to the final name, failing if that name
    /// exists by now.
    pub(crate) fn commit(mut self) -> Result<(), Error> {
        let path = self.final_path.clone();
        self.file
            .sync_all()
            .map_err(|e| Error::io("syncing the output", e).with_path(&path))?;
        match std::fs::hard_link(&self.tmp_path, &self.final_path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(Error::new(ErrorKind::OutputExists).with_path(&path))
            }
            Err(e) => return Err(Error::io("linking the output into place", e).with_path(&path)),
        }
        self.committed = true;
        // The output is in place; the temporary name goes.
        let _ = std::fs::remove_file(&self.tmp_path);
        Ok(())
    }
}

impl Drop for PendingOutput {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp_path);
        }
    }
}

/// Creates a new file exclusively (`create_new`) beside `output`, named
/// `.<output name>.opguard-<tag>-<pid>-<n>`; a name taken by anyone else
/// is skipped, never reused.
fn create_exclusive(output: &Path, tag: &str) -> Result<(PathBuf, File), Error> {
    let dir = parent_dir(output);
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    loop {
        let tmp_path = dir.join(format!(
            ".{name}.opguard-{tag}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp_path)
        {
            Ok(file) => return Ok((tmp_path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e)
                if e.kind() == io::ErrorKind::PermissionDenied
                    || e.kind() == io::ErrorKind::ReadOnlyFilesystem =>
            {
                return Err(Error::new(ErrorKind::OutputDirNotWritable(e)).with_path(output))
            }
            Err(e) => return Err(Error::io("creating the output", e).with_path(output)),
        }
    }
}

/// A working file beside an output (e.g. spilled records), created
/// exclusively and removed when dropped, whatever happened.
pub(crate) struct ScratchFile {
    path: PathBuf,
    file: File,
}

impl ScratchFile {
    /// Creates it beside `output`; `tag` says what it holds.
    pub(crate) fn create(output: &Path, tag: &str) -> Result<Self, Error> {
        let (path, file) = create_exclusive(output, tag)?;
        Ok(ScratchFile { path, file })
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The open file.
    pub(crate) fn file(&mut self) -> &mut File {
        &mut self.file
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Hashes, counts and limits the encoded bytes.
struct Encoded<W> {
    inner: W,
    hasher: Sha256,
    count: u64,
    limit: u64,
    hit: bool,
}

impl<W: Write> Write for Encoded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.count + buf.len() as u64 > self.limit {
            self.hit = true;
            return Err(io::Error::other("encoded output limit exceeded"));
        }
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

enum Enc<W: Write> {
    Plain(Encoded<W>),
    Gzip(GzEncoder<Encoded<W>>),
}

/// The byte sink of a view: decoded-size limit, optional gzip, encoded-size
/// limit, SHA-256 of the encoded bytes.
pub(crate) struct Sink<W: Write> {
    enc: Enc<W>,
    decoded: u64,
    limit: u64,
    decoded_hit: bool,
}

/// What a finished sink wrote.
pub(crate) struct Written {
    pub sha256: Sha256Digest,
    pub encoded_bytes: u64,
    pub decoded_bytes: u64,
}

impl<W: Write> Sink<W> {
    pub(crate) fn new(inner: W, gzip: bool, limit: u64) -> Self {
        let encoded = Encoded {
            inner,
            hasher: Sha256::new(),
            count: 0,
            limit,
            hit: false,
        };
        let enc = if gzip {
            Enc::Gzip(GzEncoder::new(
                encoded,
                flate2::Compression::new(GZIP_LEVEL),
            ))
        } else {
            Enc::Plain(encoded)
        };
        Sink {
            enc,
            decoded: 0,
            limit,
            decoded_hit: false,
        }
    }

    /// The limit error if a limit stopped the writing.
    pub(crate) fn limit_error(&self) -> Option<Error> {
        let encoded_hit = match &self.enc {
            Enc::Plain(e) => e.hit,
            Enc::Gzip(g) => g.get_ref().hit,
        };
        if self.decoded_hit {
            Some(Error::new(ErrorKind::LimitExceeded {
                what: "the output view (decoded)",
                limit: self.limit,
            }))
        } else if encoded_hit {
            Some(Error::new(ErrorKind::LimitExceeded {
                what: "the output view (encoded)",
                limit: self.limit,
            }))
        } else {
            None
        }
    }

    /// Finishes compression and returns what was written.
    pub(crate) fn finish(self) -> Result<Written, Error> {
        let decoded = self.decoded;
        let limit = self.limit;
        let mut encoded = match self.enc {
            Enc::Plain(e) => e,
            Enc::Gzip(mut g) => {
                if let Err(e) = g.try_finish() {
                    if g.get_ref().hit {
                        return Err(Error::new(ErrorKind::LimitExceeded {
                            what: "the output view (encoded)",
                            limit,
                        }));
                    }
                    return Err(Error::io("compressing the output", e));
                }
                g.finish()
                    .map_err(|e| Error::io("compressing the output", e))?
            }
        };
        if encoded.hit {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "the output view (encoded)",
                limit,
            }));
        }
        encoded
            .inner
            .flush()
            .map_err(|e| Error::io("writing the output", e))?;
        Ok(Written {
            sha256: Sha256Digest(encoded.hasher.finalize().into()),
            encoded_bytes: encoded.count,
            decoded_bytes: decoded,
        })
    }
}

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.decoded + buf.len() as u64 > self.limit {
            self.decoded_hit = true;
            return Err(io::Error::other("decoded output limit exceeded"));
        }
        let n = match &mut self.enc {
            Enc::Plain(e) => e.write(buf)?,
            Enc::Gzip(g) => g.write(buf)?,
        };
        self.decoded += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.enc {
            Enc::Plain(e) => e.flush(),
            Enc::Gzip(g) => g.flush(),
        }
    }
}

/// Whether `path` asks for gzip output.
pub(crate) fn wants_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// Bytes handed to the sink at a time (to the output thread, when there is
/// one). The same chunks either way, so the output bytes are the same.
const CHUNK: usize = 1 << 20;

/// Where a [`Pipe`]'s full chunks go.
enum Dest<'a> {
    /// To the output thread, which limits, compresses, hashes and writes.
    Thread {
        tx: Option<SyncSender<Vec<u8>>>,
        spare: Receiver<Vec<u8>>,
    },
    /// Straight into the sink, on the caller's thread.
    Inline {
        sink: Box<Sink<BufWriter<&'a mut File>>>,
        /// Why the sink stopped taking bytes.
        failure: Option<Error>,
    },
}

/// The writing end of a view: buffers bytes and hands them in chunks to
/// the sink, which limits, compresses, hashes and writes them.
pub(crate) struct Pipe<'a> {
    dest: Dest<'a>,
    buf: Vec<u8>,
    /// The sink stopped taking bytes (the sink's side holds the reason).
    stopped: bool,
}

impl Pipe<'_> {
    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let sent = match &mut self.dest {
            Dest::Thread { tx, spare } => {
                let next = spare
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
                let full = std::mem::replace(&mut self.buf, next);
                tx.as_ref().is_some_and(|tx| tx.send(full).is_ok())
            }
            Dest::Inline { sink, failure } => match sink.write_all(&self.buf) {
                Ok(()) => true,
                Err(e) => {
                    *failure = Some(sink_error(sink, e));
                    false
                }
            },
        };
        if !sent {
            self.stopped = true;
            return Err(io::Error::other("the output stopped"));
        }
        self.buf.clear();
        Ok(())
    }
}

impl Write for Pipe<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.stopped {
            return Err(io::Error::other("the output stopped"));
        }
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        // Chunks are sent when full and at the end; flushing the trace
        // writer must not send many small chunks.
        Ok(())
    }
}

/// Why a sink refused bytes: its limit, or the write that failed.
fn sink_error<W: Write>(sink: &Sink<W>, e: io::Error) -> Error {
    sink.limit_error()
        .unwrap_or_else(|| Error::io("writing the output", e))
}

/// Writes a view to `path` with `body`, all or nothing. `body` receives
/// the pipe and returns its own result; the file is linked into place only
/// if everything succeeded. With `thread`, compression, hashing and writing
/// run on a second thread so they overlap with `body`; without, they run
/// on the caller's thread. The bytes written are the same.
pub(crate) fn write_view<T>(
    path: &Path,
    limit: u64,
    thread: bool,
    body: impl FnOnce(&mut Pipe<'_>) -> Result<T, Error>,
) -> Result<(T, Written), Error> {
    let mut pending = PendingOutput::create(path)?;
    let gzip = wants_gzip(path);
    let file = pending.file();
    let result = if thread {
        write_on_thread(file, gzip, limit, body)
    } else {
        write_inline(file, gzip, limit, body)
    };
    let (value, written) = result.map_err(|e| e.with_path(path))?;
    pending.commit()?;
    Ok((value, written))
}

fn write_inline<T>(
    file: &mut File,
    gzip: bool,
    limit: u64,
    body: impl FnOnce(&mut Pipe<'_>) -> Result<T, Error>,
) -> Result<(T, Written), Error> {
    let mut pipe = Pipe {
        dest: Dest::Inline {
            sink: Box::new(Sink::new(
                BufWriter::with_capacity(CHUNK, file),
                gzip,
                limit,
            )),
            failure: None,
        },
        buf: Vec::with_capacity(CHUNK),
        stopped: false,
    };
    let value = finish_body(&mut pipe, body);
    let stopped = pipe.stopped;
    let written = match pipe.dest {
        Dest::Inline {
            failure: Some(e), ..
        } => Err(e),
        Dest::Inline { sink, .. } => sink.finish(),
        Dest::Thread { .. } => Err(Error::io(
            "writing the output",
            io::Error::other("the inline output has no thread"),
        )),
    };
    settle(value, written, stopped)
}

fn write_on_thread<T>(
    file: &mut File,
    gzip: bool,
    limit: u64,
    body: impl FnOnce(&mut Pipe<'_>) -> Result<T, Error>,
) -> Result<(T, Written), Error> {
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Vec<u8>>(4);
        let (spare_tx, spare_rx) = channel::<Vec<u8>>();
        let writer = std::thread::Builder::new()
            .name(OUTPUT_THREAD_NAME.into())
            .spawn_scoped(scope, move || -> Result<Written, Error> {
                let mut sink = Sink::new(BufWriter::with_capacity(CHUNK, file), gzip, limit);
                for chunk in rx {
                    if let Err(e) = sink.write_all(&chunk) {
                        return Err(sink_error(&sink, e));
                    }
                    let _ = spare_tx.send(chunk);
                }
                sink.finish()
            })
            .map_err(|e| Error::io("starting the output thread", e))?;
        let mut pipe = Pipe {
            dest: Dest::Thread {
                tx: Some(tx),
                spare: spare_rx,
            },
            buf: Vec::with_capacity(CHUNK),
            stopped: false,
        };
        let value = finish_body(&mut pipe, body);
        let stopped = pipe.stopped;
        // Closing the channel ends the writer.
        drop(pipe);
        let written = writer.join().unwrap_or_else(|_| {
            Err(Error::io(
                "writing the output",
                io::Error::other("the output thread panicked"),
            ))
        });
        settle(value, written, stopped)
    })
}

/// The name of the output thread, so a host can see whose thread it is.
pub(crate) const OUTPUT_THREAD_NAME: &str = "opguard-output";

/// Runs `body` and sends what it left in the buffer.
fn finish_body<'a, T>(
    pipe: &mut Pipe<'a>,
    body: impl FnOnce(&mut Pipe<'a>) -> Result<T, Error>,
) -> Result<T, Error> {
    body(pipe).and_then(|v| {
        pipe.send()
            .map_err(|e| Error::io("writing the output", e))
            .map(|()| v)
    })
}

/// One answer from the body's result and the sink's.
fn settle<T>(
    value: Result<T, Error>,
    written: Result<Written, Error>,
    stopped: bool,
) -> Result<(T, Written), Error> {
    match (value, written) {
        (Ok(v), Ok(w)) => Ok((v, w)),
        // The sink's own failure (a limit, a full disk) explains why the
        // body could not write.
        (Err(_), Err(w)) if stopped => Err(w),
        (Err(e), _) => Err(e),
        (Ok(_), Err(w)) => Err(w),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails after `left` bytes.
    struct FailAfter<W> {
        inner: W,
        left: usize,
    }

    impl<W: Write> Write for FailAfter<W> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("injected failure"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            self.inner.write(&buf[..n])
        }
        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    #[test]
    fn a_writer_failing_after_n_bytes_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("view.json");
        for n in [0usize, 1, 100, 4096] {
            let mut pending = PendingOutput::create(&path).unwrap();
            let failed = {
                let file = pending.file();
                let mut sink = Sink::new(
                    FailAfter {
                        inner: file,
                        left: n,
                    },
                    false,
                    u64::MAX,
                );
                let mut w = opguard_trace::TraceWriter::new(&mut sink).map(Some);
                let mut result = Ok(());
                if let Ok(Some(w)) = w.as_mut() {
                    for _ in 0..1000 {
                        result = w.write_raw_event(r#"{"ph":"X","name":"op"}"#);
                        if result.is_err() {
                            break;
                        }
                    }
                }
                w.is_err() || result.is_err()
            };
            assert!(failed, "n={n}: the injected failure must surface");
            drop(pending);
            let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
            assert!(left.is_empty(), "n={n}: {left:?}");
        }
    }

    /// When the body fails for its own reason after the output thread
    /// failed on bytes the body had already handed over (so the body never
    /// saw the output stop), the body's own error is the one reported.
    #[test]
    fn a_body_failure_the_output_did_not_cause_is_reported_as_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("view.json");
        let result = write_view(&path, 10, true, |pipe| -> Result<(), Error> {
            // One full chunk: handed over, and over the 10-byte limit.
            pipe.write_all(&vec![b' '; CHUNK]).unwrap();
            Err(Error::new(ErrorKind::SourceChanged {
                first: "a".into(),
                second: "b".into(),
            }))
        });
        let Err(err) = result else {
            panic!("the body failed, so must the view")
        };
        assert_eq!(err.code(), "source_changed", "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn commit_refuses_a_name_that_appeared_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("view.json");
        let mut pending = PendingOutput::create(&path).unwrap();
        pending.file().write_all(b"mine").unwrap();
        std::fs::write(&path, b"theirs").unwrap();
        let err = pending.commit().unwrap_err();
        assert_eq!(err.code(), "output_exists");
        assert_eq!(std::fs::read(&path).unwrap(), b"theirs");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
