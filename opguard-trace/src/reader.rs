//! Reader stage: stream events out of a trace file.
//!
//! Bytes flow `file → Pipeline (SHA-256, limits, gzip) → buffer →
//! scanner → Event`. The buffer holds whole events; an event cut by
//! the end of the buffer is moved to the front, more bytes are read after it
//! and it is scanned again. Memory is the buffer (grown only for an event
//! larger than it) plus the decompressor's window.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, ErrorKind, Limit};
use crate::event::{scan_event, Event, EventSpans, ScannedAhead};
use crate::input::{
    Buffer, ChunkWork, Compression, Handoff, InputOptions, Pipeline, DEFAULT_MAX_DECODED_BYTES,
    DEFAULT_MAX_ENCODED_BYTES, HEADROOM,
};
use crate::scan::{self, Stop, SyntaxKind, ValueKind};
use crate::warning::{self, ReadWarning};
use opguard_model::{Metadata, Sha256Digest};

/// Default limit on JSON nesting depth.
pub const DEFAULT_MAX_DEPTH: usize = 128;
/// Default limit on the size of one event or one top-level metadata value.
pub const DEFAULT_MAX_VALUE_BYTES: usize = 64 << 20;
/// Bytes read from the decoder at a time.
const CHUNK: usize = 256 << 10;

/// How a [`TraceReader`] reads. Build with [`ReaderOptions::new`] and the
/// setters; every limit is checked while streaming.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReaderOptions {
    /// Most bytes read from the input (compressed size for gzip).
    pub max_encoded_bytes: u64,
    /// Most bytes of decoded JSON.
    pub max_decoded_bytes: u64,
    /// Deepest nesting of JSON containers (the top level counts as 1).
    pub max_depth: usize,
    /// Largest single event or top-level metadata value, in bytes.
    pub max_value_bytes: usize,
    /// Replace invalid UTF-8 with U+FFFD instead of failing, and count the
    /// replacements in [`TraceSummary::utf8_replacements`]. Off by default.
    pub lossy_utf8: bool,
    /// Read, hash and decompress on a second thread while this one parses;
    /// that thread also scans the events of each chunk's second half ahead
    /// of this one (the events, errors and limits are the same either way).
    /// Off by default: a library embedded in a profiler must not start
    /// threads its host did not ask for. Memory stays bounded (a few
    /// buffers in flight). The thread never outlives its reader: dropping
    /// the reader stops the thread and waits for the `read` call it has in
    /// progress, then the input is dropped too.
    pub decode_thread: bool,
    /// Read what a lenient importer (Perfetto's) reads and keep every
    /// complete event: a file cut mid-event or missing its closing `]}`,
    /// trailing commas, a gzip stream cut short. Each is reported in
    /// [`TraceSummary::warnings`]; a partial event is never returned. Off by
    /// default: a cut file is then the `json_truncated` error, which says
    /// how many complete events precede the cut.
    pub salvage: bool,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            max_encoded_bytes: DEFAULT_MAX_ENCODED_BYTES,
            max_decoded_bytes: DEFAULT_MAX_DECODED_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
            max_value_bytes: DEFAULT_MAX_VALUE_BYTES,
            lossy_utf8: false,
            decode_thread: false,
            salvage: false,
        }
    }
}

/// The byte limits and the decode thread of a reader, for a
/// [`DecodedInput`](crate::DecodedInput) that reads like it.
impl From<&ReaderOptions> for InputOptions {
    fn from(options: &ReaderOptions) -> Self {
        InputOptions::new()
            .max_encoded_bytes(options.max_encoded_bytes)
            .max_decoded_bytes(options.max_decoded_bytes)
            .decode_thread(options.decode_thread)
    }
}

impl ReaderOptions {
    /// The defaults: 256 MiB encoded and decoded, depth 128, strict UTF-8.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`ReaderOptions::max_encoded_bytes`].
    pub fn max_encoded_bytes(mut self, n: u64) -> Self {
        self.max_encoded_bytes = n;
        self
    }
    /// Sets [`ReaderOptions::max_decoded_bytes`].
    pub fn max_decoded_bytes(mut self, n: u64) -> Self {
        self.max_decoded_bytes = n;
        self
    }
    /// Sets [`ReaderOptions::max_depth`].
    pub fn max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }
    /// Sets [`ReaderOptions::max_value_bytes`].
    pub fn max_value_bytes(mut self, n: usize) -> Self {
        self.max_value_bytes = n;
        self
    }
    /// Sets [`ReaderOptions::lossy_utf8`].
    pub fn lossy_utf8(mut self, on: bool) -> Self {
        self.lossy_utf8 = on;
        self
    }
    /// Sets [`ReaderOptions::decode_thread`].
    pub fn decode_thread(mut self, on: bool) -> Self {
        self.decode_thread = on;
        self
    }
    /// Sets [`ReaderOptions::salvage`].
    pub fn salvage(mut self, on: bool) -> Self {
        self.salvage = on;
        self
    }
}

/// Which top-level form the document has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TopLevelForm {
    /// `{"traceEvents": [...], ...}`.
    Object,
    /// `[...]`.
    Array,
}

impl TopLevelForm {
    /// The form a document opening with `first` (its first byte after any
    /// byte-order mark and whitespace) has, if either.
    pub(crate) fn opened_by(first: u8) -> Option<TopLevelForm> {
        match first {
            b'{' => Some(TopLevelForm::Object),
            b'[' => Some(TopLevelForm::Array),
            _ => None,
        }
    }

    /// How deep events sit: inside the events array, itself inside the
    /// document object when there is one.
    pub(crate) fn event_depth(self) -> usize {
        match self {
            TopLevelForm::Object => 3,
            TopLevelForm::Array => 2,
        }
    }
}

/// Where in each chunk the decode thread starts scanning events ahead of
/// the reader, as a share of the chunk: the reader scans the events before
/// it, the thread those after, so both cores scan (inflating is the smaller
/// part of the thread's work).
const SCAN_AHEAD_FROM: (usize, usize) = (1, 2);

/// A [`TraceReader`]'s work for the decode thread: scan the events of each
/// chunk's second half ahead of the reader ([`ScannedAhead`]), at the depth
/// the document's first byte implies.
struct ScanAhead {
    max_depth: usize,
    /// How deep the events sit; `None` while the input so far is only
    /// whitespace, 0 when the document is neither form.
    event_depth: Option<usize>,
}

impl ScanAhead {
    fn new(options: &ReaderOptions) -> Self {
        ScanAhead {
            max_depth: options.max_depth,
            event_depth: None,
        }
    }
}

impl ChunkWork for ScanAhead {
    type Output = ScannedAhead;

    fn work(&mut self, chunk: &Buffer, first: bool, spent: ScannedAhead) -> ScannedAhead {
        let decoded = &chunk.as_bytes()[HEADROOM..];
        if self.event_depth.is_none() {
            self.event_depth = depth_of_events(decoded, first);
        }
        let depth = self.event_depth.unwrap_or(0);
        // The reader copies the first chunk into its own buffer (no
        // unscanned bytes before it to put in its room; see
        // `TraceReader::take_chunk`), so events scanned ahead in it would
        // never be taken: on a trace of one chunk, half of its scan.
        if depth == 0 || first {
            return ScannedAhead::default();
        }
        let from = HEADROOM + decoded.len() * SCAN_AHEAD_FROM.0 / SCAN_AHEAD_FROM.1;
        ScannedAhead::scan(chunk.as_bytes(), from, depth, self.max_depth, spent.events)
    }
}

/// How deep the events of a document starting with `bytes` sit (as the
/// reader counts depth, [`TopLevelForm::event_depth`]); 0 when it is neither
/// form, `None` while `bytes` is only whitespace.
fn depth_of_events(bytes: &[u8], at_start: bool) -> Option<usize> {
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if at_start => rest,
        _ => bytes,
    };
    let first = *bytes.get(scan::skip_ws(bytes, 0))?;
    Some(TopLevelForm::opened_by(first).map_or(0, TopLevelForm::event_depth))
}

/// What a completed read established about the file.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TraceSummary {
    /// SHA-256 of the encoded bytes: the artifact's identity.
    pub sha256: Sha256Digest,
    /// Bytes read from the input.
    pub encoded_bytes: u64,
    /// Bytes of JSON after decompression.
    pub decoded_bytes: u64,
    /// Number of `traceEvents` elements.
    pub events: u64,
    /// Detected encoding.
    pub compression: Compression,
    /// Detected top-level form.
    pub form: TopLevelForm,
    /// Top-level keys other than `traceEvents`.
    pub metadata: Metadata,
    /// Invalid UTF-8 sequences replaced (only in lossy mode).
    pub utf8_replacements: u64,
    /// What the read accepted that a strict reader would not, in input order.
    pub warnings: Vec<ReadWarning>,
}

/// Where the top-level state machine stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    /// In the top-level object.
    TopObject(Expect),
    /// In the events array.
    Events(Expect),
    /// After the top-level value: only whitespace may follow.
    AfterTop,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Just opened: a member or the closer.
    MemberOrEnd,
    /// After a comma: a member.
    Member,
    /// After a member: a comma or the closer.
    CommaOrEnd,
}

/// Streams the events of one Chrome Trace Event Format file.
///
/// ```
/// use opguard_trace::TraceReader;
///
/// let json = br#"{"traceEvents":[{"ph":"X","name":"k","ts":1.5,"dur":2}],"traceName":"t"}"#;
/// let mut reader = TraceReader::new(&json[..])?;
/// while let Some(event) = reader.next_event()? {
///     assert_eq!(event.ts_ns()?, Some(1500));
/// }
/// let summary = reader.finish()?;
/// assert_eq!(summary.events, 1);
/// assert_eq!(summary.metadata.get("traceName"), Some("\"t\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TraceReader<R> {
    input: Pipeline<R, ScannedAhead>,
    options: ReaderOptions,
    buf: Buffer,
    /// Bytes of `buf` that hold data.
    len: usize,
    /// Next byte to scan.
    pos: usize,
    /// Decoded offset of `buf[0]`.
    base: u64,
    eof: bool,
    state: State,
    form: Option<TopLevelForm>,
    seen_trace_events: bool,
    events: u64,
    metadata: Metadata,
    utf8_replacements: u64,
    scratch: Vec<u8>,
    /// A failure ends the read: later calls repeat nothing and return None.
    failed: bool,
    warnings: Vec<ReadWarning>,
    /// Compressed offset where a gzip stream ended early (salvage only).
    gzip_cut: Option<u64>,
    /// The typed field spans of the event last scanned.
    spans: EventSpans,
    /// Events the decode thread scanned ahead in the chunk installed when
    /// `base` was `ahead_base` (positions in that chunk).
    ahead: ScannedAhead,
    ahead_base: u64,
    /// The first of `ahead.events` not yet passed.
    ahead_next: usize,
    /// The event of `ahead.events` whose spans are the last event's, when
    /// it was taken from there (lent, not copied).
    spans_ahead: Option<usize>,
    /// Events taken from `ahead` instead of scanned here.
    events_scanned_ahead: u64,
}

impl TraceReader<File> {
    /// Opens a file with the default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::open_with(path, ReaderOptions::default())
    }

    /// Opens a file.
    pub fn open_with(path: impl AsRef<Path>, options: ReaderOptions) -> Result<Self, Error> {
        let input = Pipeline::open(path, &(&options).into(), ScanAhead::new(&options))?;
        Ok(Self::from_input(input, options))
    }
}

impl<R: Read + Send + 'static> TraceReader<R> {
    /// Reads from `input`, which can move to another thread: with
    /// [`ReaderOptions::decode_thread`] set, a second thread reads, hashes
    /// and decompresses while this one parses; without, none is started.
    pub fn sendable(input: R, options: ReaderOptions) -> Result<Self, Error> {
        let input = Pipeline::sendable(input, &(&options).into(), ScanAhead::new(&options))?;
        Ok(Self::from_input(input, options))
    }
}

impl<R: Read> TraceReader<R> {
    /// Reads from `input` with the default options.
    pub fn new(input: R) -> Result<Self, Error> {
        Self::with_options(input, ReaderOptions::default())
    }

    /// Reads from `input`. Reads the first bytes to detect gzip.
    /// ([`ReaderOptions::decode_thread`] needs [`TraceReader::open_with`] or
    /// [`TraceReader::sendable`], where the input can move to a thread.)
    pub fn with_options(input: R, options: ReaderOptions) -> Result<Self, Error> {
        let input = Pipeline::new(input, &(&options).into())?;
        Ok(Self::from_input(input, options))
    }

    fn from_input(input: Pipeline<R, ScannedAhead>, options: ReaderOptions) -> Self {
        TraceReader {
            input,
            buf: Buffer::Bytes(vec![0; CHUNK]),
            options,
            len: 0,
            pos: 0,
            base: 0,
            eof: false,
            state: State::Start,
            form: None,
            seen_trace_events: false,
            events: 0,
            metadata: Metadata::new(),
            utf8_replacements: 0,
            scratch: Vec::new(),
            failed: false,
            warnings: Vec::new(),
            gzip_cut: None,
            spans: EventSpans::default(),
            ahead: ScannedAhead::default(),
            ahead_base: 0,
            ahead_next: 0,
            spans_ahead: None,
            events_scanned_ahead: 0,
        }
    }

    /// The detected encoding.
    pub fn compression(&self) -> Compression {
        self.input.compression()
    }

    /// Top-level metadata seen so far (keys after `traceEvents` appear only
    /// once the events have been read).
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Bytes decoded so far, for progress reporting.
    pub fn decoded_bytes(&self) -> u64 {
        self.input.decoded_bytes()
    }

    /// Bytes read from the input so far, for progress reporting.
    pub fn encoded_bytes(&self) -> u64 {
        self.input.encoded_bytes()
    }

    /// Reads to the end, validating every remaining event, and returns what
    /// the read established.
    pub fn finish(mut self) -> Result<TraceSummary, Error> {
        while self.next_event()?.is_some() {}
        if self.failed {
            return Err(Error::new(ErrorKind::Syntax(
                "finish() called after the read failed",
            )));
        }
        let form = self.form.unwrap_or(TopLevelForm::Array);
        let input = self.input.finish()?;
        if let Some(at) = self.gzip_cut {
            let gzip = warning::gzip_truncated(input.decoded_bytes, at, self.events);
            self.warnings.insert(0, gzip);
        }
        Ok(TraceSummary {
            sha256: input.sha256,
            encoded_bytes: input.encoded_bytes,
            decoded_bytes: input.decoded_bytes,
            events: self.events,
            compression: input.compression,
            form,
            metadata: self.metadata,
            utf8_replacements: self.utf8_replacements,
            warnings: self.warnings,
        })
    }

    /// The next event, or `None` after the last one. An error ends the read.
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>, Error> {
        if self.failed {
            return Ok(None);
        }
        let (start, end) = match self.advance() {
            Ok(Some(found)) => found,
            Ok(None) => return Ok(None),
            Err(e) => {
                self.failed = true;
                return Err(self.input.gzip_error_behind(&e).unwrap_or(e));
            }
        };
        let index = self.events - 1;
        let offset = self.base + start as u64;
        // A buffer checked whole needs no check per event (its events
        // start and end at ASCII bytes, so on character boundaries).
        // Otherwise this is the one UTF-8 validation of the event. Only
        // fields other than `buf` are touched below, so the borrow can be
        // returned.
        if let Some(text) = self.buf.text().and_then(|t| t.get(start..end)) {
            return Ok(Some(Event::new(index, offset, text, self.event_spans())));
        }
        let bytes = &self.buf.as_bytes()[start..end];
        let valid_up_to = match std::str::from_utf8(bytes) {
            Ok(text) => return Ok(Some(Event::new(index, offset, text, self.event_spans()))),
            Err(e) => e.valid_up_to(),
        };
        if !self.options.lossy_utf8 {
            self.failed = true;
            let err = Error::new(ErrorKind::InvalidUtf8)
                .at(offset + valid_up_to as u64)
                .in_event(Some(index));
            return Err(self.input.gzip_error_behind(&err).unwrap_or(err));
        }
        let (text, replaced) = replace_invalid(bytes);
        self.utf8_replacements += replaced;
        self.scratch = text.into_owned().into_bytes();
        let depth = self.event_depth();
        self.spans_ahead = None;
        let rescanned = scan_event(
            &self.scratch,
            0,
            depth,
            self.options.max_depth,
            true,
            &mut self.spans,
        );
        match (rescanned, std::str::from_utf8(&self.scratch)) {
            (Ok(_), Ok(text)) => Ok(Some(Event::new(index, offset, text, &self.spans))),
            _ => {
                self.failed = true;
                Err(Error::new(ErrorKind::InvalidUtf8)
                    .at(offset)
                    .in_event(Some(index)))
            }
        }
    }

    /// The field spans of the event last scanned: the reader's own, or the
    /// ones the decode thread scanned ahead.
    fn event_spans(&self) -> &EventSpans {
        self.spans_ahead
            .and_then(|i| self.ahead.events.get(i))
            .map_or(&self.spans, |e| &e.spans)
    }

    /// How deep events sit ([`TopLevelForm::event_depth`]).
    fn event_depth(&self) -> usize {
        self.form.unwrap_or(TopLevelForm::Array).event_depth()
    }

    /// Moves the state machine to the next event. Returns its span in `buf`
    /// and its field spans; the caller validates its UTF-8 once.
    fn advance(&mut self) -> Result<Option<(usize, usize)>, Error> {
        loop {
            match self.state {
                State::Done => return Ok(None),
                State::Start => {
                    let Some(c) = self.peek_non_ws(true)? else {
                        return Err(Error::new(ErrorKind::EmptyInput).at(self.offset()));
                    };
                    match TopLevelForm::opened_by(c) {
                        Some(TopLevelForm::Object) => {
                            self.state = State::TopObject(Expect::MemberOrEnd);
                        }
                        Some(TopLevelForm::Array) => {
                            self.seen_trace_events = true;
                            self.state = State::Events(Expect::MemberOrEnd);
                        }
                        None => {
                            return Err(
                                Error::new(ErrorKind::TopLevelNotContainer).at(self.offset())
                            )
                        }
                    }
                    self.form = TopLevelForm::opened_by(c);
                    self.pos += 1;
                }
                State::TopObject(expect) => self.step_top_object(expect)?,
                State::Events(expect) => {
                    if let Some(found) = self.step_events(expect)? {
                        return Ok(Some(found));
                    }
                }
                State::AfterTop => {
                    if self.peek_non_ws(false)?.is_some() {
                        return Err(Error::new(ErrorKind::TrailingData).at(self.offset()));
                    }
                    // Drain the source so the digest covers every byte.
                    while self.refill()? {
                        if self.peek_non_ws(false)?.is_some() {
                            return Err(Error::new(ErrorKind::TrailingData).at(self.offset()));
                        }
                    }
                    self.state = State::Done;
                }
            }
        }
    }

    fn step_top_object(&mut self, expect: Expect) -> Result<(), Error> {
        let Some(c) = self.peek_non_ws(false)? else {
            return self.cut_short(None);
        };
        if expect == Expect::Member && c == b'}' && self.options.salvage {
            self.warnings
                .push(warning::trailing_comma(self.offset(), self.events));
            self.state = State::TopObject(Expect::CommaOrEnd);
            return Ok(());
        }
        if expect != Expect::Member && c == b'}' {
            self.pos += 1;
            if !self.seen_trace_events {
                return Err(Error::new(ErrorKind::MissingTraceEvents).at(self.offset() - 1));
            }
            self.state = State::AfterTop;
            return Ok(());
        }
        if expect == Expect::CommaOrEnd {
            if c != b',' {
                return Err(self.syntax_error(self.pos, SyntaxKind::ExpectedCommaOrEndOfObject));
            }
            self.pos += 1;
            self.state = State::TopObject(Expect::Member);
            return Ok(());
        }
        // A member: "key": value. Scanned whole, rescanned after a refill.
        loop {
            match self.scan_top_member() {
                Ok(done) => return done,
                Err(Stop::Incomplete) => {
                    if !self.refill()? {
                        return self.cut_short(Some(self.offset()));
                    }
                }
                Err(Stop::Syntax { at, kind }) => return Err(self.syntax_error(at, kind)),
            }
        }
    }

    /// Scans one top-level member. The outer `Result` is the scanner's; the
    /// inner one carries semantic errors.
    fn scan_top_member(&mut self) -> Result<Result<(), Error>, Stop> {
        let b = &self.buf.as_bytes()[..self.len];
        let start = self.pos;
        if b.get(start) != Some(&b'"') {
            return Err(Stop::Syntax {
                at: start,
                kind: SyntaxKind::ExpectedKey,
            });
        }
        let (key_end, escaped) = scan::scan_string(b, start)?;
        let i = scan::value_after_key(b, key_end)?;
        let Some(&first) = b.get(i) else {
            return Err(Stop::Incomplete);
        };
        let lossy = self.options.lossy_utf8;
        let (key, key_replaced) = match decode_text(&b[start + 1..key_end - 1], lossy) {
            Ok((k, n)) if escaped => (
                crate::event::unescape(&k).unwrap_or_else(|()| k.into_owned()),
                n,
            ),
            Ok((k, n)) => (k.into_owned(), n),
            Err(valid_up_to) => {
                let at = self.base + (start + 1 + valid_up_to) as u64;
                return Ok(Err(Error::new(ErrorKind::InvalidUtf8).at(at)));
            }
        };
        let dup = |key: String, at: u64| {
            Error::new(ErrorKind::DuplicateKey { key })
                .at(at)
                .with_path("$".into())
        };
        if key == "traceEvents" {
            if self.seen_trace_events {
                return Ok(Err(dup(key, self.base + start as u64)));
            }
            if first != b'[' {
                let found = kind_of(first);
                return Ok(Err(Error::new(ErrorKind::TraceEventsNotArray { found })
                    .at(self.base + i as u64)
                    .with_path("traceEvents".into())));
            }
            self.seen_trace_events = true;
            self.pos = i + 1;
            self.state = State::Events(Expect::MemberOrEnd);
            return Ok(Ok(()));
        }
        let value = scan::skip_value(b, i, 1, self.options.max_depth, self.eof)?;
        let end = value.end as usize;
        if value.kind == ValueKind::String {
            scan::check_after_string(b, end, self.eof)?;
        }
        if let Err(e) = self.check_value_len(i, end) {
            return Ok(Err(e.with_path(key)));
        }
        let (text, value_replaced) = match decode_text(&b[i..end], lossy) {
            Ok((t, n)) => (t.into_owned(), n),
            Err(valid_up_to) => {
                let at = self.base + (i + valid_up_to) as u64;
                return Ok(Err(Error::new(ErrorKind::InvalidUtf8)
                    .at(at)
                    .with_path(key)));
            }
        };
        if self.metadata.get(&key).is_some() {
            return Ok(Err(dup(key, self.base + start as u64)));
        }
        self.utf8_replacements += key_replaced + value_replaced;
        self.metadata.push(key, text);
        self.pos = end;
        self.state = State::TopObject(Expect::CommaOrEnd);
        Ok(Ok(()))
    }

    fn step_events(&mut self, expect: Expect) -> Result<Option<(usize, usize)>, Error> {
        let Some(c) = self.peek_non_ws(false)? else {
            // The Trace Event Format lets the array form end without `]`
            // (a tracer killed mid-run still leaves a loadable file), with
            // or without a comma after the last event.
            if self.form == Some(TopLevelForm::Array) {
                self.warnings
                    .push(warning::array_unterminated(self.offset(), self.events));
                self.state = State::Done;
                return Ok(None);
            }
            self.cut_short(None)?;
            return Ok(None);
        };
        if expect == Expect::Member && c == b']' && self.options.salvage {
            self.warnings
                .push(warning::trailing_comma(self.offset(), self.events));
            self.state = State::Events(Expect::CommaOrEnd);
            return Ok(None);
        }
        if expect != Expect::Member && c == b']' {
            self.pos += 1;
            self.state = match self.form {
                Some(TopLevelForm::Object) => State::TopObject(Expect::CommaOrEnd),
                _ => State::AfterTop,
            };
            return Ok(None);
        }
        if expect == Expect::CommaOrEnd {
            if c != b',' {
                return Err(self.syntax_error(self.pos, SyntaxKind::ExpectedCommaOrEndOfArray));
            }
            self.pos += 1;
            self.state = State::Events(Expect::Member);
            return Ok(None);
        }
        let depth = self.event_depth();
        if c != b'{' {
            let err = match self.scan_with_refill(|b, pos, d, eof, _| {
                scan::skip_value(b, pos, depth - 1, d, eof).map(|s| s.kind)
            }) {
                Ok(found) => Error::new(ErrorKind::EventNotObject { found }).at(self.offset()),
                Err(e) => e,
            };
            return Err(err.in_event(Some(self.events)));
        }
        // A refill inside may move the event to the front: read pos after.
        let scanned = match self.take_scanned_ahead(depth) {
            Some(end) => Ok(end),
            None => self
                .scan_with_refill(|b, pos, d, eof, spans| scan_event(b, pos, depth, d, eof, spans)),
        };
        let end = match scanned {
            Ok(found) => found,
            Err(e) if self.options.salvage && matches!(e.kind(), ErrorKind::Truncated { .. }) => {
                self.cut_short(Some(self.offset()))?;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        self.check_value_len(self.pos, end)
            .map_err(|e| e.in_event(Some(self.events)))?;
        let span = (self.pos, end);
        self.pos = end;
        self.events += 1;
        self.state = State::Events(Expect::CommaOrEnd);
        Ok(Some(span))
    }

    /// The end of the event at `pos` if the decode thread scanned it ahead
    /// at this depth, its spans lent ([`TraceReader::event_spans`]). Matched by decoded
    /// offset, so a buffer whose bytes moved since cannot be misread.
    fn take_scanned_ahead(&mut self, depth: usize) -> Option<usize> {
        self.spans_ahead = None;
        if self.ahead.depth != depth {
            return None;
        }
        let at = self.base + self.pos as u64;
        while let Some(event) = self.ahead.events.get(self.ahead_next) {
            let start = self.ahead_base + event.start as u64;
            if start > at {
                return None;
            }
            self.ahead_next += 1;
            if start == at {
                let end = self.pos + (event.end - event.start);
                if end > self.len {
                    return None;
                }
                self.spans_ahead = Some(self.ahead_next - 1);
                self.events_scanned_ahead += 1;
                return Some(end);
            }
        }
        None
    }

    /// [`ReaderOptions::max_value_bytes`] for a value scanned whole at
    /// `buf[start..end]`. A value larger than the buffer already fails in
    /// [`TraceReader::refill`]; a limit below the buffer's size is only seen
    /// here.
    fn check_value_len(&self, start: usize, end: usize) -> Result<(), Error> {
        let max = self.options.max_value_bytes;
        if end - start > max {
            return Err(Error::new(ErrorKind::LimitExceeded {
                which: Limit::ValueBytes,
                limit: max as u64,
            })
            .at(self.base + start as u64));
        }
        Ok(())
    }

    /// Runs `scan` at `pos`, refilling the buffer until the value is whole.
    /// On return `self.pos` is where the value starts (it may have moved).
    /// An event's scan fills the reader's field spans in place.
    fn scan_with_refill<T>(
        &mut self,
        scan: impl Fn(&[u8], usize, usize, bool, &mut EventSpans) -> Result<T, Stop>,
    ) -> Result<T, Error> {
        loop {
            match scan(
                &self.buf.as_bytes()[..self.len],
                self.pos,
                self.options.max_depth,
                self.eof,
                &mut self.spans,
            ) {
                Ok(v) => return Ok(v),
                Err(Stop::Incomplete) => {
                    if !self.refill()? {
                        return Err(self.truncated().in_event(Some(self.events)));
                    }
                }
                Err(Stop::Syntax { at, kind }) => {
                    return Err(self.syntax_error(at, kind).in_event(Some(self.events)))
                }
            }
        }
    }

    /// The next non-whitespace byte, refilling as needed; `None` at the end
    /// of input. A UTF-8 byte-order mark is skipped at the very start.
    fn peek_non_ws(&mut self, at_start: bool) -> Result<Option<u8>, Error> {
        loop {
            if at_start && self.base == 0 && self.pos == 0 {
                if self.len < 3 && !self.eof {
                    self.refill()?;
                    continue;
                }
                if self.buf.as_bytes()[..self.len].starts_with(b"\xEF\xBB\xBF") {
                    self.pos = 3;
                }
            }
            let b = &self.buf.as_bytes()[..self.len];
            self.pos = scan::skip_ws(b, self.pos);
            if let Some(&c) = b.get(self.pos) {
                return Ok(Some(c));
            }
            if !self.refill()? {
                return Ok(None);
            }
        }
    }

    /// Moves unread bytes to the front and reads more. Returns false at the
    /// end of input.
    fn refill(&mut self) -> Result<bool, Error> {
        if self.eof {
            return Ok(false);
        }
        match self.take_chunk() {
            Ok(Some(more)) => return Ok(more),
            Ok(None) => {}
            Err(e) if self.options.salvage && matches!(e.kind(), ErrorKind::GzipTruncated) => {
                self.gzip_cut = Some(e.encoded_offset().unwrap_or(0));
                self.input.end_at_cut();
                self.eof = true;
                return Ok(false);
            }
            Err(e) => return Err(e.in_event(self.event_in_progress())),
        }
        let buf = self.buf.bytes_mut();
        if self.pos > 0 {
            buf.copy_within(self.pos..self.len, 0);
            self.base += self.pos as u64;
            self.len -= self.pos;
            self.pos = 0;
        }
        if self.len == buf.len() {
            // One value fills the buffer: grow, within the value limit.
            let max = self.options.max_value_bytes;
            if self.len >= max {
                return Err(Error::new(ErrorKind::LimitExceeded {
                    which: Limit::ValueBytes,
                    limit: max as u64,
                })
                .at(self.base)
                .in_event(self.event_in_progress()));
            }
            let grown = (buf.len() * 2).min(max.max(CHUNK));
            buf.resize(grown, 0);
        }
        // The input enforces the decoded limit (one byte past it fails).
        let n = match self.input.read_decoded(&mut buf[self.len..]) {
            Ok(n) => n,
            // A job killed while writing .gz leaves a stream without its
            // end: under salvage what inflated is the input.
            Err(e) if self.options.salvage && matches!(e.kind(), ErrorKind::GzipTruncated) => {
                self.gzip_cut = Some(e.encoded_offset().unwrap_or(0));
                self.input.end_at_cut();
                0
            }
            Err(e) => return Err(e.in_event(self.event_in_progress())),
        };
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.len += n;
        // Checked whole here, once, instead of event by event; but only a
        // full buffer. After a short read (a pipe hands over 64 KiB at a
        // time) the rest of the buffer is stale bytes: checking them would
        // cost more than the events' own checks save, so the buffer stays
        // bytes and its events are checked one by one.
        if self.len == self.buf.len() {
            let bytes = std::mem::replace(&mut self.buf, Buffer::Bytes(Vec::new()));
            self.buf = Buffer::checked(bytes.into_bytes());
        }
        Ok(true)
    }

    /// With the decode thread, scans its next chunk where it lies: the
    /// unscanned bytes (a cut event, rarely more than a few hundred bytes)
    /// go into the room the thread left in front of the chunk, and the
    /// spent buffer goes back to the thread. `Ok(None)` when that is not
    /// possible now (no thread, part of a chunk left, or more unscanned
    /// bytes than the room): then [`TraceReader::refill`] copies.
    fn take_chunk(&mut self) -> Result<Option<bool>, Error> {
        let tail = self.len - self.pos;
        let tail_offset = self.base + self.pos as u64;
        // `base` must stay the offset of `buf[0]`, which is not negative.
        if tail > HEADROOM || tail_offset < HEADROOM as u64 {
            return Ok(None);
        }
        let (chunk, ahead) = match self.input.take_chunk()? {
            Handoff::Copy => return Ok(None),
            Handoff::End => {
                self.eof = true;
                return Ok(Some(false));
            }
            Handoff::Chunk(chunk, ahead) => (chunk, ahead),
        };
        let start = HEADROOM - tail;
        let unscanned = &self.buf.as_bytes()[self.pos..self.len];
        // The cut event goes over the chunk's NULs. The chunk stays text
        // when that event's start is text too (it begins at an ASCII `{`).
        let tail_text = match &self.buf {
            Buffer::Text(t) => t.get(self.pos..self.len),
            Buffer::Bytes(_) => std::str::from_utf8(unscanned).ok(),
        };
        let mut chunk = match (chunk, tail_text) {
            (Buffer::Text(mut text), Some(tail)) => {
                text.replace_range(start..HEADROOM, tail);
                Buffer::Text(text)
            }
            (chunk, _) => {
                let mut bytes = chunk.into_bytes();
                bytes[start..HEADROOM].copy_from_slice(unscanned);
                Buffer::Bytes(bytes)
            }
        };
        self.len = chunk.len();
        // A short last chunk keeps the buffer's usual size, so when a value
        // fills it (and the value limit is checked) does not depend on
        // where the chunks ended.
        if let Some(pad) = (HEADROOM + CHUNK).checked_sub(self.len) {
            match &mut chunk {
                Buffer::Text(text) => text.extend(std::iter::repeat_n('\0', pad)),
                Buffer::Bytes(bytes) => bytes.resize(HEADROOM + CHUNK, 0),
            }
        }
        let spent = std::mem::replace(&mut self.buf, chunk);
        let spent_ahead = std::mem::replace(&mut self.ahead, ahead);
        self.ahead_next = 0;
        self.input.give_back(spent.into_bytes(), spent_ahead);
        self.base = tail_offset - start as u64;
        self.ahead_base = self.base;
        self.pos = start;
        Ok(Some(true))
    }

    fn event_in_progress(&self) -> Option<u64> {
        match self.state {
            State::Events(_) => Some(self.events),
            _ => None,
        }
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn truncated(&self) -> Error {
        Error::new(ErrorKind::Truncated {
            complete_events: self.events,
        })
        .at(self.base + self.len as u64)
    }

    /// The input ended before the document did. With salvage the read ends
    /// here with a `truncated` warning (a partial value starting at
    /// `partial_at` is dropped); otherwise it is the `json_truncated` error.
    fn cut_short(&mut self, partial_at: Option<u64>) -> Result<(), Error> {
        if !self.options.salvage {
            return Err(self.truncated());
        }
        let end = self.base + self.len as u64;
        self.warnings
            .push(warning::truncated(end, partial_at, self.events));
        self.state = State::Done;
        Ok(())
    }

    fn syntax_error(&self, at: usize, kind: SyntaxKind) -> Error {
        let offset = self.base + at as u64;
        let event = self.event_in_progress();
        let (kind, path) = match kind {
            SyntaxKind::ExpectedValue => (ErrorKind::Syntax("expected a value"), None),
            SyntaxKind::ExpectedColon => (ErrorKind::Syntax("expected ':' after a key"), None),
            SyntaxKind::ExpectedKey => (ErrorKind::Syntax("expected a string key"), None),
            SyntaxKind::ExpectedCommaOrEndOfObject => (
                ErrorKind::Syntax("expected ',' or '}' after a member"),
                None,
            ),
            SyntaxKind::ExpectedCommaOrEndOfArray => (
                ErrorKind::Syntax("expected ',' or ']' after an element"),
                None,
            ),
            SyntaxKind::UnescapedQuote => (ErrorKind::UnescapedQuote, None),
            SyntaxKind::ControlCharacterInString => (
                ErrorKind::Syntax("control character inside a string must be escaped"),
                None,
            ),
            SyntaxKind::InvalidEscape => (ErrorKind::Syntax("invalid escape in a string"), None),
            SyntaxKind::InvalidNumber => (ErrorKind::Syntax("invalid number"), None),
            SyntaxKind::NonFiniteNumber => (ErrorKind::NonFiniteNumber, None),
            SyntaxKind::DepthExceeded => (
                ErrorKind::LimitExceeded {
                    which: Limit::Depth,
                    limit: self.options.max_depth as u64,
                },
                None,
            ),
            SyntaxKind::DuplicateField(field) => (
                ErrorKind::DuplicateKey {
                    key: field.key().to_owned(),
                },
                Some(field),
            ),
            SyntaxKind::WrongType { field, found } => {
                (ErrorKind::WrongType { field, found }, Some(field))
            }
        };
        let mut err = Error::new(kind).at(offset).in_event(event);
        if let (Some(field), Some(index)) = (path, event) {
            err = err.with_path(format!("traceEvents[{index}].{}", field.key()));
        }
        err
    }
}

fn kind_of(first: u8) -> ValueKind {
    match first {
        b'{' => ValueKind::Object,
        b'[' => ValueKind::Array,
        b'"' => ValueKind::String,
        b't' | b'f' => ValueKind::Bool,
        b'n' => ValueKind::Null,
        _ => ValueKind::Number,
    }
}

/// `bytes` as text, with the number of invalid UTF-8 sequences replaced by
/// U+FFFD: none when they are UTF-8; each one in lossy mode; otherwise
/// `Err` with the length of the valid prefix. A top-level metadata key or
/// value is read this way, so lossy mode replaces in metadata as it does in
/// events.
fn decode_text(bytes: &[u8], lossy: bool) -> Result<(std::borrow::Cow<'_, str>, u64), usize> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok((std::borrow::Cow::Borrowed(text), 0)),
        Err(e) if !lossy => Err(e.valid_up_to()),
        Err(_) => Ok(replace_invalid(bytes)),
    }
}

/// `bytes` with each invalid UTF-8 sequence replaced by U+FFFD, and how many
/// were.
fn replace_invalid(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, u64) {
    let replaced = bytes
        .utf8_chunks()
        .filter(|c| !c.invalid().is_empty())
        .count();
    (String::from_utf8_lossy(bytes), replaced as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events of `path` read with the decode thread, and how many of them
    /// the thread scanned ahead.
    fn scanned_ahead(path: &Path, decode_thread: bool) -> (u64, u64) {
        let options = ReaderOptions::new().decode_thread(decode_thread);
        let mut r = TraceReader::open_with(path, options).unwrap();
        while r.next_event().unwrap().is_some() {}
        (r.events, r.events_scanned_ahead)
    }

    #[test]
    fn the_decode_thread_scans_the_second_half_of_each_chunk() {
        // The reader scans each chunk up to about its middle and takes the
        // rest from the thread: nearly half of a large trace's events (less
        // the event cut at each chunk's end).
        let Some(path) =
            opguard_testdata::shared_file("traces/hta/nccl_parser_config__nccl_data.json.gz")
        else {
            return;
        };
        let (events, ahead) = scanned_ahead(&path, true);
        assert!(
            ahead * 100 > events * 45 && ahead * 100 < events * 52,
            "{ahead} of {events} events scanned ahead"
        );
        assert_eq!(scanned_ahead(&path, false), (events, 0));
    }

    #[test]
    fn the_chunk_the_reader_copies_is_not_scanned_ahead() {
        // The reader copies the first chunk (`take_chunk` needs the
        // unscanned bytes at an offset of at least HEADROOM), so events
        // scanned ahead in it would never be taken; the later ones are.
        let Some(path) =
            opguard_testdata::shared_file("traces/hta/nccl_parser_config__nccl_data.json.gz")
        else {
            return;
        };
        let options = ReaderOptions::new().decode_thread(true);
        let mut input =
            Pipeline::open(&path, &(&options).into(), ScanAhead::new(&options)).unwrap();
        let mut scanned = Vec::new();
        while let Handoff::Chunk(_, ahead) = input.take_chunk().unwrap() {
            scanned.push(ahead.events.len());
        }
        assert!(scanned.len() > 30, "{} chunks", scanned.len());
        assert_eq!(scanned[0], 0, "{scanned:?}");
        assert!(scanned[1..].iter().all(|&n| n > 0), "{scanned:?}");
    }

    #[test]
    fn spans_scanned_ahead_take_no_more_memory_than_their_chunk() {
        // 23-byte events: spans for half of each chunk's events would take
        // six times the chunk. The thread stops at the chunk's size.
        let mut doc = b"[".to_vec();
        for i in 0..400_000 {
            doc.extend_from_slice(format!("{{\"ph\":\"i\",\"ts\":{}}},", 100_000 + i).as_bytes());
        }
        doc.extend_from_slice(b"{}]");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.json");
        std::fs::write(&path, &doc).unwrap();
        let (events, ahead) = scanned_ahead(&path, true);
        assert_eq!(events, 400_001);
        let chunks = doc.len().div_ceil(CHUNK) as u64;
        let per_chunk = (HEADROOM + CHUNK) / std::mem::size_of::<crate::event::EventAhead>();
        assert!(ahead > 0, "none scanned ahead");
        assert!(
            ahead <= chunks * per_chunk as u64,
            "{ahead} events scanned ahead in {chunks} chunks, at most {per_chunk} each"
        );
    }
}
