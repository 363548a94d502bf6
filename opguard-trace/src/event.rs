//! Reader stage: one trace event, borrowed from the reader's buffer.
//!
//! [`Event`] gives typed access to the fields every opguard analysis needs
//! and raw access to everything else. Strings are borrowed and decoded only
//! when they contain escapes; numbers stay exact ([`Number`]).

use std::borrow::Cow;
use std::fmt;

use crate::field::{Field, FIELD_COUNT};
use crate::number::{Number, NumberError};
use crate::scan::{self, Span, Stop, SyntaxKind, ValueKind};

/// Whether a value of `kind` is acceptable for `field`. `null` is accepted
/// everywhere and read as absent.
fn accepts(field: Field, kind: ValueKind) -> bool {
    match (field, kind) {
        (_, ValueKind::Null) => true,
        (Field::Ph | Field::Name | Field::Cat | Field::Bp | Field::S, k) => k == ValueKind::String,
        (Field::Pid | Field::Tid | Field::Id | Field::BindId, k) => {
            matches!(k, ValueKind::Number | ValueKind::String)
        }
        (Field::Ts | Field::Dur, k) => k == ValueKind::Number,
        (Field::Args, k) => k == ValueKind::Object,
    }
}

/// Where the typed fields of one event sit, relative to the event's start.
/// The reader keeps one and the scanner fills it in place: an event hands
/// out a reference, never a copy of these few hundred bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventSpans {
    fields: [Option<Span>; FIELD_COUNT],
    /// The first occurrence of each [`ArgKey`] inside `args`.
    args: [Option<Span>; ARG_KEY_COUNT],
}

/// The `args` keys whose place the scanner records on its single pass, so
/// their getters never rescan `args`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgKey {
    Correlation,
    ExternalId,
    Device,
    Context,
    Stream,
    SequenceNumber,
    InputDims,
    InputType,
    /// XLA's op and module: provider detection asks every event without a
    /// `cat` for them, which on a large Kineto trace was a rescan of `args`
    /// for most events.
    HloOp,
    HloModule,
}

const ARG_KEY_COUNT: usize = 10;

impl ArgKey {
    fn from_key(key: &[u8]) -> Option<ArgKey> {
        Some(match key {
            b"correlation" => ArgKey::Correlation,
            b"External id" => ArgKey::ExternalId,
            b"device" => ArgKey::Device,
            b"context" => ArgKey::Context,
            b"stream" => ArgKey::Stream,
            b"Sequence number" => ArgKey::SequenceNumber,
            b"Input Dims" => ArgKey::InputDims,
            b"Input type" => ArgKey::InputType,
            b"hlo_op" => ArgKey::HloOp,
            b"hlo_module" => ArgKey::HloModule,
            _ => return None,
        })
    }
}

/// The bytes of a string key, decoded when escaped.
fn key_bytes(raw: &[u8], escaped: bool) -> Option<std::borrow::Cow<'_, [u8]>> {
    if !escaped {
        return Some(std::borrow::Cow::Borrowed(raw));
    }
    let text = std::str::from_utf8(raw).ok()?;
    unescape(text)
        .ok()
        .map(|k| std::borrow::Cow::Owned(k.into_bytes()))
}

/// Walks the members of the object whose `{` is at `start`, validating its
/// punctuation and keys. `member` scans each value: it gets the key (escapes
/// decoded), where the key starts and where the value starts, and returns the
/// value's span. Returns the index just past the closing `}`.
fn scan_members(
    b: &[u8],
    start: usize,
    at_eof: bool,
    mut member: impl FnMut(Option<&[u8]>, usize, usize) -> Result<Span, Stop>,
) -> Result<usize, Stop> {
    let mut i = start + 1;
    let mut first = true;
    loop {
        i = scan::skip_ws(b, i);
        let Some(&c) = b.get(i) else {
            return Err(Stop::Incomplete);
        };
        if c == b'}' && first {
            return Ok(i + 1);
        }
        if !first {
            match c {
                b',' => i = scan::skip_ws(b, i + 1),
                b'}' => return Ok(i + 1),
                _ => {
                    return Err(Stop::Syntax {
                        at: i,
                        kind: SyntaxKind::ExpectedCommaOrEndOfObject,
                    })
                }
            }
        }
        first = false;
        match b.get(i) {
            None => return Err(Stop::Incomplete),
            Some(b'"') => {}
            Some(_) => {
                return Err(Stop::Syntax {
                    at: i,
                    kind: SyntaxKind::ExpectedKey,
                })
            }
        }
        let key_start = i;
        let (key_end, key_escaped) = scan::scan_string(b, i)?;
        i = scan::value_after_key(b, key_end)?;
        let key = key_bytes(&b[key_start + 1..key_end - 1], key_escaped);
        let value = member(key.as_deref(), key_start, i)?;
        if value.kind == ValueKind::String {
            scan::check_after_string(b, value.end as usize, at_eof)?;
        }
        i = value.end as usize;
    }
}

/// Refuses a container that would sit deeper than `max_depth`.
fn check_depth(at: usize, depth: usize, max_depth: usize) -> Result<(), Stop> {
    if depth > max_depth.min(scan::MAX_TRACKABLE_DEPTH) {
        return Err(Stop::Syntax {
            at,
            kind: SyntaxKind::DepthExceeded,
        });
    }
    Ok(())
}

/// Scans the `args` object at `start` (a member of an event at `depth`),
/// validating exactly as [`scan::skip_value`] does, and records where each
/// [`ArgKey`] first appears, relative to `base`.
fn scan_args(
    b: &[u8],
    start: usize,
    depth: usize,
    max_depth: usize,
    at_eof: bool,
    base: usize,
    out: &mut [Option<Span>; ARG_KEY_COUNT],
) -> Result<Span, Stop> {
    check_depth(start, depth + 1, max_depth)?;
    let end = scan_members(b, start, at_eof, |key, _, at| {
        let value = scan::skip_value(b, at, depth + 1, max_depth, at_eof)?;
        if let Some(k) = key.and_then(ArgKey::from_key) {
            let slot = &mut out[k as usize];
            if slot.is_none() {
                *slot = Some(Span {
                    start: value.start - base as u32,
                    end: value.end - base as u32,
                    ..value
                });
            }
        }
        Ok(value)
    })?;
    Ok(Span {
        start: start as u32,
        end: end as u32,
        kind: ValueKind::Object,
        escaped: false,
    })
}

impl Default for EventSpans {
    fn default() -> Self {
        EventSpans {
            fields: [None; FIELD_COUNT],
            args: [None; ARG_KEY_COUNT],
        }
    }
}

/// Scans one event object starting at `pos` (which must be `{`), nested at
/// `depth` (1 for the document itself). Fills `spans` with the typed field
/// spans (relative to `pos`) and returns the index just past the object.
pub(crate) fn scan_event(
    b: &[u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    at_eof: bool,
    spans: &mut EventSpans,
) -> Result<usize, Stop> {
    check_depth(pos, depth, max_depth)?;
    *spans = EventSpans::default();
    let end = scan_members(b, pos, at_eof, |key, key_start, at| {
        let field = key.and_then(Field::from_key);
        let value = match (field, b.get(at)) {
            // A second `args` is refused below; it must not overwrite the
            // first one's recorded keys first.
            (Some(Field::Args), Some(b'{')) if spans.fields[Field::Args as usize].is_none() => {
                scan_args(b, at, depth, max_depth, at_eof, pos, &mut spans.args)?
            }
            _ => scan::skip_value(b, at, depth, max_depth, at_eof)?,
        };
        let Some(field) = field else {
            return Ok(value);
        };
        if !accepts(field, value.kind) {
            return Err(Stop::Syntax {
                at,
                kind: SyntaxKind::WrongType {
                    field,
                    found: value.kind,
                },
            });
        }
        let slot = &mut spans.fields[field as usize];
        if slot.is_some() {
            return Err(Stop::Syntax {
                at: key_start,
                kind: SyntaxKind::DuplicateField(field),
            });
        }
        if value.kind != ValueKind::Null {
            *slot = Some(Span {
                start: value.start - pos as u32,
                end: value.end - pos as u32,
                ..value
            });
        }
        Ok(value)
    })?;
    Ok(end)
}

/// Events scanned ahead of the reader, on the decode thread, in the chunk
/// it is about to hand over.
///
/// Scanning an event is a function of its bytes from its `{` on (and of the
/// depth it sits at), so a reader that arrives at one of these starts, in
/// its events array at the same depth, may take the recorded end and spans
/// instead of scanning the event again: the answer, errors included, is the
/// one its own scan would give. Where the scan ahead began is a guess (a
/// `{` after `},`, which a string can contain too); a guess the reader
/// never arrives at costs nothing but the work.
#[derive(Default)]
pub(crate) struct ScannedAhead {
    /// The depth the events were scanned at; 0 when none were.
    pub(crate) depth: usize,
    pub(crate) events: Vec<EventAhead>,
}

/// One event of [`ScannedAhead`]: where it lies in its chunk, and its spans.
#[derive(Clone, Copy)]
pub(crate) struct EventAhead {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) spans: EventSpans,
}

impl ScannedAhead {
    /// Scans consecutive events of `b` from the first likely event start at
    /// or after `from`, until an event is not whole in `b`, fails to scan,
    /// or is not followed by `,` and another `{`: whatever stops the scan
    /// is left to the reader, which finds it (and its error) exactly.
    /// The spans take at most as much memory as `b` itself (an event of a
    /// few bytes has ~280 bytes of spans, so a chunk of such events would
    /// need many times its size); the reader scans whatever is left. Reuses
    /// `events`' allocation.
    pub(crate) fn scan(
        b: &[u8],
        from: usize,
        depth: usize,
        max_depth: usize,
        mut events: Vec<EventAhead>,
    ) -> ScannedAhead {
        events.clear();
        let most = b.len() / std::mem::size_of::<EventAhead>();
        let mut pos = likely_event_start(b, from);
        while let Some(start) = pos.filter(|_| events.len() < most) {
            events.push(EventAhead {
                start,
                end: 0,
                spans: EventSpans::default(),
            });
            let Some(last) = events.last_mut() else { break };
            let Ok(end) = scan_event(b, start, depth, max_depth, false, &mut last.spans) else {
                events.pop();
                break;
            };
            last.end = end;
            let comma = scan::skip_ws(b, end);
            pos = (b.get(comma) == Some(&b','))
                .then(|| scan::skip_ws(b, comma + 1))
                .filter(|&next| b.get(next) == Some(&b'{'));
        }
        ScannedAhead { depth, events }
    }
}

/// The first `{` at or after `from` that follows `}` and `,` (whitespace
/// between): where the next event of an events array would start.
fn likely_event_start(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(k) = b.get(i..).and_then(|rest| memchr::memchr(b'{', rest)) {
        let at = i + k;
        let comma = last_non_ws_before(b, at);
        if comma.is_some_and(|c| b[c] == b',')
            && comma
                .and_then(|c| last_non_ws_before(b, c))
                .is_some_and(|c| b[c] == b'}')
        {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

fn last_non_ws_before(b: &[u8], at: usize) -> Option<usize> {
    b[..at].iter().rposition(|&c| !scan::is_ws(c))
}

/// One trace event, borrowed from the reader. Valid until the next call to
/// [`TraceReader::next_event`](crate::TraceReader::next_event).
#[derive(Clone, Copy)]
pub struct Event<'a> {
    index: u64,
    offset: u64,
    text: &'a str,
    spans: &'a EventSpans,
}

impl<'a> Event<'a> {
    pub(crate) fn new(index: u64, offset: u64, text: &'a str, spans: &'a EventSpans) -> Self {
        Event {
            index,
            offset,
            text,
            spans,
        }
    }

    /// Zero-based position in `traceEvents`.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Byte offset of the event's `{` in the decoded stream.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The event's complete JSON text.
    pub fn raw(&self) -> &'a str {
        self.text
    }

    fn value(&self, field: Field) -> Option<Value<'a>> {
        let span = self.spans.fields[field as usize]?;
        let text = self.text.get(span.start as usize..span.end as usize)?;
        Some(Value {
            text,
            kind: span.kind,
            escaped: span.escaped,
        })
    }

    fn str_field(&self, field: Field) -> Option<Str<'a>> {
        self.value(field).and_then(|v| v.as_str_value())
    }

    /// `ph`.
    pub fn ph(&self) -> Option<Str<'a>> {
        self.str_field(Field::Ph)
    }
    /// `name`.
    pub fn name(&self) -> Option<Str<'a>> {
        self.str_field(Field::Name)
    }
    /// `cat`.
    pub fn cat(&self) -> Option<Str<'a>> {
        self.str_field(Field::Cat)
    }
    /// `pid` (a number or a string such as `"Spans"`).
    pub fn pid(&self) -> Option<Scalar<'a>> {
        self.value(Field::Pid).and_then(|v| v.as_scalar())
    }
    /// `tid` (a number or a string such as `"PyTorch Profiler"`).
    pub fn tid(&self) -> Option<Scalar<'a>> {
        self.value(Field::Tid).and_then(|v| v.as_scalar())
    }
    /// `ts` as written (microseconds).
    pub fn ts(&self) -> Option<Number<'a>> {
        self.value(Field::Ts).and_then(|v| v.as_number())
    }
    /// `dur` as written (microseconds).
    pub fn dur(&self) -> Option<Number<'a>> {
        self.value(Field::Dur).and_then(|v| v.as_number())
    }
    /// `ts` in integer nanoseconds, converted exactly.
    pub fn ts_ns(&self) -> Result<Option<i64>, NumberError> {
        self.ts().map(|n| n.micros_to_nanos()).transpose()
    }
    /// `dur` in integer nanoseconds, converted exactly.
    pub fn dur_ns(&self) -> Result<Option<i64>, NumberError> {
        self.dur().map(|n| n.micros_to_nanos()).transpose()
    }
    /// `id` (flows, async events).
    pub fn id(&self) -> Option<Scalar<'a>> {
        self.value(Field::Id).and_then(|v| v.as_scalar())
    }
    /// `bind_id`.
    pub fn bind_id(&self) -> Option<Scalar<'a>> {
        self.value(Field::BindId).and_then(|v| v.as_scalar())
    }
    /// `bp`: flow binding point (`"e"` binds to the enclosing slice).
    pub fn bp(&self) -> Option<Str<'a>> {
        self.str_field(Field::Bp)
    }
    /// `s`: instant event scope.
    pub fn scope(&self) -> Option<Str<'a>> {
        self.str_field(Field::S)
    }
    /// `args`, if present and not null.
    pub fn args(&self) -> Option<Args<'a>> {
        self.value(Field::Args).map(|v| Args { text: v.text })
    }
    fn arg_value(&self, key: ArgKey) -> Option<Value<'a>> {
        let span = self.spans.args[key as usize]?;
        let text = self.text.get(span.start as usize..span.end as usize)?;
        Some(Value {
            text,
            kind: span.kind,
            escaped: span.escaped,
        })
    }

    fn arg_scalar(&self, key: ArgKey) -> Option<Scalar<'a>> {
        self.arg_value(key).and_then(|v| v.as_scalar())
    }

    /// One argument by key (its first occurrence). The keys the typed
    /// getters below read were located by the scanner and are not searched.
    pub fn arg(&self, key: &str) -> Option<Value<'a>> {
        match ArgKey::from_key(key.as_bytes()) {
            Some(k) => self.arg_value(k),
            None => self.args().and_then(|a| a.get(key)),
        }
    }
    /// Whether `args` has `hlo_op` or `hlo_module` (XLA's op and module),
    /// looked up where the scan recorded them.
    pub(crate) fn has_xla_args(&self) -> bool {
        self.arg_value(ArgKey::HloOp).is_some() || self.arg_value(ArgKey::HloModule).is_some()
    }
    /// The five `args` keys that place device work.
    pub fn launch_args(&self) -> LaunchArgs<'a> {
        LaunchArgs {
            correlation: self.arg_scalar(ArgKey::Correlation),
            external_id: self.arg_scalar(ArgKey::ExternalId),
            device: self.arg_scalar(ArgKey::Device),
            context: self.arg_scalar(ArgKey::Context),
            stream: self.arg_scalar(ArgKey::Stream),
        }
    }
    /// `args["External id"]`.
    pub fn external_id(&self) -> Option<Scalar<'a>> {
        self.arg_scalar(ArgKey::ExternalId)
    }
    /// `args["correlation"]`.
    pub fn correlation(&self) -> Option<Scalar<'a>> {
        self.arg_scalar(ArgKey::Correlation)
    }
    /// `args["device"]`.
    pub fn device(&self) -> Option<Scalar<'a>> {
        self.arg_scalar(ArgKey::Device)
    }
    /// `args["stream"]`.
    pub fn stream(&self) -> Option<Scalar<'a>> {
        self.arg_scalar(ArgKey::Stream)
    }
    /// `args["context"]`.
    pub fn context(&self) -> Option<Scalar<'a>> {
        self.arg_scalar(ArgKey::Context)
    }
    /// `args["Sequence number"]`.
    pub fn sequence_number(&self) -> Option<Scalar<'a>> {
        self.arg_scalar(ArgKey::SequenceNumber)
    }
    /// `args["Input Dims"]` (raw JSON, usually an array of arrays).
    pub fn input_dims(&self) -> Option<Value<'a>> {
        self.arg_value(ArgKey::InputDims)
    }
    /// `args["Input type"]` (raw JSON, usually an array of strings).
    pub fn input_type(&self) -> Option<Value<'a>> {
        self.arg_value(ArgKey::InputType)
    }
}

impl fmt::Debug for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("index", &self.index)
            .field("offset", &self.offset)
            .field("raw", &self.text)
            .finish()
    }
}

/// The `args` keys that place device work, from [`Event::launch_args`].
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct LaunchArgs<'a> {
    /// `args.correlation`.
    pub correlation: Option<Scalar<'a>>,
    /// `args["External id"]`.
    pub external_id: Option<Scalar<'a>>,
    /// `args.device`.
    pub device: Option<Scalar<'a>>,
    /// `args.context`.
    pub context: Option<Scalar<'a>>,
    /// `args.stream`.
    pub stream: Option<Scalar<'a>>,
}

/// A JSON string borrowed from the trace, decoded only if it has escapes.
#[derive(Debug, Clone, Copy)]
pub struct Str<'a> {
    raw: &'a str,
    escaped: bool,
}

impl<'a> Str<'a> {
    /// The text between the quotes, escapes not decoded.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The decoded string; borrowed unless it contains escapes.
    pub fn as_cow(&self) -> Cow<'a, str> {
        if self.escaped {
            Cow::Owned(unescape_lossy(self.raw))
        } else {
            Cow::Borrowed(self.raw)
        }
    }

    /// Compares with `s` without allocating when there are no escapes.
    pub fn eq_str(&self, s: &str) -> bool {
        if self.escaped {
            self.as_cow() == s
        } else {
            self.raw == s
        }
    }
}

impl PartialEq<str> for Str<'_> {
    fn eq(&self, other: &str) -> bool {
        self.eq_str(other)
    }
}

impl PartialEq<&str> for Str<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.eq_str(other)
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_cow())
    }
}

/// A value that is a number or a string: `pid`, `tid`, ids.
#[derive(Debug, Clone, Copy)]
pub enum Scalar<'a> {
    /// A JSON number, exact.
    Number(Number<'a>),
    /// A JSON string.
    String(Str<'a>),
}

impl Scalar<'_> {
    /// An owned, hashable copy, for use as a map key.
    pub fn to_key(&self) -> ScalarKey {
        match self {
            Scalar::Number(n) => ScalarKey::Number(n.as_str().to_owned()),
            Scalar::String(s) => ScalarKey::String(s.as_cow().into_owned()),
        }
    }

    /// The integer value, for numbers that are integers within `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Scalar::Number(n) => n.as_i64(),
            Scalar::String(_) => None,
        }
    }
}

impl fmt::Display for Scalar<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Number(n) => n.fmt(f),
            Scalar::String(s) => s.fmt(f),
        }
    }
}

/// An owned [`Scalar`]: numbers keep their exact text, so `7` and `"7"` are
/// different keys and ids beyond `u64` stay distinct.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarKey {
    /// A number, as written.
    Number(String),
    /// A string, decoded.
    String(String),
}

impl fmt::Display for ScalarKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarKey::Number(s) | ScalarKey::String(s) => f.write_str(s),
        }
    }
}

/// Any JSON value inside an event, as its validated text.
#[derive(Debug, Clone, Copy)]
pub struct Value<'a> {
    text: &'a str,
    kind: ValueKind,
    escaped: bool,
}

impl<'a> Value<'a> {
    /// The JSON type.
    pub fn kind(&self) -> ValueKind {
        self.kind
    }
    /// The value's JSON text.
    pub fn raw(&self) -> &'a str {
        self.text
    }
    fn as_str_value(&self) -> Option<Str<'a>> {
        if self.kind != ValueKind::String {
            return None;
        }
        let raw = self.text.get(1..self.text.len() - 1)?;
        Some(Str {
            raw,
            escaped: self.escaped,
        })
    }
    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        self.as_str_value().map(|s| s.as_cow())
    }
    /// The number, if this is a number.
    pub fn as_number(&self) -> Option<Number<'a>> {
        (self.kind == ValueKind::Number).then_some(Number(self.text))
    }
    /// A number or a string.
    pub fn as_scalar(&self) -> Option<Scalar<'a>> {
        match self.kind {
            ValueKind::Number => Some(Scalar::Number(Number(self.text))),
            ValueKind::String => self.as_str_value().map(Scalar::String),
            _ => None,
        }
    }
    /// The object's members, if this is an object.
    pub fn as_object(&self) -> Option<Args<'a>> {
        (self.kind == ValueKind::Object).then_some(Args { text: self.text })
    }
    /// The array's elements, if this is an array.
    pub fn as_array(&self) -> Option<ArrayIter<'a>> {
        (self.kind == ValueKind::Array).then_some(ArrayIter {
            text: self.text,
            pos: 1,
        })
    }
    /// Parses the value into a `serde_json::Value`. Integers beyond `u64`
    /// become floats there: use [`Value::raw`] when exactness matters.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::from_str(self.text).unwrap_or(serde_json::Value::Null)
    }
}

/// The members of a JSON object, in file order.
#[derive(Debug, Clone, Copy)]
pub struct Args<'a> {
    text: &'a str,
}

impl<'a> Args<'a> {
    /// The object's JSON text.
    pub fn raw(&self) -> &'a str {
        self.text
    }
    /// The first member named `key`.
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.iter().find(|(k, _)| k.eq_str(key)).map(|(_, v)| v)
    }
    /// Members in file order.
    pub fn iter(&self) -> ObjectIter<'a> {
        ObjectIter {
            text: self.text,
            pos: 1,
        }
    }
}

/// Iterator over an object's members (see [`Args::iter`]).
#[derive(Debug, Clone)]
pub struct ObjectIter<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for ObjectIter<'a> {
    type Item = (Str<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let mut i = scan::skip_ws(b, self.pos);
        if b.get(i) == Some(&b',') {
            i = scan::skip_ws(b, i + 1);
        }
        if b.get(i) != Some(&b'"') {
            self.pos = b.len();
            return None;
        }
        let (key_end, escaped) = scan::scan_string(b, i).ok()?;
        let key = Str {
            raw: self.text.get(i + 1..key_end - 1)?,
            escaped,
        };
        i = scan::skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = scan::skip_ws(b, i + 1);
        let span = scan::skip_value(b, i, 0, usize::MAX, true).ok()?;
        self.pos = span.end as usize;
        Some((
            key,
            Value {
                text: self.text.get(i..span.end as usize)?,
                kind: span.kind,
                escaped: span.escaped,
            },
        ))
    }
}

/// Iterator over an array's elements (see [`Value::as_array`]).
#[derive(Debug, Clone)]
pub struct ArrayIter<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.text.as_bytes();
        let mut i = scan::skip_ws(b, self.pos);
        if b.get(i) == Some(&b',') {
            i = scan::skip_ws(b, i + 1);
        }
        if matches!(b.get(i), None | Some(b']')) {
            self.pos = b.len();
            return None;
        }
        let span = scan::skip_value(b, i, 0, usize::MAX, true).ok()?;
        self.pos = span.end as usize;
        Some(Value {
            text: self.text.get(i..span.end as usize)?,
            kind: span.kind,
            escaped: span.escaped,
        })
    }
}

/// Decodes the escapes of a JSON string body. Errors on a lone surrogate.
pub(crate) fn unescape(raw: &str) -> Result<String, ()> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next().ok_or(())? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hi = hex4(&mut chars)?;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if chars.next() != Some('\\') || chars.next() != Some('u') {
                        return Err(());
                    }
                    let lo = hex4(&mut chars)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(());
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                out.push(char::from_u32(code).ok_or(())?);
            }
            _ => return Err(()),
        }
    }
    Ok(out)
}

/// Like [`unescape`], but a lone surrogate becomes U+FFFD.
fn unescape_lossy(raw: &str) -> String {
    unescape(raw).unwrap_or_else(|()| {
        // Decode piecewise: valid escapes as usual, broken ones as U+FFFD.
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(p) = rest.find('\\') {
            out.push_str(&rest[..p]);
            let tail = &rest[p..];
            let take = if tail.starts_with("\\u") { 6 } else { 2 };
            let piece = tail.get(..take.min(tail.len())).unwrap_or(tail);
            out.push_str(&unescape(piece).unwrap_or_else(|()| "\u{FFFD}".into()));
            rest = &tail[piece.len()..];
        }
        out.push_str(rest);
        out
    })
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Result<u32, ()> {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next().and_then(|c| c.to_digit(16)).ok_or(())?;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(s: &str) -> Event<'_> {
        let spans = Box::leak(Box::default());
        let end = scan_event(s.as_bytes(), 0, 1, 64, true, spans).expect("scans");
        assert_eq!(end, s.len());
        Event::new(0, 0, s, spans)
    }

    #[test]
    fn typed_fields() {
        let e = event(
            r#"{"ph":"X","cat":"kernel","name":"void k<1>(int)","pid":0,"tid":"stream 7","ts":4203669604595.407,"dur":1.5,"args":{"correlation":10159970886766084423,"External id":5,"device":0,"stream":7}}"#,
        );
        assert!(e.ph().unwrap() == "X");
        assert_eq!(e.name().unwrap().as_cow(), "void k<1>(int)");
        assert_eq!(e.ts_ns().unwrap(), Some(4_203_669_604_595_407));
        assert_eq!(e.dur_ns().unwrap(), Some(1500));
        assert_eq!(
            e.correlation().unwrap().to_key(),
            ScalarKey::Number("10159970886766084423".into())
        );
        assert_eq!(e.external_id().unwrap().as_i64(), Some(5));
        assert_eq!(
            e.tid().unwrap().to_key(),
            ScalarKey::String("stream 7".into())
        );
        assert!(e.arg("missing").is_none());
        // Located keys and searched keys agree, first occurrence first.
        let dup =
            event(r#"{"args":{"correlation":1,"x":{"correlation":9},"correlation":2,"y":3}}"#);
        assert_eq!(dup.correlation().unwrap().as_i64(), Some(1));
        assert_eq!(dup.arg("y").unwrap().raw(), "3");
        assert_eq!(
            dup.args().unwrap().get("correlation").unwrap().raw(),
            dup.arg("correlation").unwrap().raw()
        );
        let xla = event(r#"{"args":{"hlo\u005fop":"fusion.1","hlo_op":"x","hlo_module":{"m":1}}}"#);
        for key in ["hlo_op", "hlo_module"] {
            assert_eq!(
                xla.arg(key).unwrap().raw(),
                xla.args().unwrap().get(key).unwrap().raw(),
                "{key}"
            );
        }
        assert_eq!(xla.arg("hlo_op").unwrap().raw(), r#""fusion.1""#);
    }

    #[test]
    fn escapes_decode_on_demand() {
        let e = event(r#"{"name":"a\"b\u00e9\ud83d\ude00","ph":"i"}"#);
        assert_eq!(e.name().unwrap().as_cow(), "a\"bé😀");
        assert!(e.name().unwrap() == "a\"bé😀");
        assert_eq!(e.name().unwrap().raw(), r#"a\"b\u00e9\ud83d\ude00"#);
        let lone = event(r#"{"name":"x\ud800y"}"#);
        assert_eq!(lone.name().unwrap().as_cow(), "x\u{FFFD}y");
    }

    #[test]
    fn wrong_types_and_duplicates_are_refused() {
        let stop = |s: &str| {
            scan_event(s.as_bytes(), 0, 1, 64, true, &mut EventSpans::default()).unwrap_err()
        };
        assert!(matches!(
            stop(r#"{"ts":"12"}"#),
            Stop::Syntax {
                kind: SyntaxKind::WrongType {
                    field: Field::Ts,
                    found: ValueKind::String
                },
                at: 6
            }
        ));
        assert!(matches!(
            stop(r#"{"ph":"X","ph":"B"}"#),
            Stop::Syntax {
                kind: SyntaxKind::DuplicateField(Field::Ph),
                at: 10
            }
        ));
        assert!(matches!(
            stop(r#"{"args":[1]}"#),
            Stop::Syntax {
                kind: SyntaxKind::WrongType {
                    field: Field::Args,
                    ..
                },
                ..
            }
        ));
        // An escaped key is still the field it spells.
        assert!(matches!(
            stop(r#"{"ph":"X","\u0070h":"B"}"#),
            Stop::Syntax {
                kind: SyntaxKind::DuplicateField(Field::Ph),
                ..
            }
        ));
    }

    #[test]
    fn null_fields_are_absent_and_unknown_keys_are_kept_raw() {
        let e = event(r#"{"name":null,"extra":{"deep":[1,2]},"ph":"M"}"#);
        assert!(e.name().is_none());
        assert!(e.raw().contains("deep"));
    }

    #[test]
    fn args_iterate_in_order_with_nested_values() {
        let e = event(r#"{"args":{"Input Dims":[[1,2],[]],"Input type":["float",""],"b":true}}"#);
        let keys: Vec<_> = e
            .args()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_cow().into_owned())
            .collect();
        assert_eq!(keys, ["Input Dims", "Input type", "b"]);
        let dims: Vec<_> = e
            .input_dims()
            .unwrap()
            .as_array()
            .unwrap()
            .map(|v| v.raw())
            .collect();
        assert_eq!(dims, ["[1,2]", "[]"]);
    }
}
