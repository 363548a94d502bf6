//! Model stage: what every reader pushes its records into.
//!
//! A reader turns its format's records into [`SliceRecord`]s and
//! [`FlowRecord`]s, in its documented occurrence order, and hands the
//! [`ReadSummary`] to [`ModelBuilder::finish`]. The builder keeps what the
//! [`ModelOptions`] ask for, interns names, and at the end decides, by the
//! one rule of [`crate::provider`], which process owns each device record
//! and which launches are proven.

use std::collections::HashMap;

use crate::artifact::{Artifact, ArtifactSpec, ReadSummary};
use crate::classify;
use crate::frame;
use crate::host::{HostDetail, OperationArgs};
use crate::index::{FastMap, Interner, SliceIndex};
use crate::join;
use crate::model::TraceModel;
use crate::options::ModelOptions;
use crate::sink::ActiveSink;
use crate::slice::{
    FlowPhase, FlowPoint, HostTotal, IdValue, LaunchKind, NameId, Slice, SliceClass,
};

/// The buffers a model keeps its records and indexes in, empty, for the
/// next model read on the same thread ([`ModelBuilder::reusing`],
/// [`TraceModel::into_storage`]).
///
/// A program that reads many traces one after another (a job's ranks) and
/// reads each into fresh buffers grows the same large vectors again for
/// every trace; the allocator keeps the freed ones, and the holes between
/// them, so the process grows past what one trace needs. Reused, the
/// buffers are as large as the largest trace read so far, and no larger.
/// Reusing changes nothing in the model read.
///
/// ```
/// use opguard_model::{ArtifactSpec, Format, ModelBuilder, ModelOptions, ModelStorage};
/// use opguard_model::{Provider, ReadSummary, Sha256Digest, SliceClass, SliceRecord};
///
/// let mut storage = ModelStorage::new();
/// for _ in 0..2 {
///     let mut builder = ModelBuilder::reusing(&ModelOptions::launches_only(), storage);
///     let gemm = SliceRecord { class: SliceClass::Kernel, name: "gemm", ts_ns: 1, dur_ns: 2, ..SliceRecord::new(0) };
///     builder.push_slice(&gemm);
///     let summary = ReadSummary::new(Sha256Digest::of(b"t"), Format::ChromeJson, Provider::KinetoCuda);
///     let model = builder.finish(summary, ArtifactSpec::new());
///     assert_eq!(model.slices().len(), 1);
///     storage = model.into_storage();
/// }
/// ```
#[derive(Debug, Default)]
pub struct ModelStorage {
    pub(crate) names: Interner,
    pub(crate) slices: Vec<Slice>,
    pub(crate) flows: Vec<FlowPoint>,
    pub(crate) totals: Vec<HostTotal>,
    pub(crate) host_details: HashMap<usize, HostDetail>,
    pub(crate) op_args: HashMap<usize, OperationArgs>,
    pub(crate) launches_by_correlation: SliceIndex<(IdValue, IdValue)>,
    pub(crate) host_by_external_id: SliceIndex<(IdValue, IdValue)>,
}

impl ModelStorage {
    /// No buffers yet: the first model read into it grows them.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties every buffer, keeping its capacity.
    pub(crate) fn clear(&mut self) {
        self.names.clear();
        self.slices.clear();
        self.flows.clear();
        self.totals.clear();
        self.host_details.clear();
        self.op_args.clear();
        self.launches_by_correlation.clear();
        self.host_by_external_id.clear();
    }
}

/// One timed record, as a reader gives it to [`ModelBuilder::push_slice`].
/// Start from [`SliceRecord::new`] and set what the record carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceRecord<'a> {
    /// The record's occurrence index in the artifact ([`Slice::index`]).
    pub index: u64,
    /// What it is, decided by the rules of [`crate::classify`].
    pub class: SliceClass,
    /// Its name (for kernels, the demangled name when the capture has one).
    pub name: &'a str,
    /// Its category as the capture names it (`kernel`, `cuda_runtime`,
    /// `nvtx`...).
    pub category: &'a str,
    /// The track's process as written ([`Slice::pid`]).
    pub pid: Option<IdValue>,
    /// The track's thread as written ([`Slice::tid`]).
    pub tid: Option<IdValue>,
    /// The owning process when the format establishes it for this record
    /// ([`Slice::process`]). Left `None`, a host record's process is its
    /// `pid`, and a device record's is decided at
    /// [`finish`](ModelBuilder::finish): the artifact's one launching
    /// process, or none.
    pub process: Option<IdValue>,
    /// Start, ns, in the artifact's clock domain.
    pub ts_ns: i64,
    /// Duration, ns.
    pub dur_ns: i64,
    /// The launch-to-device correlation id.
    pub correlation: Option<IdValue>,
    /// Kineto's `External id` (host operator to its launches and kernels).
    pub external_id: Option<IdValue>,
    /// The device.
    pub device: Option<IdValue>,
    /// The device context.
    pub context: Option<IdValue>,
    /// The device stream (queue).
    pub stream: Option<IdValue>,
}

impl SliceRecord<'static> {
    /// A record at occurrence `index`: class [`SliceClass::Other`], empty
    /// name and category, time 0, nothing else.
    pub fn new(index: u64) -> Self {
        SliceRecord {
            index,
            class: SliceClass::Other,
            name: "",
            category: "",
            pid: None,
            tid: None,
            process: None,
            ts_ns: 0,
            dur_ns: 0,
            correlation: None,
            external_id: None,
            device: None,
            context: None,
            stream: None,
        }
    }
}

/// One end of a flow arrow, as a reader gives it to
/// [`ModelBuilder::push_flow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowRecord<'a> {
    /// Its occurrence index.
    pub index: u64,
    /// Start or end.
    pub phase: FlowPhase,
    /// Its category (Kineto's launch flows are `ac2g`).
    pub category: &'a str,
    /// The flow's id.
    pub id: IdValue,
    /// The track's process as written.
    pub pid: Option<IdValue>,
    /// The track's thread as written.
    pub tid: Option<IdValue>,
    /// Its time, ns.
    pub ts_ns: i64,
}

/// What the builder does with records of one class
/// ([`ModelBuilder::keeps`]): a reader can skip the work of reading
/// what is not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Kept as a [`Slice`].
    Slice,
    /// Added up into a [`HostTotal`].
    Total,
    /// Dropped.
    Nothing,
}

/// Builds one artifact's [`TraceModel`] from the records a reader pushes.
#[derive(Debug)]
pub struct ModelBuilder {
    host_ops: bool,
    device_activity: bool,
    host_totals: bool,
    operation_args: bool,
    keep_flows: bool,
    storage: ModelStorage,
    total_index: FastMap<(NameId, NameId, SliceClass), usize>,
    first_untimed_operation: Option<u64>,
    /// The options' sink, taken out of its slot for the read.
    sink: Option<ActiveSink>,
}

impl ModelBuilder {
    /// A builder keeping what `options` ask for, in fresh buffers.
    pub fn new(options: &ModelOptions) -> Self {
        Self::reusing(options, ModelStorage::new())
    }

    /// A builder filling `storage`'s buffers (emptied first).
    pub fn reusing(options: &ModelOptions, mut storage: ModelStorage) -> Self {
        storage.clear();
        ModelBuilder {
            host_ops: options.host_ops,
            device_activity: options.device_activity,
            host_totals: options.host_totals && !options.host_ops,
            operation_args: options.operation_args && options.host_ops,
            keep_flows: options.flows && options.device_activity,
            storage,
            total_index: FastMap::default(),
            first_untimed_operation: None,
            sink: options.sink.as_ref().and_then(ActiveSink::take_from),
        }
    }

    /// The buffers back, empty: for a read that failed.
    pub fn into_storage(self) -> ModelStorage {
        let mut storage = self.storage;
        storage.clear();
        storage
    }

    /// Interns `s`.
    pub fn intern(&mut self, s: &str) -> NameId {
        self.storage.names.intern(s)
    }

    /// An id written as text (`"stream 7"`): interned, never equal to a
    /// number.
    pub fn text_id(&mut self, s: &str) -> IdValue {
        IdValue::Text(self.intern(s))
    }

    /// An integer id beyond `i64`, as its exact digits.
    pub fn big_number_id(&mut self, digits: &str) -> IdValue {
        IdValue::BigNumber(self.intern(digits))
    }

    /// What happens to records of `class`: kept, added up, or dropped.
    /// A class the options' [`RecordSink`](crate::RecordSink) wants is
    /// [`Kept::Slice`] whatever the model keeps: the reader reads it whole.
    pub fn keeps(&self, class: SliceClass) -> Kept {
        if self.sink.as_ref().is_some_and(|s| s.wants(class)) {
            return Kept::Slice;
        }
        self.model_keeps(class)
    }

    fn model_keeps(&self, class: SliceClass) -> Kept {
        let device_side =
            class.is_runtime() || class.is_device() || class == SliceClass::GpuUserAnnotation;
        match (
            device_side,
            self.device_activity,
            self.host_ops,
            self.host_totals,
        ) {
            (true, true, _, _) | (false, _, true, _) => Kept::Slice,
            (false, _, false, true) => Kept::Total,
            _ => Kept::Nothing,
        }
    }

    /// Whether operation arguments are read: kept ([`ModelOptions::operation_args`])
    /// or wanted by the options' sink.
    pub fn keeps_operation_args(&self) -> bool {
        self.operation_args || self.sink.as_ref().is_some_and(|s| s.wants_operation_args())
    }

    /// Adds one record. Returns its position in [`TraceModel::slices`] when
    /// it is kept as a slice; a record only the options' sink takes gets
    /// the position it would have had (past the model's slices), which
    /// [`set_host_detail`](Self::set_host_detail) still takes for the sink.
    pub fn push_slice(&mut self, r: &SliceRecord<'_>) -> Option<usize> {
        let streamed = match self.sink.as_mut() {
            Some(sink) => sink.record(r, &self.storage.names),
            None => false,
        };
        match self.model_keeps(r.class) {
            Kept::Nothing if streamed => Some(self.storage.slices.len()),
            Kept::Nothing => None,
            Kept::Total => {
                self.add_host_total(r.class, r.name, r.category, r.dur_ns);
                streamed.then_some(self.storage.slices.len())
            }
            Kept::Slice => {
                let host_side = !r.class.is_device() && r.class != SliceClass::GpuUserAnnotation;
                let slice = Slice {
                    index: r.index,
                    class: r.class,
                    name: self.intern(r.name),
                    cat: self.intern(r.category),
                    pid: r.pid,
                    tid: r.tid,
                    process: r.process.or(if host_side { r.pid } else { None }),
                    ts_ns: r.ts_ns,
                    dur_ns: r.dur_ns,
                    correlation: r.correlation,
                    external_id: r.external_id,
                    device: r.device,
                    context: r.context,
                    stream: r.stream,
                };
                self.storage.slices.push(slice);
                Some(self.storage.slices.len() - 1)
            }
        }
    }

    /// Attaches shapes and XLA names to host slice `position` (a position
    /// [`push_slice`](Self::push_slice) returned). Empty details are not kept.
    pub fn set_host_detail(&mut self, position: usize, detail: HostDetail) {
        if detail.is_empty() {
            return;
        }
        if let Some(sink) = self.sink.as_mut() {
            sink.host_detail(&detail, &self.storage.names);
        }
        if position < self.storage.slices.len() {
            self.storage.host_details.insert(position, detail);
        }
    }

    /// Attaches what host operator `position` was called with, when the
    /// options keep it ([`ModelOptions::operation_args`]). Empty arguments
    /// are not kept.
    pub fn set_operation_args(&mut self, position: usize, args: OperationArgs) {
        if args.is_empty() {
            return;
        }
        if let Some(sink) = self.sink.as_mut() {
            sink.operation_args(&args, &self.storage.names);
        }
        if self.operation_args && position < self.storage.slices.len() {
            self.storage.op_args.insert(position, args);
        }
    }

    /// Notes an operation the capture could not place in time (no start),
    /// when operation arguments are kept: the first one is reported
    /// ([`TraceModel::first_untimed_operation`]).
    pub fn note_untimed_operation(&mut self, index: u64) {
        if self.operation_args && self.first_untimed_operation.is_none() {
            self.first_untimed_operation = Some(index);
        }
    }

    /// Adds one flow end, when flows are kept.
    pub fn push_flow(&mut self, f: &FlowRecord<'_>) {
        if !self.keep_flows {
            return;
        }
        let flow = FlowPoint {
            index: f.index,
            phase: f.phase,
            cat: self.intern(f.category),
            id: f.id,
            pid: f.pid,
            tid: f.tid,
            ts_ns: f.ts_ns,
        };
        self.storage.flows.push(flow);
    }

    fn add_host_total(&mut self, class: SliceClass, name: &str, cat: &str, dur_ns: i64) {
        let (name, cat) = (self.intern(name), self.intern(cat));
        let totals = &mut self.storage.totals;
        let i = *self
            .total_index
            .entry((name, cat, class))
            .or_insert_with(|| {
                totals.push(HostTotal {
                    class,
                    name,
                    cat,
                    count: 0,
                    counted_dur_ns: 0,
                });
                totals.len() - 1
            });
        let t = &mut totals[i];
        t.count += 1;
        t.counted_dur_ns = t.counted_dur_ns.saturating_add(dur_ns.max(0));
    }

    /// The model: the artifact named by `summary` and `spec`, each device
    /// slice's owning process settled, and the correlation indexes built.
    pub fn finish(mut self, summary: ReadSummary, spec: ArtifactSpec) -> TraceModel {
        let provider = spec.provider.unwrap_or(summary.provider);
        let storage = &mut self.storage;
        let artifact = Artifact {
            sha256: summary.sha256,
            format: summary.format,
            producer: summary.producer.clone(),
            provider,
            provider_detected: spec.provider.is_none(),
            role: spec.role,
            stage: spec.stage,
            clock_domain: format!("artifact:{}", summary.sha256),
            source: spec.source,
            source_root: spec.source_root.or_else(|| {
                // Host totals keep the order of first appearance, so the
                // first `<module>` frame among them is the first in the file.
                let python = storage
                    .slices
                    .iter()
                    .map(|s| (s.class, s.name))
                    .chain(storage.totals.iter().map(|t| (t.class, t.name)));
                frame::infer_source_root(python, |n| storage.names.get(n))
            }),
        };
        let mut launching = 0;
        if provider.correlation_namespace().is_some() {
            launching = join::settle_owners(&mut storage.slices);
            index_correlations(storage);
        }
        let model = TraceModel::new(
            artifact,
            summary,
            std::mem::take(&mut self.storage),
            launching,
            self.operation_args,
            self.first_untimed_operation,
        );
        if let Some(sink) = self.sink.take() {
            sink.finish(&model);
        }
        model
    }
}

/// Builds the (process, correlation) index of runtime calls and the
/// (process, External id) index of host work, and makes a launch of every
/// runtime call a kernel of its process correlates with.
fn index_correlations(storage: &mut ModelStorage) {
    let slices = &mut storage.slices;
    join::index_launches(slices, &mut storage.launches_by_correlation);
    storage.host_by_external_id.build(
        slices
            .iter()
            .enumerate()
            .filter(|(_, s)| classify::carries_host_external_id(s.class))
            .filter_map(|(i, s)| Some(((s.process?, s.external_id?), i))),
    );
    let proven = join::launched_by_kernels(slices, &storage.launches_by_correlation);
    for i in proven {
        if slices[i].class == SliceClass::Runtime {
            let name = storage.names.get(slices[i].name);
            let kind = classify::launch_kind(name).unwrap_or(LaunchKind::Direct);
            slices[i].class = SliceClass::Launch(kind);
        }
    }
}
