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
//!
//! Nothing here reads the trace: opguard-trace's model, read with
//! [`records_model_options`], gives the operators in start order, their
//! arguments and Python stacks, the rank and the provider, and
//! [`records_from_model`] turns them into records.

use std::collections::HashMap;
use std::path::PathBuf;

use opguard_formats::ReadOptions;
use opguard_model::{ArtifactSpec, IdValue, ModelOptions, NameId, Provider, TraceModel};
use opguard_trace::ReaderOptions;
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

    /// One input per trace, as a command line names them (`opguard export
    /// --from-profile`, `opguard inspect`), so that every front end labels
    /// the same traces the same way: each is one run, labelled by its file
    /// name without trace suffixes ([`run_label`](Self::run_label)), `-`
    /// (stdin) as `stdin`; traces whose labels coincide (one file name in
    /// two folders, one file given twice) are numbered in the order given,
    /// `trace (1)`, `trace (2)`, so they stay two runs. The rank is the
    /// trace's own (`distributedInfo.rank`).
    ///
    /// ```
    /// use opguard_align::ProfileInput;
    /// let inputs = ProfileInput::for_traces(["base/trace.json.gz", "test/trace.json.gz", "-"]);
    /// let labels: Vec<String> = inputs.iter().map(ProfileInput::run_label).collect();
    /// assert_eq!(labels, ["trace (1)", "trace (2)", "stdin"]);
    /// ```
    pub fn for_traces<P: Into<PathBuf>>(paths: impl IntoIterator<Item = P>) -> Vec<ProfileInput> {
        let mut inputs: Vec<ProfileInput> = paths
            .into_iter()
            .map(|p| {
                let mut input = ProfileInput::new(p);
                if input.path.as_os_str() == "-" {
                    input.run = Some("stdin".into());
                }
                input
            })
            .collect();
        let labels: Vec<String> = inputs.iter().map(ProfileInput::run_label).collect();
        for (i, input) in inputs.iter_mut().enumerate() {
            let same: Vec<usize> = (0..labels.len())
                .filter(|&j| labels[j] == labels[i])
                .collect();
            if same.len() > 1 {
                let n = same.iter().position(|&j| j == i).unwrap_or(0) + 1;
                input.run = Some(format!("{} ({n})", labels[i]));
            }
        }
        inputs
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
    /// The trace file, as its [`ProfileInput`] named it.
    pub path: PathBuf,
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
        } else if provider.is_xla_profiler() {
            format!(
                "a profile of XLA's profiler (provider {}): it records no framework \
                 operators with the shapes of their inputs (its host events are Python \
                 frames, runtime spans and XLA ops, none with input shapes), so it has no \
                 operations to pair; export reads PyTorch profiler traces recorded with \
                 record_shapes=True",
                provider.as_str()
            )
        } else if provider == Provider::NsightSystems {
            "an Nsight Systems export: it records CUDA kernels, copies, API calls and NVTX \
             ranges, not framework operators (the PyTorch profiler's cpu_op events with \
             shapes), so it has no operations to align; align the runs' PyTorch profiler \
             traces, recorded with record_shapes=True"
                .into()
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

/// An id value as provenance JSON: integers stay numbers (up to `u64`),
/// anything else is its text.
fn id_json(model: &TraceModel, v: IdValue) -> serde_json::Value {
    match v {
        IdValue::Int(i) => i.into(),
        IdValue::BigNumber(n) => {
            let text = model.name(n);
            text.parse::<u64>()
                .map_or_else(|_| serde_json::Value::String(text.to_owned()), Into::into)
        }
        IdValue::Text(n) => serde_json::Value::String(model.name(n).to_owned()),
    }
}

fn int_list(v: &serde_json::Value) -> Option<Vec<i64>> {
    v.as_array()?
        .iter()
        .map(serde_json::Value::as_i64)
        .collect()
}

/// An operator's recorded `Input Dims`, `Input type` and `Input Strides`.
type Shapes = (Option<NameId>, Option<NameId>, Option<NameId>);

const NOT_TENSORS: [&str; 6] = ["", "Scalar", "ScalarList", "GenericList", "None", "String"];

/// An argument text of the model as JSON (`Null` when absent).
fn arg_json(model: &TraceModel, text: Option<NameId>) -> serde_json::Value {
    text.and_then(|t| serde_json::from_str(model.name(t)).ok())
        .unwrap_or(serde_json::Value::Null)
}

/// Flattened input summaries of one `cpu_op` from its recorded dims, types
/// and strides; returns the number of tensor-typed inputs that could not be
/// summarised.
fn inputs(model: &TraceModel, shapes: Shapes, out: &mut Vec<TensorSummary>) -> u64 {
    let (dims, types, strides) = shapes;
    let (dims, types) = (arg_json(model, dims), arg_json(model, types));
    let (Some(dims), Some(types)) = (dims.as_array(), types.as_array()) else {
        return 0;
    };
    let strides = arg_json(model, strides);
    let strides: &[serde_json::Value] = strides.as_array().map_or(&[], |a| a.as_slice());
    let mut skipped = 0;
    for (i, t) in types.iter().enumerate() {
        let Some(dtype) = t.as_str() else { continue };
        if NOT_TENSORS.contains(&dtype) {
            continue;
        }
        let Some(d) = dims.get(i) else {
            skipped += 1;
            continue;
        };
        let stride = strides.get(i).and_then(int_list).filter(|s| !s.is_empty());
        if dtype == "TensorList" {
            let items: Option<Vec<Vec<i64>>> = d
                .as_array()
                .and_then(|a| a.iter().map(int_list).collect::<Option<Vec<_>>>())
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
        match int_list(d) {
            Some(shape) => out.push(TensorSummary {
                shape,
                dtype: dtype.to_owned(),
                stride,
                arg: Some(i as u32),
                ..TensorSummary::default()
            }),
            None => skipped += 1,
        }
    }
    skipped
}

/// The read options [`records_from_model`] needs and no more: host work
/// with each operator's arguments ([`ModelOptions::operations`]), read
/// with `reader`.
pub fn records_model_options(reader: &ReaderOptions) -> ReadOptions {
    ReadOptions::new(ModelOptions::operations()).reader(reader.clone())
}

/// Derives operation records from one profiler trace: reads its model
/// ([`records_model_options`]) and derives the records from it
/// ([`records_from_model`]).
pub fn records_from_profile(
    input: &ProfileInput,
    options: &ReaderOptions,
) -> Result<ProfileRecords, Error> {
    let model = opguard_formats::read(
        &input.path,
        ArtifactSpec::new(),
        &records_model_options(options),
    )
    .map_err(|e| Error::from(e).with_path(&input.path))?;
    records_from_model(&model, input)
}

/// Derives operation records from a trace model read with
/// [`records_model_options`] (or any [`ModelOptions`] with
/// [`operation_args`](ModelOptions::operation_args), e.g. a full model
/// that also feeds other analyses): one record per host
/// operator, as the module documentation describes. `input` names the trace
/// (errors, the run label) and may set its run and rank; the provider is the
/// model's.
///
/// ```
/// use opguard_align::{records_from_model, records_model_options, ProfileInput};
/// use opguard_model::ArtifactSpec;
/// use opguard_trace::{ReaderOptions, TraceReader};
///
/// let trace = br#"{"traceEvents":[
///   {"ph":"X","cat":"python_function","name":"model.py(12): forward","pid":1,"tid":1,"ts":0,"dur":10},
///   {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2,
///    "args":{"Input Dims":[[2,3],[3,4]],"Input type":["float","float"]}}]}"#;
/// let options = records_model_options(&ReaderOptions::new());
/// let reader = TraceReader::new(&trace[..])?;
/// let model = opguard_trace::model_from_reader(reader, ArtifactSpec::new(), &options.model, &mut |_, _| {})?;
/// let records = records_from_model(&model, &ProfileInput::new("run_a.json"))?;
/// let mm = &records.records[0];
/// assert_eq!(mm.record_id, "run_a/rank0/op0");
/// assert_eq!(mm.io.inputs[1].shape, [3, 4]);
/// assert_eq!(mm.callsite.as_ref().map(|c| c.line), Some(Some(12)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn records_from_model(
    model: &TraceModel,
    input: &ProfileInput,
) -> Result<ProfileRecords, Error> {
    let mut records = Vec::new();
    let facts = visit_model_records(model, input, &mut |r| {
        records.push(r);
        Ok(())
    })?;
    Ok(ProfileRecords {
        path: input.path.clone(),
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

/// Derives the records of one trace model and hands them to `f` one at a
/// time, in sequence order, so a caller that writes them out holds the
/// model but never all the records.
pub(crate) fn visit_model_records(
    model: &TraceModel,
    input: &ProfileInput,
    f: &mut dyn FnMut(Record) -> Result<(), Error>,
) -> Result<ProfileFacts, Error> {
    let path = &input.path;
    let bad = |m: String| Error::new(ErrorKind::InvalidProfile(m)).with_path(path);
    if !model.keeps_operation_args() {
        return Err(Error::new(ErrorKind::InvalidRequest(
            "the trace model was read without operation args: read it with \
             records_model_options (ModelOptions::operation_args)"
                .into(),
        ))
        .with_path(path));
    }
    if let Some(index) = model.first_untimed_operation() {
        return Err(bad(format!("traceEvents[{index}] has no ts")));
    }
    let rank = match input.rank {
        Some(r) => r,
        None => model
            .distributed_rank()
            .map_err(|r| {
                bad(format!(
                    "distributedInfo.rank is {r}, expected a non-negative integer"
                ))
            })?
            .unwrap_or(0),
    };
    let run = input.run_label();
    if run.is_empty() {
        return Err(bad("the run label is empty; give one explicitly".into()));
    }
    let order = model.operations_in_start_order();
    let stacks = model.python_stacks(&order);
    let slices = model.slices();
    let sha256 = model.artifact().sha256;
    let mut frames: HashMap<usize, Frame> = HashMap::new();
    // Shapes repeat: each distinct (dims, types, strides) is summarised once.
    let mut summaries: HashMap<Shapes, (Vec<TensorSummary>, u64)> = HashMap::new();
    let (mut unsummarized, mut with_shapes) = (0u64, 0u64);
    for (sequence, (&i, python)) in order.iter().zip(stacks).enumerate() {
        let slice = &slices[i];
        let args = model.operation_args(i).copied().unwrap_or_default();
        if args.input_dims.is_some() {
            with_shapes += 1;
        }
        let shapes = (args.input_dims, args.input_types, args.input_strides);
        let (inputs, skipped) = summaries.entry(shapes).or_insert_with(|| {
            let mut out = Vec::new();
            let skipped = inputs(model, shapes, &mut out);
            (out, skipped)
        });
        unsummarized += *skipped;
        let legacy = args
            .call_stack
            .map(|s| model.name(s))
            .filter(|s| !s.trim().is_empty());
        let stack: Vec<Frame> = match legacy {
            Some(s) => s
                .split(';')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(parse_frame)
                .collect(),
            None => python
                .into_iter()
                .map(|p| {
                    frames
                        .entry(p)
                        .or_insert_with(|| parse_frame(model.name(slices[p].name)))
                        .clone()
                })
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
        origin.insert("event".into(), model.occurrence(slice).to_string().into());
        if let Some(x) = slice.external_id {
            origin.insert("external_id".into(), id_json(model, x));
        }
        if let Some(x) = args.sequence_number {
            origin.insert("sequence_number".into(), id_json(model, x));
        }
        let thread = match (slice.pid, slice.tid) {
            (Some(p), Some(t)) => Some(format!("{}/{}", model.id_text(p), model.id_text(t))),
            (None, Some(t)) => Some(model.id_text(t)),
            (Some(p), None) => Some(model.id_text(p)),
            (None, None) => None,
        };
        f(Record {
            record_id: format!("{run}/rank{rank}/op{sequence}"),
            run: run.clone(),
            rank,
            sequence: sequence as u64,
            op: model.name(slice.name).to_owned(),
            callsite,
            stack,
            io: Io {
                inputs: inputs.clone(),
                outputs: Vec::new(),
            },
            thread,
            ts_ns: Some(slice.ts_ns),
            dur_ns: Some(slice.dur_ns),
            origin: Some(origin),
        })?;
    }
    Ok(ProfileFacts {
        run,
        rank,
        sha256,
        operations: order.len() as u64,
        unsummarized_inputs: unsummarized,
        operations_with_shapes: with_shapes,
        provider: model.artifact().provider,
        warnings: model.summary().warnings.clone(),
    })
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

    fn torch_cpu() -> std::path::PathBuf {
        opguard_testdata::producer_trace("torch_cpu.json.gz")
    }

    #[test]
    fn records_need_a_model_read_with_operation_args() {
        let path = torch_cpu();
        let input = ProfileInput::new(&path);
        let plain = opguard_formats::read(
            &path,
            ArtifactSpec::new(),
            &ReadOptions::new(ModelOptions::new()),
        )
        .unwrap();
        let e = records_from_model(&plain, &input).unwrap_err();
        assert_eq!(e.code(), "invalid_request", "{e}");
        let options = records_model_options(&ReaderOptions::new());
        let model = opguard_formats::read(&path, ArtifactSpec::new(), &options).unwrap();
        let from_model = records_from_model(&model, &input).unwrap();
        let from_file = records_from_profile(&input, &ReaderOptions::new()).unwrap();
        assert_eq!(from_model.records, from_file.records);
        // Counted independently over the decoded JSON.
        let doc: serde_json::Value =
            serde_json::from_slice(&opguard_testdata::decoded(&path)).unwrap();
        let ops: Vec<&serde_json::Value> = doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["cat"] == "cpu_op" && e["ph"] == "X")
            .collect();
        let shaped = ops.iter().filter(|e| e["args"].get("Input Dims").is_some());
        assert_eq!(from_model.records.len(), ops.len());
        assert_eq!(from_model.operations_with_shapes, shaped.count() as u64);
        assert!(from_model.operations_with_shapes > 0);
    }

    #[test]
    fn an_operation_without_ts_is_refused_not_dropped() {
        // The real capture with one operator's `ts` removed.
        let mut doc: serde_json::Value =
            serde_json::from_slice(&opguard_testdata::decoded(&torch_cpu())).unwrap();
        let events = doc["traceEvents"].as_array_mut().unwrap();
        let index = events.iter().position(|e| e["cat"] == "cpu_op").unwrap();
        events[index].as_object_mut().unwrap().remove("ts");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.json");
        std::fs::write(&path, doc.to_string()).unwrap();
        let e = records_from_profile(&ProfileInput::new(&path), &ReaderOptions::new()).unwrap_err();
        assert_eq!(e.code(), "invalid_profile");
        assert_eq!(
            e.to_string(),
            format!(
                "cannot derive operation records: traceEvents[{index}] has no ts ({})",
                path.display()
            )
        );
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
