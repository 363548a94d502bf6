//! Model stage: the `opguard.export/v1` format and the events every view
//! rebuilds (process and thread names, flows, status lanes, markers).
//!
//! Layout of a view (an export or a reviewed view):
//!
//! - `traceEvents[0..operations)`: one `X` event per operation, category
//!   [`CAT_OPERATION`], on thread [`TID_OPERATIONS`] of its run/rank
//!   process; `args.op`, `args.io`, `args.correspondence`.
//! - then `M` events naming processes (`<run> · rank <r>`) and threads,
//! - one flow (`s` then `f`, category [`CAT_FLOW`], both `bp: "e"`) per
//!   active comparable pair, from the left run's operation to the right's,
//! - one status-lane `X` event per operation on thread [`TID_STATUS`]
//!   (category [`CAT_STATUS`], `args.operation` = the operation's index),
//! - at most one first-observed difference marker (`i`, category
//!   [`CAT_MARKER`], thread [`TID_MARKERS`]) per run and rank.
//!
//! The top-level key `"opguard"` holds [`ExportMetadata`].

use serde::{Deserialize, Serialize};

use std::borrow::Cow;
use std::fmt::Write as _;

use opguard_trace::{
    nanos_to_micros_text, Args, Event, OwnedEvent, RawJson, ScalarKey, TraceSummary, TraceWriter,
    Value,
};

use crate::error::Error;

/// The `format` value of an export.
pub const EXPORT_FORMAT: &str = "opguard.export/v1";
/// Largest export, encoded and decoded: 256 MiB.
pub const MAX_EXPORT_BYTES: u64 = 256 << 20;
/// Largest alignment map: 8 MiB.
pub const MAX_MAP_BYTES: u64 = 8 << 20;
/// Category of operation events.
pub const CAT_OPERATION: &str = "opguard.op";
/// Category of correspondence flow events.
pub(crate) const CAT_FLOW: &str = "opguard.correspondence";
/// Category of status-lane events.
pub(crate) const CAT_STATUS: &str = "opguard.status";
/// Category of first-observed difference markers.
pub(crate) const CAT_MARKER: &str = "opguard.first_difference";
/// Thread of operation events in each run/rank process.
pub(crate) const TID_OPERATIONS: u32 = 1;
/// Thread of the status lane.
pub(crate) const TID_STATUS: u32 = 2;
/// Thread of first-difference markers.
pub(crate) const TID_MARKERS: u32 = 3;
/// `args` key of a status-lane entry or a marker: its operation's index.
pub(crate) const ARG_OPERATION: &str = "operation";
/// `args` key of a status-lane entry: its operation's record id.
pub(crate) const ARG_RECORD_ID: &str = "record_id";
/// `args` key of a flow's start (`s`): the left run's operation.
pub(crate) const ARG_FLOW_FROM: &str = "from";
/// `args` key of a flow's end (`f`): the right run's operation.
pub(crate) const ARG_FLOW_TO: &str = "to";
/// `bp` of both flow ends: bound to the enclosing slice, the operation.
pub(crate) const FLOW_BINDING: &str = "e";
/// Presentation slot of one operation, in nanoseconds.
pub(crate) const SLOT_NS: i64 = 1_000;
/// Duration of an operation's presentation slice, in nanoseconds.
pub(crate) const SLICE_NS: i64 = 800;

/// What the export says about presentation order.
pub(crate) const PRESENTATION_NOTE: &str = "Presentation order is not GPU causal order: operations are laid out in alignment columns (paired operations share a column when they were paired automatically); recorded times, when known, are args.op.ts_ns and args.op.dur_ns.";
/// What the export says `ok` means.
pub(crate) const OK_MEANING: &str = "ok means recorded-field agreement of the compared tensor summaries (shape, dtype, stride, device, fingerprint, stats, by 64-bit digests); fingerprints and digests can collide, so tensor_equality stays not_established.";
/// The only value of `tensor_equality`.
pub(crate) const TENSOR_EQUALITY: &str = "not_established";
/// The only value of `verdict`.
pub(crate) const VERDICT: &str = "not_evaluated";

/// Correspondence status of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Paired, and every field recorded on both sides agrees.
    Ok,
    /// Paired, and some recorded field differs.
    Differs,
    /// The other run has this rank but no counterpart was paired.
    Unpaired,
    /// The other run has no trace of this rank.
    NoCorrespondingTraceFile,
    /// The relation was displaced or reviewed as undetermined.
    Undetermined,
    /// The operation's relation was reviewed as not comparable.
    NotComparable,
}

impl Status {
    /// Every status, in report order.
    pub const ALL: [Status; 6] = [
        Status::Ok,
        Status::Differs,
        Status::Unpaired,
        Status::NoCorrespondingTraceFile,
        Status::Undetermined,
        Status::NotComparable,
    ];

    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Differs => "differs",
            Status::Unpaired => "unpaired",
            Status::NoCorrespondingTraceFile => "no_corresponding_trace_file",
            Status::Undetermined => "undetermined",
            Status::NotComparable => "not_comparable",
        }
    }

    /// Parses the JSON name.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|x| x.as_str() == s)
    }

    /// Whether this status is an observed difference (first-difference
    /// markers point at the first one per run and rank).
    pub fn is_difference(self) -> bool {
        matches!(self, Status::Differs | Status::Unpaired)
    }

    /// Whether the operation is in an active comparable relation.
    pub fn is_paired(self) -> bool {
        matches!(self, Status::Ok | Status::Differs)
    }
}

/// Who vouches for a correspondence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Validation {
    /// Automatic candidates only.
    Unreviewed,
    /// An alignment map reviewed it (an agent's assertion with evidence,
    /// not an independently verified proof).
    AgentReviewed,
}

impl Validation {
    /// The JSON name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Validation::Unreviewed => "unreviewed",
            Validation::AgentReviewed => "agent_reviewed",
        }
    }

    /// Parses the JSON name.
    pub(crate) fn parse(s: &str) -> Option<Validation> {
        [Validation::Unreviewed, Validation::AgentReviewed]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// Which array of `args.io` a selector points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// `args.io.inputs`.
    Inputs,
    /// `args.io.outputs`.
    Outputs,
}

impl Side {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Inputs => "inputs",
            Side::Outputs => "outputs",
        }
    }
}

/// A tensor selector: `["inputs", 1]` is the second captured input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Selector(pub Side, pub u64);

/// The selectors of a slot-level comparison, from this operation's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selectors {
    /// This operation's slot.
    #[serde(rename = "self")]
    pub this: Selector,
    /// The peer's slot.
    pub peer: Selector,
}

/// The peer of an active relation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    /// The peer's record id.
    pub record_id: String,
    /// The peer's index in this view's `traceEvents`.
    pub event: u64,
}

/// `args.correspondence` of an operation event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Correspondence {
    /// The status.
    pub status: Status,
    /// Whether a map reviewed it.
    pub validation: Validation,
    /// Always `not_established`.
    pub tensor_equality: String,
    /// `automatic_callsite_sequence` or `alignment_map` for a relation.
    #[serde(default)]
    pub basis: Option<String>,
    /// The peer of the active relation.
    #[serde(default)]
    pub peer: Option<Peer>,
    /// Slot selectors when the relation compares selected slots.
    #[serde(default)]
    pub selectors: Option<Selectors>,
    /// Recorded fields that differ.
    #[serde(default)]
    pub differences: Vec<String>,
    /// Fields recorded on one side only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_compared: Vec<String>,
    /// The active review entry of this operation's relation, as in the map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<serde_json::Value>,
    /// Earlier entries of the map for the same pair, in map order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub review_history: Vec<serde_json::Value>,
    /// Active reviews of other pairs that include this operation but are
    /// not its active relation (rejected or unresolved alternatives).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternative_reviews: Vec<serde_json::Value>,
    /// In an `original_comparison` entry: why it stopped being active
    /// (`rejected`, `unresolved`, `displaced`, `recompared`, `remapped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded: Option<String>,
    /// In a `displaced` entry: the record id whose new mapping displaced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displaced_by: Option<String>,
    /// Earlier correspondences, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub original_comparison: Vec<Correspondence>,
}

impl Correspondence {
    /// An unreviewed correspondence with no relation.
    pub(crate) fn unrelated(status: Status) -> Self {
        Correspondence {
            status,
            validation: Validation::Unreviewed,
            tensor_equality: TENSOR_EQUALITY.into(),
            basis: None,
            peer: None,
            selectors: None,
            differences: Vec::new(),
            not_compared: Vec::new(),
            review: None,
            review_history: Vec::new(),
            alternative_reviews: Vec::new(),
            superseded: None,
            displaced_by: None,
            original_comparison: Vec::new(),
        }
    }
}

/// Operation counts per status (every key always present).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusCounts {
    /// `ok`.
    pub ok: u64,
    /// `differs`.
    pub differs: u64,
    /// `unpaired`.
    pub unpaired: u64,
    /// `no_corresponding_trace_file`.
    pub no_corresponding_trace_file: u64,
    /// `undetermined`.
    pub undetermined: u64,
    /// `not_comparable`.
    pub not_comparable: u64,
}

impl StatusCounts {
    /// Adds one operation.
    pub fn add(&mut self, s: Status) {
        *self.get_mut(s) += 1;
    }
    /// The count of one status.
    pub fn get(&self, s: Status) -> u64 {
        let mut copy = *self;
        *copy.get_mut(s)
    }
    fn get_mut(&mut self, s: Status) -> &mut u64 {
        match s {
            Status::Ok => &mut self.ok,
            Status::Differs => &mut self.differs,
            Status::Unpaired => &mut self.unpaired,
            Status::NoCorrespondingTraceFile => &mut self.no_corresponding_trace_file,
            Status::Undetermined => &mut self.undetermined,
            Status::NotComparable => &mut self.not_comparable,
        }
    }
    /// The sum over all statuses.
    pub fn total(&self) -> u64 {
        Status::ALL.iter().map(|s| self.get(*s)).sum()
    }
}

/// Operation counts per validation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidationCounts {
    /// `unreviewed`.
    pub unreviewed: u64,
    /// `agent_reviewed`.
    pub agent_reviewed: u64,
}

/// One first-observed difference marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstDifference {
    /// The run.
    pub run: String,
    /// The rank.
    pub rank: u32,
    /// The operation's event index.
    pub operation: u64,
    /// Its record id.
    pub record_id: String,
    /// Its status (`differs` or `unpaired`).
    pub status: Status,
}

/// Where a view came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceInfo {
    /// `records`, `profile`, or `review`.
    pub kind: String,
    /// SHA-256 of the input file.
    pub sha256: String,
    /// For a profile trace: its run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// For a profile trace: its rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// For a review: the alignment map's SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment_map_sha256: Option<String>,
}

/// The top-level `"opguard"` value of a view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportMetadata {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// `export` (automatic candidates) or `reviewed_view`.
    pub kind: String,
    /// The two runs, left (original) first.
    pub runs: Vec<String>,
    /// Number of operation events (`traceEvents[0..operations)`).
    pub operations: u64,
    /// Active comparable pairs (= flows).
    pub pairs: u64,
    /// Operations per status.
    pub statuses: StatusCounts,
    /// Operations per validation.
    pub validation: ValidationCounts,
    /// First-observed differences, one per run and rank at most.
    pub first_differences: Vec<FirstDifference>,
    /// What presentation order is not: GPU causal order (a fixed text).
    pub presentation: String,
    /// What `ok` means: recorded-field agreement, never tensor equality (a
    /// fixed text).
    pub ok_means: String,
    /// Always `not_established`.
    pub tensor_equality: String,
    /// Always `not_evaluated`.
    pub verdict: String,
    /// How automatic candidates were formed.
    pub candidates: String,
    /// Ranks whose alignment ran out of its work budget.
    #[serde(default)]
    pub alignment_budget_exhausted_ranks: Vec<u32>,
    /// Inputs and reviews this view derives from, oldest first.
    pub sources: Vec<SourceInfo>,
}

impl ExportMetadata {
    /// The metadata of a view of `kind` (`export` or `reviewed_view`) whose
    /// tail [`write_tail`] wrote; the fixed texts are this format's.
    pub(crate) fn of_view(
        kind: &str,
        runs: &[String; 2],
        operations: u64,
        tail: &Tail,
        candidates: String,
        alignment_budget_exhausted_ranks: Vec<u32>,
        sources: Vec<SourceInfo>,
    ) -> Self {
        ExportMetadata {
            format: EXPORT_FORMAT.into(),
            kind: kind.into(),
            runs: runs.to_vec(),
            operations,
            pairs: tail.pairs,
            statuses: tail.statuses,
            validation: tail.validation,
            first_differences: tail.first_differences.clone(),
            presentation: PRESENTATION_NOTE.into(),
            ok_means: OK_MEANING.into(),
            tensor_equality: TENSOR_EQUALITY.into(),
            verdict: VERDICT.into(),
            candidates,
            alignment_budget_exhausted_ranks,
            sources,
        }
    }
}

/// Ends a view: closes `traceEvents` and writes `meta` under
/// [`METADATA_KEY`].
pub(crate) fn finish_view<W: std::io::Write>(
    w: TraceWriter<W>,
    meta: &ExportMetadata,
) -> Result<(), Error> {
    let meta = serde_json::to_string(meta)
        .map_err(|e| Error::io("encoding metadata", std::io::Error::other(e)))?;
    w.finish(&[(METADATA_KEY, &RawJson::new(meta)?)])?;
    Ok(())
}

/// Presentation data of one run/rank process.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub run: u8,
    pub rank: u32,
    pub pid: u32,
}

/// Presentation data of one operation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpView {
    pub group: u32,
    pub sequence: u64,
    pub ts_ns: i64,
    pub dur_ns: i64,
    pub status: Status,
    pub validation: Validation,
    pub peer: Option<u32>,
}

/// What [`write_tail`] produced.
pub(crate) struct Tail {
    pub pairs: u64,
    pub statuses: StatusCounts,
    pub validation: ValidationCounts,
    pub first_differences: Vec<FirstDifference>,
}

fn num(n: impl std::fmt::Display) -> ScalarKey {
    ScalarKey::Number(n.to_string())
}

fn raw(v: serde_json::Value) -> RawJson {
    RawJson::from_value(&v)
}

/// Process ids: groups in (rank, run) order, from 1.
pub(crate) fn assign_pids(groups: &mut [Group]) {
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&g| (groups[g].rank, groups[g].run));
    for (pos, g) in order.into_iter().enumerate() {
        groups[g].pid = pos as u32 + 1;
    }
}

/// Writes everything after the operation events, in the layout's order:
/// process and thread names, flows, status lanes, first-difference markers.
/// `ids(i)` is the record id of operation `i`.
pub(crate) fn write_tail<'a, W: std::io::Write>(
    w: &mut TraceWriter<W>,
    runs: &[String; 2],
    groups: &[Group],
    ops: &[OpView],
    ids: &dyn Fn(usize) -> &'a str,
) -> Result<Tail, Error> {
    let mut process_order: Vec<usize> = (0..groups.len()).collect();
    process_order.sort_by_key(|&g| groups[g].pid);
    for &g in &process_order {
        write_process_names(w, runs, &groups[g])?;
    }
    let pairs = write_flows(w, groups, ops)?;
    let lanes = write_status_lanes(w, groups, ops, ids)?;
    let first_differences =
        write_first_difference_markers(w, runs, groups, ops, ids, &process_order, &lanes.first)?;
    Ok(Tail {
        pairs,
        statuses: lanes.statuses,
        validation: lanes.validation,
        first_differences,
    })
}

/// The `M` events of one run/rank process: its name, sort index and labels,
/// and the name and sort index of each of its three threads.
fn write_process_names<W: std::io::Write>(
    w: &mut TraceWriter<W>,
    runs: &[String; 2],
    group: &Group,
) -> Result<(), Error> {
    let pid = Some(num(group.pid));
    let meta = |name: &str, tid: Option<u32>, args: serde_json::Value| OwnedEvent {
        ph: Some("M".into()),
        name: Some(name.into()),
        pid: pid.clone(),
        tid: tid.map(num),
        args: Some(raw(args)),
        ..OwnedEvent::default()
    };
    let label = format!("{} · rank {}", runs[group.run as usize], group.rank);
    w.write_event(&meta(
        "process_name",
        None,
        serde_json::json!({ "name": label }),
    ))?;
    w.write_event(&meta(
        "process_sort_index",
        None,
        serde_json::json!({ "sort_index": group.pid }),
    ))?;
    w.write_event(&meta(
        "process_labels",
        None,
        serde_json::json!({ "labels": format!("{EXPORT_FORMAT}; ok = recorded-field agreement, tensor equality not established; presentation order is not GPU causal order") }),
    ))?;
    for (tid, name) in [
        (TID_OPERATIONS, "operations"),
        (TID_STATUS, "status (ok = recorded-field agreement)"),
        (TID_MARKERS, "first observed difference"),
    ] {
        w.write_event(&meta(
            "thread_name",
            Some(tid),
            serde_json::json!({ "name": name }),
        ))?;
        w.write_event(&meta(
            "thread_sort_index",
            Some(tid),
            serde_json::json!({ "sort_index": tid }),
        ))?;
    }
    Ok(())
}

/// One flow (`s` then `f`) per active pair, from the left run's operation to
/// its peer; returns the number of pairs. Lines are formatted here (fixed
/// field order, numbers and ASCII names only) and checked by the writer.
fn write_flows<W: std::io::Write>(
    w: &mut TraceWriter<W>,
    groups: &[Group],
    ops: &[OpView],
) -> Result<u64, Error> {
    let mut pairs = 0u64;
    let mut line = String::with_capacity(256);
    for (i, op) in ops.iter().enumerate() {
        let Some(p) = op.peer else { continue };
        if groups[op.group as usize].run != 0 {
            continue;
        }
        pairs += 1;
        let peer = &ops[p as usize];
        for (ph, end) in [("s", op), ("f", peer)] {
            line.clear();
            let _ = write!(
                line,
                "{{\"ph\":\"{ph}\",\"cat\":\"{CAT_FLOW}\",\"name\":\"correspondence\",\"pid\":{},\"tid\":{TID_OPERATIONS},\"ts\":{},\"id\":{pairs},\"bp\":\"{FLOW_BINDING}\",\"args\":{{\"{ARG_FLOW_FROM}\":{i},\"{ARG_FLOW_TO}\":{p}}}}}",
                groups[end.group as usize].pid,
                nanos_to_micros_text(end.ts_ns),
            );
            w.write_raw_event(&line)?;
        }
    }
    Ok(pairs)
}

/// What [`write_status_lanes`] counted on its way through the operations.
struct Lanes {
    statuses: StatusCounts,
    validation: ValidationCounts,
    /// Per group: its first difference in recorded sequence order.
    first: Vec<Option<usize>>,
}

/// One status-lane `X` event per operation, counting statuses and
/// validations and finding each group's first difference as it goes.
fn write_status_lanes<'a, W: std::io::Write>(
    w: &mut TraceWriter<W>,
    groups: &[Group],
    ops: &[OpView],
    ids: &dyn Fn(usize) -> &'a str,
) -> Result<Lanes, Error> {
    let mut lanes = Lanes {
        statuses: StatusCounts::default(),
        validation: ValidationCounts::default(),
        first: vec![None; groups.len()],
    };
    let mut line = String::with_capacity(256);
    let mut id = Vec::with_capacity(64);
    for (i, op) in ops.iter().enumerate() {
        lanes.statuses.add(op.status);
        match op.validation {
            Validation::Unreviewed => lanes.validation.unreviewed += 1,
            Validation::AgentReviewed => lanes.validation.agent_reviewed += 1,
        }
        let v = op.validation.as_str();
        if op.status.is_difference() {
            let slot = &mut lanes.first[op.group as usize];
            if slot.is_none_or(|f| ops[f].sequence > op.sequence) {
                *slot = Some(i);
            }
        }
        id.clear();
        opguard_trace::write_json_string(&mut id, ids(i));
        let status = op.status.as_str();
        line.clear();
        let _ = write!(
            line,
            "{{\"ph\":\"X\",\"cat\":\"{CAT_STATUS}\",\"name\":\"{status}\",\"pid\":{},\"tid\":{TID_STATUS},\"ts\":{},\"dur\":{},\"args\":{{\"{ARG_OPERATION}\":{i},\"{ARG_RECORD_ID}\":{},\"status\":\"{status}\",\"validation\":\"{v}\"}}}}",
            groups[op.group as usize].pid,
            nanos_to_micros_text(op.ts_ns),
            nanos_to_micros_text(op.dur_ns),
            String::from_utf8_lossy(&id),
        );
        w.write_raw_event(&line)?;
    }
    Ok(lanes)
}

/// The first-observed difference marker of each group that has one, in
/// process order; returns what the markers say, for the metadata.
fn write_first_difference_markers<'a, W: std::io::Write>(
    w: &mut TraceWriter<W>,
    runs: &[String; 2],
    groups: &[Group],
    ops: &[OpView],
    ids: &dyn Fn(usize) -> &'a str,
    process_order: &[usize],
    first: &[Option<usize>],
) -> Result<Vec<FirstDifference>, Error> {
    let mut first_differences = Vec::new();
    for &g in process_order {
        let Some(i) = first[g] else { continue };
        let op = &ops[i];
        let group = &groups[g];
        let record_id = ids(i).to_owned();
        first_differences.push(FirstDifference {
            run: runs[group.run as usize].clone(),
            rank: group.rank,
            operation: i as u64,
            record_id: record_id.clone(),
            status: op.status,
        });
        w.write_event(&OwnedEvent {
            ph: Some("i".into()),
            cat: Some(CAT_MARKER.into()),
            name: Some(format!("first observed difference: {}", op.status.as_str())),
            pid: Some(num(group.pid)),
            tid: Some(num(TID_MARKERS)),
            ts_ns: Some(op.ts_ns),
            scope: Some("t".into()),
            args: Some(raw(serde_json::json!({
                "operation": i,
                "record_id": record_id,
                "status": op.status.as_str(),
                "run": runs[group.run as usize],
                "rank": group.rank,
            }))),
            ..OwnedEvent::default()
        })?;
    }
    Ok(first_differences)
}

// ---------------------------------------------------------------------------
// Reading a view. The validator and apply both read operation events and the
// metadata through these, so the view's field names, its order and the
// values it allows are written down once; each caller decides what a missing
// or wrong field means to it (a listed problem, or the first error).

/// The top-level key holding [`ExportMetadata`].
pub(crate) const METADATA_KEY: &str = "opguard";

/// The order rule of a view: operation events come first
/// (`traceEvents[0..operations)`), every other event after them.
#[derive(Debug, Default)]
pub(crate) struct OperationsFirst {
    past_operations: bool,
}

impl OperationsFirst {
    /// Notes the next event; false when it is an operation that comes after
    /// a non-operation event.
    pub(crate) fn admits(&mut self, is_operation: bool) -> bool {
        if !is_operation {
            self.past_operations = true;
        }
        !(is_operation && self.past_operations)
    }
}

/// What [`read_view_events`] tells its visitor about one event.
pub(crate) struct ViewEvent {
    /// An operation event (by its category).
    pub operation: bool,
    /// It keeps the order rule ([`OperationsFirst`]).
    pub in_order: bool,
}

/// Streams the view at `path` once, in file order, handing each event to
/// `visit` with whether it is an operation and keeps the order rule; the
/// visitor decides what a broken rule means (the first error, or a listed
/// problem). Reader errors name `path`; the visitor's pass through as is.
pub(crate) fn read_view_events(
    path: &std::path::Path,
    options: opguard_trace::ReaderOptions,
    mut visit: impl FnMut(&Event<'_>, ViewEvent) -> Result<(), Error>,
) -> Result<TraceSummary, Error> {
    let mut reader = opguard_trace::TraceReader::open_with(path, options)
        .map_err(|e| Error::from(e).with_path(path))?;
    let mut order = OperationsFirst::default();
    while let Some(e) = reader
        .next_event()
        .map_err(|e| Error::from(e).with_path(path))?
    {
        let operation = is_operation(&e);
        let in_order = order.admits(operation);
        visit(
            &e,
            ViewEvent {
                operation,
                in_order,
            },
        )?;
    }
    reader.finish().map_err(|e| Error::from(e).with_path(path))
}

/// Whether an event is an operation event (by its category).
pub(crate) fn is_operation(e: &Event<'_>) -> bool {
    e.cat().is_some_and(|c| c == CAT_OPERATION)
}

/// Whether an operation event has the phase every operation has (`X`).
pub(crate) fn has_operation_phase(e: &Event<'_>) -> bool {
    e.ph().is_some_and(|p| p == "X")
}

/// Whether an event sits on thread `tid` of its process.
pub(crate) fn is_on_thread(e: &Event<'_>, tid: u32) -> bool {
    e.tid().and_then(|t| t.as_i64()) == Some(i64::from(tid))
}

/// The `args` of one operation event: `op`, `correspondence` and `io`, each
/// at its first occurrence, found in one walk over `args`. Views this crate
/// writes put `correspondence` and `op` first, so `io` is walked to only
/// when asked for.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OperationArgs<'a> {
    /// `args.op`, when it is an object.
    pub op: Option<OpArgs<'a>>,
    /// `args.correspondence`, whatever its kind.
    pub correspondence: Option<Value<'a>>,
    /// `args.io`, whatever its kind (read only when asked for).
    pub io: Option<Value<'a>>,
}

impl<'a> OperationArgs<'a> {
    /// Reads the args of `e`; `with_io` also finds `args.io`.
    pub(crate) fn read(e: &Event<'a>, with_io: bool) -> Self {
        let mut found = OperationArgs::default();
        let (mut op_seen, mut corr_seen) = (false, false);
        let Some(args) = e.args() else {
            return found;
        };
        for (k, v) in args.iter() {
            if !op_seen && k.eq_str("op") {
                op_seen = true;
                found.op = v.as_object().map(OpArgs);
            } else if !corr_seen && k.eq_str("correspondence") {
                corr_seen = true;
                found.correspondence = Some(v);
            } else if with_io && found.io.is_none() && k.eq_str("io") {
                found.io = Some(v);
            }
            if op_seen && corr_seen && (!with_io || found.io.is_some()) {
                break;
            }
        }
        found
    }

    /// `args.correspondence`, when it is an object.
    pub(crate) fn correspondence(&self) -> Option<CorrespondenceArgs<'a>> {
        self.correspondence
            .and_then(|v| v.as_object())
            .map(CorrespondenceArgs)
    }

    /// Whether `args.io.<side>` is an array (of tensor summaries).
    pub(crate) fn io_side_is_array(&self, side: Side) -> bool {
        self.io
            .and_then(|v| v.as_object())
            .and_then(|o| o.get(side.as_str()))
            .and_then(|v| v.as_array())
            .is_some()
    }
}

fn text_of(v: Option<Value<'_>>) -> Option<Cow<'_, str>> {
    v.and_then(|v| v.as_str())
}

fn u64_of(v: Option<Value<'_>>) -> Option<u64> {
    v.and_then(|v| v.as_number()).and_then(|n| n.as_u64())
}

/// `args.op` of an operation event: the operation's identity.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpArgs<'a>(Args<'a>);

impl<'a> OpArgs<'a> {
    /// `record_id`, unique in the view.
    pub(crate) fn record_id(&self) -> Option<Cow<'a, str>> {
        text_of(self.0.get("record_id"))
    }
    /// `run`, one of the metadata's two runs.
    pub(crate) fn run(&self) -> Option<Cow<'a, str>> {
        text_of(self.0.get("run"))
    }
    /// `rank`.
    pub(crate) fn rank(&self) -> Option<u64> {
        u64_of(self.0.get("rank"))
    }
    /// `sequence`, the operation's position in its run and rank.
    pub(crate) fn sequence(&self) -> Option<u64> {
        u64_of(self.0.get("sequence"))
    }
    /// Whether `stack` is present.
    pub(crate) fn has_stack(&self) -> bool {
        self.0.get("stack").is_some()
    }
}

/// `args.correspondence` of an operation event (see [`Correspondence`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CorrespondenceArgs<'a>(Args<'a>);

/// `args.correspondence.peer` as found.
#[derive(Debug, Clone)]
pub(crate) enum PeerArgs<'a> {
    /// No `peer` key, or `null`.
    None,
    /// A `peer` that is not an object.
    NotAnObject,
    /// A peer object, with its two fields when present.
    Named {
        /// `peer.event`.
        event: Option<u64>,
        /// `peer.record_id`.
        record_id: Option<Cow<'a, str>>,
    },
}

impl<'a> CorrespondenceArgs<'a> {
    /// `status`, when it names a [`Status`].
    pub(crate) fn status(&self) -> Option<Status> {
        text_of(self.0.get("status")).and_then(|s| Status::parse(&s))
    }
    /// `validation`, when it names a [`Validation`].
    pub(crate) fn validation(&self) -> Option<Validation> {
        text_of(self.0.get("validation")).and_then(|s| Validation::parse(&s))
    }
    /// Whether `tensor_equality` has its only value, [`TENSOR_EQUALITY`].
    pub(crate) fn tensor_equality_is_not_established(&self) -> bool {
        text_of(self.0.get("tensor_equality")).as_deref() == Some(TENSOR_EQUALITY)
    }
    /// `peer`.
    pub(crate) fn peer(&self) -> PeerArgs<'a> {
        match self.0.get("peer") {
            None => PeerArgs::None,
            Some(v) if v.raw() == "null" => PeerArgs::None,
            Some(v) => match v.as_object() {
                None => PeerArgs::NotAnObject,
                Some(p) => PeerArgs::Named {
                    event: u64_of(p.get("event")),
                    record_id: text_of(p.get("record_id")),
                },
            },
        }
    }
}

/// The relation rule of an operation: a peer is present exactly when the
/// status is a paired one (`ok`, `differs`).
pub(crate) fn peer_agrees_with_status(status: Option<Status>, has_peer: bool) -> bool {
    status.is_some_and(|s| s.is_paired()) == has_peer
}

/// The view's [`METADATA_KEY`] value, when present.
pub(crate) fn metadata_json(summary: &TraceSummary) -> Option<serde_json::Value> {
    summary.metadata.get_json(METADATA_KEY)
}
