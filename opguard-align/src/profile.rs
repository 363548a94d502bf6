//! Input stage: operation records from a PyTorch profiler trace.
//!
//! A trace recorded with `record_shapes=True` (and optionally
//! `with_stack=True`) is enough to align two real runs without other
//! instrumentation:
//!
//! - every `cpu_op` `X` event is one operation; per trace they are ordered
//!   by start time (then longer first, then file order) and numbered from 0;
//! - `args["Input Dims"]` / `args["Input type"]` (and `"Input Strides"`
//!   when present) give one flattened input summary per tensor argument:
//!   entries whose type is empty, `Scalar`, `ScalarList`, `GenericList` or
//!   `None` are not tensors; a `TensorList` becomes one summary per element
//!   when its dims are a list of shapes and is skipped otherwise. The
//!   profiler records no outputs, so `outputs` is empty;
//! - the stack is the `python_function` events enclosing the operation on
//!   its thread (innermost first), or the legacy `args["Call stack"]`
//!   (`;`-separated, innermost first); the callsite is the innermost frame
//!   with a source file (`path(line): function`);
//! - the rank is `distributedInfo.rank` (0 when absent) unless overridden,
//!   and the run label defaults to the file name without `.gz`, `.json`,
//!   `.trace` and `.pt` suffixes;
//! - `args["Sequence number"]` and `args["External id"]` are kept as
//!   provenance in `origin`, with the source event reference.

use std::collections::HashMap;
use std::path::PathBuf;

use opguard_trace::model::{Provider, ProviderDetector};
use opguard_trace::{EventRef, ReaderOptions, Scalar, ScalarKey, TraceReader, Value};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::record::{Callsite, Frame, Io, Record, TensorSummary};

/// One profiler trace to derive records from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileInput {
    /// The trace file (plain or gzip JSON).
    pub path: PathBuf,
    /// Run label; defaults to the file name without trace suffixes.
    #[serde(default)]
    pub run: Option<String>,
    /// Rank; defaults to `distributedInfo.rank`, else 0.
    #[serde(default)]
    pub rank: Option<u32>,
}

impl ProfileInput {
    /// A trace with default run label and rank.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        ProfileInput {
            path: path.into(),
            run: None,
            rank: None,
        }
    }

    /// The run label this input gets.
    pub fn run_label(&self) -> String {
        if let Some(r) = &self.run {
            return r.clone();
        }
        let mut name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for suffix in [".gz", ".json", ".trace", ".pt"] {
            if let Some(stem) = name.strip_suffix(suffix) {
                name = stem.to_owned();
            }
        }
        name
    }
}

/// Records derived from one trace.
#[derive(Debug, Clone)]
pub struct ProfileRecords {
    /// The run label.
    pub run: String,
    /// The rank.
    pub rank: u32,
    /// SHA-256 of the trace file.
    pub sha256: opguard_trace::Sha256Digest,
    /// One record per `cpu_op`, in sequence order.
    pub records: Vec<Record>,
    /// Tensor-typed inputs that could not be summarised (e.g. a
    /// `TensorList` without per-element dims).
    pub unsummarized_inputs: u64,
    /// Operations whose event carries `Input Dims` (0 when the trace was
    /// recorded without `record_shapes=True`).
    pub operations_with_shapes: u64,
    /// The trace's detected provider.
    pub provider: Provider,
}

impl ProfileRecords {
    /// Whether an export can pair these records: a trace that yields no
    /// operation, or whose operations carry no shapes, would silently pair
    /// nothing. The error names the file and the reason.
    pub fn check_exportable(&self, path: &std::path::Path) -> Result<(), Error> {
        check_exportable(
            self.provider,
            self.records.len() as u64,
            self.operations_with_shapes,
            path,
        )
    }
}

fn check_exportable(
    provider: Provider,
    operations: u64,
    operations_with_shapes: u64,
    path: &std::path::Path,
) -> Result<(), Error> {
    if operations == 0 {
        let reason = if provider.is_kineto() {
            format!(
                "a PyTorch profiler trace ({}) without cpu_op events: it was recorded \
                 without CPU activity (activities=[ProfilerActivity.CPU])",
                provider.as_str()
            )
        } else {
            format!(
                "not a PyTorch profiler trace (provider {}): it has no cpu_op events",
                provider.as_str()
            )
        };
        return Err(Error::new(ErrorKind::NoOperations { reason }).with_path(path));
    }
    if operations_with_shapes == 0 {
        return Err(Error::new(ErrorKind::RecordedWithoutShapes { operations }).with_path(path));
    }
    Ok(())
}

struct PyFrame {
    ts: i64,
    end: i64,
    name: String,
}

/// One `cpu_op` between reading the trace and emitting its record, kept
/// small because a trace's every operation is held at once (they are
/// emitted in start order, which the file need not follow): the operator
/// name and thread are interned, the input summaries kept as their JSON.
struct RawOp {
    index: u64,
    ts: i64,
    dur: i64,
    thread: u32,
    name: u32,
    io: Box<[u8]>,
    legacy_stack: Option<Box<str>>,
    external_id: Option<serde_json::Value>,
    sequence_number: Option<serde_json::Value>,
}

type ThreadKey = (Option<ScalarKey>, Option<ScalarKey>);

/// Interns strings (operator names, threads) to dense ids.
struct Interner<K> {
    ids: HashMap<K, u32>,
    values: Vec<K>,
}

impl<K: std::hash::Hash + Eq + Clone> Interner<K> {
    fn new() -> Self {
        Interner {
            ids: HashMap::new(),
            values: Vec::new(),
        }
    }

    fn id<Q>(&mut self, key: &Q) -> u32
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(key.to_owned());
        self.ids.insert(key.to_owned(), id);
        id
    }
}

/// Parses a python frame name: `path(line): function`, else the text.
pub(crate) fn parse_frame(text: &str) -> Frame {
    if let Some(close) = text.find("): ") {
        if let Some(open) = text[..close].rfind('(') {
            let line = &text[open + 1..close];
            if open > 0 && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(line) = line.parse() {
                    return Frame {
                        file: Some(text[..open].to_owned()),
                        function: text[close + 3..].to_owned(),
                        line: Some(line),
                    };
                }
            }
        }
    }
    Frame {
        file: None,
        function: text.to_owned(),
        line: None,
    }
}

fn scalar_json(v: Scalar<'_>) -> serde_json::Value {
    match v {
        // Numbers stay exact: integers beyond u64 become their text.
        Scalar::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into(),
            (None, Some(i)) => i.into(),
            _ => serde_json::Value::String(n.as_str().to_owned()),
        },
        Scalar::String(s) => serde_json::Value::String(s.as_cow().into_owned()),
    }
}

fn int_list(v: Value<'_>) -> Option<Vec<i64>> {
    v.as_array()?
        .map(|d| d.as_number().and_then(|n| n.as_i64()))
        .collect()
}

const NOT_TENSORS: [&str; 6] = ["", "Scalar", "ScalarList", "GenericList", "None", "String"];

/// Flattened input summaries of one `cpu_op`; returns the number of
/// tensor-typed inputs that could not be summarised.
fn inputs(e: &opguard_trace::Event<'_>, out: &mut Vec<TensorSummary>) -> u64 {
    let (Some(dims), Some(types)) = (e.input_dims(), e.input_type()) else {
        return 0;
    };
    let (Some(dims), Some(types)) = (dims.as_array(), types.as_array()) else {
        return 0;
    };
    let dims: Vec<Value<'_>> = dims.collect();
    let strides: Vec<Value<'_>> = e
        .arg("Input Strides")
        .and_then(|s| s.as_array())
        .map(|a| a.collect())
        .unwrap_or_default();
    let mut skipped = 0;
    for (i, t) in types.enumerate() {
        let Some(dtype) = t.as_str() else { continue };
        if NOT_TENSORS.contains(&dtype.as_ref()) {
            continue;
        }
        let Some(d) = dims.get(i) else {
            skipped += 1;
            continue;
        };
        let stride = strides
            .get(i)
            .and_then(|s| int_list(*s))
            .filter(|s| !s.is_empty());
        if dtype == "TensorList" {
            let items: Option<Vec<Vec<i64>>> = d
                .as_array()
                .and_then(|a| a.map(|x| int_list(x)).collect::<Option<Vec<_>>>())
                .filter(|v| !v.is_empty());
            match items {
                Some(items) => {
                    for (j, shape) in items.into_iter().enumerate() {
                        out.push(TensorSummary {
                            shape,
                            dtype: "TensorList".into(),
                            arg: Some(i as u32),
                            item: Some(j as u32),
                            ..TensorSummary::default()
                        });
                    }
                }
                None => skipped += 1,
            }
            continue;
        }
        match int_list(*d) {
            Some(shape) => out.push(TensorSummary {
                shape,
                dtype: dtype.into_owned(),
                stride,
                arg: Some(i as u32),
                ..TensorSummary::default()
            }),
            None => skipped += 1,
        }
    }
    skipped
}

/// Derives operation records from one profiler trace.
pub fn records_from_profile(
    input: &ProfileInput,
    options: &ReaderOptions,
) -> Result<ProfileRecords, Error> {
    let reader = TraceReader::open_with(&input.path, options.clone())
        .map_err(|e| Error::from(e).with_path(&input.path))?;
    let mut records = Vec::new();
    let facts = visit_profile_records(input, reader, None, &mut |r| {
        records.push(r);
        Ok(())
    })?;
    Ok(ProfileRecords {
        run: facts.run,
        rank: facts.rank,
        sha256: facts.sha256,
        records,
        unsummarized_inputs: facts.unsummarized_inputs,
        operations_with_shapes: facts.operations_with_shapes,
        provider: facts.provider,
    })
}

/// What deriving records learned about a trace, besides the records.
#[derive(Debug, Clone)]
pub(crate) struct ProfileFacts {
    pub run: String,
    pub rank: u32,
    pub sha256: opguard_trace::Sha256Digest,
    pub operations: u64,
    pub unsummarized_inputs: u64,
    pub operations_with_shapes: u64,
    pub provider: Provider,
    pub warnings: Vec<opguard_trace::ReadWarning>,
}

impl ProfileFacts {
    /// See [`ProfileRecords::check_exportable`].
    pub(crate) fn check_exportable(&self, path: &std::path::Path) -> Result<(), Error> {
        check_exportable(
            self.provider,
            self.operations,
            self.operations_with_shapes,
            path,
        )
    }
}

/// Derives the records of one trace from `reader` and hands them to `f`
/// one at a time, in sequence order. What is held meanwhile is a compact
/// form of each operation (see [`RawOp`]), never the records themselves,
/// so a caller that writes them out stays far below the trace's size.
/// `provider` overrides detection (it decides how a trace without
/// operations is described).
pub(crate) fn visit_profile_records<R: std::io::Read>(
    input: &ProfileInput,
    mut reader: TraceReader<R>,
    provider: Option<Provider>,
    f: &mut dyn FnMut(Record) -> Result<(), Error>,
) -> Result<ProfileFacts, Error> {
    let path = &input.path;
    let bad = |m: String| Error::new(ErrorKind::InvalidProfile(m)).with_path(path);
    let mut ops = Vec::new();
    let mut threads: Interner<ThreadKey> = Interner::new();
    let mut names: Interner<String> = Interner::new();
    let mut frames: Vec<Vec<PyFrame>> = Vec::new();
    let mut unsummarized = 0;
    let mut detector = ProviderDetector::new();
    let mut with_shapes = 0u64;
    let mut summaries = Vec::new();
    while let Some(e) = reader
        .next_event()
        .map_err(|e| Error::from(e).with_path(path))?
    {
        detector.observe(&e);
        let Some(ph) = e.ph() else { continue };
        if ph != "X" {
            continue;
        }
        let Some(cat) = e.cat() else { continue };
        let is_op = cat == "cpu_op";
        if !is_op && cat != "python_function" {
            continue;
        }
        let ts = e
            .ts_ns()
            .map_err(|err| bad(format!("traceEvents[{}].ts: {err}", e.index())))?
            .ok_or_else(|| bad(format!("traceEvents[{}] has no ts", e.index())))?;
        let dur = e
            .dur_ns()
            .map_err(|err| bad(format!("traceEvents[{}].dur: {err}", e.index())))?
            .unwrap_or(0);
        let thread = threads.id(&(e.pid().map(|p| p.to_key()), e.tid().map(|t| t.to_key())));
        let name = e.name().map(|n| n.as_cow()).unwrap_or_default();
        if !is_op {
            if frames.len() <= thread as usize {
                frames.resize_with(thread as usize + 1, Vec::new);
            }
            frames[thread as usize].push(PyFrame {
                ts,
                end: ts.saturating_add(dur),
                name: name.into_owned(),
            });
            continue;
        }
        if e.arg("Input Dims").is_some() {
            with_shapes += 1;
        }
        summaries.clear();
        unsummarized += inputs(&e, &mut summaries);
        let io = if summaries.is_empty() {
            Box::default()
        } else {
            serde_json::to_vec(&summaries)
                .map_err(|e| Error::io("encoding input summaries", std::io::Error::other(e)))?
                .into_boxed_slice()
        };
        let legacy_stack = e
            .arg("Call stack")
            .and_then(|v| v.as_str())
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.into());
        ops.push(RawOp {
            index: e.index(),
            ts,
            dur,
            thread,
            name: names.id(name.as_ref()),
            io,
            legacy_stack,
            external_id: e.external_id().map(scalar_json),
            sequence_number: e.sequence_number().map(scalar_json),
        });
    }
    let summary = reader
        .finish()
        .map_err(|e| Error::from(e).with_path(path))?;
    let provider = provider.unwrap_or_else(|| detector.provider(&summary.metadata));
    let rank = match input.rank {
        Some(r) => r,
        None => match summary.metadata.get_json("distributedInfo") {
            Some(info) => match info.get("rank") {
                None => 0,
                Some(r) => r
                    .as_u64()
                    .and_then(|r| u32::try_from(r).ok())
                    .ok_or_else(|| {
                        bad(format!(
                            "distributedInfo.rank is {r}, expected a non-negative integer"
                        ))
                    })?,
            },
            None => 0,
        },
    };
    let run = input.run_label();
    if run.is_empty() {
        return Err(bad("the run label is empty; give one explicitly".into()));
    }
    // Enclosing python frames per thread: sweep in start order.
    let (parsed, mut stacks) = python_stacks(&ops, frames);
    let thread_names: Vec<Option<String>> = threads
        .values
        .iter()
        .map(|t| match t {
            (Some(p), Some(t)) => Some(format!("{p}/{t}")),
            (None, Some(t)) => Some(t.to_string()),
            (Some(p), None) => Some(p.to_string()),
            (None, None) => None,
        })
        .collect();
    drop(threads);
    let mut order: Vec<usize> = (0..ops.len()).collect();
    order.sort_by_key(|&i| (ops[i].ts, std::cmp::Reverse(ops[i].dur), ops[i].index));
    for (sequence, i) in order.into_iter().enumerate() {
        let op = &mut ops[i];
        let stack: Vec<Frame> = match &op.legacy_stack {
            Some(s) => s
                .split(';')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(parse_frame)
                .collect(),
            None => std::mem::take(&mut stacks[i])
                .into_iter()
                .map(|s| parsed[op.thread as usize][s as usize].clone())
                .collect(),
        };
        let callsite = stack.iter().find_map(|f| {
            f.file.as_ref().map(|file| Callsite {
                file: file.clone(),
                function: f.function.clone(),
                line: f.line,
            })
        });
        let mut origin = serde_json::Map::new();
        origin.insert(
            "event".into(),
            EventRef {
                artifact: summary.sha256,
                index: op.index,
            }
            .to_string()
            .into(),
        );
        if let Some(x) = op.external_id.take() {
            origin.insert("external_id".into(), x);
        }
        if let Some(x) = op.sequence_number.take() {
            origin.insert("sequence_number".into(), x);
        }
        let inputs = if op.io.is_empty() {
            Vec::new()
        } else {
            // Written by this function from `TensorSummary` values just above.
            serde_json::from_slice(&std::mem::take(&mut op.io))
                .map_err(|e| Error::io("decoding input summaries", std::io::Error::other(e)))?
        };
        f(Record {
            record_id: format!("{run}/rank{rank}/op{sequence}"),
            run: run.clone(),
            rank,
            sequence: sequence as u64,
            op: names.values[op.name as usize].clone(),
            callsite,
            stack,
            io: Io {
                inputs,
                outputs: Vec::new(),
            },
            thread: thread_names[op.thread as usize].clone(),
            ts_ns: Some(op.ts),
            dur_ns: Some(op.dur),
            origin: Some(origin),
        })?;
    }
    Ok(ProfileFacts {
        run,
        rank,
        sha256: summary.sha256,
        operations: ops.len() as u64,
        unsummarized_inputs: unsummarized,
        operations_with_shapes: with_shapes,
        provider,
        warnings: summary.warnings,
    })
}

/// For each op, the python frames enclosing it on its thread, innermost
/// first, as indexes into that thread's parsed frames (returned first): a
/// frame encloses an op when it starts at or before the op and ends after
/// the op starts.
fn python_stacks(ops: &[RawOp], frames: Vec<Vec<PyFrame>>) -> (Vec<Vec<Frame>>, Vec<Vec<u32>>) {
    let mut out = vec![Vec::new(); ops.len()];
    let mut by_thread: Vec<Vec<usize>> = vec![Vec::new(); frames.len()];
    for (i, op) in ops.iter().enumerate() {
        if let Some(list) = by_thread.get_mut(op.thread as usize) {
            list.push(i);
        }
    }
    let mut parsed_by_thread = Vec::with_capacity(frames.len());
    for (mut fs, mut op_ids) in frames.into_iter().zip(by_thread) {
        fs.sort_by_key(|f| (f.ts, std::cmp::Reverse(f.end)));
        op_ids.sort_by_key(|&i| (ops[i].ts, std::cmp::Reverse(ops[i].dur), ops[i].index));
        let mut stack: Vec<usize> = Vec::new();
        let mut next = 0;
        for i in op_ids {
            let t = ops[i].ts;
            while next < fs.len() && fs[next].ts <= t {
                while stack.last().is_some_and(|&s| fs[s].end <= fs[next].ts) {
                    stack.pop();
                }
                stack.push(next);
                next += 1;
            }
            while stack.last().is_some_and(|&s| fs[s].end <= t) {
                stack.pop();
            }
            out[i] = stack
                .iter()
                .rev()
                .filter(|&&s| fs[s].end > t)
                .map(|&s| s as u32)
                .collect();
        }
        parsed_by_thread.push(fs.iter().map(|f| parse_frame(&f.name)).collect());
    }
    (parsed_by_thread, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_parse_source_locations_and_keep_other_text() {
        let f = parse_frame("torch/nn/modules/linear.py(130): forward");
        assert_eq!(f.file.as_deref(), Some("torch/nn/modules/linear.py"));
        assert_eq!(f.line, Some(130));
        assert_eq!(f.function, "forward");
        let g = parse_frame("<built-in method zeros of type object at 0x7f36c7abc100>");
        assert_eq!(g.file, None);
        assert_eq!(
            g.function,
            "<built-in method zeros of type object at 0x7f36c7abc100>"
        );
        let h = parse_frame("nn.Module: Linear_0");
        assert_eq!(h.file, None);
        assert_eq!(parse_frame("f(x): y").file, None);
    }

    #[test]
    fn run_labels_drop_trace_suffixes() {
        assert_eq!(
            ProfileInput::new("/d/rank-34.Jul_15.1074.pt.trace.json.gz").run_label(),
            "rank-34.Jul_15.1074"
        );
        assert_eq!(
            ProfileInput::new("trace_compare__base__base.json.gz").run_label(),
            "trace_compare__base__base"
        );
    }
}
