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

use opguard_trace::{Event, ReaderOptions, TraceReader};
use serde::Serialize;

use crate::error::Error;
use crate::format::{
    ExportMetadata, Status, StatusCounts, CAT_FLOW, CAT_MARKER, CAT_OPERATION, CAT_STATUS,
    EXPORT_FORMAT, MAX_EXPORT_BYTES, TENSOR_EQUALITY, TID_MARKERS, TID_OPERATIONS, TID_STATUS,
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

struct Op {
    pid: i64,
    ts: i64,
    dur: i64,
    run: String,
    rank: u64,
    sequence: u64,
    status: Option<Status>,
    peer: Option<u64>,
    lanes: u32,
}

struct FlowEnd {
    event: u64,
    ph: String,
    pid: Option<i64>,
    tid: Option<i64>,
    ts: Option<i64>,
    bp: Option<String>,
    op: Option<u64>,
}

const MAX_PROBLEMS: usize = 1000;

fn problem(list: &mut Vec<String>, msg: String) {
    if list.len() < MAX_PROBLEMS {
        list.push(msg);
    } else if list.len() == MAX_PROBLEMS {
        list.push("... more problems not listed".into());
    }
}

fn arg_u64(e: &Event<'_>, key: &str) -> Option<u64> {
    e.arg(key)
        .and_then(|v| v.as_number())
        .and_then(|n| n.as_u64())
}

/// Validates the structure of an export or reviewed view. Fails only when
/// the file cannot be read as a trace; broken rules are listed in the
/// report.
pub fn validate_export(path: &Path) -> Result<ValidationReport, Error> {
    let options = ReaderOptions::new()
        .max_encoded_bytes(MAX_EXPORT_BYTES)
        .max_decoded_bytes(MAX_EXPORT_BYTES);
    let mut reader =
        TraceReader::open_with(path, options).map_err(|e| Error::from(e).with_path(path))?;
    let mut report = ValidationReport::default();
    let mut p = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    let mut ids: HashMap<String, u64> = HashMap::new();
    let mut peer_ids: Vec<Option<String>> = Vec::new();
    let mut ops_done = false;
    let mut flows: BTreeMap<String, Vec<FlowEnd>> = BTreeMap::new();
    let mut markers: Vec<(u64, u64, Option<i64>, Option<i64>)> = Vec::new();
    let mut named_pids: HashSet<i64> = HashSet::new();
    while let Some(e) = reader
        .next_event()
        .map_err(|e| Error::from(e).with_path(path))?
    {
        let i = e.index();
        let cat = e.cat().map(|c| c.as_cow().into_owned());
        let ph = e.ph().map(|c| c.as_cow().into_owned());
        let pid = e.pid().and_then(|v| v.as_i64());
        let tid = e.tid().and_then(|v| v.as_i64());
        let ts = e.ts_ns().ok().flatten();
        match cat.as_deref() {
            Some(CAT_OPERATION) => {
                if ops_done {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: an operation after non-operation events"),
                    );
                }
                if ph.as_deref() != Some("X") {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: operation with ph {ph:?}"),
                    );
                }
                if tid != Some(TID_OPERATIONS as i64) {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: operation on tid {tid:?}"),
                    );
                }
                let op = e.arg("op").and_then(|v| v.as_object());
                let get_s = |k: &str| {
                    op.and_then(|o| o.get(k))
                        .and_then(|v| v.as_str())
                        .map(|s| s.into_owned())
                };
                let get_n = |k: &str| {
                    op.and_then(|o| o.get(k))
                        .and_then(|v| v.as_number())
                        .and_then(|n| n.as_u64())
                };
                let record_id = get_s("record_id");
                let run = get_s("run");
                let rank = get_n("rank");
                let sequence = get_n("sequence");
                if record_id.is_none() || run.is_none() || rank.is_none() || sequence.is_none() {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: args.op lacks record_id, run, rank or sequence"),
                    );
                }
                if op.and_then(|o| o.get("stack")).is_none() {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: args.op.stack is missing"),
                    );
                }
                if let Some(id) = &record_id {
                    if ids.insert(id.clone(), i).is_some() {
                        problem(
                            &mut p,
                            format!("traceEvents[{i}]: record_id {id:?} is not unique"),
                        );
                    }
                }
                let io = e.arg("io").and_then(|v| v.as_object());
                for side in ["inputs", "outputs"] {
                    if io
                        .and_then(|o| o.get(side))
                        .and_then(|v| v.as_array())
                        .is_none()
                    {
                        problem(
                            &mut p,
                            format!("traceEvents[{i}]: args.io.{side} is not an array"),
                        );
                    }
                }
                let corr = e.arg("correspondence").and_then(|v| v.as_object());
                let cs = |k: &str| {
                    corr.and_then(|o| o.get(k))
                        .and_then(|v| v.as_str())
                        .map(|s| s.into_owned())
                };
                let status = cs("status").and_then(|s| Status::parse(&s));
                if status.is_none() {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: correspondence.status is not a status"),
                    );
                }
                if !matches!(
                    cs("validation").as_deref(),
                    Some("unreviewed" | "agent_reviewed")
                ) {
                    problem(&mut p, format!("traceEvents[{i}]: correspondence.validation is not unreviewed|agent_reviewed"));
                }
                if cs("tensor_equality").as_deref() != Some(TENSOR_EQUALITY) {
                    problem(&mut p, format!("traceEvents[{i}]: correspondence.tensor_equality is not {TENSOR_EQUALITY}"));
                }
                let peer_obj = corr.and_then(|o| o.get("peer")).and_then(|v| v.as_object());
                let peer = peer_obj
                    .and_then(|o| o.get("event"))
                    .and_then(|v| v.as_number())
                    .and_then(|n| n.as_u64());
                let peer_id = peer_obj
                    .and_then(|o| o.get("record_id"))
                    .and_then(|v| v.as_str())
                    .map(|s| s.into_owned());
                if status.is_some_and(|s| s.is_paired()) != peer.is_some() {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: a peer must be present exactly for ok/differs"),
                    );
                }
                let (Some(pid), Some(ts), Some(dur)) = (pid, ts, e.dur_ns().ok().flatten()) else {
                    problem(
                        &mut p,
                        format!("traceEvents[{i}]: operation without pid, ts or dur"),
                    );
                    ops.push(Op {
                        pid: -1,
                        ts: 0,
                        dur: 0,
                        run: String::new(),
                        rank: 0,
                        sequence: 0,
                        status,
                        peer,
                        lanes: 0,
                    });
                    peer_ids.push(peer_id);
                    continue;
                };
                ops.push(Op {
                    pid,
                    ts,
                    dur,
                    run: run.unwrap_or_default(),
                    rank: rank.unwrap_or_default(),
                    sequence: sequence.unwrap_or_default(),
                    status,
                    peer,
                    lanes: 0,
                });
                peer_ids.push(peer_id);
            }
            other => {
                ops_done = true;
                match other {
                    Some(CAT_FLOW) => {
                        let id = e.id().map(|v| v.to_key().to_string()).unwrap_or_default();
                        let op = arg_u64(
                            &e,
                            if ph.as_deref() == Some("s") {
                                "from"
                            } else {
                                "to"
                            },
                        );
                        flows.entry(id).or_default().push(FlowEnd {
                            event: i,
                            ph: ph.clone().unwrap_or_default(),
                            pid,
                            tid,
                            ts,
                            bp: e.bp().map(|b| b.as_cow().into_owned()),
                            op,
                        });
                    }
                    Some(CAT_STATUS) => {
                        report.status_lanes += 1;
                        let Some(k) = arg_u64(&e, "operation") else {
                            problem(
                                &mut p,
                                format!(
                                    "traceEvents[{i}]: status lane entry without args.operation"
                                ),
                            );
                            continue;
                        };
                        let Some(op) = ops.get_mut(k as usize) else {
                            problem(&mut p, format!("traceEvents[{i}]: status lane entry points at {k}, not an operation"));
                            continue;
                        };
                        op.lanes += 1;
                        let name = e.name().map(|n| n.as_cow().into_owned());
                        if Some(op.pid) != pid
                            || tid != Some(TID_STATUS as i64)
                            || Some(op.ts) != ts
                        {
                            problem(&mut p, format!("traceEvents[{i}]: status lane entry is not beside operation {k}"));
                        }
                        if name.as_deref() != op.status.map(|s| s.as_str()) {
                            problem(&mut p, format!("traceEvents[{i}]: status lane says {name:?} but operation {k} is {:?}", op.status.map(|s| s.as_str())));
                        }
                        let rid = e
                            .arg("record_id")
                            .and_then(|v| v.as_str())
                            .map(|s| s.into_owned());
                        if rid.as_ref().and_then(|r| ids.get(r)) != Some(&k) {
                            problem(&mut p, format!("traceEvents[{i}]: status lane record_id does not match operation {k}"));
                        }
                    }
                    Some(CAT_MARKER) => {
                        report.markers += 1;
                        match arg_u64(&e, "operation") {
                            Some(k) => markers.push((i, k, pid, ts)),
                            None => problem(
                                &mut p,
                                format!("traceEvents[{i}]: marker without args.operation"),
                            ),
                        }
                        if tid != Some(TID_MARKERS as i64) {
                            problem(
                                &mut p,
                                format!("traceEvents[{i}]: marker not on the marker thread"),
                            );
                        }
                    }
                    _ => {
                        if ph.as_deref() == Some("M")
                            && e.name().is_some_and(|n| n == "process_name")
                        {
                            if let Some(pid) = pid {
                                named_pids.insert(pid);
                            }
                        }
                    }
                }
            }
        }
    }
    let summary = reader
        .finish()
        .map_err(|e| Error::from(e).with_path(path))?;
    report.operations = ops.len() as u64;
    // Relations: symmetric, across runs, named consistently.
    let mut statuses = StatusCounts::default();
    let mut pairs = 0u64;
    for (i, op) in ops.iter().enumerate() {
        if let Some(s) = op.status {
            statuses.add(s);
        }
        if op.lanes != 1 {
            problem(
                &mut p,
                format!(
                    "operation {i} has {} status lane entries, expected 1",
                    op.lanes
                ),
            );
        }
        if !named_pids.contains(&op.pid) {
            problem(
                &mut p,
                format!("operation {i}: process {} has no process_name", op.pid),
            );
        }
        if let Some(q) = op.peer {
            let ok = ops.get(q as usize).is_some_and(|o| {
                o.peer == Some(i as u64)
                    && o.run != op.run
                    && peer_ids[i].as_ref().and_then(|r| ids.get(r)) == Some(&q)
            });
            if !ok {
                problem(
                    &mut p,
                    format!("operation {i}: relation to {q} is not symmetric across runs"),
                );
            }
            if (i as u64) < q {
                pairs += 1;
            }
        }
    }
    // Flows: both ends, bound to the two operations of one active pair.
    let mut flowed: HashSet<(u64, u64)> = HashSet::new();
    for (id, ends) in &flows {
        let starts: Vec<&FlowEnd> = ends.iter().filter(|f| f.ph == "s").collect();
        let finishes: Vec<&FlowEnd> = ends.iter().filter(|f| f.ph == "f").collect();
        if starts.len() != 1 || finishes.len() != 1 || ends.len() != 2 {
            problem(
                &mut p,
                format!(
                    "flow {id}: {} start(s) and {} end(s), expected one each",
                    starts.len(),
                    finishes.len()
                ),
            );
            continue;
        }
        let mut bound = [None; 2];
        for (slot, end) in [starts[0], finishes[0]].into_iter().enumerate() {
            let Some(k) = end.op else {
                problem(
                    &mut p,
                    format!("traceEvents[{}]: flow end without its operation", end.event),
                );
                continue;
            };
            let Some(op) = ops.get(k as usize) else {
                problem(
                    &mut p,
                    format!(
                        "traceEvents[{}]: flow end points at {k}, not an operation",
                        end.event
                    ),
                );
                continue;
            };
            let inside = end.ts.is_some_and(|t| op.ts <= t && t <= op.ts + op.dur);
            if end.pid != Some(op.pid)
                || end.tid != Some(TID_OPERATIONS as i64)
                || !inside
                || end.bp.as_deref() != Some("e")
            {
                problem(
                    &mut p,
                    format!(
                        "traceEvents[{}]: flow end is not bound to operation {k}",
                        end.event
                    ),
                );
                continue;
            }
            bound[slot] = Some(k);
        }
        if let [Some(a), Some(b)] = bound {
            if ops[a as usize].peer != Some(b) {
                problem(
                    &mut p,
                    format!("flow {id}: operations {a} and {b} are not an active pair"),
                );
            } else if !flowed.insert((a.min(b), a.max(b))) {
                problem(
                    &mut p,
                    format!("flow {id}: pair {a}–{b} has more than one flow"),
                );
            } else {
                report.flows += 1;
            }
        }
    }
    if report.flows != pairs {
        problem(
            &mut p,
            format!("{pairs} active pairs but {} valid flows", report.flows),
        );
    }
    // Markers: the first difference of each run and rank, and only that.
    let mut first: HashMap<i64, usize> = HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        if op.status.is_some_and(|s| s.is_difference()) {
            let e = first.entry(op.pid).or_insert(i);
            if ops[*e].sequence > op.sequence {
                *e = i;
            }
        }
    }
    let mut marked: HashSet<i64> = HashSet::new();
    for (event, k, pid, ts) in &markers {
        match ops.get(*k as usize) {
            None => problem(
                &mut p,
                format!("traceEvents[{event}]: marker points at {k}, not an operation"),
            ),
            Some(op) => {
                if Some(op.pid) != *pid || Some(op.ts) != *ts {
                    problem(
                        &mut p,
                        format!("traceEvents[{event}]: marker is not beside operation {k}"),
                    );
                }
                if first.get(&op.pid) != Some(&(*k as usize)) {
                    problem(&mut p, format!("traceEvents[{event}]: operation {k} is not the first difference of {} rank {}", op.run, op.rank));
                }
                if !marked.insert(op.pid) {
                    problem(
                        &mut p,
                        format!(
                            "traceEvents[{event}]: a second marker for process {}",
                            op.pid
                        ),
                    );
                }
            }
        }
    }
    for (pid, i) in &first {
        if !marked.contains(pid) {
            problem(
                &mut p,
                format!("operation {i} is the first difference of process {pid} but has no marker"),
            );
        }
    }
    // Metadata.
    match summary.metadata.get_json("opguard") {
        None => problem(&mut p, "no top-level \"opguard\" metadata".into()),
        Some(v) => match serde_json::from_value::<ExportMetadata>(v) {
            Err(e) => problem(&mut p, format!("opguard metadata: {e}")),
            Ok(m) => {
                if m.format != EXPORT_FORMAT {
                    problem(&mut p, format!("opguard.format is {:?}", m.format));
                }
                if m.operations != report.operations {
                    problem(
                        &mut p,
                        format!(
                            "opguard.operations is {} but there are {}",
                            m.operations, report.operations
                        ),
                    );
                }
                if m.pairs != pairs {
                    problem(
                        &mut p,
                        format!("opguard.pairs is {} but there are {pairs}", m.pairs),
                    );
                }
                if m.statuses != statuses {
                    problem(
                        &mut p,
                        "opguard.statuses does not match the operations".into(),
                    );
                }
            }
        },
    }
    report.problems = p;
    Ok(report)
}
