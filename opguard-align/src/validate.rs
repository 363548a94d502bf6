//! A structural validator for `opguard.export/v1` views.
//!
//! It streams a view and reports every broken structural rule rather than
//! stopping at the first: operations first and well formed, record ids
//! unique, relations symmetric and across runs, every flow with exactly one
//! start and one end bound to the two operations of an active pair (and
//! every active pair with one flow), every status-lane entry pointing at an
//! operation with the same status, every first-difference marker pointing
//! at the first difference of its run and rank, process names present, and
//! the metadata's counts equal to what the events say.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use opguard_trace::{Event, ReaderOptions, TraceSummary};
use serde::Serialize;

use crate::error::Error;
use crate::format::{
    has_operation_phase, is_on_thread, metadata_json, peer_agrees_with_status, read_view_events,
    ExportMetadata, OpArgs, OperationArgs, PeerArgs, Side, Status, StatusCounts, ARG_FLOW_FROM,
    ARG_FLOW_TO, ARG_OPERATION, ARG_RECORD_ID, CAT_FLOW, CAT_MARKER, CAT_STATUS, EXPORT_FORMAT,
    FLOW_BINDING, MAX_EXPORT_BYTES, TENSOR_EQUALITY, TID_MARKERS, TID_OPERATIONS, TID_STATUS,
};

/// What [`validate_export`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ValidationReport {
    /// Operation events.
    pub operations: u64,
    /// Complete flows (one start and one end).
    pub flows: u64,
    /// Status-lane entries.
    pub status_lanes: u64,
    /// First-difference markers.
    pub markers: u64,
    /// Every broken rule, in the order found (empty for a valid view).
    pub problems: Vec<String>,
}

impl ValidationReport {
    /// Whether no rule is broken.
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }
}

/// What the validator keeps of one operation event.
struct Op {
    pid: i64,
    ts: i64,
    dur: i64,
    run: String,
    rank: u64,
    sequence: u64,
    status: Option<Status>,
    peer: Option<u64>,
    /// The record id its `peer` names.
    peer_id: Option<String>,
    /// Status-lane entries pointing at it.
    lanes: u32,
}

/// One end (`s` or `f`) of a flow.
struct FlowEnd {
    event: u64,
    ph: String,
    pid: Option<i64>,
    tid: Option<i64>,
    ts: Option<i64>,
    bp: Option<String>,
    op: Option<u64>,
}

/// A first-difference marker: its event, the operation it points at, and
/// where it sits.
struct Marker {
    event: u64,
    operation: u64,
    pid: Option<i64>,
    ts: Option<i64>,
}

/// What one streaming pass over a view collects for the checks that need
/// the whole view.
#[derive(Default)]
struct ViewEvents {
    ops: Vec<Op>,
    /// Operation index of each record id.
    ids: HashMap<String, u64>,
    /// Flow ends by flow id, in id order.
    flows: BTreeMap<String, Vec<FlowEnd>>,
    markers: Vec<Marker>,
    named_pids: HashSet<i64>,
    status_lanes: u64,
    /// Marker events, also those without an operation.
    marker_events: u64,
}

const MAX_PROBLEMS: usize = 1000;

/// Broken rules in the order found, at most [`MAX_PROBLEMS`] listed.
#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    fn add(&mut self, msg: String) {
        let list = &mut self.0;
        if list.len() < MAX_PROBLEMS {
            list.push(msg);
        } else if list.len() == MAX_PROBLEMS {
            list.push("... more problems not listed".into());
        }
    }
}

fn arg_u64(e: &Event<'_>, key: &str) -> Option<u64> {
    e.arg(key)
        .and_then(|v| v.as_number())
        .and_then(|n| n.as_u64())
}

fn pid_of(e: &Event<'_>) -> Option<i64> {
    e.pid().and_then(|v| v.as_i64())
}

fn tid_of(e: &Event<'_>) -> Option<i64> {
    e.tid().and_then(|v| v.as_i64())
}

/// Validates the structure of an export or reviewed view. Fails only when
/// the file cannot be read as a trace; broken rules are listed in the
/// report.
pub fn validate_export(path: &Path) -> Result<ValidationReport, Error> {
    let mut p = Problems::default();
    let (view, summary) = read_view(path, &mut p)?;
    let operations = view.ops.len() as u64;
    let (statuses, pairs) = check_operations(&view, &mut p);
    let flows = check_flows(&view.flows, &view.ops, &mut p);
    if flows != pairs {
        p.add(format!("{pairs} active pairs but {flows} valid flows"));
    }
    check_markers(&view.markers, &view.ops, &mut p);
    check_metadata(&summary, operations, pairs, &statuses, &mut p);
    Ok(ValidationReport {
        operations,
        flows,
        status_lanes: view.status_lanes,
        markers: view.marker_events,
        problems: p.0,
    })
}

/// Streams the view once: checks what one event shows on its own and
/// collects what the whole-view checks need.
fn read_view(path: &Path, p: &mut Problems) -> Result<(ViewEvents, TraceSummary), Error> {
    let options = ReaderOptions::new()
        .max_encoded_bytes(MAX_EXPORT_BYTES)
        .max_decoded_bytes(MAX_EXPORT_BYTES);
    let mut view = ViewEvents::default();
    let summary = read_view_events(path, options, |e, at| {
        if !at.in_order {
            p.add(format!(
                "traceEvents[{}]: an operation after non-operation events",
                e.index()
            ));
        }
        if at.operation {
            read_operation(e, &mut view, p);
        } else if e.cat().is_some_and(|c| c == CAT_FLOW) {
            read_flow_end(e, &mut view.flows);
        } else if e.cat().is_some_and(|c| c == CAT_STATUS) {
            view.status_lanes += 1;
            read_status_lane(e, &mut view.ops, &view.ids, p);
        } else if e.cat().is_some_and(|c| c == CAT_MARKER) {
            view.marker_events += 1;
            read_marker(e, &mut view.markers, p);
        } else if e.ph().is_some_and(|ph| ph == "M")
            && e.name().is_some_and(|n| n == "process_name")
        {
            if let Some(pid) = pid_of(e) {
                view.named_pids.insert(pid);
            }
        }
        Ok(())
    })?;
    Ok((view, summary))
}

/// One operation event: its layout, identity, tensor summaries and
/// correspondence.
fn read_operation(e: &Event<'_>, view: &mut ViewEvents, p: &mut Problems) {
    let i = e.index();
    check_operation_layout(e, p);
    let args = OperationArgs::read(e, true);
    let identity = read_identity(i, args.op, &mut view.ids, p);
    check_tensor_summaries(i, &args, p);
    let relation = read_relation(i, &args, p);
    let placed = match (
        pid_of(e),
        e.ts_ns().ok().flatten(),
        e.dur_ns().ok().flatten(),
    ) {
        (Some(pid), Some(ts), Some(dur)) => Some((pid, ts, dur)),
        _ => {
            p.add(format!(
                "traceEvents[{i}]: operation without pid, ts or dur"
            ));
            None
        }
    };
    // An operation that cannot be placed takes part in the whole-view
    // checks with no process and no identity.
    let ((pid, ts, dur), (run, rank, sequence)) = match placed {
        Some(at) => (at, identity),
        None => ((-1, 0, 0), (String::new(), 0, 0)),
    };
    view.ops.push(Op {
        pid,
        ts,
        dur,
        run,
        rank,
        sequence,
        status: relation.status,
        peer: relation.peer,
        peer_id: relation.peer_id,
        lanes: 0,
    });
}

/// Phase `X` on the operations thread.
fn check_operation_layout(e: &Event<'_>, p: &mut Problems) {
    let i = e.index();
    if !has_operation_phase(e) {
        let ph = e.ph().map(|c| c.as_cow().into_owned());
        p.add(format!("traceEvents[{i}]: operation with ph {ph:?}"));
    }
    if !is_on_thread(e, TID_OPERATIONS) {
        p.add(format!(
            "traceEvents[{i}]: operation on tid {:?}",
            tid_of(e)
        ));
    }
}

/// `args.op`: every identity field, a stack, a record id not seen before.
/// Returns run, rank and sequence (defaults for missing ones).
fn read_identity(
    i: u64,
    op: Option<OpArgs<'_>>,
    ids: &mut HashMap<String, u64>,
    p: &mut Problems,
) -> (String, u64, u64) {
    let record_id = op.and_then(|o| o.record_id()).map(|s| s.into_owned());
    let run = op.and_then(|o| o.run()).map(|s| s.into_owned());
    let rank = op.and_then(|o| o.rank());
    let sequence = op.and_then(|o| o.sequence());
    if record_id.is_none() || run.is_none() || rank.is_none() || sequence.is_none() {
        p.add(format!(
            "traceEvents[{i}]: args.op lacks record_id, run, rank or sequence"
        ));
    }
    if !op.is_some_and(|o| o.has_stack()) {
        p.add(format!("traceEvents[{i}]: args.op.stack is missing"));
    }
    if let Some(id) = &record_id {
        if ids.insert(id.clone(), i).is_some() {
            p.add(format!("traceEvents[{i}]: record_id {id:?} is not unique"));
        }
    }
    (
        run.unwrap_or_default(),
        rank.unwrap_or_default(),
        sequence.unwrap_or_default(),
    )
}

/// `args.io`: both arrays of tensor summaries.
fn check_tensor_summaries(i: u64, args: &OperationArgs<'_>, p: &mut Problems) {
    for side in [Side::Inputs, Side::Outputs] {
        if !args.io_side_is_array(side) {
            p.add(format!(
                "traceEvents[{i}]: args.io.{} is not an array",
                side.as_str()
            ));
        }
    }
}

/// What an operation's correspondence says about its relation.
struct Relation {
    status: Option<Status>,
    peer: Option<u64>,
    peer_id: Option<String>,
}

/// `args.correspondence`: a status, a validation, tensor equality not
/// established, and a peer exactly for a paired status.
fn read_relation(i: u64, args: &OperationArgs<'_>, p: &mut Problems) -> Relation {
    let corr = args.correspondence();
    let status = corr.and_then(|c| c.status());
    if status.is_none() {
        p.add(format!(
            "traceEvents[{i}]: correspondence.status is not a status"
        ));
    }
    if corr.and_then(|c| c.validation()).is_none() {
        p.add(format!(
            "traceEvents[{i}]: correspondence.validation is not unreviewed|agent_reviewed"
        ));
    }
    if !corr.is_some_and(|c| c.tensor_equality_is_not_established()) {
        p.add(format!(
            "traceEvents[{i}]: correspondence.tensor_equality is not {TENSOR_EQUALITY}"
        ));
    }
    let (peer, peer_id) = match corr.map(|c| c.peer()) {
        Some(PeerArgs::Named { event, record_id }) => (event, record_id.map(|s| s.into_owned())),
        _ => (None, None),
    };
    if !peer_agrees_with_status(status, peer.is_some()) {
        p.add(format!(
            "traceEvents[{i}]: a peer must be present exactly for ok/differs"
        ));
    }
    Relation {
        status,
        peer,
        peer_id,
    }
}

/// One end of a flow, kept until every end of its flow is known.
fn read_flow_end(e: &Event<'_>, flows: &mut BTreeMap<String, Vec<FlowEnd>>) {
    let ph = e.ph().map(|c| c.as_cow().into_owned());
    let id = e.id().map(|v| v.to_key().to_string()).unwrap_or_default();
    let op = arg_u64(
        e,
        if ph.as_deref() == Some("s") {
            ARG_FLOW_FROM
        } else {
            ARG_FLOW_TO
        },
    );
    flows.entry(id).or_default().push(FlowEnd {
        event: e.index(),
        ph: ph.unwrap_or_default(),
        pid: pid_of(e),
        tid: tid_of(e),
        ts: e.ts_ns().ok().flatten(),
        bp: e.bp().map(|b| b.as_cow().into_owned()),
        op,
    });
}

/// One status-lane entry: beside its operation, with its status and id.
fn read_status_lane(e: &Event<'_>, ops: &mut [Op], ids: &HashMap<String, u64>, p: &mut Problems) {
    let i = e.index();
    let Some(k) = arg_u64(e, ARG_OPERATION) else {
        p.add(format!(
            "traceEvents[{i}]: status lane entry without args.operation"
        ));
        return;
    };
    let Some(op) = ops.get_mut(k as usize) else {
        p.add(format!(
            "traceEvents[{i}]: status lane entry points at {k}, not an operation"
        ));
        return;
    };
    op.lanes += 1;
    let name = e.name().map(|n| n.as_cow().into_owned());
    if Some(op.pid) != pid_of(e)
        || !is_on_thread(e, TID_STATUS)
        || Some(op.ts) != e.ts_ns().ok().flatten()
    {
        p.add(format!(
            "traceEvents[{i}]: status lane entry is not beside operation {k}"
        ));
    }
    if name.as_deref() != op.status.map(|s| s.as_str()) {
        p.add(format!(
            "traceEvents[{i}]: status lane says {name:?} but operation {k} is {:?}",
            op.status.map(|s| s.as_str())
        ));
    }
    let rid = e
        .arg(ARG_RECORD_ID)
        .and_then(|v| v.as_str())
        .map(|s| s.into_owned());
    if rid.as_ref().and_then(|r| ids.get(r)) != Some(&k) {
        p.add(format!(
            "traceEvents[{i}]: status lane record_id does not match operation {k}"
        ));
    }
}

/// One first-difference marker, kept for [`check_markers`].
fn read_marker(e: &Event<'_>, markers: &mut Vec<Marker>, p: &mut Problems) {
    let i = e.index();
    match arg_u64(e, ARG_OPERATION) {
        Some(operation) => markers.push(Marker {
            event: i,
            operation,
            pid: pid_of(e),
            ts: e.ts_ns().ok().flatten(),
        }),
        None => p.add(format!("traceEvents[{i}]: marker without args.operation")),
    }
    if !is_on_thread(e, TID_MARKERS) {
        p.add(format!("traceEvents[{i}]: marker not on the marker thread"));
    }
}

/// Every operation: one status lane, a named process, a relation that is
/// symmetric across runs. Returns the status counts and the active pairs.
fn check_operations(view: &ViewEvents, p: &mut Problems) -> (StatusCounts, u64) {
    let ops = &view.ops;
    let mut statuses = StatusCounts::default();
    let mut pairs = 0u64;
    for (i, op) in ops.iter().enumerate() {
        if let Some(s) = op.status {
            statuses.add(s);
        }
        if op.lanes != 1 {
            p.add(format!(
                "operation {i} has {} status lane entries, expected 1",
                op.lanes
            ));
        }
        if !view.named_pids.contains(&op.pid) {
            p.add(format!(
                "operation {i}: process {} has no process_name",
                op.pid
            ));
        }
        if let Some(q) = op.peer {
            let ok = ops.get(q as usize).is_some_and(|o| {
                o.peer == Some(i as u64)
                    && o.run != op.run
                    && op.peer_id.as_ref().and_then(|r| view.ids.get(r)) == Some(&q)
            });
            if !ok {
                p.add(format!(
                    "operation {i}: relation to {q} is not symmetric across runs"
                ));
            }
            if (i as u64) < q {
                pairs += 1;
            }
        }
    }
    (statuses, pairs)
}

/// Flows: both ends, bound to the two operations of one active pair, one
/// flow per pair. Returns the number of valid flows.
fn check_flows(flows: &BTreeMap<String, Vec<FlowEnd>>, ops: &[Op], p: &mut Problems) -> u64 {
    let mut valid = 0;
    let mut flowed: HashSet<(u64, u64)> = HashSet::new();
    for (id, ends) in flows {
        let starts: Vec<&FlowEnd> = ends.iter().filter(|f| f.ph == "s").collect();
        let finishes: Vec<&FlowEnd> = ends.iter().filter(|f| f.ph == "f").collect();
        if starts.len() != 1 || finishes.len() != 1 || ends.len() != 2 {
            p.add(format!(
                "flow {id}: {} start(s) and {} end(s), expected one each",
                starts.len(),
                finishes.len()
            ));
            continue;
        }
        let bound = [starts[0], finishes[0]].map(|end| bound_operation(end, ops, p));
        if let [Some(a), Some(b)] = bound {
            if ops[a as usize].peer != Some(b) {
                p.add(format!(
                    "flow {id}: operations {a} and {b} are not an active pair"
                ));
            } else if !flowed.insert((a.min(b), a.max(b))) {
                p.add(format!("flow {id}: pair {a}–{b} has more than one flow"));
            } else {
                valid += 1;
            }
        }
    }
    valid
}

/// The operation a flow end is bound to: named by its args, on the
/// operation's process and thread, inside its slice, binding to the
/// enclosing slice (`bp: "e"`).
fn bound_operation(end: &FlowEnd, ops: &[Op], p: &mut Problems) -> Option<u64> {
    let Some(k) = end.op else {
        p.add(format!(
            "traceEvents[{}]: flow end without its operation",
            end.event
        ));
        return None;
    };
    let Some(op) = ops.get(k as usize) else {
        p.add(format!(
            "traceEvents[{}]: flow end points at {k}, not an operation",
            end.event
        ));
        return None;
    };
    let inside = end.ts.is_some_and(|t| op.ts <= t && t <= op.ts + op.dur);
    if end.pid != Some(op.pid)
        || end.tid != Some(i64::from(TID_OPERATIONS))
        || !inside
        || end.bp.as_deref() != Some(FLOW_BINDING)
    {
        p.add(format!(
            "traceEvents[{}]: flow end is not bound to operation {k}",
            end.event
        ));
        return None;
    }
    Some(k)
}

/// Markers: the first difference of each run and rank, and only that.
fn check_markers(markers: &[Marker], ops: &[Op], p: &mut Problems) {
    let first = first_differences(ops);
    let mut marked: HashSet<i64> = HashSet::new();
    for m in markers {
        let (event, k) = (m.event, m.operation);
        let Some(op) = ops.get(k as usize) else {
            p.add(format!(
                "traceEvents[{event}]: marker points at {k}, not an operation"
            ));
            continue;
        };
        if Some(op.pid) != m.pid || Some(op.ts) != m.ts {
            p.add(format!(
                "traceEvents[{event}]: marker is not beside operation {k}"
            ));
        }
        if first.get(&op.pid) != Some(&(k as usize)) {
            p.add(format!(
                "traceEvents[{event}]: operation {k} is not the first difference of {} rank {}",
                op.run, op.rank
            ));
        }
        if !marked.insert(op.pid) {
            p.add(format!(
                "traceEvents[{event}]: a second marker for process {}",
                op.pid
            ));
        }
    }
    for (pid, i) in &first {
        if !marked.contains(pid) {
            p.add(format!(
                "operation {i} is the first difference of process {pid} but has no marker"
            ));
        }
    }
}

/// The operation of lowest sequence among the differences of each process.
fn first_differences(ops: &[Op]) -> HashMap<i64, usize> {
    let mut first: HashMap<i64, usize> = HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        if op.status.is_some_and(|s| s.is_difference()) {
            let e = first.entry(op.pid).or_insert(i);
            if ops[*e].sequence > op.sequence {
                *e = i;
            }
        }
    }
    first
}

/// The metadata: present, of this format, and counting what the events
/// say.
fn check_metadata(
    summary: &TraceSummary,
    operations: u64,
    pairs: u64,
    statuses: &StatusCounts,
    p: &mut Problems,
) {
    let Some(v) = metadata_json(summary) else {
        p.add("no top-level \"opguard\" metadata".into());
        return;
    };
    let m = match serde_json::from_value::<ExportMetadata>(v) {
        Err(e) => return p.add(format!("opguard metadata: {e}")),
        Ok(m) => m,
    };
    if m.format != EXPORT_FORMAT {
        p.add(format!("opguard.format is {:?}", m.format));
    }
    if m.operations != operations {
        p.add(format!(
            "opguard.operations is {} but there are {operations}",
            m.operations
        ));
    }
    if m.pairs != pairs {
        p.add(format!(
            "opguard.pairs is {} but there are {pairs}",
            m.pairs
        ));
    }
    if m.statuses != *statuses {
        p.add("opguard.statuses does not match the operations".into());
    }
}
