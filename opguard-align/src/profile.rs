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
        if self.records.is_empty() {
            let reason = if self.provider.is_kineto() {
                format!(
                    "a PyTorch profiler trace ({}) without cpu_op events: it was recorded \
                     without CPU activity (activities=[ProfilerActivity.CPU])",
                    self.provider.as_str()
                )
            } else {
                format!(
                    "not a PyTorch profiler trace (provider {}): it has no cpu_op events",
                    self.provider.as_str()
                )
            };
            return Err(Error::new(ErrorKind::NoOperations { reason }).with_path(path));
        }
        if self.operations_with_shapes == 0 {
            return Err(Error::new(ErrorKind::RecordedWithoutShapes {
                operations: self.records.len() as u64,
            })
            .with_path(path));
        }
        Ok(())
    }
}

struct PyFrame {
    ts: i64,
    end: i64,
    name: String,
}

struct RawOp {
    index: u64,
    ts: i64,
    dur: i64,
    thread: (Option<ScalarKey>, Option<ScalarKey>),
    name: String,
    io: Io,
    legacy_stack: Option<String>,
    external_id: Option<serde_json::Value>,
    sequence_number: Option<serde_json::Value>,
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
    let path = &input.path;
    let bad = |m: String| Error::new(ErrorKind::InvalidProfile(m)).with_path(path);
    let mut reader = TraceReader::open_with(path, options.clone())
        .map_err(|e| Error::from(e).with_path(path))?;
    let mut ops = Vec::new();
    let mut frames: HashMap<(Option<ScalarKey>, Option<ScalarKey>), Vec<PyFrame>> = HashMap::new();
    let mut unsummarized = 0;
    let mut detector = ProviderDetector::new();
    let mut with_shapes = 0u64;
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
        let thread = (e.pid().map(|p| p.to_key()), e.tid().map(|t| t.to_key()));
        let name = e
            .name()
            .map(|n| n.as_cow().into_owned())
            .unwrap_or_default();
        if !is_op {
            frames.entry(thread).or_default().push(PyFrame {
                ts,
                end: ts.saturating_add(dur),
                name,
            });
            continue;
        }
        if e.arg("Input Dims").is_some() {
            with_shapes += 1;
        }
        let mut summaries = Vec::new();
        unsummarized += inputs(&e, &mut summaries);
        let legacy_stack = e
            .arg("Call stack")
            .and_then(|v| v.as_str())
            .map(|s| s.into_owned())
            .filter(|s| !s.trim().is_empty());
        ops.push(RawOp {
            index: e.index(),
            ts,
            dur,
            thread,
            name,
            io: Io {
                inputs: summaries,
                outputs: Vec::new(),
            },
            legacy_stack,
            external_id: e.external_id().map(scalar_json),
            sequence_number: e.sequence_number().map(scalar_json),
        });
    }
    let summary = reader
        .finish()
        .map_err(|e| Error::from(e).with_path(path))?;
    let provider = detector.provider(&summary.metadata);
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
    let stacks = python_stacks(&ops, frames);
    let mut order: Vec<usize> = (0..ops.len()).collect();
    order.sort_by_key(|&i| (ops[i].ts, std::cmp::Reverse(ops[i].dur), ops[i].index));
    let mut stacks = stacks;
    let mut records = Vec::with_capacity(ops.len());
    for (sequence, i) in order.into_iter().enumerate() {
        let op = &mut ops[i];
        let stack: Vec<Frame> = match &op.legacy_stack {
            Some(s) => s
                .split(';')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(parse_frame)
                .collect(),
            None => std::mem::take(&mut stacks[i]),
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
        let thread = match &op.thread {
            (Some(p), Some(t)) => Some(format!("{p}/{t}")),
            (None, Some(t)) => Some(t.to_string()),
            (Some(p), None) => Some(p.to_string()),
            (None, None) => None,
        };
        records.push(Record {
            record_id: format!("{run}/rank{rank}/op{sequence}"),
            run: run.clone(),
            rank,
            sequence: sequence as u64,
            op: std::mem::take(&mut op.name),
            callsite,
            stack,
            io: std::mem::take(&mut op.io),
            thread,
            ts_ns: Some(op.ts),
            dur_ns: Some(op.dur),
            origin: Some(origin),
        });
    }
    Ok(ProfileRecords {
        run,
        rank,
        sha256: summary.sha256,
        records,
        unsummarized_inputs: unsummarized,
        operations_with_shapes: with_shapes,
        provider,
    })
}

/// For each op, the python frames enclosing it on its thread, innermost
/// first: a frame encloses an op when it starts at or before the op and
/// ends after the op starts.
fn python_stacks(
    ops: &[RawOp],
    mut frames: HashMap<(Option<ScalarKey>, Option<ScalarKey>), Vec<PyFrame>>,
) -> Vec<Vec<Frame>> {
    let mut out = vec![Vec::new(); ops.len()];
    let mut by_thread: HashMap<&(Option<ScalarKey>, Option<ScalarKey>), Vec<usize>> =
        HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        by_thread.entry(&op.thread).or_default().push(i);
    }
    for (thread, mut op_ids) in by_thread {
        let Some(mut fs) = frames.remove(thread) else {
            continue;
        };
        fs.sort_by_key(|f| (f.ts, std::cmp::Reverse(f.end)));
        op_ids.sort_by_key(|&i| (ops[i].ts, std::cmp::Reverse(ops[i].dur), ops[i].index));
        let parsed: Vec<Frame> = fs.iter().map(|f| parse_frame(&f.name)).collect();
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
                .map(|&s| parsed[s].clone())
                .collect();
        }
    }
    out
}

/// Records of several traces, checked for distinct (run, rank).
pub(crate) fn records_from_profiles(
    inputs: &[ProfileInput],
    options: &ReaderOptions,
) -> Result<Vec<ProfileRecords>, Error> {
    let mut out: Vec<ProfileRecords> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let recs = records_from_profile(input, options)?;
        recs.check_exportable(&input.path)?;
        if out.iter().any(|o| o.run == recs.run && o.rank == recs.rank) {
            return Err(Error::new(ErrorKind::DuplicateRunRank {
                run: recs.run,
                rank: recs.rank,
            })
            .with_path(&input.path));
        }
        out.push(recs);
    }
    Ok(out)
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
