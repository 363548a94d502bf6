//! Reader: one XSpace file in memory once, walked plane by plane, line by
//! line, event by event. Names and `bytes` stats borrow from the file's
//! buffer; only one plane's metadata maps and one event are decoded at a
//! time.

use std::cell::Cell;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use prost::Message;
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Limit};
use crate::kinds::{KnownStat, LineKind, PlaneKind};
use crate::proto::{x_event, x_stat, XEvent, XEventMetadata, XStat, XStatMetadata};
use crate::wire::{Field, Fields, Value, WireFault};

/// Default limit on the file's size: 256 MiB, the limit of every other
/// trace format opguard reads.
pub const DEFAULT_MAX_ENCODED_BYTES: u64 = 256 << 20;
/// Default limit on decoded bytes (the file's, plus those inflated from
/// compressed string stats): 256 MiB.
pub const DEFAULT_MAX_DECODED_BYTES: u64 = 256 << 20;

/// Limits of one read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Largest file accepted, checked before the file is opened.
    pub max_encoded_bytes: u64,
    /// Most bytes decoded: the file's own, plus every byte inflated from a
    /// gzip-compressed string stat. Inflation stops at the limit.
    pub max_decoded_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_encoded_bytes: DEFAULT_MAX_ENCODED_BYTES,
            max_decoded_bytes: DEFAULT_MAX_DECODED_BYTES,
        }
    }
}

impl ReadOptions {
    /// Sets [`ReadOptions::max_encoded_bytes`].
    pub fn max_encoded_bytes(mut self, limit: u64) -> Self {
        self.max_encoded_bytes = limit;
        self
    }
    /// Sets [`ReadOptions::max_decoded_bytes`].
    pub fn max_decoded_bytes(mut self, limit: u64) -> Self {
        self.max_decoded_bytes = limit;
        self
    }
}

/// One `.xplane.pb` file: its bytes (held once), its SHA-256, and where its
/// planes are. Nothing below the top level is decoded until asked for.
pub struct XSpaceFile {
    bytes: Bytes,
    sha256: [u8; 32],
    planes: Vec<Range<usize>>,
    hostnames: Vec<String>,
    errors: Vec<String>,
    warnings: Vec<String>,
    unknown_fields: u64,
    max_decoded_bytes: u64,
    decoded_bytes: Cell<u64>,
    file: Option<PathBuf>,
}

impl std::fmt::Debug for XSpaceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XSpaceFile")
            .field("bytes", &self.bytes.len())
            .field("planes", &self.planes.len())
            .field("hostnames", &self.hostnames)
            .field("file", &self.file)
            .finish()
    }
}

impl XSpaceFile {
    /// Reads `path` whole (after checking its size against
    /// [`ReadOptions::max_encoded_bytes`]) and indexes its planes.
    pub fn open(path: &Path, options: &ReadOptions) -> Result<XSpaceFile, Error> {
        let with_file = |e: Error| e.in_file(path);
        let io = |e: std::io::Error| with_file(Error::new(ErrorKind::Io(e)));
        let size = std::fs::metadata(path).map_err(io)?.len();
        check_size(size, options).map_err(with_file)?;
        let file = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::with_capacity(size as usize);
        // One byte past the limit tells a file that grew since its size was
        // taken.
        file.take(options.max_encoded_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
        check_size(bytes.len() as u64, options).map_err(with_file)?;
        let mut space = XSpaceFile::index(bytes, options).map_err(with_file)?;
        space.file = Some(path.to_path_buf());
        Ok(space)
    }

    /// Indexes an XSpace already in memory (the same checks as
    /// [`XSpaceFile::open`], the size limits included).
    pub fn from_vec(bytes: Vec<u8>, options: &ReadOptions) -> Result<XSpaceFile, Error> {
        check_size(bytes.len() as u64, options)?;
        XSpaceFile::index(bytes, options)
    }

    fn index(bytes: Vec<u8>, options: &ReadOptions) -> Result<XSpaceFile, Error> {
        if bytes.is_empty() {
            return Err(Error::new(ErrorKind::EmptyInput));
        }
        let sha256: [u8; 32] = Sha256::digest(&bytes).into();
        let bytes = Bytes::from(bytes);
        let mut space = XSpaceFile {
            sha256,
            planes: Vec::new(),
            hostnames: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            unknown_fields: 0,
            max_decoded_bytes: options.max_decoded_bytes,
            decoded_bytes: Cell::new(bytes.len() as u64),
            file: None,
            bytes,
        };
        let input = &space.bytes[..];
        if !starts_with_xspace_key(input) {
            return Err(Error::new(ErrorKind::NotProtobuf {
                found: describe_start(input),
            })
            .at(0));
        }
        let mut fields = Fields::new(input, 0..input.len());
        loop {
            let field = match fields.next_field() {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(fault) => return Err(wire_error(fault, || "XSpace".into())),
            };
            let Some(name) = XSPACE_FIELDS.get(field.number as usize).copied().flatten() else {
                if field.key_at == 0 {
                    return Err(not_xspace(
                        format!(
                            "its first field is number {}, which XSpace does not have",
                            field.number
                        ),
                        0,
                    ));
                }
                space.unknown_fields += 1;
                continue;
            };
            let Value::Len(range) = field.value else {
                return Err(wrong_wire_type(name, &field));
            };
            if field.number == 1 {
                // The first plane's fields must be XPlane's: another message
                // type (an HloProto starts with a string where XPlane has its
                // id) is refused here, before anything is read as a plane.
                if space.planes.is_empty() {
                    crate::probe::xplane_prefix(&input[range.clone()])
                        .map_err(|reason| not_xspace(reason, field.key_at))?;
                }
                space.planes.push(range);
                continue;
            }
            let text = std::str::from_utf8(&input[range]).map_err(|_| {
                if space.planes.is_empty() {
                    not_xspace(
                        format!("{name} holds bytes that are not UTF-8"),
                        field.key_at,
                    )
                } else {
                    Error::new(ErrorKind::InvalidUtf8 { field: name }).at(field.key_at)
                }
            })?;
            match field.number {
                2 => space.errors.push(text.to_owned()),
                3 => space.warnings.push(text.to_owned()),
                _ => space.hostnames.push(text.to_owned()),
            }
        }
        Ok(space)
    }

    /// SHA-256 of the file's bytes.
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// [`XSpaceFile::sha256`] as 64 lowercase hex digits.
    pub fn sha256_hex(&self) -> String {
        self.sha256.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The file's size in bytes.
    pub fn encoded_bytes(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Bytes decoded so far: the file's, plus those inflated from compressed
    /// string stats.
    pub fn decoded_bytes(&self) -> u64 {
        self.decoded_bytes.get()
    }

    /// `XSpace.hostnames`.
    pub fn hostnames(&self) -> &[String] {
        &self.hostnames
    }

    /// `XSpace.errors`: what the profiler reported failing.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// `XSpace.warnings`.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Top-level fields of numbers the schema does not have (skipped, as a
    /// protobuf reader does; counted so they are not silent).
    pub fn unknown_fields(&self) -> u64 {
        self.unknown_fields
    }

    /// How many planes the file has.
    pub fn plane_count(&self) -> usize {
        self.planes.len()
    }

    /// The file this was read from.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    fn located(&self, e: Error) -> Error {
        match &self.file {
            Some(f) => e.in_file(f),
            None => e,
        }
    }

    /// Plane `index`: its header, stats and metadata maps decoded, its lines
    /// located (not decoded).
    pub fn plane(&self, index: usize) -> Result<Plane<'_>, Error> {
        let range = self.planes.get(index).cloned().unwrap_or(0..0);
        Plane::decode(self, index, range, Parts::Whole).map_err(|e| self.located(e))
    }

    /// Plane `index`'s name, kind and stats (with the stat metadata that
    /// names them), without its lines or event metadata: what a reader
    /// needs to know of every plane before it walks the first one (which
    /// plane is the host's, and its process).
    pub fn plane_header(&self, index: usize) -> Result<Plane<'_>, Error> {
        let range = self.planes.get(index).cloned().unwrap_or(0..0);
        Plane::decode(self, index, range, Parts::Header).map_err(|e| self.located(e))
    }

    /// Walks every plane, line and event in file order. Events are numbered
    /// from 0 across the whole file, every `XEvent` counted (the occurrence
    /// index, [`EventView::index`]).
    pub fn visit(&self, visitor: &mut impl Visitor) -> Result<(), Error> {
        self.visit_inner(visitor).map_err(|e| self.located(e))
    }

    fn visit_inner(&self, visitor: &mut impl Visitor) -> Result<(), Error> {
        let mut index = 0u64;
        let mut event = XEvent::default();
        for p in 0..self.planes.len() {
            let plane = Plane::decode(self, p, self.planes[p].clone(), Parts::Whole)?;
            visitor.plane(&plane)?;
            for l in 0..plane.lines.len() {
                let line = plane.line(l)?;
                visitor.line(&plane, &line)?;
                let mut fields = Fields::new(&self.bytes, line.range.clone());
                let mut k = 0usize;
                while let Some(field) = fields
                    .next_field()
                    .map_err(|f| wire_error(f, || line.path(&plane)))?
                {
                    if field.number != 4 {
                        continue;
                    }
                    let Value::Len(range) = field.value.clone() else {
                        return Err(
                            wrong_wire_type("XLine.events", &field).in_message(line.path(&plane))
                        );
                    };
                    event.clear();
                    // From the slice, not a `Bytes` of it: a `Bytes` per event
                    // is two atomic counts; an event's own `bytes` stats are
                    // rare and small (copied).
                    event
                        .merge(&self.bytes[range])
                        .map_err(|e| leaf_error(e, field.key_at, || line.event_path(&plane, k)))?;
                    let metadata = plane.event_metadata.get(&event.metadata_id);
                    let view = EventView {
                        index,
                        ordinal: k,
                        plane: &plane,
                        line: &line,
                        event: &event,
                        metadata,
                        known: plane.locate_known(&event, metadata),
                        key_at: field.key_at,
                    };
                    visitor.event(&view)?;
                    index += 1;
                    k += 1;
                }
            }
        }
        Ok(())
    }

    fn inflate(&self, compressed: &[u8]) -> Result<String, Error> {
        let budget = self
            .max_decoded_bytes
            .saturating_sub(self.decoded_bytes.get());
        let mut text = Vec::new();
        let mut decoder = flate2::read::MultiGzDecoder::new(compressed).take(budget + 1);
        decoder.read_to_end(&mut text).map_err(|e| {
            Error::new(ErrorKind::CompressedStat {
                reason: e.to_string(),
            })
        })?;
        if text.len() as u64 > budget {
            return Err(Error::new(ErrorKind::LimitExceeded {
                which: Limit::DecodedBytes,
                limit: self.max_decoded_bytes,
            }));
        }
        self.decoded_bytes
            .set(self.decoded_bytes.get() + text.len() as u64);
        String::from_utf8(text).map_err(|_| {
            Error::new(ErrorKind::CompressedStat {
                reason: "the inflated bytes are not UTF-8".into(),
            })
        })
    }
}

/// What [`XSpaceFile::visit`] calls, in file order.
pub trait Visitor {
    /// A plane, before its lines.
    fn plane(&mut self, plane: &Plane<'_>) -> Result<(), Error> {
        let _ = plane;
        Ok(())
    }
    /// A line, before its events.
    fn line(&mut self, plane: &Plane<'_>, line: &Line<'_>) -> Result<(), Error> {
        let _ = (plane, line);
        Ok(())
    }
    /// An event.
    fn event(&mut self, event: &EventView<'_>) -> Result<(), Error>;
}

fn check_size(size: u64, options: &ReadOptions) -> Result<(), Error> {
    for (which, limit) in [
        (Limit::EncodedBytes, options.max_encoded_bytes),
        (Limit::DecodedBytes, options.max_decoded_bytes),
    ] {
        if size > limit {
            return Err(Error::new(ErrorKind::LimitExceeded { which, limit }));
        }
    }
    Ok(())
}

/// `XSPACE_FIELDS[n]`: the XSpace field numbered `n`.
const XSPACE_FIELDS: [Option<&str>; 5] = [
    None,
    Some("XSpace.planes"),
    Some("XSpace.errors"),
    Some("XSpace.warnings"),
    Some("XSpace.hostnames"),
];

/// Whether the first bytes are the key of an XSpace field: 1 to 4,
/// length-delimited (the one wire type XSpace's fields have).
pub(crate) fn starts_with_xspace_key(input: &[u8]) -> bool {
    matches!(input.first(), Some(0x0a | 0x12 | 0x1a | 0x22))
}

/// What the first bytes of a file that is not protobuf are, for the error.
fn describe_start(input: &[u8]) -> String {
    const KNOWN: [(&[u8], &str); 4] = [
        (&[0x1f, 0x8b], "the gzip magic bytes"),
        (b"SQLite format 3\0", "SQLite's header"),
        (b"{", "'{' (JSON text)"),
        (b"[", "'[' (JSON text)"),
    ];
    for (magic, what) in KNOWN {
        if input.starts_with(magic) {
            return what.into();
        }
    }
    let head: Vec<String> = input.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("bytes {} (no protobuf field)", head.join(" "))
}

fn not_xspace(reason: String, at: usize) -> Error {
    Error::new(ErrorKind::NotXSpace { reason }).at(at)
}

const WIRE_TYPE_NAMES: [&str; 4] = [
    "a varint",
    "fixed 64 bits",
    "length-delimited",
    "fixed 32 bits",
];

fn wire_type_name(value: &Value) -> &'static str {
    match value {
        Value::Varint(_) => WIRE_TYPE_NAMES[0],
        Value::Fixed64(_) => WIRE_TYPE_NAMES[1],
        Value::Len(_) => WIRE_TYPE_NAMES[2],
        Value::Fixed32(_) => WIRE_TYPE_NAMES[3],
    }
}

fn wrong_wire_type(name: &str, field: &Field) -> Error {
    not_xspace(
        format!(
            "{name} (field {}) is {}, the schema's is not",
            field.number,
            wire_type_name(&field.value)
        ),
        field.key_at,
    )
}

fn wire_error((fault, at): (WireFault, usize), message: impl FnOnce() -> String) -> Error {
    let kind = match fault {
        WireFault::Truncated { needed, available } => ErrorKind::Truncated { needed, available },
        other => ErrorKind::Corrupt {
            reason: other.describe(),
        },
    };
    Error::new(kind).at(at).in_message(message())
}

fn leaf_error(e: prost::DecodeError, at: usize, message: impl FnOnce() -> String) -> Error {
    Error::new(ErrorKind::Corrupt {
        reason: e.to_string(),
    })
    .at(at)
    .in_message(message())
}

/// Names of XPlane's fields by number, with the wire type each must have
/// (`true`: length-delimited).
const XPLANE_FIELDS: [Option<(&str, bool)>; 7] = [
    None,
    Some(("XPlane.id", false)),
    Some(("XPlane.name", true)),
    Some(("XPlane.lines", true)),
    Some(("XPlane.event_metadata", true)),
    Some(("XPlane.stat_metadata", true)),
    Some(("XPlane.stats", true)),
];

/// What [`Plane::decode`] decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parts {
    /// Everything: lines located, both metadata maps decoded.
    Whole,
    /// Name, id, stats and stat metadata only.
    Header,
}

/// One plane: header, stats and metadata decoded; lines located.
pub struct Plane<'f> {
    space: &'f XSpaceFile,
    /// Its place among the file's planes.
    pub index: usize,
    /// `XPlane.id` (not unique: JAX writes 0 for most planes).
    pub id: i64,
    /// `XPlane.name`.
    pub name: &'f str,
    /// What opguard makes of it, from its name.
    pub kind: PlaneKind,
    /// `XPlane.stats`.
    pub stats: Vec<XStat>,
    /// Fields of numbers XPlane does not have (skipped).
    pub unknown_fields: u64,
    lines: Vec<Range<usize>>,
    event_metadata: crate::FastMap<i64, XEventMetadata>,
    stat_metadata: crate::FastMap<i64, XStatMetadata>,
    /// Stat metadata ids of the stats opguard reads: a handful, scanned.
    known: Vec<(i64, KnownStat)>,
    /// The same by id, for the small ids XLA numbers its stats with.
    known_by_id: Vec<Option<KnownStat>>,
}

impl<'f> Plane<'f> {
    fn decode(
        space: &'f XSpaceFile,
        index: usize,
        range: Range<usize>,
        parts: Parts,
    ) -> Result<Self, Error> {
        let input = &space.bytes[..];
        let path = || format!("planes[{index}]");
        let mut plane = Plane {
            space,
            index,
            id: 0,
            name: "",
            kind: PlaneKind::Other,
            stats: Vec::new(),
            unknown_fields: 0,
            lines: Vec::new(),
            event_metadata: Default::default(),
            stat_metadata: Default::default(),
            known: Vec::new(),
            known_by_id: Vec::new(),
        };
        let mut fields = Fields::new(input, range);
        while let Some(field) = fields.next_field().map_err(|f| wire_error(f, path))? {
            let Some((name, len)) = XPLANE_FIELDS.get(field.number as usize).copied().flatten()
            else {
                plane.unknown_fields += 1;
                continue;
            };
            let range = match (&field.value, len) {
                (Value::Varint(v), false) => {
                    plane.id = *v as i64;
                    continue;
                }
                (Value::Len(r), true) => r.clone(),
                _ => return Err(wrong_wire_type(name, &field).in_message(path())),
            };
            if parts == Parts::Header && matches!(field.number, 3 | 4) {
                continue;
            }
            let slice = || space.bytes.slice(range.clone());
            let leaf = |e| leaf_error(e, field.key_at, path);
            match field.number {
                2 => {
                    plane.name = std::str::from_utf8(&input[range.clone()]).map_err(|_| {
                        Error::new(ErrorKind::InvalidUtf8 { field: name })
                            .at(field.key_at)
                            .in_message(path())
                    })?
                }
                3 => plane.lines.push(range),
                4 => {
                    let e = EventMetadataEntry::decode(slice()).map_err(leaf)?;
                    plane
                        .event_metadata
                        .insert(e.key, e.value.unwrap_or_default());
                }
                5 => {
                    let e = StatMetadataEntry::decode(slice()).map_err(leaf)?;
                    plane
                        .stat_metadata
                        .insert(e.key, e.value.unwrap_or_default());
                }
                _ => plane.stats.push(XStat::decode(slice()).map_err(leaf)?),
            }
        }
        plane.kind = PlaneKind::from_name(plane.name);
        for (id, meta) in &plane.stat_metadata {
            if let Some(known) = KnownStat::from_name(&meta.name) {
                plane.known.push((*id, known));
                if let Ok(i) = usize::try_from(*id) {
                    if i < DENSE_STAT_IDS {
                        if plane.known_by_id.len() <= i {
                            plane.known_by_id.resize(i + 1, None);
                        }
                        plane.known_by_id[i] = Some(known);
                    }
                }
            }
        }
        Ok(plane)
    }

    fn known_stat(&self, id: i64) -> Option<KnownStat> {
        match usize::try_from(id) {
            Ok(i) if i < DENSE_STAT_IDS => self.known_by_id.get(i).copied().flatten(),
            _ => self.known.iter().find(|k| k.0 == id).map(|k| k.1),
        }
    }

    /// Where the known stats of `event` are: its own first, then its
    /// metadata's (one pass over both, so every lookup after is direct).
    fn locate_known(&self, event: &XEvent, metadata: Option<&XEventMetadata>) -> KnownSlots {
        let mut slots = [None; KnownStat::ALL.len()];
        for (i, s) in event.stats.iter().enumerate() {
            if let Some(k) = self.known_stat(s.metadata_id) {
                slots[k as usize].get_or_insert(StatSlot::Own(i as u32));
            }
        }
        for (i, s) in metadata.into_iter().flat_map(|m| &m.stats).enumerate() {
            if let Some(k) = self.known_stat(s.metadata_id) {
                slots[k as usize].get_or_insert(StatSlot::Shared(i as u32));
            }
        }
        slots
    }

    /// How many lines the plane has.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Line `index`: its header decoded and its events counted.
    pub fn line(&self, index: usize) -> Result<Line<'f>, Error> {
        let range = self.lines.get(index).cloned().unwrap_or(0..0);
        Line::decode(self, index, range)
    }

    /// `XPlane.event_metadata`.
    pub fn event_metadata(&self) -> &crate::FastMap<i64, XEventMetadata> {
        &self.event_metadata
    }

    /// `XPlane.stat_metadata`.
    pub fn stat_metadata(&self) -> &crate::FastMap<i64, XStatMetadata> {
        &self.stat_metadata
    }

    /// The name of stat metadata `id`.
    pub fn stat_name(&self, id: i64) -> Option<&str> {
        self.stat_metadata.get(&id).map(|m| m.name.as_str())
    }

    /// A plane stat's value, by the stat's name.
    pub fn stat(&self, name: &str) -> Option<StatValue<'_>> {
        self.stats
            .iter()
            .find(|s| self.stat_name(s.metadata_id) == Some(name))
            .and_then(|s| self.value(s))
    }

    fn value<'a>(&'a self, stat: &'a XStat) -> Option<StatValue<'a>> {
        Some(match stat.value.as_ref()? {
            x_stat::Value::DoubleValue(v) => StatValue::Double(*v),
            x_stat::Value::Uint64Value(v) => StatValue::Uint(*v),
            x_stat::Value::Int64Value(v) => StatValue::Int(*v),
            x_stat::Value::StrValue(s) => StatValue::Str(s),
            x_stat::Value::BytesValue(b) => StatValue::Bytes(b),
            x_stat::Value::RefValue(r) => match self.stat_name(*r as i64) {
                Some(name) => StatValue::Str(name),
                None => StatValue::MissingRef(*r),
            },
            x_stat::Value::CompressedStrValue(b) => StatValue::Compressed(b),
        })
    }
}

/// Stat metadata ids below this are looked up in a table.
const DENSE_STAT_IDS: usize = 4096;

/// Where a known stat of an event is.
#[derive(Debug, Clone, Copy)]
enum StatSlot {
    /// `XEvent.stats[i]`.
    Own(u32),
    /// `XEventMetadata.stats[i]`.
    Shared(u32),
}

type KnownSlots = [Option<StatSlot>; KnownStat::ALL.len()];

/// Names of XLine's fields by number (`true`: length-delimited).
fn xline_field(number: u32) -> Option<(&'static str, bool)> {
    Some(match number {
        1 => ("XLine.id", false),
        2 => ("XLine.name", true),
        3 => ("XLine.timestamp_ns", false),
        4 => ("XLine.events", true),
        9 => ("XLine.duration_ps", false),
        10 => ("XLine.display_id", false),
        11 => ("XLine.display_name", true),
        _ => return None,
    })
}

/// One line's header; its events are walked by [`XSpaceFile::visit`].
#[derive(Debug, Clone)]
pub struct Line<'f> {
    /// Its place among the plane's lines.
    pub index: usize,
    /// `XLine.id`: a host thread's id, a GPU stream's number.
    pub id: i64,
    /// `XLine.display_id`.
    pub display_id: i64,
    /// `XLine.name`.
    pub name: &'f str,
    /// `XLine.display_name`.
    pub display_name: &'f str,
    /// `XLine.timestamp_ns`: event offsets count from it.
    pub timestamp_ns: i64,
    /// `XLine.duration_ps`.
    pub duration_ps: i64,
    /// How many events it has.
    pub event_count: u64,
    /// What opguard makes of it.
    pub kind: LineKind,
    range: Range<usize>,
}

impl<'f> Line<'f> {
    fn decode(plane: &Plane<'f>, index: usize, range: Range<usize>) -> Result<Self, Error> {
        let input: &'f [u8] = &plane.space.bytes[..];
        let mut line = Line {
            index,
            id: 0,
            display_id: 0,
            name: "",
            display_name: "",
            timestamp_ns: 0,
            duration_ps: 0,
            event_count: 0,
            kind: LineKind::NotModeled,
            range: range.clone(),
        };
        let path = || format!("planes[{}].lines[{index}]", plane.index);
        let mut fields = Fields::new(input, range);
        while let Some(field) = fields.next_field().map_err(|f| wire_error(f, path))? {
            let Some((name, len)) = xline_field(field.number) else {
                continue;
            };
            match (&field.value, len) {
                (Value::Varint(v), false) => {
                    let v = *v as i64;
                    match field.number {
                        1 => line.id = v,
                        3 => line.timestamp_ns = v,
                        9 => line.duration_ps = v,
                        _ => line.display_id = v,
                    }
                }
                (Value::Len(r), true) => {
                    if field.number == 4 {
                        line.event_count += 1;
                        continue;
                    }
                    let text = std::str::from_utf8(&input[r.clone()]).map_err(|_| {
                        Error::new(ErrorKind::InvalidUtf8 { field: name })
                            .at(field.key_at)
                            .in_message(path())
                    })?;
                    if field.number == 2 {
                        line.name = text;
                    } else {
                        line.display_name = text;
                    }
                }
                _ => return Err(wrong_wire_type(name, &field).in_message(path())),
            }
        }
        line.kind = LineKind::new(plane.kind, line.name);
        Ok(line)
    }

    fn path(&self, plane: &Plane<'_>) -> String {
        format!("planes[{}].lines[{}]", plane.index, self.index)
    }

    fn event_path(&self, plane: &Plane<'_>, k: usize) -> String {
        format!("planes[{}].lines[{}].events[{k}]", plane.index, self.index)
    }
}

/// A stat's value, with `ref_value` resolved to the name it refers to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StatValue<'a> {
    /// `double_value`.
    Double(f64),
    /// `uint64_value`.
    Uint(u64),
    /// `int64_value`.
    Int(i64),
    /// `str_value`, or `ref_value` resolved through the plane's stat
    /// metadata.
    Str(&'a str),
    /// `bytes_value`.
    Bytes(&'a [u8]),
    /// A `ref_value` whose stat metadata the plane does not have.
    MissingRef(u64),
    /// `compressed_str_value`, still compressed
    /// ([`EventView::text`] inflates it).
    Compressed(&'a [u8]),
}

impl StatValue<'_> {
    /// The value as an integer, when it is one that fits `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            StatValue::Int(v) => Some(v),
            StatValue::Uint(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }
}

/// One event of a line, as [`XSpaceFile::visit`] hands it out.
pub struct EventView<'a> {
    index: u64,
    ordinal: usize,
    plane: &'a Plane<'a>,
    line: &'a Line<'a>,
    event: &'a XEvent,
    metadata: Option<&'a XEventMetadata>,
    known: KnownSlots,
    key_at: usize,
}

impl<'a> EventView<'a> {
    /// The occurrence index: every `XEvent` of the file numbered from 0 in
    /// file order (planes, their lines, their events).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Its place in its line.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Byte offset of the event's field in the file.
    pub fn offset(&self) -> usize {
        self.key_at
    }

    /// Its plane.
    pub fn plane(&self) -> &'a Plane<'a> {
        self.plane
    }

    /// Its line.
    pub fn line(&self) -> &'a Line<'a> {
        self.line
    }

    /// The decoded message.
    pub fn raw(&self) -> &'a XEvent {
        self.event
    }

    /// Its metadata, when the plane has it.
    pub fn metadata(&self) -> Option<&'a XEventMetadata> {
        self.metadata
    }

    /// `XEventMetadata.name` (empty when the plane has no metadata for it).
    pub fn name(&self) -> &'a str {
        self.metadata().map_or("", |m| m.name.as_str())
    }

    /// The name the trace viewer shows: `display_name` when there is one,
    /// else [`EventView::name`] (xprof's and TensorBoard's rule).
    pub fn display_name(&self) -> &'a str {
        match self.metadata() {
            Some(m) if !m.display_name.is_empty() => &m.display_name,
            _ => self.name(),
        }
    }

    /// Aggregated events (`num_occurrences` instead of an offset) have no
    /// time of their own.
    pub fn is_aggregate(&self) -> bool {
        matches!(self.event.data, Some(x_event::Data::NumOccurrences(_)))
    }

    /// Start in picoseconds, exactly: `timestamp_ns × 1000 + offset_ps` of
    /// its line (an unset offset is 0, as XLA reads it). `None` for an
    /// aggregate.
    pub fn ts_ps(&self) -> Option<i128> {
        let offset = match self.event.data {
            Some(x_event::Data::OffsetPs(o)) => o,
            Some(x_event::Data::NumOccurrences(_)) => return None,
            None => 0,
        };
        Some(i128::from(self.line.timestamp_ns) * 1000 + i128::from(offset))
    }

    /// `duration_ps`.
    pub fn dur_ps(&self) -> i64 {
        self.event.duration_ps
    }

    /// Start in nanoseconds: [`EventView::ts_ps`] rounded to the nearest
    /// nanosecond, ties to even (the rule opguard's JSON reader applies to
    /// the same times written in microseconds).
    pub fn ts_ns(&self) -> Result<Option<i64>, Error> {
        self.ts_ps()
            .map(|ps| ps_to_ns(ps).ok_or_else(|| self.time_error()))
            .transpose()
    }

    /// Duration in nanoseconds, rounded as [`EventView::ts_ns`].
    pub fn dur_ns(&self) -> Result<i64, Error> {
        ps_to_ns(i128::from(self.event.duration_ps)).ok_or_else(|| self.time_error())
    }

    fn time_error(&self) -> Error {
        Error::new(ErrorKind::TimeOutOfRange)
            .at(self.key_at)
            .in_message(self.line.event_path(self.plane, self.ordinal))
    }

    /// Every stat of the event, then those of its metadata, with their
    /// names.
    pub fn stats(&self) -> impl Iterator<Item = (&'a str, Option<StatValue<'a>>)> + 'a {
        let plane = self.plane;
        let own = self.event.stats.iter();
        let shared = self
            .metadata()
            .map(|m| m.stats.iter())
            .into_iter()
            .flatten();
        own.chain(shared)
            .map(move |s| (plane.stat_name(s.metadata_id).unwrap_or(""), plane.value(s)))
    }

    /// A stat opguard reads, by kind: the event's own first, then its
    /// metadata's.
    pub fn stat(&self, which: KnownStat) -> Option<StatValue<'a>> {
        let stat = match self.known[which as usize]? {
            StatSlot::Own(i) => self.event.stats.get(i as usize)?,
            StatSlot::Shared(i) => self.metadata?.stats.get(i as usize)?,
        };
        self.plane.value(stat)
    }

    /// A text stat's value: `str_value`, a resolved `ref_value`, or a
    /// `compressed_str_value` inflated (counted against
    /// [`ReadOptions::max_decoded_bytes`]).
    pub fn text(&self, which: KnownStat) -> Result<Option<std::borrow::Cow<'a, str>>, Error> {
        match self.stat(which) {
            Some(StatValue::Str(s)) => Ok(Some(s.into())),
            Some(StatValue::Compressed(b)) => {
                let text = self.plane.space.inflate(b).map_err(|e| {
                    e.at(self.key_at)
                        .in_message(self.line.event_path(self.plane, self.ordinal))
                })?;
                Ok(Some(text.into()))
            }
            _ => Ok(None),
        }
    }
}

/// Picoseconds to nanoseconds, rounded half to even; `None` beyond `i64`.
pub(crate) fn ps_to_ns(ps: i128) -> Option<i64> {
    let q = ps.div_euclid(1000);
    let r = ps.rem_euclid(1000);
    let up = r > 500 || (r == 500 && q % 2 != 0);
    i64::try_from(q + i128::from(up)).ok()
}

/// A map entry is a message `{ key = 1; value = 2 }`: decoded as one, a
/// missing key 0 and a missing value the default, as protobuf maps read them.
#[derive(Clone, PartialEq, prost::Message)]
struct EventMetadataEntry {
    #[prost(int64, tag = "1")]
    key: i64,
    #[prost(message, optional, tag = "2")]
    value: Option<XEventMetadata>,
}

/// See [`EventMetadataEntry`].
#[derive(Clone, PartialEq, prost::Message)]
struct StatMetadataEntry {
    #[prost(int64, tag = "1")]
    key: i64,
    #[prost(message, optional, tag = "2")]
    value: Option<XStatMetadata>,
}

#[cfg(test)]
mod tests {
    use super::ps_to_ns;

    #[test]
    fn picoseconds_round_half_to_even() {
        assert_eq!(ps_to_ns(0), Some(0));
        assert_eq!(ps_to_ns(499), Some(0));
        assert_eq!(ps_to_ns(500), Some(0));
        assert_eq!(ps_to_ns(501), Some(1));
        assert_eq!(ps_to_ns(1500), Some(2));
        assert_eq!(ps_to_ns(2500), Some(2));
        assert_eq!(ps_to_ns(-500), Some(0));
        assert_eq!(ps_to_ns(-1500), Some(-2));
        assert_eq!(ps_to_ns(5_353_251_593_250), Some(5_353_251_593));
        assert_eq!(ps_to_ns(i128::from(i64::MAX) * 1000 + 1), Some(i64::MAX));
        assert_eq!(ps_to_ns(i128::from(i64::MAX) * 1000 + 501), None);
    }
}
