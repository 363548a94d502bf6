//! Review stage: apply an alignment map to a view and render a new one.
//!
//! Two passes over the artifact. The first builds the operation index
//! (ids, run/rank/sequence, presentation times, status and peer of each
//! operation; the tensor summaries only of operations the map names) and
//! the artifact's SHA-256. Then every check runs — stale hash, refs of
//! another artifact, indexes out of range or not operations, invalid slots,
//! same-run pairs, new pairs without selectors, conflicting mappings — and
//! only then is the output created. The second pass copies each operation
//! event (verbatim when its correspondence did not change), then the flows,
//! status lanes and first-difference markers are rebuilt, and the digest of
//! the second pass must equal the first's.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use opguard_trace::{RawJson, ReaderOptions, Sha256Digest, TraceReader};
use serde::{Deserialize, Serialize};

use crate::compare::{compare_slots, field_digests, FieldDigests};
use crate::error::{Error, ErrorKind};
use crate::format::{
    write_tail, Correspondence, ExportMetadata, FirstDifference, Group, OpView, Peer, Selector,
    Selectors, Side, SourceInfo, Status, StatusCounts, Validation, ValidationCounts, CAT_OPERATION,
    EXPORT_FORMAT, MAX_EXPORT_BYTES, MAX_MAP_BYTES, OK_MEANING, PRESENTATION_NOTE, TENSOR_EQUALITY,
    TID_OPERATIONS, VERDICT,
};
use crate::map::{read_map, Checked, Decision};
use crate::output::{check_output_path, write_view};
use crate::record::{finish_input, input_error, open_input, Io};

/// The request protocol version.
pub const PROTOCOL_VERSION: u64 = 1;
/// Largest apply or export request document: 1 MiB; one byte more is
/// `limit_exceeded`, never a truncation.
pub const MAX_REQUEST_BYTES: u64 = 1 << 20;
/// Basis of relations made by an alignment map.
pub const BASIS_MAP: &str = "alignment_map";

/// An apply request: `{"protocol_version":1,"artifact":…,"alignment_map":…,"output":…}`.
/// Relative paths are relative to the request file's directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Must be 1.
    pub protocol_version: u64,
    /// The export to review (never modified).
    pub artifact: PathBuf,
    /// The alignment map.
    pub alignment_map: PathBuf,
    /// The new view; it must not exist.
    pub output: PathBuf,
}

/// Counts of active reviews per decision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionCounts {
    /// `comparable`.
    pub comparable: u64,
    /// `not_comparable`.
    pub not_comparable: u64,
    /// `undetermined`.
    pub undetermined: u64,
}

/// What apply did. Serialized, this is the response of the request
/// protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Response {
    /// Always 1.
    pub protocol_version: u64,
    /// The new view.
    pub output: PathBuf,
    /// SHA-256 of the new view.
    pub output_sha256: String,
    /// SHA-256 of the reviewed artifact.
    pub artifact_sha256: String,
    /// SHA-256 of the alignment map file.
    pub alignment_map_sha256: String,
    /// Always `not_evaluated`.
    pub verdict: String,
    /// Always false: applying a map launches no workload.
    pub workload_launched: bool,
    /// Operation events.
    pub operations: u64,
    /// Active comparable pairs (= flows) in the new view.
    pub pairs: u64,
    /// Entries in the map.
    pub reviews: u64,
    /// Active entries (the last one per event pair).
    pub active_reviews: u64,
    /// Active entries per decision.
    pub decisions: DecisionCounts,
    /// Comparable relations the map created (not existing candidates).
    pub new_mappings: u64,
    /// Operations whose automatic peer was taken by a new mapping.
    pub displaced: u64,
    /// Operations per status in the new view.
    pub statuses: StatusCounts,
    /// Operations per validation in the new view.
    pub validation: ValidationCounts,
    /// First-observed differences in the new view.
    pub first_differences: Vec<FirstDifference>,
}

/// How [`apply_with`] works.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApplyOptions {
    /// Largest map, bytes.
    pub max_map_bytes: u64,
    /// Largest artifact, encoded and decoded.
    pub max_artifact_bytes: u64,
    /// Largest output view, encoded and decoded.
    pub max_output_bytes: u64,
    /// Read, hash and decompress the artifact on a second thread while
    /// this one parses. Off by default: a library embedded in a profiler
    /// starts no thread its host did not ask for.
    pub decode_thread: bool,
    /// Compress, hash and write the output view on a second thread while
    /// this one renders it. Off by default, for the same reason.
    pub output_thread: bool,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            max_map_bytes: MAX_MAP_BYTES,
            max_artifact_bytes: MAX_EXPORT_BYTES,
            max_output_bytes: MAX_EXPORT_BYTES,
            decode_thread: false,
            output_thread: false,
        }
    }
}

impl ApplyOptions {
    /// The seed's limits: map 8 MiB, export 256 MiB.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`ApplyOptions::max_map_bytes`].
    pub fn max_map_bytes(mut self, n: u64) -> Self {
        self.max_map_bytes = n;
        self
    }
    /// Sets [`ApplyOptions::max_artifact_bytes`].
    pub fn max_artifact_bytes(mut self, n: u64) -> Self {
        self.max_artifact_bytes = n;
        self
    }
    /// Sets [`ApplyOptions::max_output_bytes`].
    pub fn max_output_bytes(mut self, n: u64) -> Self {
        self.max_output_bytes = n;
        self
    }
    /// Sets [`ApplyOptions::decode_thread`].
    pub fn decode_thread(mut self, on: bool) -> Self {
        self.decode_thread = on;
        self
    }
    /// Sets [`ApplyOptions::output_thread`].
    pub fn output_thread(mut self, on: bool) -> Self {
        self.output_thread = on;
        self
    }
    /// How both passes read the artifact.
    fn artifact_reader(&self) -> ReaderOptions {
        ReaderOptions::new()
            .max_encoded_bytes(self.max_artifact_bytes)
            .max_decoded_bytes(self.max_artifact_bytes)
            .decode_thread(self.decode_thread)
    }
}

/// Applies `alignment_map` to `artifact` and writes the reviewed view to
/// `output` (which must not exist), with the seed's limits.
pub fn apply(artifact: &Path, alignment_map: &Path, output: &Path) -> Result<Response, Error> {
    apply_with(artifact, alignment_map, output, &ApplyOptions::default())
}

/// Reads a request document (at most [`MAX_REQUEST_BYTES`]).
pub(crate) fn read_request_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    opguard_document::read_path_bounded(path, MAX_REQUEST_BYTES)
        .map_err(|e| Error::document(e, "the request", ErrorKind::InvalidRequest).with_path(path))
}

/// Parses a request document (at most [`MAX_REQUEST_BYTES`]; repeated keys
/// refused at every depth) and resolves its paths against `base`.
pub fn parse_request(text: &str, base: &Path) -> Result<Request, Error> {
    let typed = opguard_document::from_str::<Request>(text, MAX_REQUEST_BYTES);
    // A request of another version is named as such, whatever else it holds;
    // when it is no object at all, the typed error says so best.
    let doc = match &typed {
        Ok(r) if r.protocol_version == PROTOCOL_VERSION => opguard_document::Value::Null,
        _ => match opguard_document::from_str::<opguard_document::Value>(text, MAX_REQUEST_BYTES) {
            Ok(doc) => doc,
            Err(_) => {
                return Err(typed.map_or_else(
                    |e| Error::document(e, "the request", ErrorKind::InvalidRequest),
                    |_| Error::new(ErrorKind::InvalidRequest("not a request".into())),
                ))
            }
        },
    };
    match (&typed, doc.get("protocol_version")) {
        (Ok(r), _) if r.protocol_version == PROTOCOL_VERSION => {}
        (_, Some(opguard_document::Value::Int(1))) => {}
        (_, Some(v)) => {
            return Err(Error::new(ErrorKind::UnsupportedProtocolVersion(
                v.to_string(),
            )))
        }
        (_, None) => {
            return Err(Error::new(ErrorKind::InvalidRequest(
                "missing \"protocol_version\": 1".into(),
            )))
        }
    }
    let mut r = typed.map_err(|e| {
        Error::new(ErrorKind::InvalidRequest(format!(
            "expected {{\"protocol_version\":1,\"artifact\",\"alignment_map\",\"output\"}}: {e}"
        )))
    })?;
    r.artifact = base.join(&r.artifact);
    r.alignment_map = base.join(&r.alignment_map);
    r.output = base.join(&r.output);
    Ok(r)
}

/// Runs a request file: `{"protocol_version":1,"artifact":…,"alignment_map":…,"output":…}`
/// with paths relative to the file's directory; returns the same
/// [`Response`] as [`apply`].
pub fn apply_request_file(path: &Path) -> Result<Response, Error> {
    apply_request_file_with(path, &ApplyOptions::default())
}

/// [`apply_request_file`] with options (limits, threads).
pub fn apply_request_file_with(path: &Path, options: &ApplyOptions) -> Result<Response, Error> {
    let bytes = read_request_bytes(path)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        Error::new(ErrorKind::InvalidRequest(format!(
            "not UTF-8 at byte {}",
            e.valid_up_to()
        )))
        .with_path(path)
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    let request = parse_request(text, base).map_err(|e| e.with_path(path))?;
    apply_request_with(&request, options)
}

/// Runs a parsed request (paths already resolved).
pub fn apply_request(request: &Request) -> Result<Response, Error> {
    apply_request_with(request, &ApplyOptions::default())
}

/// [`apply_request`] with options (limits, threads).
pub fn apply_request_with(request: &Request, options: &ApplyOptions) -> Result<Response, Error> {
    if request.protocol_version != PROTOCOL_VERSION {
        return Err(Error::new(ErrorKind::UnsupportedProtocolVersion(
            request.protocol_version.to_string(),
        )));
    }
    apply_with(
        &request.artifact,
        &request.alignment_map,
        &request.output,
        options,
    )
}

struct Op {
    group: u32,
    run: u8,
    sequence: u64,
    ts_ns: i64,
    dur_ns: i64,
    status: Status,
    validation: Validation,
    peer: Option<u64>,
    /// Decoded byte offset and length of the event's text.
    offset: u64,
    len: usize,
    /// Where `args.correspondence`'s value sits inside the event's text.
    corr_span: (usize, usize),
}

/// The byte range of `part` inside `whole`, when `part` borrows from it.
fn span_within(whole: &str, part: &str) -> Option<(usize, usize)> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= whole.len() && whole.get(start..end).is_some_and(|s| std::ptr::eq(s, part)))
        .then_some((start, end))
}

struct Pass1 {
    ops: Vec<Op>,
    ids: Vec<Box<str>>,
    events: u64,
    groups: Vec<Group>,
    group_labels: Vec<(String, u32)>,
    io: HashMap<u64, Io>,
    sha256: Sha256Digest,
    meta: MetaIn,
}

/// The parts of the input's metadata a review carries forward.
#[derive(Deserialize)]
struct MetaIn {
    format: String,
    runs: Vec<String>,
    operations: u64,
    #[serde(default)]
    candidates: String,
    #[serde(default)]
    alignment_budget_exhausted_ranks: Vec<u32>,
    #[serde(default)]
    sources: Vec<SourceInfo>,
}

fn bad_export(msg: String) -> Error {
    Error::new(ErrorKind::InvalidExport(msg))
}

fn str_of(v: Option<opguard_trace::Value<'_>>) -> Option<std::borrow::Cow<'_, str>> {
    v.and_then(|v| v.as_str())
}

fn u64_of(v: Option<opguard_trace::Value<'_>>) -> Option<u64> {
    v.and_then(|v| v.as_number()).and_then(|n| n.as_u64())
}

fn pass1(path: &Path, options: ReaderOptions, wanted: &HashSet<u64>) -> Result<Pass1, Error> {
    let mut reader =
        TraceReader::open_with(path, options).map_err(|e| Error::from(e).with_path(path))?;
    let mut ops: Vec<Op> = Vec::new();
    let mut ids: Vec<Box<str>> = Vec::new();
    let mut io = HashMap::new();
    let mut labels: Vec<(String, u32)> = Vec::new();
    let mut forward: Vec<(u64, u64, Box<str>)> = Vec::new();
    let mut pids: Vec<u32> = Vec::new();
    let mut ops_done = false;
    while let Some(e) = reader
        .next_event()
        .map_err(|e| Error::from(e).with_path(path))?
    {
        let i = e.index();
        let is_op = e.cat().is_some_and(|c| c == CAT_OPERATION);
        if !is_op {
            ops_done = true;
            continue;
        }
        let at = |what: &str| bad_export(format!("traceEvents[{i}]: {what}"));
        if ops_done {
            return Err(at(
                "operation events must come first (traceEvents[0..operations))",
            ));
        }
        if !e.ph().is_some_and(|p| p == "X") {
            return Err(at("an operation event must have ph \"X\""));
        }
        // One walk over args: correspondence and op come first in views
        // this crate writes, so io is scanned only when the map needs it.
        let want_io = wanted.contains(&i);
        let (mut op, mut corr, mut io_raw) = (None, None, None);
        let mut corr_raw = "";
        if let Some(args) = e.args() {
            for (k, v) in args.iter() {
                if k.eq_str("op") {
                    op = v.as_object();
                } else if k.eq_str("correspondence") {
                    corr = v.as_object();
                    corr_raw = v.raw();
                } else if k.eq_str("io") {
                    io_raw = Some(v.raw());
                }
                if op.is_some() && corr.is_some() && (!want_io || io_raw.is_some()) {
                    break;
                }
            }
        }
        let op = op.ok_or_else(|| at("args.op is missing"))?;
        let record_id =
            str_of(op.get("record_id")).ok_or_else(|| at("args.op.record_id is missing"))?;
        let run = str_of(op.get("run")).ok_or_else(|| at("args.op.run is missing"))?;
        let rank = u64_of(op.get("rank"))
            .and_then(|r| u32::try_from(r).ok())
            .ok_or_else(|| at("args.op.rank is not a rank"))?;
        let sequence =
            u64_of(op.get("sequence")).ok_or_else(|| at("args.op.sequence is missing"))?;
        let corr = corr.ok_or_else(|| at("args.correspondence is missing"))?;
        let status = str_of(corr.get("status"))
            .and_then(|s| Status::parse(&s))
            .ok_or_else(|| at("args.correspondence.status is not a status"))?;
        let validation = match str_of(corr.get("validation")).as_deref() {
            Some("unreviewed") => Validation::Unreviewed,
            Some("agent_reviewed") => Validation::AgentReviewed,
            _ => {
                return Err(at(
                    "args.correspondence.validation is not unreviewed|agent_reviewed",
                ))
            }
        };
        let peer = match corr.get("peer") {
            None => None,
            Some(v) if v.raw() == "null" => None,
            Some(v) => {
                let p = v
                    .as_object()
                    .ok_or_else(|| at("args.correspondence.peer is not an object"))?;
                let event = u64_of(p.get("event")).ok_or_else(|| at("peer.event is missing"))?;
                let peer_id =
                    str_of(p.get("record_id")).ok_or_else(|| at("peer.record_id is missing"))?;
                // The peer's id is checked now when it was read already,
                // else once every operation is read.
                match ids.get(event as usize) {
                    Some(known) if event < i => {
                        if **known != *peer_id {
                            return Err(at("peer.record_id is not the record id of peer.event"));
                        }
                    }
                    _ => forward.push((i, event, peer_id.into_owned().into_boxed_str())),
                }
                Some(event)
            }
        };
        if peer.is_some() != status.is_paired() {
            return Err(at(
                "a peer is present exactly when the status is ok or differs",
            ));
        }
        let pid = e
            .pid()
            .and_then(|p| p.as_i64())
            .and_then(|p| u32::try_from(p).ok())
            .ok_or_else(|| at("pid is not a process number"))?;
        if e.tid().and_then(|t| t.as_i64()) != Some(TID_OPERATIONS as i64) {
            return Err(at("operations belong on thread 1"));
        }
        let ts_ns = e
            .ts_ns()
            .ok()
            .flatten()
            .ok_or_else(|| at("ts is missing"))?;
        let dur_ns = e
            .dur_ns()
            .ok()
            .flatten()
            .ok_or_else(|| at("dur is missing"))?;
        let group = match labels.iter().position(|(r, k)| *k == rank && **r == *run) {
            Some(g) => {
                if pids[g] != pid {
                    return Err(at("operations of one run and rank must share one pid"));
                }
                g as u32
            }
            None => {
                labels.push((run.into_owned(), rank));
                pids.push(pid);
                labels.len() as u32 - 1
            }
        };
        if want_io {
            let raw = io_raw.unwrap_or("{}");
            let parsed: Io = serde_json::from_str(raw)
                .map_err(|err| at(&format!("args.io is not tensor summaries: {err}")))?;
            io.insert(i, parsed);
        }
        ops.push(Op {
            group,
            run: 0,
            sequence,
            ts_ns,
            dur_ns,
            status,
            validation,
            peer,
            offset: e.offset(),
            len: e.raw().len(),
            corr_span: span_within(e.raw(), corr_raw)
                .ok_or_else(|| at("args.correspondence is not inside the event text"))?,
        });
        ids.push(record_id.into_owned().into_boxed_str());
    }
    let summary = reader
        .finish()
        .map_err(|e| Error::from(e).with_path(path))?;
    let meta_json = summary.metadata.get_json("opguard").ok_or_else(|| {
        Error::new(ErrorKind::NotAnExport(
            "no top-level \"opguard\" metadata".into(),
        ))
        .with_path(path)
    })?;
    if meta_json.get("format").and_then(|f| f.as_str()) != Some(EXPORT_FORMAT) {
        return Err(Error::new(ErrorKind::NotAnExport(format!(
            "opguard.format is {}, expected {EXPORT_FORMAT:?}",
            meta_json.get("format").cloned().unwrap_or_default()
        )))
        .with_path(path));
    }
    let meta: MetaIn = serde_json::from_value(meta_json)
        .map_err(|e| bad_export(format!("opguard metadata: {e}")).with_path(path))?;
    debug_assert_eq!(meta.format, EXPORT_FORMAT);
    if meta.runs.len() != 2 || meta.runs[0] == meta.runs[1] {
        return Err(bad_export(format!(
            "opguard.runs is {:?}, expected two runs",
            meta.runs
        ))
        .with_path(path));
    }
    if meta.operations != ops.len() as u64 {
        return Err(bad_export(format!(
            "opguard.operations is {} but traceEvents starts with {} operations",
            meta.operations,
            ops.len()
        ))
        .with_path(path));
    }
    let mut groups = Vec::with_capacity(labels.len());
    for (g, (run, rank)) in labels.iter().enumerate() {
        let r = meta.runs.iter().position(|x| x == run).ok_or_else(|| {
            bad_export(format!("run {run:?} is not one of opguard.runs")).with_path(path)
        })?;
        groups.push(Group {
            run: r as u8,
            rank: *rank,
            pid: pids[g],
        });
    }
    for op in &mut ops {
        op.run = groups[op.group as usize].run;
    }
    // Relations must be symmetric, name their peer's id, and join the two
    // runs.
    for (i, event, peer_id) in &forward {
        if ids.get(*event as usize).is_none_or(|id| **id != **peer_id) {
            return Err(bad_export(format!(
                "traceEvents[{i}]: peer.record_id {peer_id:?} is not the record id of event {event}"
            ))
            .with_path(path));
        }
    }
    for (i, op) in ops.iter().enumerate() {
        if let Some(p) = op.peer {
            let ok = ops
                .get(p as usize)
                .is_some_and(|q| q.run != op.run && q.peer == Some(i as u64));
            if !ok {
                return Err(bad_export(format!(
                    "traceEvents[{i}]: its peer {p} is not a symmetric relation across the two runs"
                ))
                .with_path(path));
            }
        }
    }
    {
        let mut seen = HashSet::with_capacity(ids.len());
        for id in &ids {
            if !seen.insert(&**id) {
                return Err(bad_export(format!("record_id {id:?} appears twice")).with_path(path));
            }
        }
    }
    Ok(Pass1 {
        ops,
        ids,
        events: summary.events,
        groups,
        group_labels: labels,
        io,
        sha256: summary.sha256,
        meta,
    })
}

/// What happens to one operation's correspondence.
#[derive(Debug, Clone)]
enum Change {
    /// A comparable review of its existing candidate, whole event.
    Confirmed { review: usize },
    /// A comparable review with selectors (new pair or existing candidate).
    Mapped {
        review: usize,
        peer: u32,
        selectors: Selectors,
        candidate: bool,
    },
    /// Its candidate was reviewed `not_comparable`.
    Rejected { review: usize },
    /// Its candidate, or an alternative, was reviewed `undetermined`.
    Unresolved { review: Option<usize> },
    /// Its candidate peer was taken by a new mapping.
    Displaced { by: u32 },
    /// Only named by alternative reviews; relation unchanged.
    Annotated,
}

struct Resolution {
    change: Vec<Option<Change>>,
    /// Active reviews naming each operation (other than its own relation).
    alternatives: HashMap<u32, Vec<usize>>,
    /// Review history per pair key.
    history: HashMap<(u32, u32), Vec<usize>>,
    decisions: DecisionCounts,
    active: u64,
    new_mappings: u64,
    displaced: u64,
}

fn key(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// Checks every review against the artifact and decides each operation's
/// new relation. Fails on the first broken rule, in map order.
fn resolve(p: &Pass1, reviews: &[Checked]) -> Result<Resolution, Error> {
    let n = p.ops.len() as u64;
    let mut ends: Vec<(u32, u32)> = Vec::with_capacity(reviews.len());
    for r in reviews {
        let at = format!("reviews[{}]", r.at);
        let mut idx = [0u32; 2];
        for (slot, (side, reference)) in [("left_ref", r.left), ("right_ref", r.right)]
            .into_iter()
            .enumerate()
        {
            let place = format!("{at}.{side}");
            if reference.artifact != p.sha256 {
                return Err(Error::new(ErrorKind::RefArtifactMismatch {
                    at: place,
                    reference: reference.to_string(),
                    found: reference.artifact.to_string(),
                    expected: p.sha256.to_string(),
                }));
            }
            if reference.index >= p.events {
                return Err(Error::new(ErrorKind::RefOutOfRange {
                    at: place,
                    index: reference.index,
                    events: p.events,
                }));
            }
            if reference.index >= n {
                return Err(Error::new(ErrorKind::RefNotOperation {
                    at: place,
                    index: reference.index,
                    operations: n,
                }));
            }
            idx[slot] = reference.index as u32;
        }
        let (l, rr) = (idx[0], idx[1]);
        if p.ops[l as usize].run == p.ops[rr as usize].run {
            return Err(Error::new(ErrorKind::SameRunPair {
                at,
                run: p.group_labels[p.ops[l as usize].group as usize].0.clone(),
            }));
        }
        if let Some((ls, rs)) = r.selectors {
            for (sel, op, side) in [(ls, l, "left_tensor"), (rs, rr, "right_tensor")] {
                let io = p.io.get(&(op as u64));
                let len = io.map_or(0, |io| match sel.0 {
                    Side::Inputs => io.inputs.len(),
                    Side::Outputs => io.outputs.len(),
                });
                if sel.1 >= len as u64 {
                    return Err(Error::new(ErrorKind::InvalidSelector {
                        at: format!("{at}.{side}"),
                        detail: format!(
                            "[\"{}\", {}] is out of range: operation {op} ({}) has {len} {}",
                            sel.0.as_str(),
                            sel.1,
                            p.ids[op as usize],
                            sel.0.as_str()
                        ),
                    }));
                }
            }
        }
        ends.push((l, rr));
    }
    // Ordered history: the last entry per event pair is active.
    let mut history: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (k, &(l, r)) in ends.iter().enumerate() {
        history.entry(key(l, r)).or_default().push(k);
    }
    let mut active: Vec<usize> = history.values().map(|v| v[v.len() - 1]).collect();
    active.sort_unstable();
    let is_candidate = |a: u32, b: u32| {
        p.ops[a as usize]
            .peer
            .as_ref()
            .is_some_and(|q| *q == b as u64)
    };
    let mut decisions = DecisionCounts::default();
    // One active comparable relation per operation.
    let mut owner: HashMap<u32, usize> = HashMap::new();
    for &k in &active {
        let r = &reviews[k];
        let (l, rr) = ends[k];
        match r.decision {
            Decision::Comparable => decisions.comparable += 1,
            Decision::NotComparable => decisions.not_comparable += 1,
            Decision::Undetermined => decisions.undetermined += 1,
        }
        if r.decision != Decision::Comparable {
            continue;
        }
        if r.selectors.is_none() && !is_candidate(l, rr) {
            return Err(Error::new(ErrorKind::SelectorsRequired {
                at: format!("reviews[{}]", r.at),
            }));
        }
        for op in [l, rr] {
            if let Some(&first) = owner.get(&op) {
                return Err(Error::new(ErrorKind::ConflictingMappings {
                    record_id: p.ids[op as usize].to_string(),
                    first: format!("reviews[{}]", reviews[first].at),
                    second: format!("reviews[{}]", r.at),
                }));
            }
            owner.insert(op, k);
        }
    }
    let active_of =
        |a: u32, b: u32| -> Option<usize> { history.get(&key(a, b)).map(|v| v[v.len() - 1]) };
    let mut change: Vec<Option<Change>> = vec![None; p.ops.len()];
    let mut own: Vec<Option<usize>> = vec![None; p.ops.len()];
    let mut new_mappings = 0;
    let mut displaced = 0;
    for (&op, &k) in &owner {
        let (l, r) = ends[k];
        let other = if l == op { r } else { l };
        let candidate = is_candidate(op, other);
        own[op as usize] = Some(k);
        change[op as usize] = Some(match reviews[k].selectors {
            None => Change::Confirmed { review: k },
            Some((ls, rs)) => {
                let (this, peer) = if op == l { (ls, rs) } else { (rs, ls) };
                Change::Mapped {
                    review: k,
                    peer: other,
                    selectors: Selectors { this, peer },
                    candidate,
                }
            }
        });
        if !candidate && op == l {
            new_mappings += 1;
        }
    }
    for (i, op) in p.ops.iter().enumerate() {
        if change[i].is_some() {
            continue;
        }
        let i32_ = i as u32;
        if let Some(q) = op.peer {
            let q = q as u32;
            if let Some(k) = active_of(i32_, q) {
                own[i] = Some(k);
                change[i] = Some(match reviews[k].decision {
                    Decision::NotComparable => Change::Rejected { review: k },
                    Decision::Undetermined => Change::Unresolved { review: Some(k) },
                    // Comparable candidates are owned above.
                    Decision::Comparable => continue,
                });
                continue;
            }
            if let Some(&k) = owner.get(&q) {
                let (l, r) = ends[k];
                let by = if l == q { r } else { l };
                change[i] = Some(Change::Displaced { by });
                displaced += 1;
                continue;
            }
        }
    }
    // Active reviews naming an operation that are not its own relation.
    let mut alternatives: HashMap<u32, Vec<usize>> = HashMap::new();
    for &k in &active {
        let (l, r) = ends[k];
        for op in [l, r] {
            if own[op as usize] != Some(k) {
                alternatives.entry(op).or_default().push(k);
            }
        }
    }
    for (&op, alts) in &alternatives {
        let i = op as usize;
        if change[i].is_some() {
            continue;
        }
        let unresolved = alts
            .iter()
            .any(|&k| reviews[k].decision == Decision::Undetermined);
        // An operation with an unchanged relation keeps it; one without a
        // relation becomes undetermined when a pair naming it is.
        change[i] = Some(if unresolved && p.ops[i].peer.is_none() {
            Change::Unresolved { review: None }
        } else {
            Change::Annotated
        });
    }
    Ok(Resolution {
        change,
        alternatives,
        history,
        decisions,
        active: active.len() as u64,
        new_mappings,
        displaced,
    })
}

fn slot_digests(io: &Io, sel: Selector) -> Option<FieldDigests> {
    let list = match sel.0 {
        Side::Inputs => &io.inputs,
        Side::Outputs => &io.outputs,
    };
    list.get(sel.1 as usize).map(field_digests)
}

/// Applies a map with explicit limits.
pub fn apply_with(
    artifact: &Path,
    alignment_map: &Path,
    output: &Path,
    options: &ApplyOptions,
) -> Result<Response, Error> {
    apply_passes(artifact, artifact, alignment_map, output, options)
}

/// [`apply_with`] with the second pass reading `second` (the same path in
/// every real use; tests substitute changed bytes to prove the second
/// pass refuses them).
fn apply_passes(
    artifact: &Path,
    second: &Path,
    alignment_map: &Path,
    output: &Path,
    options: &ApplyOptions,
) -> Result<Response, Error> {
    check_output_path(output)?;
    let (map, map_sha) = read_map(alignment_map, options.max_map_bytes)?;
    let wanted: HashSet<u64> = map
        .reviews
        .iter()
        .filter(|r| r.selectors.is_some())
        .flat_map(|r| [r.left.index, r.right.index])
        .collect();
    let p = pass1(artifact, options.artifact_reader(), &wanted)?;
    if map.artifact != p.sha256 {
        return Err(Error::new(ErrorKind::StaleArtifactHash {
            map: map.artifact_text.clone(),
            artifact: p.sha256.to_string(),
        })
        .with_path(alignment_map));
    }
    let res = resolve(&p, &map.reviews).map_err(|e| e.with_path(alignment_map))?;
    let reviews = &map.reviews;
    let ends: Vec<(u32, u32)> = reviews
        .iter()
        .map(|r| (r.left.index as u32, r.right.index as u32))
        .collect();

    // The new relation of every operation.
    let n = p.ops.len();
    let mut views: Vec<OpView> = Vec::with_capacity(n);
    let mut slot_cmp: HashMap<usize, crate::compare::Comparison> = HashMap::new();
    for (i, op) in p.ops.iter().enumerate() {
        let mut v = OpView {
            group: op.group,
            sequence: op.sequence,
            ts_ns: op.ts_ns,
            dur_ns: op.dur_ns,
            status: op.status,
            validation: op.validation,
            peer: op.peer.map(|q| q as u32),
        };
        match &res.change[i] {
            None => {}
            Some(Change::Confirmed { .. }) | Some(Change::Annotated) => {
                v.validation = Validation::AgentReviewed;
            }
            Some(Change::Mapped {
                review,
                peer,
                selectors,
                ..
            }) => {
                let (l, r) = ends[*review];
                let (first, second) = if i as u32 == l { (l, r) } else { (r, l) };
                debug_assert_eq!(second, *peer);
                let a =
                    p.io.get(&(first as u64))
                        .and_then(|io| slot_digests(io, selectors.this));
                let b =
                    p.io.get(&(second as u64))
                        .and_then(|io| slot_digests(io, selectors.peer));
                let (Some(a), Some(b)) = (a, b) else {
                    return Err(Error::new(ErrorKind::InvalidSelector {
                        at: format!("reviews[{}]", reviews[*review].at),
                        detail: "a selected slot is missing".into(),
                    }));
                };
                let c = compare_slots(&a, &b);
                v.status = if c.agrees() {
                    Status::Ok
                } else {
                    Status::Differs
                };
                v.validation = Validation::AgentReviewed;
                v.peer = Some(*peer);
                slot_cmp.insert(i, c);
            }
            Some(Change::Rejected { .. }) => {
                v.status = Status::NotComparable;
                v.validation = Validation::AgentReviewed;
                v.peer = None;
            }
            Some(Change::Unresolved { .. }) => {
                v.status = Status::Undetermined;
                v.validation = Validation::AgentReviewed;
                v.peer = None;
            }
            Some(Change::Displaced { .. }) => {
                v.status = Status::Undetermined;
                v.validation = Validation::Unreviewed;
                v.peer = None;
            }
        }
        views.push(v);
    }
    // Every relation in the new view is symmetric.
    for (i, v) in views.iter().enumerate() {
        if let Some(q) = v.peer {
            if views[q as usize].peer != Some(i as u32) {
                return Err(bad_export(format!(
                    "internal: relation {i} → {q} is not symmetric after review"
                )));
            }
        }
    }

    let raw_of = |k: usize| reviews[k].raw.clone();
    let history_of = |i: u32, k: usize| -> Vec<serde_json::Value> {
        let (l, r) = ends[k];
        debug_assert!(i == l || i == r);
        res.history
            .get(&key(l, r))
            .map(|v| v[..v.len() - 1].iter().map(|&j| raw_of(j)).collect())
            .unwrap_or_default()
    };
    let new_corr = |i: usize, old: Correspondence| -> Correspondence {
        let Some(change) = &res.change[i] else {
            return old;
        };
        let alts: Vec<serde_json::Value> = res
            .alternatives
            .get(&(i as u32))
            .map(|v| v.iter().map(|&k| raw_of(k)).collect())
            .unwrap_or_default();
        let supersede = |mut old: Correspondence, why: &str, by: Option<String>| {
            let mut earlier = std::mem::take(&mut old.original_comparison);
            old.superseded = Some(why.into());
            old.displaced_by = by;
            earlier.push(old);
            earlier
        };
        let fresh = |status: Status, validation: Validation| {
            let mut c = Correspondence::unrelated(status);
            c.validation = validation;
            c
        };
        match change {
            Change::Confirmed { review } => {
                let mut c = old;
                c.validation = Validation::AgentReviewed;
                c.review = Some(raw_of(*review));
                c.review_history = history_of(i as u32, *review);
                c.alternative_reviews = alts;
                c
            }
            Change::Annotated => {
                let mut c = old;
                c.validation = Validation::AgentReviewed;
                c.alternative_reviews = alts;
                c
            }
            Change::Mapped {
                review,
                peer,
                selectors,
                candidate,
            } => {
                let cmp = slot_cmp.get(&i).cloned().unwrap_or_default();
                let mut c = fresh(
                    if cmp.agrees() {
                        Status::Ok
                    } else {
                        Status::Differs
                    },
                    Validation::AgentReviewed,
                );
                c.basis = Some(BASIS_MAP.into());
                c.peer = Some(Peer {
                    record_id: p.ids[*peer as usize].to_string(),
                    event: *peer as u64,
                });
                c.selectors = Some(*selectors);
                c.differences = cmp.differences;
                c.not_compared = cmp.not_compared;
                c.review = Some(raw_of(*review));
                c.review_history = history_of(i as u32, *review);
                c.alternative_reviews = alts;
                c.original_comparison = supersede(
                    old,
                    if *candidate { "recompared" } else { "remapped" },
                    None,
                );
                c
            }
            Change::Rejected { review } => {
                let mut c = fresh(Status::NotComparable, Validation::AgentReviewed);
                c.review = Some(raw_of(*review));
                c.review_history = history_of(i as u32, *review);
                c.alternative_reviews = alts;
                c.original_comparison = supersede(old, "rejected", None);
                c
            }
            Change::Unresolved { review } => {
                let mut c = fresh(Status::Undetermined, Validation::AgentReviewed);
                if let Some(k) = review {
                    c.review = Some(raw_of(*k));
                    c.review_history = history_of(i as u32, *k);
                }
                c.alternative_reviews = alts;
                c.original_comparison = supersede(old, "unresolved", None);
                c
            }
            Change::Displaced { by } => {
                let mut c = fresh(Status::Undetermined, Validation::Unreviewed);
                c.alternative_reviews = alts;
                c.original_comparison =
                    supersede(old, "displaced", Some(p.ids[*by as usize].to_string()));
                c
            }
        }
    };

    let runs: [String; 2] = [p.meta.runs[0].clone(), p.meta.runs[1].clone()];
    let mut sources = p.meta.sources.clone();
    sources.push(SourceInfo {
        kind: "review".into(),
        sha256: p.sha256.to_string(),
        run: None,
        rank: None,
        alignment_map_sha256: Some(map_sha.to_string()),
    });
    let output_thread = options.output_thread;
    let (tail, written) = write_view(output, options.max_output_bytes, output_thread, |sink| {
        // Second pass: the operation events are copied from the byte ranges
        // the first pass read them at (verbatim when unchanged); the SHA-256
        // of every byte must equal the first pass's, so the copied bytes are
        // the checked ones.
        const WHAT: &str = "the artifact";
        let mut input = open_input(second, &options.artifact_reader(), WHAT)?;
        let mut w = opguard_trace::TraceWriter::new(&mut *sink)?;
        let mut pos = 0u64;
        let mut text = Vec::with_capacity(4096);
        let mut spliced = String::with_capacity(4096);
        for (i, op) in p.ops.iter().enumerate() {
            let skip = op.offset.checked_sub(pos).ok_or_else(|| {
                bad_export(format!("traceEvents[{i}] overlaps the previous event"))
                    .with_path(second)
            })?;
            let mut left = skip;
            while left > 0 {
                let avail = match input.fill_buf() {
                    Ok([]) => {
                        return Err(bad_export(format!("traceEvents[{i}] is past the end"))
                            .with_path(second))
                    }
                    Ok(b) => b.len() as u64,
                    Err(e) => return Err(input_error(e.into(), WHAT).with_path(second)),
                };
                let take = avail.min(left);
                input.consume(take as usize);
                left -= take;
            }
            text.resize(op.len, 0);
            input
                .read_exact(&mut text)
                .map_err(|e| input_error(e.into(), WHAT).with_path(second))?;
            pos = op.offset + op.len as u64;
            let event_text = std::str::from_utf8(&text).map_err(|_| {
                Error::new(ErrorKind::SourceChanged {
                    first: p.sha256.to_string(),
                    second: format!("bytes of traceEvents[{i}] changed"),
                })
                .with_path(second)
            })?;
            if res.change[i].is_none() {
                w.write_raw_event(event_text)?;
                continue;
            }
            // Only the correspondence value changes; every other byte of
            // the event stays as it was.
            let (start, end) = op.corr_span;
            let old_text = event_text.get(start..end).unwrap_or("null");
            let old: Correspondence = serde_json::from_str(old_text).map_err(|err| {
                bad_export(format!("traceEvents[{i}].args.correspondence: {err}")).with_path(second)
            })?;
            let corr_text = serde_json::to_string(&new_corr(i, old)).map_err(|err| {
                Error::io("encoding a correspondence", std::io::Error::other(err))
            })?;
            spliced.clear();
            spliced.push_str(&event_text[..start]);
            spliced.push_str(&corr_text);
            spliced.push_str(&event_text[end..]);
            w.write_raw_event(&spliced)?;
        }
        let digest = finish_input(input, WHAT).map_err(|e| e.with_path(second))?;
        if digest != p.sha256 {
            return Err(Error::new(ErrorKind::SourceChanged {
                first: p.sha256.to_string(),
                second: digest.to_string(),
            })
            .with_path(second));
        }
        let ids = |k: usize| &*p.ids[k];
        let tail = write_tail(&mut w, &runs, &p.groups, &views, &ids)?;
        let meta = ExportMetadata {
            format: EXPORT_FORMAT.into(),
            kind: "reviewed_view".into(),
            runs: runs.to_vec(),
            operations: n as u64,
            pairs: tail.pairs,
            statuses: tail.statuses,
            validation: tail.validation,
            first_differences: tail.first_differences.clone(),
            presentation: PRESENTATION_NOTE.into(),
            ok_means: OK_MEANING.into(),
            tensor_equality: TENSOR_EQUALITY.into(),
            verdict: VERDICT.into(),
            candidates: p.meta.candidates.clone(),
            alignment_budget_exhausted_ranks: p.meta.alignment_budget_exhausted_ranks.clone(),
            sources: sources.clone(),
        };
        let meta = serde_json::to_string(&meta)
            .map_err(|e| Error::io("encoding metadata", std::io::Error::other(e)))?;
        w.finish(&[("opguard", &RawJson::new(meta)?)])?;
        Ok(tail)
    })?;
    Ok(Response {
        protocol_version: PROTOCOL_VERSION,
        output: output.to_path_buf(),
        output_sha256: written.sha256.to_string(),
        artifact_sha256: p.sha256.to_string(),
        alignment_map_sha256: map_sha.to_string(),
        verdict: VERDICT.into(),
        workload_launched: false,
        operations: n as u64,
        pairs: tail.pairs,
        reviews: map.entries as u64,
        active_reviews: res.active,
        decisions: res.decisions,
        new_mappings: res.new_mappings,
        displaced: res.displaced,
        statuses: tail.statuses,
        validation: tail.validation,
        first_differences: tail.first_differences,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The second pass copies byte ranges the first pass checked; if the
    /// bytes changed in between (same length, so the ranges still fit),
    /// the digest differs and nothing is written.
    #[test]
    fn a_second_pass_over_changed_bytes_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let records =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/align/two_runs.records.jsonl");
        let a = dir.path().join("a.json");
        let summary = crate::export_records(&records, &a).unwrap();
        let text = std::fs::read_to_string(&a).unwrap();
        let changed = text.replacen("\"dtype\":\"long\"", "\"dtype\":\"LONG\"", 1);
        assert_ne!(text, changed);
        let b = dir.path().join("b.json");
        std::fs::write(&b, changed).unwrap();
        let sha = &summary.output_sha256;
        let map = dir.path().join("map.json");
        std::fs::write(
            &map,
            serde_json::json!({"version": 1, "artifact_sha256": sha, "reviews": [{
                "left_ref": format!("{sha}:1"), "right_ref": format!("{sha}:9"),
                "decision": "not_comparable", "reason": "test",
                "evidence": [{"basis": "observed", "reference": "test"}]}]})
            .to_string(),
        )
        .unwrap();
        let out = dir.path().join("out.json");
        let options = ApplyOptions::default();
        let err = apply_passes(&a, &b, &map, &out, &options).unwrap_err();
        assert_eq!(err.code(), "source_changed", "{err}");
        assert!(!out.exists());
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.json", "b.json", "map.json"]);
        // The same bytes pass.
        apply_passes(&a, &a, &map, &out, &options).unwrap();
    }
}
