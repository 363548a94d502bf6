//! Model stage: what a host slice is, and how much of its time is its own.
//!
//! A capture without device activity (torch.profiler on a CPU-only machine,
//! viztracer, JAX on CPU) is still a profile: its host slices are the work.
//! [`HostKind`] says what each host slice is under the artifact's
//! [`Provider`], and [`host_self_times`] gives every slice
//! its self time by exact nesting arithmetic on its own thread.

use std::collections::HashMap;

use crate::provider::Provider;
use crate::slice::{IdValue, NameId, SliceClass};
use crate::TraceModel;

/// The name inductor's CPU wrapper gives every generated C++ kernel when
/// Python frames are recorded: it names the call mechanism, not the kernel.
pub const INDUCTOR_PLACEHOLDER: &str = "<built-in function kernel>";

/// The prefix of JAX's end markers (`end: X` after each `X`).
pub const JAX_END_MARKER_PREFIX: &str = "end: ";

/// What a host slice is, for a profile of host work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HostKind {
    /// A framework operator: PyTorch's `cpu_op`.
    FrameworkOp,
    /// An XLA operation: a slice carrying `args.hlo_op`.
    XlaOp,
    /// A Python function: Kineto's `python_function`, viztracer's
    /// function entries, JAX's `$file:line` frames and `PjitFunction(...)`.
    PythonFunction,
    /// A named region: `record_function` / `user_annotation` (including
    /// `ProfilerStep#N`), a JAX `TraceAnnotation`, the profiler's own span.
    Region,
    /// A marker that closes another event (JAX's `end: X`): never an
    /// operation.
    Marker,
    /// A name that identifies nothing but the call mechanism (inductor's
    /// [`INDUCTOR_PLACEHOLDER`]).
    Placeholder,
    /// Device activity, a device-timeline annotation or a runtime call:
    /// not host work in this sense.
    NotHost,
    /// Any other host slice: the trace does not say what it is.
    Unclassified,
}

impl HostKind {
    /// Whether slices of this kind are operations a host profile lists.
    pub fn is_operation(self) -> bool {
        matches!(
            self,
            HostKind::FrameworkOp
                | HostKind::XlaOp
                | HostKind::PythonFunction
                | HostKind::Placeholder
                | HostKind::Unclassified
        )
    }
}

/// Arguments a host slice carries that name what it operated on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostDetail {
    /// `args["Input Dims"]` as the trace writes it (PyTorch `record_shapes`).
    pub input_dims: Option<NameId>,
    /// `args.hlo_op` (XLA).
    pub hlo_op: Option<NameId>,
    /// `args.hlo_module` (XLA).
    pub hlo_module: Option<NameId>,
}

impl HostDetail {
    pub(crate) fn is_empty(&self) -> bool {
        self.input_dims.is_none() && self.hlo_op.is_none() && self.hlo_module.is_none()
    }
}

/// What a host operator (`cpu_op`) was called with, as PyTorch's profiler
/// records it (`record_shapes=True`, and the legacy `with_stack` string),
/// kept when [`ModelOptions::operation_args`](crate::ModelOptions::operation_args)
/// asks. Texts are interned: read them with
/// [`TraceModel::name`](crate::TraceModel::name).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OperationArgs {
    /// `args["Input Dims"]`, its JSON text exactly as written (usually an
    /// array of shapes; a string stays a quoted string).
    pub input_dims: Option<NameId>,
    /// `args["Input type"]`, its JSON text as written (usually an array of
    /// type names).
    pub input_types: Option<NameId>,
    /// `args["Input Strides"]`, its JSON text as written.
    pub input_strides: Option<NameId>,
    /// `args["Call stack"]` when it is a string, decoded: frames separated
    /// by `;`, innermost first (older PyTorch versions' `with_stack`).
    pub call_stack: Option<NameId>,
    /// `args["Sequence number"]` (the autograd sequence number).
    pub sequence_number: Option<IdValue>,
}

impl OperationArgs {
    pub(crate) fn is_empty(&self) -> bool {
        *self == OperationArgs::default()
    }
}

/// Start order of slices: by `ts`, longer `dur` first, then file order.
fn start_order(model: &TraceModel, position: usize) -> (i64, std::cmp::Reverse<i64>, u64) {
    let s = &model.slices()[position];
    (s.ts_ns, std::cmp::Reverse(s.dur_ns), s.index)
}

/// See [`TraceModel::operations_in_start_order`].
pub(crate) fn operations_in_start_order(model: &TraceModel) -> Vec<usize> {
    let mut order: Vec<usize> = (0..model.slices().len())
        .filter(|&i| model.slices()[i].class == SliceClass::CpuOp)
        .collect();
    order.sort_by_key(|&i| start_order(model, i));
    order
}

/// See [`TraceModel::python_stacks`]: one sweep per thread over its frames
/// and the given slices, both in start order.
pub(crate) fn python_stacks(model: &TraceModel, operations: &[usize]) -> Vec<Vec<usize>> {
    let slices = model.slices();
    let mut out = vec![Vec::new(); operations.len()];
    // Per thread: its Python frames in file order, and the `operations`
    // entries (by their place in `operations`) on it.
    let mut threads: HashMap<Thread, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (k, &i) in operations.iter().enumerate() {
        if let Some(s) = slices.get(i) {
            threads.entry((s.pid, s.tid)).or_default().1.push(k);
        }
    }
    for (i, s) in slices.iter().enumerate() {
        if s.class == SliceClass::PythonFunction {
            if let Some((frames, _)) = threads.get_mut(&(s.pid, s.tid)) {
                frames.push(i);
            }
        }
    }
    for (mut frames, mut ops) in threads.into_values() {
        if frames.is_empty() {
            continue;
        }
        // Stable: of two frames with one span, the earlier in the file is
        // the outer one.
        frames.sort_by_key(|&f| (slices[f].ts_ns, std::cmp::Reverse(slices[f].end_ns())));
        ops.sort_by_key(|&k| start_order(model, operations[k]));
        let mut open: Vec<usize> = Vec::new();
        let mut next = 0;
        for k in ops {
            let t = slices[operations[k]].ts_ns;
            while next < frames.len() && slices[frames[next]].ts_ns <= t {
                let starts = slices[frames[next]].ts_ns;
                while open.last().is_some_and(|&f| slices[f].end_ns() <= starts) {
                    open.pop();
                }
                open.push(frames[next]);
                next += 1;
            }
            while open.last().is_some_and(|&f| slices[f].end_ns() <= t) {
                open.pop();
            }
            out[k] = open
                .iter()
                .rev()
                .filter(|&&f| slices[f].end_ns() > t)
                .copied()
                .collect();
        }
    }
    out
}

/// Whether a JAX-written name is a Python frame: `$file.py:123 function`
/// (`$<unknown> function` when the file is not known) or the jitted
/// callable `PjitFunction(name)`.
pub(crate) fn is_jax_python_name(name: &str) -> bool {
    name.starts_with("PjitFunction(") || (name.starts_with('$') && name.contains(' '))
}

/// What slice `position` of `model` is, as host work.
pub(crate) fn host_kind(model: &TraceModel, position: usize) -> HostKind {
    let Some(slice) = model.slices().get(position) else {
        return HostKind::NotHost;
    };
    let provider = model.artifact().provider;
    let name = model.name(slice.name);
    match slice.class {
        c if c.is_device() || c.is_runtime() || c == SliceClass::GpuUserAnnotation => {
            return HostKind::NotHost
        }
        _ => {}
    }
    if name.starts_with(JAX_END_MARKER_PREFIX) && provider.is_xla_profiler() {
        return HostKind::Marker;
    }
    if name == INDUCTOR_PLACEHOLDER {
        return HostKind::Placeholder;
    }
    let detail = model.host_detail(position);
    if detail.is_some_and(|d| d.hlo_op.is_some()) {
        return HostKind::XlaOp;
    }
    match slice.class {
        SliceClass::CpuOp => return HostKind::FrameworkOp,
        SliceClass::PythonFunction => return HostKind::PythonFunction,
        SliceClass::UserAnnotation => return HostKind::Region,
        _ => {}
    }
    let cat = model.name(slice.cat);
    match provider {
        // Kineto's own span (`PyTorch Profiler (0)`, category `Trace`).
        p if p.is_kineto() && cat == "Trace" => HostKind::Region,
        // viztracer writes every function entry/exit event as category
        // `fee` (Function Entry/Exit).
        Provider::Viztracer if cat.eq_ignore_ascii_case("fee") => HostKind::PythonFunction,
        p if p.is_xla_profiler() && is_jax_python_name(name) => HostKind::PythonFunction,
        _ => HostKind::Unclassified,
    }
}

/// A thread key: (pid, tid) as the trace writes them.
type Thread = (Option<IdValue>, Option<IdValue>);

/// Self time of every slice: its counted duration
/// ([`Slice::counted_dur_ns`](crate::Slice::counted_dur_ns)) minus the
/// measure of the union of every slice of its own (pid, tid) that starts
/// inside it, each clipped to its end. Device slices, runtime calls and
/// device-timeline annotations are left out and get 0; so are markers, whose
/// time belongs to the operation they close.
///
/// Slices are ordered by start, longer first, then file order (of two
/// identical spans the earlier encloses the later). A union, not a sum of
/// direct children, because real traces cross: torch opens a
/// `record_function` region inside the Python call that enters it and
/// closes it inside the one that exits, so the region is neither inside nor
/// around those frames. For properly nested slices both agree.
pub(crate) fn host_self_times(model: &TraceModel) -> Vec<i64> {
    let slices = model.slices();
    let mut own: Vec<i64> = vec![0; slices.len()];
    let mut threads: HashMap<Thread, Vec<usize>> = HashMap::new();
    for (i, s) in slices.iter().enumerate() {
        if matches!(host_kind(model, i), HostKind::NotHost | HostKind::Marker) {
            continue;
        }
        threads.entry((s.pid, s.tid)).or_default().push(i);
    }
    for members in threads.values_mut() {
        members.sort_by(|&a, &b| {
            let (x, y) = (&slices[a], &slices[b]);
            x.ts_ns
                .cmp(&y.ts_ns)
                .then(y.counted_end_ns().cmp(&x.counted_end_ns()))
                .then(x.index.cmp(&y.index))
        });
        // Walking backwards, `later` holds the union of every slice after
        // the current one, all of which start at or after its start: what
        // covers it is that union below its end.
        let mut later = LaterUnion::default();
        for &i in members.iter().rev() {
            let s = &slices[i];
            let covered = later.measure_below(s.counted_end_ns());
            own[i] = s.counted_dur_ns().saturating_sub(covered).max(0);
            later.add(s.ts_ns, s.counted_end_ns());
        }
    }
    own
}

/// A union of intervals, each added with a start at or before every start
/// already in it. Disjoint runs are kept rightmost first, with running
/// lengths, so adding is amortised O(1) and measuring O(log n).
#[derive(Default)]
struct LaterUnion {
    /// (start, end), rightmost first: starts decrease with the index.
    runs: Vec<(i64, i64)>,
    /// `lengths[i]`: summed length of `runs[..=i]`.
    lengths: Vec<i64>,
}

impl LaterUnion {
    fn add(&mut self, start: i64, end: i64) {
        let mut end = end.max(start);
        while let Some(&(s, e)) = self.runs.last() {
            if s > end {
                break;
            }
            end = end.max(e);
            self.runs.pop();
            self.lengths.pop();
        }
        let before = self.lengths.last().copied().unwrap_or(0);
        self.runs.push((start, end));
        self.lengths
            .push(before.saturating_add(end.saturating_sub(start)));
    }

    /// The measure of the union below `limit` (every run starts at or after
    /// the caller's start).
    fn measure_below(&self, limit: i64) -> i64 {
        let first = self.runs.partition_point(|&(s, _)| s >= limit);
        let Some(&(_, end)) = self.runs.get(first) else {
            return 0;
        };
        let total = self.lengths.last().copied().unwrap_or(0);
        let right_of = if first == 0 {
            0
        } else {
            self.lengths[first - 1]
        };
        total
            .saturating_sub(right_of)
            .saturating_sub(end.saturating_sub(limit).max(0))
    }
}
