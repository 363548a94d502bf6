//! Writer stage: a streaming, deterministic Chrome-trace JSON writer.
//!
//! The same input always produces the same bytes: fields are written in a
//! fixed order, numbers exactly (`ts`/`dur` as microseconds with at most three
//! decimals), one event per line. Reading the output back with
//! [`TraceReader`](crate::TraceReader) yields the same events.

use std::io::Write;

use crate::error::{Error, ErrorKind};
use crate::event::{Event, ScalarKey};
use crate::number::nanos_to_micros_text;
use crate::scan::{self, ValueKind};

/// A validated JSON value, kept as text so it is written byte for byte
/// (integers beyond `u64` stay exact).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawJson(String);

impl RawJson {
    /// Checks that `text` is exactly one JSON value.
    pub fn new(text: impl Into<String>) -> Result<Self, Error> {
        let text = text.into();
        let b = text.as_bytes();
        let start = scan::skip_ws(b, 0);
        let ok = match scan::skip_value(b, start, 0, scan::MAX_TRACKABLE_DEPTH, true) {
            Ok(span) => scan::skip_ws(b, span.end as usize) == b.len(),
            Err(_) => false,
        };
        if !ok {
            return Err(Error::new(ErrorKind::InvalidWrite(format!(
                "not a single JSON value: {}",
                text.chars().take(80).collect::<String>()
            ))));
        }
        Ok(RawJson(text))
    }

    /// Serializes a `serde_json::Value` (object keys come out sorted, so the
    /// text is deterministic).
    pub fn from_value(value: &serde_json::Value) -> Self {
        RawJson(value.to_string())
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Parses the text into a `serde_json::Value`.
    pub fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}

/// An owned trace event: what [`TraceWriter`] writes and what
/// [`OwnedEvent::from_event`] copies out of a reader.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedEvent {
    /// `ph`.
    pub ph: Option<String>,
    /// `cat`.
    pub cat: Option<String>,
    /// `name`.
    pub name: Option<String>,
    /// `pid`.
    pub pid: Option<ScalarKey>,
    /// `tid`.
    pub tid: Option<ScalarKey>,
    /// `ts` in nanoseconds.
    pub ts_ns: Option<i64>,
    /// `dur` in nanoseconds.
    pub dur_ns: Option<i64>,
    /// `id`.
    pub id: Option<ScalarKey>,
    /// `bind_id`.
    pub bind_id: Option<ScalarKey>,
    /// `bp`.
    pub bp: Option<String>,
    /// `s`.
    pub scope: Option<String>,
    /// `args`, an object.
    pub args: Option<RawJson>,
}

impl OwnedEvent {
    /// Copies the typed fields of a read event. Other keys are not copied.
    pub fn from_event(e: &Event<'_>) -> Result<Self, Error> {
        let s = |v: Option<crate::event::Str<'_>>| v.map(|s| s.as_cow().into_owned());
        let number = |r: Result<Option<i64>, crate::NumberError>| {
            r.map_err(|err| {
                Error::new(ErrorKind::InvalidWrite(err.to_string())).in_event(Some(e.index()))
            })
        };
        Ok(OwnedEvent {
            ph: s(e.ph()),
            cat: s(e.cat()),
            name: s(e.name()),
            pid: e.pid().map(|v| v.to_key()),
            tid: e.tid().map(|v| v.to_key()),
            ts_ns: number(e.ts_ns())?,
            dur_ns: number(e.dur_ns())?,
            id: e.id().map(|v| v.to_key()),
            bind_id: e.bind_id().map(|v| v.to_key()),
            bp: s(e.bp()),
            scope: s(e.scope()),
            args: e.args().map(|a| RawJson(a.raw().to_owned())),
        })
    }
}

/// A numeric `pid`/`tid`/`id` of an [`OwnedEvent`]: `7.into()`.
impl From<i64> for ScalarKey {
    fn from(v: i64) -> Self {
        ScalarKey::Number(v.to_string())
    }
}

/// A string `pid`/`tid`/`id` of an [`OwnedEvent`]: `"gpu 0".into()`.
impl From<&str> for ScalarKey {
    fn from(v: &str) -> Self {
        ScalarKey::String(v.to_owned())
    }
}

/// Writes a trace: `{"traceEvents":[` events `]` metadata `}`.
///
/// ```
/// use opguard_trace::{OwnedEvent, TraceReader, TraceWriter};
///
/// let mut w = TraceWriter::new(Vec::new())?;
/// w.write_event(&OwnedEvent {
///     ph: Some("X".into()),
///     name: Some("step".into()),
///     ts_ns: Some(1_500),
///     dur_ns: Some(2_000),
///     ..OwnedEvent::default()
/// })?;
/// let bytes = w.finish(&[])?;
/// assert_eq!(
///     String::from_utf8(bytes)?,
///     "{\"traceEvents\":[\n{\"ph\":\"X\",\"name\":\"step\",\"ts\":1.500,\"dur\":2}\n]}\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TraceWriter<W: Write> {
    out: W,
    events: u64,
    line: Vec<u8>,
}

impl<W: Write> TraceWriter<W> {
    /// Starts a trace on `out`.
    pub fn new(mut out: W) -> Result<Self, Error> {
        out.write_all(b"{\"traceEvents\":[")?;
        Ok(TraceWriter {
            out,
            events: 0,
            line: Vec::with_capacity(512),
        })
    }

    /// Events written so far.
    pub fn events_written(&self) -> u64 {
        self.events
    }

    /// Writes one event.
    pub fn write_event(&mut self, e: &OwnedEvent) -> Result<(), Error> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let result = encode_event(&mut line, e).and_then(|()| self.write_line(&line));
        self.line = line;
        result
    }

    /// Writes one event given as JSON text; it must be a single object.
    pub fn write_raw_event(&mut self, json: &str) -> Result<(), Error> {
        let raw = RawJson::new(json)?;
        if !raw.0.trim_start().starts_with('{') {
            return Err(Error::new(ErrorKind::InvalidWrite(
                "a trace event must be a JSON object".into(),
            )));
        }
        self.write_line(raw.0.trim().as_bytes())
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), Error> {
        if self.events > 0 {
            self.out.write_all(b",")?;
        }
        self.out.write_all(b"\n")?;
        self.out.write_all(line)?;
        self.events += 1;
        Ok(())
    }

    /// Closes the events array, writes top-level metadata `(key, JSON)` in
    /// the order given, and returns the output.
    pub fn finish(mut self, metadata: &[(&str, &RawJson)]) -> Result<W, Error> {
        let mut tail = Vec::new();
        tail.extend_from_slice(if self.events > 0 { b"\n]" } else { b"]" });
        for (key, value) in metadata {
            if *key == "traceEvents" {
                return Err(Error::new(ErrorKind::InvalidWrite(
                    "metadata cannot be named traceEvents".into(),
                )));
            }
            tail.push(b',');
            write_json_string(&mut tail, key);
            tail.push(b':');
            tail.extend_from_slice(value.as_str().as_bytes());
        }
        tail.extend_from_slice(b"}\n");
        self.out.write_all(&tail)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn encode_event(out: &mut Vec<u8>, e: &OwnedEvent) -> Result<(), Error> {
    out.push(b'{');
    let mut first = true;
    let mut key = |out: &mut Vec<u8>, k: &str| {
        if !first {
            out.push(b',');
        }
        first = false;
        out.push(b'"');
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b"\":");
    };
    let strings = [("ph", &e.ph), ("cat", &e.cat), ("name", &e.name)];
    for (k, v) in strings {
        if let Some(v) = v {
            key(out, k);
            write_json_string(out, v);
        }
    }
    for (k, v) in [("pid", &e.pid), ("tid", &e.tid)] {
        if let Some(v) = v {
            key(out, k);
            write_scalar(out, v)?;
        }
    }
    for (k, v) in [("ts", e.ts_ns), ("dur", e.dur_ns)] {
        if let Some(v) = v {
            key(out, k);
            out.extend_from_slice(nanos_to_micros_text(v).as_bytes());
        }
    }
    for (k, v) in [("id", &e.id), ("bind_id", &e.bind_id)] {
        if let Some(v) = v {
            key(out, k);
            write_scalar(out, v)?;
        }
    }
    for (k, v) in [("bp", &e.bp), ("s", &e.scope)] {
        if let Some(v) = v {
            key(out, k);
            write_json_string(out, v);
        }
    }
    if let Some(args) = &e.args {
        if !args.0.trim_start().starts_with('{') {
            return Err(Error::new(ErrorKind::InvalidWrite(
                "args must be a JSON object".into(),
            )));
        }
        key(out, "args");
        out.extend_from_slice(args.0.trim().as_bytes());
    }
    out.push(b'}');
    Ok(())
}

fn write_scalar(out: &mut Vec<u8>, v: &ScalarKey) -> Result<(), Error> {
    match v {
        ScalarKey::String(s) => write_json_string(out, s),
        ScalarKey::Number(n) => {
            let b = n.as_bytes();
            let valid = matches!(
                scan::skip_value(b, 0, 0, 1, true),
                Ok(span) if span.kind == ValueKind::Number && span.end as usize == b.len()
            );
            if !valid {
                return Err(Error::new(ErrorKind::InvalidWrite(format!(
                    "{n:?} is not a JSON number"
                ))));
            }
            out.extend_from_slice(b);
        }
    }
    Ok(())
}

/// Appends `s` as a JSON string literal: quotes, backslashes and control
/// characters escaped, everything else as UTF-8.
pub fn write_json_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0x08 => Some(b"\\b"),
            0x0c => Some(b"\\f"),
            0..=0x1f => None,
            _ => continue,
        };
        out.extend_from_slice(&s.as_bytes()[start..i]);
        match esc {
            Some(e) => out.extend_from_slice(e),
            None => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
        }
        start = i + 1;
    }
    out.extend_from_slice(&s.as_bytes()[start..]);
    out.push(b'"');
}
