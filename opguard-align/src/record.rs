//! Input stage: operation records and the `opguard.records/v1` file.
//!
//! A records file is JSON Lines: a header line
//! `{"format":"opguard.records/v1"}` followed by one [`Record`] per line
//! (blank lines are ignored). It may be gzip-compressed (detected from the
//! first bytes). Records of one run and rank are ordered by `sequence`; the
//! order of lines in the file is the order of operation events in the
//! export.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use opguard_trace::DecodedInput;
use opguard_trace::{Limit, ReaderOptions, Sha256Digest};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};

/// The `format` value of a records file's header line.
pub const RECORDS_FORMAT: &str = "opguard.records/v1";

/// One operation of one run and rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Unique in the export.
    pub record_id: String,
    /// The run label (an original and a candidate, two versions, ...).
    pub run: String,
    /// The rank (process) within the run.
    pub rank: u32,
    /// Position within the run and rank; unique there.
    pub sequence: u64,
    /// The operator name, e.g. `aten::linear`.
    pub op: String,
    /// Where the operation was called from, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callsite: Option<Callsite>,
    /// The caller stack, innermost frame first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<Frame>,
    /// Flattened tensor summaries of inputs and outputs.
    #[serde(default, skip_serializing_if = "Io::is_empty")]
    pub io: Io,
    /// The recording thread, when known (provenance only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// Recorded start time in nanoseconds, when known (provenance only;
    /// the export lays operations out in presentation order instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts_ns: Option<i64>,
    /// Recorded duration in nanoseconds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dur_ns: Option<i64>,
    /// Free-form provenance (source event reference, ids). Copied into the
    /// export; never compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A source location.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Callsite {
    /// Source file as recorded.
    pub file: String,
    /// Function name.
    pub function: String,
    /// One-based line, when known.
    #[serde(default)]
    pub line: Option<u32>,
}

/// One caller frame. Frames without a source file (built-ins, module
/// markers) keep only their text in `function`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frame {
    /// Source file, when the frame has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Function name or the frame's text.
    pub function: String,
    /// One-based line, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// Flattened tensor summaries. `inputs[i]` is the i-th captured tensor
/// input (not the i-th positional argument).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Io {
    /// Input tensors.
    #[serde(default)]
    pub inputs: Vec<TensorSummary>,
    /// Output tensors.
    #[serde(default)]
    pub outputs: Vec<TensorSummary>,
}

impl Io {
    /// Whether there are no summaries at all.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty() && self.outputs.is_empty()
    }
}

/// A summary of one tensor. The comparison fields are `shape`, `dtype`,
/// `stride`, `device`, `fingerprint` and `stats`; `arg`, `item` and `name`
/// only say where the tensor came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorSummary {
    /// Dimensions.
    pub shape: Vec<i64>,
    /// Element type as recorded (`float`, `c10::Half`, `long int`, ...).
    pub dtype: String,
    /// Strides in elements, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<Vec<i64>>,
    /// Device, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// A content fingerprint (e.g. a hash of the bytes), when recorded.
    /// Fingerprints can collide: equal fingerprints are not tensor equality.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// Statistics by name (`min`, `max`, `mean`, ...), compared exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<BTreeMap<String, f64>>,
    /// Positional argument the tensor came from, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arg: Option<u32>,
    /// Index inside a tensor-list argument, when it came from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<u32>,
    /// A name (parameter name, output name), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
}

/// Writes an `opguard.records/v1` file (plain JSON Lines).
///
/// ```
/// use opguard_align::{Record, RecordsWriter};
///
/// let mut w = RecordsWriter::new(Vec::new())?;
/// w.write(&Record {
///     record_id: "a/0/0".into(), run: "a".into(), rank: 0, sequence: 0,
///     op: "aten::add".into(), callsite: None, stack: vec![], io: Default::default(),
///     thread: None, ts_ns: None, dur_ns: None, origin: None,
/// })?;
/// let text = String::from_utf8(w.finish()?)?;
/// assert!(text.starts_with("{\"format\":\"opguard.records/v1\"}\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RecordsWriter<W: Write> {
    out: W,
    line: Vec<u8>,
}

impl<W: Write> RecordsWriter<W> {
    /// Starts a file and writes the header line.
    pub fn new(mut out: W) -> Result<Self, Error> {
        writeln!(out, "{{\"format\":\"{RECORDS_FORMAT}\"}}")
            .map_err(|e| Error::io("writing records", e))?;
        Ok(RecordsWriter {
            out,
            line: Vec::with_capacity(512),
        })
    }

    /// Writes one record as one line.
    pub fn write(&mut self, record: &Record) -> Result<(), Error> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, record)
            .map_err(|e| Error::io("writing records", io::Error::other(e)))?;
        self.line.push(b'\n');
        self.out
            .write_all(&self.line)
            .map_err(|e| Error::io("writing records", e))
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> Result<W, Error> {
        self.out
            .flush()
            .map_err(|e| Error::io("writing records", e))?;
        Ok(self.out)
    }
}

/// Reads a whole records file into memory (convenient for small files; the
/// export itself streams the file twice instead).
pub fn read_records(path: &Path) -> Result<Vec<Record>, Error> {
    let mut out = Vec::new();
    let unlimited = ReaderOptions::new()
        .max_encoded_bytes(u64::MAX)
        .max_decoded_bytes(u64::MAX);
    visit_records_file(path, &unlimited, &mut |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// Streams a records file, calling `f` for each record in file order, and
/// returns the SHA-256 of the file's (encoded) bytes.
pub(crate) fn visit_records_file(
    path: &Path,
    options: &ReaderOptions,
    f: &mut dyn FnMut(Record) -> Result<(), Error>,
) -> Result<Sha256Digest, Error> {
    visit_record_lines(path, options, &mut |text, line| {
        f(parse_record_line(text, line)?)
    })
}

/// Reads one record line (or the view of it a pass needs). A line is
/// bounded by the records file's decoded limit, which the caller enforces.
pub(crate) fn parse_record_line<'a, T: Deserialize<'a>>(
    text: &'a str,
    line: u64,
) -> Result<T, Error> {
    opguard_document::from_str(text, u64::MAX).map_err(|e| {
        Error::document(
            format!("invalid records file, line {line}: not a record"),
            e.in_file_from_line(usize::try_from(line).unwrap_or(usize::MAX)),
        )
    })
}

/// Streams the record lines of a records file (header checked, blank
/// lines skipped), calling `f` with each line's text and one-based number;
/// returns the SHA-256 of the file's (encoded) bytes.
pub(crate) fn visit_record_lines(
    path: &Path,
    options: &ReaderOptions,
    f: &mut dyn FnMut(&str, u64) -> Result<(), Error>,
) -> Result<Sha256Digest, Error> {
    const WHAT: &str = "the records file";
    let mut lines = open_input(path, options, WHAT)?;
    let mut buf = Vec::with_capacity(4096);
    let mut line_no = 0u64;
    let mut header = false;
    loop {
        buf.clear();
        let n = lines
            .read_until(b'\n', &mut buf)
            .map_err(|e| input_error(e.into(), WHAT).with_path(path))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let text = std::str::from_utf8(&buf).map_err(|e| {
            Error::new(ErrorKind::InvalidRecords {
                line: line_no,
                detail: format!("invalid UTF-8 at column {}", e.valid_up_to() + 1),
            })
            .with_path(path)
        })?;
        // Leading blanks stay, so a document error's column is the line's.
        let text = text.trim_end();
        if text.is_empty() {
            continue;
        }
        let bad = |detail: String| {
            Error::new(ErrorKind::InvalidRecords {
                line: line_no,
                detail,
            })
            .with_path(path)
        };
        if !header {
            let h: Header = opguard_document::from_str(text, u64::MAX).map_err(|e| {
                Error::document(
                    format!(
                        "invalid records file, line {line_no}: expected the header \
                         {{\"format\":\"{RECORDS_FORMAT}\"}}"
                    ),
                    e.in_file_from_line(usize::try_from(line_no).unwrap_or(usize::MAX)),
                )
                .with_path(path)
            })?;
            if h.format != RECORDS_FORMAT {
                return Err(bad(format!(
                    "format is {:?}, expected {RECORDS_FORMAT:?}",
                    h.format
                )));
            }
            header = true;
            continue;
        }
        f(text, line_no).map_err(|e| e.with_path(path))?;
    }
    if !header {
        return Err(Error::new(ErrorKind::InvalidRecords {
            line: line_no,
            detail: format!("empty file: expected the header {{\"format\":\"{RECORDS_FORMAT}\"}}"),
        })
        .with_path(path));
    }
    finish_input(lines, WHAT).map_err(|e| e.with_path(path))
}

/// Opens a file's decoded bytes (gzip detected, SHA-256 of the encoded
/// bytes, the byte limits of `options`; a thread only if it asks for one).
/// `what` names the file in limit errors.
pub(crate) fn open_input(
    path: &Path,
    options: &ReaderOptions,
    what: &'static str,
) -> Result<BufReader<DecodedInput<File>>, Error> {
    let file = File::open(path).map_err(|e| Error::io("opening an input", e).with_path(path))?;
    let input =
        DecodedInput::sendable(file, options).map_err(|e| input_error(e, what).with_path(path))?;
    Ok(BufReader::with_capacity(256 << 10, input))
}

/// Reads the rest of an input and returns the SHA-256 of its encoded bytes.
pub(crate) fn finish_input(
    input: BufReader<DecodedInput<File>>,
    what: &'static str,
) -> Result<Sha256Digest, Error> {
    input
        .into_inner()
        .finish()
        .map(|s| s.sha256)
        .map_err(|e| input_error(e, what))
}

/// An input's failure in this crate's terms: a byte limit is this crate's
/// `limit_exceeded` naming the file, an I/O failure is `io`, and what the
/// reader found wrong in the bytes (a broken gzip stream) keeps its code
/// and compressed offset.
pub(crate) fn input_error(e: opguard_trace::Error, what: &'static str) -> Error {
    match e.kind() {
        opguard_trace::ErrorKind::LimitExceeded {
            which: Limit::EncodedBytes | Limit::DecodedBytes,
            limit,
        } => Error::new(ErrorKind::LimitExceeded {
            what,
            limit: *limit,
        }),
        opguard_trace::ErrorKind::Io(io) => Error::io(
            "reading an input",
            io::Error::new(io.kind(), io.to_string()),
        ),
        _ => Error::from(e),
    }
}

/// The fields of a record the first export pass needs, borrowed from the
/// line; the rest is skipped here and read in full by the second pass.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordKey<'a> {
    #[serde(borrow)]
    pub record_id: Cow<'a, str>,
    #[serde(borrow)]
    pub run: Cow<'a, str>,
    pub rank: u32,
    pub sequence: u64,
    #[serde(borrow)]
    pub op: Cow<'a, str>,
    #[serde(default, borrow)]
    pub callsite: Option<CallsiteKey<'a>>,
    #[serde(default, borrow)]
    pub io: IoKey<'a>,
    #[serde(default, rename = "stack")]
    _stack: IgnoredAny,
    #[serde(default, rename = "thread")]
    _thread: IgnoredAny,
    #[serde(default, rename = "ts_ns")]
    _ts_ns: IgnoredAny,
    #[serde(default, rename = "dur_ns")]
    _dur_ns: IgnoredAny,
    #[serde(default, rename = "origin")]
    _origin: IgnoredAny,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CallsiteKey<'a> {
    #[serde(borrow)]
    pub file: Cow<'a, str>,
    #[serde(borrow)]
    pub function: Cow<'a, str>,
    #[serde(default)]
    pub line: Option<u32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct IoKey<'a> {
    #[serde(default, borrow)]
    pub inputs: Vec<TensorKey<'a>>,
    #[serde(default, borrow)]
    pub outputs: Vec<TensorKey<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TensorKey<'a> {
    pub shape: Vec<i64>,
    #[serde(borrow)]
    pub dtype: Cow<'a, str>,
    #[serde(default)]
    pub stride: Option<Vec<i64>>,
    #[serde(default, borrow)]
    pub device: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub fingerprint: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub stats: Option<BTreeMap<Cow<'a, str>, f64>>,
    #[serde(default, rename = "arg")]
    _arg: IgnoredAny,
    #[serde(default, rename = "item")]
    _item: IgnoredAny,
    #[serde(default, rename = "name")]
    _name: IgnoredAny,
}
