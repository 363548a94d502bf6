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

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use opguard_trace::{DecodedInput, Event, ReaderOptions, Sha256Digest, TraceSummary};
use serde::{Deserialize, Serialize};

use crate::compare::{compare_slots, field_digests, Comparison, FieldDigests};
use crate::error::{Error, ErrorKind};
use crate::format::{
    finish_view, has_operation_phase, is_on_thread, metadata_json, peer_agrees_with_status,
    read_view_events, write_tail, Correspondence, CorrespondenceArgs, ExportMetadata,
    FirstDifference, Group, OpArgs, OpView, OperationArgs, Peer, PeerArgs, Selector, Selectors,
    Side, SourceInfo, Status, StatusCounts, Validation, ValidationCounts, EXPORT_FORMAT,
    MAX_EXPORT_BYTES, MAX_MAP_BYTES, TID_OPERATIONS, VERDICT,
};
use crate::map::{read_map, Checked, Decision};
use crate::output::{check_output_path, write_view};
use crate::record::{finish_input, input_error, open_input, Io};
use opguard_trace::EventRef;

/// The request protocol version.
pub const PROTOCOL_VERSION: u64 = 1;
/// Largest apply or export request document: 1 MiB; one byte more is
/// `limit_exceeded`, never a truncation.
pub const MAX_REQUEST_BYTES: u64 = 1 << 20;
/// Basis of relations made by an alignment map.
pub(crate) const BASIS_MAP: &str = "alignment_map";

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
        .map_err(|e| Error::document("the request", e).with_path(path))
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
                    |e| Error::document("the request", e),
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
            return Err(Error::document(
                "the request",
                opguard_document::Error::missing_field(
                    &opguard_document::JsonPath::Root,
                    "protocol_version",
                ),
            ))
        }
    }
    let mut r = typed.map_err(|e| Error::document("the request", e))?;
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
fn apply_request_with(request: &Request, options: &ApplyOptions) -> Result<Response, Error> {
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

/// What apply keeps of one operation event.
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

/// The first pass's index of the artifact: every operation, the tensor
/// summaries of the operations the map selects slots of, and the digest.
struct Artifact {
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

/// A broken rule of the operation event `traceEvents[i]`.
fn bad_operation(i: u64, what: &str) -> Error {
    bad_export(format!("traceEvents[{i}]: {what}"))
}

/// What the operation events say, while they are read.
#[derive(Default)]
struct OperationIndex {
    ops: Vec<Op>,
    ids: Vec<Box<str>>,
    io: HashMap<u64, Io>,
    /// Run and rank of each group, and its process id.
    labels: Vec<(String, u32)>,
    pids: Vec<u32>,
    /// Peers named before their operation was read: (operation, peer
    /// event, the record id the operation names for it).
    forward: Vec<(u64, u64, Box<str>)>,
}

/// First pass: reads and checks the artifact's operations and metadata.
/// `wanted` are the operations whose tensor summaries the map selects.
fn index_artifact(
    path: &Path,
    options: ReaderOptions,
    wanted: &HashSet<u64>,
) -> Result<Artifact, Error> {
    let mut index = OperationIndex::default();
    let summary = read_view_events(path, options, |e, at| {
        if !at.in_order {
            return Err(bad_operation(
                e.index(),
                "operation events must come first (traceEvents[0..operations))",
            ));
        }
        if at.operation {
            read_operation(e, wanted.contains(&e.index()), &mut index)?;
        }
        Ok(())
    })?;
    let OperationIndex {
        mut ops,
        ids,
        io,
        labels,
        pids,
        forward,
    } = index;
    let meta = read_carried_metadata(&summary, ops.len()).map_err(|e| e.with_path(path))?;
    let groups = place_groups(&labels, &pids, &meta.runs).map_err(|e| e.with_path(path))?;
    for op in &mut ops {
        op.run = groups[op.group as usize].run;
    }
    check_relations(&ops, &ids, &forward).map_err(|e| e.with_path(path))?;
    check_unique_ids(&ids).map_err(|e| e.with_path(path))?;
    Ok(Artifact {
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

/// One operation event, checked and added to the index.
fn read_operation(e: &Event<'_>, want_io: bool, index: &mut OperationIndex) -> Result<(), Error> {
    let i = e.index();
    if !has_operation_phase(e) {
        return Err(bad_operation(i, "an operation event must have ph \"X\""));
    }
    let args = OperationArgs::read(e, want_io);
    let op = args
        .op
        .ok_or_else(|| bad_operation(i, "args.op is missing"))?;
    let (record_id, run, rank, sequence) = read_identity(i, op)?;
    let corr = args
        .correspondence()
        .ok_or_else(|| bad_operation(i, "args.correspondence is missing"))?;
    let (status, validation, peer) = read_relation(i, corr, index)?;
    let (pid, ts_ns, dur_ns) = read_placement(e)?;
    let group = group_of(&mut index.labels, &mut index.pids, run, rank, pid)
        .map_err(|what| bad_operation(i, what))?;
    if want_io {
        let raw = args.io.map_or("{}", |v| v.raw());
        let parsed: Io = serde_json::from_str(raw)
            .map_err(|err| bad_operation(i, &format!("args.io is not tensor summaries: {err}")))?;
        index.io.insert(i, parsed);
    }
    let corr_raw = args.correspondence.map_or("", |v| v.raw());
    index.ops.push(Op {
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
            .ok_or_else(|| bad_operation(i, "args.correspondence is not inside the event text"))?,
    });
    index.ids.push(record_id.into_owned().into_boxed_str());
    Ok(())
}

/// `args.op`: record id, run, rank and sequence, each required.
fn read_identity<'a>(
    i: u64,
    op: OpArgs<'a>,
) -> Result<(Cow<'a, str>, Cow<'a, str>, u32, u64), Error> {
    let record_id = op
        .record_id()
        .ok_or_else(|| bad_operation(i, "args.op.record_id is missing"))?;
    let run = op
        .run()
        .ok_or_else(|| bad_operation(i, "args.op.run is missing"))?;
    let rank = op
        .rank()
        .and_then(|r| u32::try_from(r).ok())
        .ok_or_else(|| bad_operation(i, "args.op.rank is not a rank"))?;
    let sequence = op
        .sequence()
        .ok_or_else(|| bad_operation(i, "args.op.sequence is missing"))?;
    Ok((record_id, run, rank, sequence))
}

/// `args.correspondence`: status, validation and the peer (present exactly
/// for a paired status). The peer's record id is checked now when its
/// operation was read already, else once every operation is read.
fn read_relation(
    i: u64,
    corr: CorrespondenceArgs<'_>,
    index: &mut OperationIndex,
) -> Result<(Status, Validation, Option<u64>), Error> {
    let at = |what: &str| bad_operation(i, what);
    let status = corr
        .status()
        .ok_or_else(|| at("args.correspondence.status is not a status"))?;
    let validation = corr
        .validation()
        .ok_or_else(|| at("args.correspondence.validation is not unreviewed|agent_reviewed"))?;
    let peer = match corr.peer() {
        PeerArgs::None => None,
        PeerArgs::NotAnObject => return Err(at("args.correspondence.peer is not an object")),
        PeerArgs::Named { event, record_id } => {
            let event = event.ok_or_else(|| at("peer.event is missing"))?;
            let peer_id = record_id.ok_or_else(|| at("peer.record_id is missing"))?;
            match index.ids.get(event as usize) {
                Some(known) if event < i => {
                    if **known != *peer_id {
                        return Err(at("peer.record_id is not the record id of peer.event"));
                    }
                }
                _ => index
                    .forward
                    .push((i, event, peer_id.into_owned().into_boxed_str())),
            }
            Some(event)
        }
    };
    if !peer_agrees_with_status(Some(status), peer.is_some()) {
        return Err(at(
            "a peer is present exactly when the status is ok or differs",
        ));
    }
    Ok((status, validation, peer))
}

/// Process, thread, start and duration of an operation event.
fn read_placement(e: &Event<'_>) -> Result<(u32, i64, i64), Error> {
    let at = |what: &str| bad_operation(e.index(), what);
    let pid = e
        .pid()
        .and_then(|p| p.as_i64())
        .and_then(|p| u32::try_from(p).ok())
        .ok_or_else(|| at("pid is not a process number"))?;
    if !is_on_thread(e, TID_OPERATIONS) {
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
    Ok((pid, ts_ns, dur_ns))
}

/// The group (run and rank) of an operation, new when first seen; the
/// operations of one group share one process.
fn group_of(
    labels: &mut Vec<(String, u32)>,
    pids: &mut Vec<u32>,
    run: Cow<'_, str>,
    rank: u32,
    pid: u32,
) -> Result<u32, &'static str> {
    match labels.iter().position(|(r, k)| *k == rank && **r == *run) {
        Some(g) if pids[g] != pid => Err("operations of one run and rank must share one pid"),
        Some(g) => Ok(g as u32),
        None => {
            labels.push((run.into_owned(), rank));
            pids.push(pid);
            Ok(labels.len() as u32 - 1)
        }
    }
}

/// The metadata a review carries forward: of this format, two runs, and
/// counting the `operations` read.
fn read_carried_metadata(summary: &TraceSummary, operations: usize) -> Result<MetaIn, Error> {
    let meta_json = metadata_json(summary).ok_or_else(|| {
        Error::new(ErrorKind::NotAnExport(
            "no top-level \"opguard\" metadata".into(),
        ))
    })?;
    if meta_json.get("format").and_then(|f| f.as_str()) != Some(EXPORT_FORMAT) {
        return Err(Error::new(ErrorKind::NotAnExport(format!(
            "opguard.format is {}, expected {EXPORT_FORMAT:?}",
            meta_json.get("format").cloned().unwrap_or_default()
        ))));
    }
    let meta: MetaIn = serde_json::from_value(meta_json)
        .map_err(|e| bad_export(format!("opguard metadata: {e}")))?;
    debug_assert_eq!(meta.format, EXPORT_FORMAT);
    if meta.runs.len() != 2 || meta.runs[0] == meta.runs[1] {
        return Err(bad_export(format!(
            "opguard.runs is {:?}, expected two runs",
            meta.runs
        )));
    }
    if meta.operations != operations as u64 {
        return Err(bad_export(format!(
            "opguard.operations is {} but traceEvents starts with {operations} operations",
            meta.operations,
        )));
    }
    Ok(meta)
}

/// Each group's run (its position in the metadata's `runs`) and process.
fn place_groups(
    labels: &[(String, u32)],
    pids: &[u32],
    runs: &[String],
) -> Result<Vec<Group>, Error> {
    labels
        .iter()
        .zip(pids)
        .map(|((run, rank), &pid)| {
            let r = runs
                .iter()
                .position(|x| x == run)
                .ok_or_else(|| bad_export(format!("run {run:?} is not one of opguard.runs")))?;
            Ok(Group {
                run: r as u8,
                rank: *rank,
                pid,
            })
        })
        .collect()
}

/// Relations must be symmetric, name their peer's id, and join the two
/// runs.
fn check_relations(
    ops: &[Op],
    ids: &[Box<str>],
    forward: &[(u64, u64, Box<str>)],
) -> Result<(), Error> {
    for (i, event, peer_id) in forward {
        if ids.get(*event as usize).is_none_or(|id| **id != **peer_id) {
            return Err(bad_export(format!(
                "traceEvents[{i}]: peer.record_id {peer_id:?} is not the record id of event {event}"
            )));
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
                )));
            }
        }
    }
    Ok(())
}

/// Record ids are unique in the view.
fn check_unique_ids(ids: &[Box<str>]) -> Result<(), Error> {
    let mut seen = HashSet::with_capacity(ids.len());
    for id in ids {
        if !seen.insert(&**id) {
            return Err(bad_export(format!("record_id {id:?} appears twice")));
        }
    }
    Ok(())
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
    /// The two operations of each review.
    ends: Vec<(u32, u32)>,
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
fn resolve(p: &Artifact, reviews: &[Checked]) -> Result<Resolution, Error> {
    let ends = reviews
        .iter()
        .map(|r| review_ends(p, r))
        .collect::<Result<Vec<_>, Error>>()?;
    // Ordered history: the last entry per event pair is active.
    let mut history: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (k, &(l, r)) in ends.iter().enumerate() {
        history.entry(key(l, r)).or_default().push(k);
    }
    let mut active: Vec<usize> = history.values().map(|v| v[v.len() - 1]).collect();
    active.sort_unstable();
    let (owner, decisions) = comparable_owners(p, reviews, &ends, &active)?;
    let mut changes = Changes {
        change: vec![None; p.ops.len()],
        own: vec![None; p.ops.len()],
        new_mappings: 0,
        displaced: 0,
    };
    changes.of_owners(p, reviews, &ends, &owner);
    changes.of_candidates(p, reviews, &ends, &history, &owner);
    let alternatives = changes.of_alternatives(p, reviews, &ends, &active);
    Ok(Resolution {
        change: changes.change,
        ends,
        alternatives,
        history,
        decisions,
        active: active.len() as u64,
        new_mappings: changes.new_mappings,
        displaced: changes.displaced,
    })
}

/// The two operations a review names: references into this artifact, to
/// operation events of two different runs, with selectors in range.
fn review_ends(p: &Artifact, r: &Checked) -> Result<(u32, u32), Error> {
    let at = format!("reviews[{}]", r.at);
    let l = operation_of(p, format!("{at}.left_ref"), &r.left)?;
    let rr = operation_of(p, format!("{at}.right_ref"), &r.right)?;
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
    Ok((l, rr))
}

/// The operation a reference (at map path `place`) points at.
fn operation_of(p: &Artifact, place: String, reference: &EventRef) -> Result<u32, Error> {
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
    let operations = p.ops.len() as u64;
    if reference.index >= operations {
        return Err(Error::new(ErrorKind::RefNotOperation {
            at: place,
            index: reference.index,
            operations,
        }));
    }
    Ok(reference.index as u32)
}

/// Whether `b` is the automatic candidate (current peer) of `a`.
fn is_candidate(p: &Artifact, a: u32, b: u32) -> bool {
    p.ops[a as usize]
        .peer
        .as_ref()
        .is_some_and(|q| *q == b as u64)
}

/// Counts the active reviews per decision and gives each operation its one
/// active comparable review (its owner); a new pair needs selectors.
fn comparable_owners(
    p: &Artifact,
    reviews: &[Checked],
    ends: &[(u32, u32)],
    active: &[usize],
) -> Result<(HashMap<u32, usize>, DecisionCounts), Error> {
    let mut decisions = DecisionCounts::default();
    let mut owner: HashMap<u32, usize> = HashMap::new();
    for &k in active {
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
        if r.selectors.is_none() && !is_candidate(p, l, rr) {
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
    Ok((owner, decisions))
}

/// Each operation's change, decided in three rounds: its own comparable
/// review, then a review of its candidate (or a new mapping that took the
/// candidate), then the alternatives naming it.
struct Changes {
    change: Vec<Option<Change>>,
    /// The review that decides each operation's relation.
    own: Vec<Option<usize>>,
    new_mappings: u64,
    displaced: u64,
}

impl Changes {
    /// Operations with an active comparable review: confirmed, or mapped
    /// with selectors.
    fn of_owners(
        &mut self,
        p: &Artifact,
        reviews: &[Checked],
        ends: &[(u32, u32)],
        owner: &HashMap<u32, usize>,
    ) {
        for (&op, &k) in owner {
            let (l, r) = ends[k];
            let other = if l == op { r } else { l };
            let candidate = is_candidate(p, op, other);
            self.own[op as usize] = Some(k);
            self.change[op as usize] = Some(match reviews[k].selectors {
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
                self.new_mappings += 1;
            }
        }
    }

    /// Operations whose candidate was reviewed otherwise (rejected,
    /// unresolved) or taken by another operation's new mapping (displaced).
    fn of_candidates(
        &mut self,
        p: &Artifact,
        reviews: &[Checked],
        ends: &[(u32, u32)],
        history: &HashMap<(u32, u32), Vec<usize>>,
        owner: &HashMap<u32, usize>,
    ) {
        let active_of =
            |a: u32, b: u32| -> Option<usize> { history.get(&key(a, b)).map(|v| v[v.len() - 1]) };
        for (i, op) in p.ops.iter().enumerate() {
            if self.change[i].is_some() {
                continue;
            }
            let Some(q) = op.peer else { continue };
            let q = q as u32;
            if let Some(k) = active_of(i as u32, q) {
                self.own[i] = Some(k);
                self.change[i] = Some(match reviews[k].decision {
                    Decision::NotComparable => Change::Rejected { review: k },
                    Decision::Undetermined => Change::Unresolved { review: Some(k) },
                    // Comparable candidates are owned already.
                    Decision::Comparable => continue,
                });
                continue;
            }
            if let Some(&k) = owner.get(&q) {
                let (l, r) = ends[k];
                let by = if l == q { r } else { l };
                self.change[i] = Some(Change::Displaced { by });
                self.displaced += 1;
            }
        }
    }

    /// Active reviews naming an operation that are not its own relation;
    /// an operation otherwise unchanged is annotated with them, or becomes
    /// undetermined when it has no relation and one of them is.
    fn of_alternatives(
        &mut self,
        p: &Artifact,
        reviews: &[Checked],
        ends: &[(u32, u32)],
        active: &[usize],
    ) -> HashMap<u32, Vec<usize>> {
        let mut alternatives: HashMap<u32, Vec<usize>> = HashMap::new();
        for &k in active {
            let (l, r) = ends[k];
            for op in [l, r] {
                if self.own[op as usize] != Some(k) {
                    alternatives.entry(op).or_default().push(k);
                }
            }
        }
        for (&op, alts) in &alternatives {
            let i = op as usize;
            if self.change[i].is_some() {
                continue;
            }
            let unresolved = alts
                .iter()
                .any(|&k| reviews[k].decision == Decision::Undetermined);
            self.change[i] = Some(if unresolved && p.ops[i].peer.is_none() {
                Change::Unresolved { review: None }
            } else {
                Change::Annotated
            });
        }
        alternatives
    }
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
    let p = index_artifact(
        artifact,
        options.artifact_reader(),
        &selected_operations(&map.reviews),
    )?;
    if map.artifact != p.sha256 {
        return Err(Error::new(ErrorKind::StaleArtifactHash {
            map: map.artifact_text.clone(),
            artifact: p.sha256.to_string(),
        })
        .with_path(alignment_map));
    }
    let res = resolve(&p, &map.reviews).map_err(|e| e.with_path(alignment_map))?;
    let rewrite = Rewrite::new(&p, &res, &map.reviews)?;
    let runs: [String; 2] = [p.meta.runs[0].clone(), p.meta.runs[1].clone()];
    let sources = review_sources(&p, &map_sha);
    let (tail, written) = write_view(
        output,
        options.max_output_bytes,
        options.output_thread,
        |sink| {
            let input = open_input(second, &options.artifact_reader(), ARTIFACT)?;
            let mut w = opguard_trace::TraceWriter::new(&mut *sink)?;
            copy_operations(input, second, &p, &rewrite, &mut w)?;
            let ids = |k: usize| &*p.ids[k];
            let tail = write_tail(&mut w, &runs, &p.groups, &rewrite.views, &ids)?;
            let meta = ExportMetadata::of_view(
                "reviewed_view",
                &runs,
                p.ops.len() as u64,
                &tail,
                p.meta.candidates.clone(),
                p.meta.alignment_budget_exhausted_ranks.clone(),
                sources.clone(),
            );
            finish_view(w, &meta)?;
            Ok(tail)
        },
    )?;
    Ok(Response {
        protocol_version: PROTOCOL_VERSION,
        output: output.to_path_buf(),
        output_sha256: written.sha256.to_string(),
        artifact_sha256: p.sha256.to_string(),
        alignment_map_sha256: map_sha.to_string(),
        verdict: VERDICT.into(),
        workload_launched: false,
        operations: p.ops.len() as u64,
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

/// The operations whose tensor summaries the first pass keeps: those a
/// review selects slots of.
fn selected_operations(reviews: &[Checked]) -> HashSet<u64> {
    reviews
        .iter()
        .filter(|r| r.selectors.is_some())
        .flat_map(|r| [r.left.index, r.right.index])
        .collect()
}

/// The sources of the reviewed view: the artifact's, then this review.
fn review_sources(p: &Artifact, map_sha: &Sha256Digest) -> Vec<SourceInfo> {
    let mut sources = p.meta.sources.clone();
    sources.push(SourceInfo {
        kind: "review".into(),
        sha256: p.sha256.to_string(),
        run: None,
        rank: None,
        alignment_map_sha256: Some(map_sha.to_string()),
    });
    sources
}

/// How the review rewrites the artifact: each operation's new relation
/// (for the rebuilt tail) and the correspondence that says so.
struct Rewrite<'a> {
    p: &'a Artifact,
    res: &'a Resolution,
    reviews: &'a [Checked],
    /// Presentation data of every operation in the new view.
    views: Vec<OpView>,
    /// Slot comparisons of the operations a review mapped.
    slot_cmp: HashMap<usize, Comparison>,
}

impl<'a> Rewrite<'a> {
    fn new(p: &'a Artifact, res: &'a Resolution, reviews: &'a [Checked]) -> Result<Self, Error> {
        let mut views: Vec<OpView> = Vec::with_capacity(p.ops.len());
        let mut slot_cmp: HashMap<usize, Comparison> = HashMap::new();
        for (i, op) in p.ops.iter().enumerate() {
            let (view, cmp) = new_relation(p, res.change[i].as_ref(), i, op, reviews, &res.ends)?;
            views.push(view);
            if let Some(c) = cmp {
                slot_cmp.insert(i, c);
            }
        }
        check_symmetric(&views)?;
        Ok(Rewrite {
            p,
            res,
            reviews,
            views,
            slot_cmp,
        })
    }

    fn raw_of(&self, k: usize) -> serde_json::Value {
        self.reviews[k].raw.clone()
    }

    /// Earlier entries of the map for the pair of review `k`.
    fn history_of(&self, i: u32, k: usize) -> Vec<serde_json::Value> {
        let (l, r) = self.res.ends[k];
        debug_assert!(i == l || i == r);
        self.res
            .history
            .get(&key(l, r))
            .map(|v| v[..v.len() - 1].iter().map(|&j| self.raw_of(j)).collect())
            .unwrap_or_default()
    }

    /// The correspondence of operation `i` in the new view (`old` when the
    /// review does not touch it).
    fn correspondence(&self, i: usize, old: Correspondence) -> Correspondence {
        let Some(change) = &self.res.change[i] else {
            return old;
        };
        let alts: Vec<serde_json::Value> = self
            .res
            .alternatives
            .get(&(i as u32))
            .map(|v| v.iter().map(|&k| self.raw_of(k)).collect())
            .unwrap_or_default();
        let reviewed = |mut c: Correspondence, review: usize| {
            c.review = Some(self.raw_of(review));
            c.review_history = self.history_of(i as u32, review);
            c
        };
        let mut c = match change {
            Change::Confirmed { review } => {
                let mut c = reviewed(old, *review);
                c.validation = Validation::AgentReviewed;
                c
            }
            Change::Annotated => {
                let mut c = old;
                c.validation = Validation::AgentReviewed;
                c
            }
            Change::Mapped {
                review,
                peer,
                selectors,
                candidate,
            } => {
                let cmp = self.slot_cmp.get(&i).cloned().unwrap_or_default();
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
                    record_id: self.p.ids[*peer as usize].to_string(),
                    event: *peer as u64,
                });
                c.selectors = Some(*selectors);
                c.differences = cmp.differences;
                c.not_compared = cmp.not_compared;
                let mut c = reviewed(c, *review);
                let why = if *candidate { "recompared" } else { "remapped" };
                c.original_comparison = supersede(old, why, None);
                c
            }
            Change::Rejected { review } => {
                let mut c = reviewed(
                    fresh(Status::NotComparable, Validation::AgentReviewed),
                    *review,
                );
                c.original_comparison = supersede(old, "rejected", None);
                c
            }
            Change::Unresolved { review } => {
                let mut c = fresh(Status::Undetermined, Validation::AgentReviewed);
                if let Some(k) = review {
                    c = reviewed(c, *k);
                }
                c.original_comparison = supersede(old, "unresolved", None);
                c
            }
            Change::Displaced { by } => {
                let mut c = fresh(Status::Undetermined, Validation::Unreviewed);
                let by = Some(self.p.ids[*by as usize].to_string());
                c.original_comparison = supersede(old, "displaced", by);
                c
            }
        };
        c.alternative_reviews = alts;
        c
    }
}

/// A correspondence with no relation, of this status and validation.
fn fresh(status: Status, validation: Validation) -> Correspondence {
    let mut c = Correspondence::unrelated(status);
    c.validation = validation;
    c
}

/// The history of a correspondence that stops being active: the earlier
/// ones, then `old` marked with why (and by whom, when displaced).
fn supersede(mut old: Correspondence, why: &str, by: Option<String>) -> Vec<Correspondence> {
    let mut earlier = std::mem::take(&mut old.original_comparison);
    old.superseded = Some(why.into());
    old.displaced_by = by;
    earlier.push(old);
    earlier
}

/// The new relation of operation `i`, and the slot comparison of a mapped
/// one.
fn new_relation(
    p: &Artifact,
    change: Option<&Change>,
    i: usize,
    op: &Op,
    reviews: &[Checked],
    ends: &[(u32, u32)],
) -> Result<(OpView, Option<Comparison>), Error> {
    let v = OpView {
        group: op.group,
        sequence: op.sequence,
        ts_ns: op.ts_ns,
        dur_ns: op.dur_ns,
        status: op.status,
        validation: op.validation,
        peer: op.peer.map(|q| q as u32),
    };
    let unrelated = |status, validation| OpView {
        status,
        validation,
        peer: None,
        ..v
    };
    Ok(match change {
        None => (v, None),
        Some(Change::Confirmed { .. }) | Some(Change::Annotated) => (
            OpView {
                validation: Validation::AgentReviewed,
                ..v
            },
            None,
        ),
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
            let status = if c.agrees() {
                Status::Ok
            } else {
                Status::Differs
            };
            let mapped = OpView {
                status,
                validation: Validation::AgentReviewed,
                peer: Some(*peer),
                ..v
            };
            (mapped, Some(c))
        }
        Some(Change::Rejected { .. }) => (
            unrelated(Status::NotComparable, Validation::AgentReviewed),
            None,
        ),
        Some(Change::Unresolved { .. }) => (
            unrelated(Status::Undetermined, Validation::AgentReviewed),
            None,
        ),
        Some(Change::Displaced { .. }) => (
            unrelated(Status::Undetermined, Validation::Unreviewed),
            None,
        ),
    })
}

/// Every relation in the new view is symmetric.
fn check_symmetric(views: &[OpView]) -> Result<(), Error> {
    for (i, v) in views.iter().enumerate() {
        if let Some(q) = v.peer {
            if views[q as usize].peer != Some(i as u32) {
                return Err(bad_export(format!(
                    "internal: relation {i} → {q} is not symmetric after review"
                )));
            }
        }
    }
    Ok(())
}

const ARTIFACT: &str = "the artifact";

/// Second pass: the operation events are copied from the byte ranges the
/// first pass read them at (verbatim when unchanged); the SHA-256 of every
/// byte must equal the first pass's, so the copied bytes are the checked
/// ones.
fn copy_operations<W: std::io::Write>(
    mut input: BufReader<DecodedInput<File>>,
    second: &Path,
    p: &Artifact,
    rewrite: &Rewrite<'_>,
    w: &mut opguard_trace::TraceWriter<W>,
) -> Result<(), Error> {
    let mut pos = 0u64;
    let mut text = Vec::with_capacity(4096);
    let mut spliced = String::with_capacity(4096);
    for (i, op) in p.ops.iter().enumerate() {
        let skip = op.offset.checked_sub(pos).ok_or_else(|| {
            bad_export(format!("traceEvents[{i}] overlaps the previous event")).with_path(second)
        })?;
        skip_bytes(&mut input, skip, i, second)?;
        text.resize(op.len, 0);
        input
            .read_exact(&mut text)
            .map_err(|e| input_error(e.into(), ARTIFACT).with_path(second))?;
        pos = op.offset + op.len as u64;
        let event_text = std::str::from_utf8(&text).map_err(|_| {
            Error::new(ErrorKind::SourceChanged {
                first: p.sha256.to_string(),
                second: format!("bytes of traceEvents[{i}] changed"),
            })
            .with_path(second)
        })?;
        if rewrite.res.change[i].is_none() {
            w.write_raw_event(event_text)?;
            continue;
        }
        splice_correspondence(event_text, op.corr_span, &mut spliced, |old_text| {
            let old: Correspondence = serde_json::from_str(old_text).map_err(|err| {
                bad_export(format!("traceEvents[{i}].args.correspondence: {err}")).with_path(second)
            })?;
            serde_json::to_string(&rewrite.correspondence(i, old))
                .map_err(|err| Error::io("encoding a correspondence", std::io::Error::other(err)))
        })?;
        w.write_raw_event(&spliced)?;
    }
    let digest = finish_input(input, ARTIFACT).map_err(|e| e.with_path(second))?;
    if digest != p.sha256 {
        return Err(Error::new(ErrorKind::SourceChanged {
            first: p.sha256.to_string(),
            second: digest.to_string(),
        })
        .with_path(second));
    }
    Ok(())
}

/// Skips the `n` bytes before operation `i`'s text.
fn skip_bytes(input: &mut impl BufRead, n: u64, i: usize, path: &Path) -> Result<(), Error> {
    let mut left = n;
    while left > 0 {
        let avail = match input.fill_buf() {
            Ok([]) => {
                return Err(bad_export(format!("traceEvents[{i}] is past the end")).with_path(path))
            }
            Ok(b) => b.len() as u64,
            Err(e) => return Err(input_error(e.into(), ARTIFACT).with_path(path)),
        };
        let take = avail.min(left);
        input.consume(take as usize);
        left -= take;
    }
    Ok(())
}

/// `event_text` with the correspondence value at `span` replaced by what
/// `rewrite` makes of it; every other byte of the event stays as it was.
fn splice_correspondence(
    event_text: &str,
    (start, end): (usize, usize),
    spliced: &mut String,
    rewrite: impl FnOnce(&str) -> Result<String, Error>,
) -> Result<(), Error> {
    let old_text = event_text.get(start..end).unwrap_or("null");
    let corr_text = rewrite(old_text)?;
    spliced.clear();
    spliced.push_str(&event_text[..start]);
    spliced.push_str(&corr_text);
    spliced.push_str(&event_text[end..]);
    Ok(())
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
