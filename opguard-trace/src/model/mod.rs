//! Model stage: what one trace artifact says, with every join qualified.
//!
//! A [`TraceModel`] is built from one file in the reader's single pass. It
//! keeps the events analyses need as compact records ([`Slice`],
//! [`FlowPoint`]) with interned names, and the [`Artifact`] they belong to.
//! Correlation is only ever joined inside one artifact, in the namespace its
//! [`Provider`] defines:
//!
//! - Kineto `args.correlation`: keyed by (artifact, correlation);
//! - Kineto `args["External id"]`: keyed by (artifact, host pid, External id);
//!   a device event takes the host pid of its proven launch;
//! - Kineto `ac2g` flows: keyed by (artifact, flow id).
//!
//! Two models are two artifacts: nothing here can join across them. Each
//! artifact is its own clock domain.

mod frame;
mod host;
mod provider;

pub use frame::{
    normalize_source_path, FrameIdentity, SemanticFrame, SemanticFrameId, SEMANTIC_FRAME_ID_PREFIX,
    SEMANTIC_FRAME_VERSION,
};
pub use host::{HostDetail, HostKind, OperationArgs, INDUCTOR_PLACEHOLDER, JAX_END_MARKER_PREFIX};
pub use provider::Provider;
pub(crate) use provider::ProviderDetector;

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::error::Error;
use crate::event::{Event, Scalar};
use crate::identity::{EventRef, Sha256Digest};
use crate::reader::{ReaderOptions, TraceReader, TraceSummary};

/// What the caller knows about an artifact that its content does not say.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ArtifactSpec {
    /// The artifact's role, e.g. `inference_profile`.
    pub role: Option<String>,
    /// The stage it captured, e.g. `prefill`, `decode`. Stages stay distinct.
    pub stage: Option<String>,
    /// Overrides provider detection.
    pub provider: Option<Provider>,
    /// Where the artifact came from (a path), for provenance.
    pub source: Option<String>,
    /// The project's source root: absolute Python frame paths under it
    /// become relative in semantic frames (see [`SemanticFrame::file`]).
    /// Inferred when absent.
    pub source_root: Option<String>,
}

impl ArtifactSpec {
    /// An empty spec: provider detected, no role or stage.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the role.
    pub fn role(mut self, role: impl Into<String>) -> Self {
        self.role = Some(role.into());
        self
    }
    /// Sets the stage.
    pub fn stage(mut self, stage: impl Into<String>) -> Self {
        self.stage = Some(stage.into());
        self
    }
    /// Overrides provider detection.
    pub fn provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }
    /// Records where the artifact came from.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }
    /// Sets the project's source root (see [`ArtifactSpec::source_root`]).
    pub fn source_root(mut self, root: impl Into<String>) -> Self {
        self.source_root = Some(root.into());
        self
    }
}

/// One trace file, as a unit of identity, provenance and time.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Artifact {
    /// SHA-256 of the file's bytes.
    pub sha256: Sha256Digest,
    /// Who wrote it.
    pub provider: Provider,
    /// Whether `provider` was detected (true) or given by the caller.
    pub provider_detected: bool,
    /// Role given by the caller.
    pub role: Option<String>,
    /// Stage given by the caller.
    pub stage: Option<String>,
    /// The clock domain its timestamps live in: one per artifact, because
    /// nothing in a trace file proves two files share a clock.
    pub clock_domain: String,
    /// Where it came from.
    pub source: Option<String>,
    /// The source root Python frame paths are made relative to: given, or
    /// inferred as the directory of the program's entry script (the file of
    /// the first `<module>` frame) when that path is absolute.
    pub source_root: Option<String>,
}

/// What kind of thing a slice is, from its category (and, for runtime calls,
/// its name and correlation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SliceClass {
    /// A host runtime/driver call that launched device work: its name is a
    /// kernel-launch API, or a device kernel is correlated with it.
    Launch(LaunchKind),
    /// Any other host runtime/driver call (memcpy API, sync, attribute...).
    Runtime,
    /// A device kernel.
    Kernel,
    /// A device memory copy.
    Memcpy,
    /// A device memory set.
    Memset,
    /// Other device activity (e.g. MTIA command-processor events).
    DeviceOther,
    /// A host operator (`cpu_op`).
    CpuOp,
    /// A host annotation (`user_annotation`, `record_function`).
    UserAnnotation,
    /// An annotation re-emitted on the device timeline
    /// (`gpu_user_annotation`): never evidence of host nesting.
    GpuUserAnnotation,
    /// A Python frame (`python_function`).
    PythonFunction,
    /// Anything else.
    Other,
}

impl SliceClass {
    /// Whether the slice is device activity (kernels, copies, sets, other).
    pub fn is_device(self) -> bool {
        matches!(
            self,
            SliceClass::Kernel | SliceClass::Memcpy | SliceClass::Memset | SliceClass::DeviceOther
        )
    }
    /// Whether the slice is a host runtime/driver call (launch or not).
    pub fn is_runtime(self) -> bool {
        matches!(self, SliceClass::Launch(_) | SliceClass::Runtime)
    }
}

/// Direct kernel launch or graph launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchKind {
    /// `cudaLaunchKernel`, `cuLaunchKernelEx`, `hipExtModuleLaunchKernel`...
    Direct,
    /// `cudaGraphLaunch`, `hipGraphLaunch`...: one launch, many kernels.
    Graph,
}

/// An interned string of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(u32);

/// A `pid`, `tid` or id value: integers inline, anything else interned.
/// Numbers and strings never compare equal (`7` is not `"7"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdValue {
    /// An integer within `i64`.
    Int(i64),
    /// A number beyond `i64`, as its exact text.
    BigNumber(NameId),
    /// A string.
    Text(NameId),
}

/// One complete (`ph: "X"`) event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// Its `traceEvents` index.
    pub index: u64,
    /// What it is.
    pub class: SliceClass,
    /// `name`.
    pub name: NameId,
    /// `cat`.
    pub cat: NameId,
    /// `pid`.
    pub pid: Option<IdValue>,
    /// `tid`.
    pub tid: Option<IdValue>,
    /// Start, nanoseconds in the artifact's clock domain.
    pub ts_ns: i64,
    /// Duration in nanoseconds.
    pub dur_ns: i64,
    /// `args.correlation`.
    pub correlation: Option<IdValue>,
    /// `args["External id"]`.
    pub external_id: Option<IdValue>,
    /// `args.device`.
    pub device: Option<IdValue>,
    /// `args.context`.
    pub context: Option<IdValue>,
    /// `args.stream`.
    pub stream: Option<IdValue>,
}

impl Slice {
    /// End in nanoseconds (`ts + dur`).
    pub fn end_ns(&self) -> i64 {
        self.ts_ns.saturating_add(self.dur_ns)
    }

    /// The duration every analysis adds up: `dur`, or 0 when it is negative
    /// (an event that ends before it starts adds no time anywhere; analyses
    /// count such slices instead).
    pub fn counted_dur_ns(&self) -> i64 {
        self.dur_ns.max(0)
    }

    /// `ts` plus [`Slice::counted_dur_ns`].
    pub fn counted_end_ns(&self) -> i64 {
        self.ts_ns.saturating_add(self.counted_dur_ns())
    }
}

/// Start or end of a flow arrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowPhase {
    /// `ph: "s"`.
    Start,
    /// `ph: "f"`.
    End,
}

/// One end of a flow (`ph` `s` or `f`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowPoint {
    /// Its `traceEvents` index.
    pub index: u64,
    /// Start or end.
    pub phase: FlowPhase,
    /// `cat` (Kineto's launch flows are `ac2g`).
    pub cat: NameId,
    /// `id`.
    pub id: IdValue,
    /// `pid`.
    pub pid: Option<IdValue>,
    /// `tid`.
    pub tid: Option<IdValue>,
    /// `ts` in nanoseconds.
    pub ts_ns: i64,
}

/// What a device slice's correlation proves about its launch
/// ([`TraceModel::launch_proof`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchProof<'m> {
    /// No host launch carries its correlation (or the provider defines no
    /// qualified namespace, or it carries none).
    Unproven,
    /// Exactly one host launch carries it: the slice's index.
    Proven(usize),
    /// Several host launches carry it (ids that collide inside one
    /// artifact, e.g. two host processes merged into one file): nothing is
    /// proven.
    Ambiguous(&'m [usize]),
}

impl LaunchProof<'_> {
    /// The proven launch, if exactly one.
    pub fn launch(self) -> Option<usize> {
        match self {
            LaunchProof::Proven(i) => Some(i),
            _ => None,
        }
    }
}

/// A qualified correlation key: which namespace, inside which artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CorrelationKey {
    /// Kineto `correlation`, per artifact.
    Correlation {
        /// The artifact.
        artifact: Sha256Digest,
        /// The id.
        correlation: IdValue,
    },
    /// Kineto `External id`, per artifact and host process.
    ExternalId {
        /// The artifact.
        artifact: Sha256Digest,
        /// The host process.
        pid: IdValue,
        /// The id.
        external_id: IdValue,
    },
    /// A flow id, per artifact.
    Flow {
        /// The artifact.
        artifact: Sha256Digest,
        /// The id.
        id: IdValue,
    },
}

/// What to keep while reading.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelOptions {
    /// Keep host operators, annotations and Python frames (select, scaling
    /// and align need them; launch regions do not).
    pub host_ops: bool,
    /// When host slices are not kept, still add them up per (name,
    /// category, class) into [`TraceModel::host_totals`]: a summary that
    /// needs their costs but not each slice stays as small as the launches.
    pub host_totals: bool,
    /// Also keep, for each host operator (`cpu_op`), the arguments that say
    /// what it was called with ([`OperationArgs`]: input types and strides,
    /// the legacy call stack, the sequence number; see
    /// [`TraceModel::operation_args`]), and note the first operator or Python
    /// frame without `ts` ([`TraceModel::first_untimed_operation`]). What
    /// operation records (opguard-align) need; off by default, so other
    /// models keep only [`HostDetail`]. Needs [`ModelOptions::host_ops`].
    pub operation_args: bool,
    /// Keep runtime calls, device activity, device-timeline annotations and
    /// flows (on by default). Off, the model holds host work only
    /// ([`ModelOptions::operations`]); their `ts` and `dur` are still read,
    /// so a trace fails where the full model fails, and the provider is
    /// still detected from every event.
    pub device_activity: bool,
    /// Keep flow points ([`TraceModel::flows`]; on by default, with
    /// [`ModelOptions::device_activity`]). Only the launch region's
    /// cross-check of correlation ids against `ac2g` flows reads them
    /// (`coverage.flow_correlated_kernel_count`, and the disagreement it
    /// explains): a summary that reports neither can leave them out. Their
    /// `ts` is still read, so a trace fails where the full model fails.
    pub flows: bool,
    /// Reader options.
    pub reader: ReaderOptions,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            host_ops: true,
            host_totals: false,
            operation_args: false,
            device_activity: true,
            flows: true,
            reader: ReaderOptions::default(),
        }
    }
}

impl ModelOptions {
    /// Keep everything, default reader limits.
    pub fn new() -> Self {
        Self::default()
    }
    /// Keep only runtime calls, device activity and flows: memory is bounded
    /// by launches and kernels, not by file size.
    pub fn launches_only() -> Self {
        ModelOptions {
            host_ops: false,
            ..Self::default()
        }
    }
    /// [`ModelOptions::launches_only`], plus the host slices' counts and
    /// durations per (name, category, class) in [`TraceModel::host_totals`].
    /// Every slice's `ts` and `dur` is still parsed, so a trace fails here
    /// exactly where [`ModelOptions::new`] fails.
    pub fn launches_and_host_totals() -> Self {
        ModelOptions {
            host_totals: true,
            ..Self::launches_only()
        }
    }
    /// Sets the reader options.
    pub fn reader(mut self, reader: ReaderOptions) -> Self {
        self.reader = reader;
        self
    }
    /// Sets [`ModelOptions::flows`].
    pub fn flows(mut self, on: bool) -> Self {
        self.flows = on;
        self
    }
    /// Host work with what operators were called with, and nothing of the
    /// device: [`ModelOptions::operation_args`] on,
    /// [`ModelOptions::device_activity`] off. What operation records
    /// (opguard-align's `records_from_model`) need; memory follows the host
    /// slices, not the kernels and runtime calls.
    pub fn operations() -> Self {
        ModelOptions {
            operation_args: true,
            device_activity: false,
            ..Self::default()
        }
    }
    /// Sets [`ModelOptions::operation_args`].
    ///
    /// ```
    /// use opguard_trace::model::{ArtifactSpec, ModelOptions, TraceModel};
    /// use opguard_trace::TraceReader;
    ///
    /// let trace = br#"{"traceEvents":[
    ///   {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2,
    ///    "args":{"Input Dims":[[2,3],[3,4]],"Input type":["float","float"],
    ///            "Sequence number":7}}]}"#;
    /// let options = ModelOptions::new().operation_args(true);
    /// let reader = TraceReader::new(&trace[..])?;
    /// let model = TraceModel::from_reader(reader, ArtifactSpec::new(), &options, &mut |_, _| {})?;
    /// let args = model.operation_args(0).expect("kept when asked");
    /// assert_eq!(args.input_types.map(|t| model.name(t)), Some(r#"["float","float"]"#));
    /// assert_eq!(args.sequence_number.map(|n| model.id_text(n)), Some("7".to_owned()));
    /// # Ok::<(), opguard_trace::Error>(())
    /// ```
    pub fn operation_args(mut self, on: bool) -> Self {
        self.operation_args = on;
        self
    }
}

/// The host slices of one (name, category, class), added up instead of kept
/// ([`ModelOptions::host_totals`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTotal {
    /// What the slices are (never runtime or device activity).
    pub class: SliceClass,
    /// `name`.
    pub name: NameId,
    /// `cat`.
    pub cat: NameId,
    /// Slices.
    pub count: u64,
    /// Sum of their [`Slice::counted_dur_ns`], saturating.
    pub counted_dur_ns: i64,
}

/// Slice positions by key: `positions` grouped by key (in file order within
/// a key), `keys[k]` the key of `positions[k]`, sorted. Two flat vectors
/// instead of a map of vectors: no allocation per key, about a third of the
/// memory, and their capacity is kept for the next model ([`ModelStorage`]).
#[derive(Debug, Clone)]
struct SliceIndex<K> {
    keys: Vec<K>,
    positions: Vec<usize>,
}

impl<K> Default for SliceIndex<K> {
    fn default() -> Self {
        SliceIndex {
            keys: Vec::new(),
            positions: Vec::new(),
        }
    }
}

impl<K: Ord + Copy> SliceIndex<K> {
    /// Indexes `(key, slice position)` pairs given in file order.
    fn build(&mut self, pairs: impl Iterator<Item = (K, usize)> + Clone) {
        // Counted first: collected into a growing vector, the pairs would
        // take up to twice their size, at the model's peak.
        let n = pairs.clone().count();
        let mut sorted: Vec<(K, usize)> = Vec::with_capacity(n);
        sorted.extend(pairs);
        // Positions are distinct, so this order is total: by key, then file
        // order.
        sorted.sort_unstable();
        self.clear();
        self.keys.reserve_exact(n);
        self.positions.reserve_exact(n);
        self.keys.extend(sorted.iter().map(|p| p.0));
        self.positions.extend(sorted.iter().map(|p| p.1));
    }

    /// The positions of `key`, in file order (empty when it has none).
    fn get(&self, key: &K) -> &[usize] {
        let start = self.keys.partition_point(|k| k < key);
        let len = self.keys[start..].partition_point(|k| k == key);
        &self.positions[start..start + len]
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.positions.clear();
    }
}

/// A map on the model's per-event path. foldhash instead of std's SipHash:
/// interning a name and finding a host total hashed at 190 and 255
/// instructions a key (a tenth of a job rank's read); seeded at random per
/// map, as std's is, so a crafted trace cannot pick the collisions.
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Distinct strings numbered in order of first sight: each is copied once,
/// lookups borrow. The model's names, and the analyses' own tallies.
#[derive(Debug, Default, Clone)]
pub(crate) struct Interner {
    map: FastMap<Box<str>, NameId>,
    list: Vec<Box<str>>,
}

impl Interner {
    pub(crate) fn intern(&mut self, s: &str) -> NameId {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = NameId(self.list.len() as u32);
        self.list.push(s.into());
        self.map.insert(s.into(), id);
        id
    }
    pub(crate) fn get(&self, id: NameId) -> &str {
        self.list.get(id.0 as usize).map_or("", |s| s)
    }
    /// Forgets every string, keeping the table's and the list's capacity.
    fn clear(&mut self) {
        self.map.clear();
        self.list.clear();
    }
}

/// The buffers a model keeps its events and indexes in, empty, for the next
/// model read on the same thread ([`TraceModel::read_reusing`],
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
/// use opguard_trace::model::{ArtifactSpec, ModelOptions, ModelStorage, TraceModel};
/// use opguard_trace::TraceReader;
///
/// let trace = br#"{"traceEvents":[
///   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1,"dur":2}]}"#;
/// let mut storage = ModelStorage::new();
/// for _ in 0..2 {
///     let reader = TraceReader::new(&trace[..])?;
///     let options = ModelOptions::launches_only();
///     let model =
///         TraceModel::from_reader_reusing(reader, ArtifactSpec::new(), &options, &mut |_, _| {}, &mut storage)?;
///     assert_eq!(model.slices().len(), 1);
///     storage = model.into_storage();
/// }
/// # Ok::<(), opguard_trace::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct ModelStorage {
    names: Interner,
    slices: Vec<Slice>,
    flows: Vec<FlowPoint>,
    totals: Vec<HostTotal>,
    host_details: HashMap<usize, HostDetail>,
    op_args: HashMap<usize, OperationArgs>,
    launches_by_correlation: SliceIndex<IdValue>,
    host_by_external_id: SliceIndex<(IdValue, IdValue)>,
}

impl ModelStorage {
    /// No buffers yet: the first model read into it grows them.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties every buffer, keeping its capacity.
    fn clear(&mut self) {
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

/// One artifact's events, classified and indexed for qualified joins.
#[derive(Debug, Clone)]
pub struct TraceModel {
    artifact: Artifact,
    summary: TraceSummary,
    names: Interner,
    slices: Vec<Slice>,
    flows: Vec<FlowPoint>,
    /// Runtime slices by correlation (only for Kineto providers).
    launches_by_correlation: SliceIndex<IdValue>,
    /// Host slices by (pid, External id) (only for Kineto providers).
    host_by_external_id: SliceIndex<(IdValue, IdValue)>,
    /// The host process, when exactly one process made runtime calls or ran
    /// operators.
    sole_host_pid: Option<IdValue>,
    /// Shapes and XLA names of host slices, by slice position (only slices
    /// that carry any).
    host_details: HashMap<usize, HostDetail>,
    /// Host slices added up instead of kept, in order of first appearance.
    host_totals: Vec<HostTotal>,
    /// Whether [`ModelOptions::operation_args`] asked for `operation_args`.
    keeps_operation_args: bool,
    /// What operators were called with, by slice position (only operators
    /// that carry any, only when asked).
    operation_args: HashMap<usize, OperationArgs>,
    /// See [`TraceModel::first_untimed_operation`].
    first_untimed_operation: Option<u64>,
}

/// A progress callback: `(encoded bytes read, decoded bytes read)`.
pub type Progress<'p> = &'p mut dyn FnMut(u64, u64);

impl TraceModel {
    /// Reads a trace file into a model.
    pub fn read(
        path: impl AsRef<Path>,
        spec: ArtifactSpec,
        options: &ModelOptions,
    ) -> Result<TraceModel, Error> {
        Self::read_with_progress(path, spec, options, &mut |_, _| {})
    }

    /// Reads a trace file into a model, calling `progress` every few MB.
    pub fn read_with_progress(
        path: impl AsRef<Path>,
        mut spec: ArtifactSpec,
        options: &ModelOptions,
        progress: Progress<'_>,
    ) -> Result<TraceModel, Error> {
        let path = path.as_ref();
        if spec.source.is_none() {
            spec.source = Some(path.display().to_string());
        }
        let reader = TraceReader::open_with(path, options.reader.clone())?;
        Self::from_reader(reader, spec, options, progress)
    }

    /// Builds a model from an open reader.
    pub fn from_reader<R: Read>(
        reader: TraceReader<R>,
        spec: ArtifactSpec,
        options: &ModelOptions,
        progress: Progress<'_>,
    ) -> Result<TraceModel, Error> {
        Self::from_reader_reusing(reader, spec, options, progress, &mut ModelStorage::new())
    }

    /// [`TraceModel::read`], into the buffers of `storage` (taken out of it:
    /// [`TraceModel::into_storage`] gives them back; on an error they are
    /// back in `storage`, empty).
    pub fn read_reusing(
        path: impl AsRef<Path>,
        mut spec: ArtifactSpec,
        options: &ModelOptions,
        storage: &mut ModelStorage,
    ) -> Result<TraceModel, Error> {
        let path = path.as_ref();
        if spec.source.is_none() {
            spec.source = Some(path.display().to_string());
        }
        let reader = TraceReader::open_with(path, options.reader.clone())?;
        Self::from_reader_reusing(reader, spec, options, &mut |_, _| {}, storage)
    }

    /// [`TraceModel::from_reader`], into the buffers of `storage` (see
    /// [`TraceModel::read_reusing`]).
    pub fn from_reader_reusing<R: Read>(
        mut reader: TraceReader<R>,
        spec: ArtifactSpec,
        options: &ModelOptions,
        progress: Progress<'_>,
        storage: &mut ModelStorage,
    ) -> Result<TraceModel, Error> {
        let mut b = Builder::new(options, std::mem::take(storage));
        let mut next_report = 0u64;
        let read = loop {
            let e = match reader.next_event() {
                Ok(Some(e)) => e,
                Ok(None) => break reader.finish(),
                Err(err) => break Err(err),
            };
            if let Err(err) = b.observe(&e) {
                break Err(err);
            }
            if reader.decoded_bytes() >= next_report {
                progress(reader.encoded_bytes(), reader.decoded_bytes());
                next_report = reader.decoded_bytes() + (4 << 20);
            }
        };
        match read {
            Ok(summary) => {
                progress(summary.encoded_bytes, summary.decoded_bytes);
                Ok(b.finish(summary, spec))
            }
            Err(err) => {
                *storage = b.into_storage();
                Err(err)
            }
        }
    }

    /// Gives the model's buffers back, empty, for the next model read on
    /// this thread ([`TraceModel::read_reusing`]).
    pub fn into_storage(self) -> ModelStorage {
        let mut storage = ModelStorage {
            names: self.names,
            slices: self.slices,
            flows: self.flows,
            totals: self.host_totals,
            host_details: self.host_details,
            op_args: self.operation_args,
            launches_by_correlation: self.launches_by_correlation,
            host_by_external_id: self.host_by_external_id,
        };
        storage.clear();
        storage
    }

    /// The artifact.
    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }
    /// What the reader established (digest, sizes, metadata).
    pub fn summary(&self) -> &TraceSummary {
        &self.summary
    }
    /// Complete events kept, in file order.
    pub fn slices(&self) -> &[Slice] {
        &self.slices
    }
    /// Flow points kept, in file order.
    pub fn flows(&self) -> &[FlowPoint] {
        &self.flows
    }
    /// Host slices added up instead of kept, in order of first appearance
    /// (empty unless [`ModelOptions::host_totals`] asked for them).
    pub fn host_totals(&self) -> &[HostTotal] {
        &self.host_totals
    }
    /// An interned string.
    pub fn name(&self, id: NameId) -> &str {
        self.names.get(id)
    }
    /// Looks up an interned string without adding it.
    pub fn find_name(&self, s: &str) -> Option<NameId> {
        self.names.map.get(s).copied()
    }
    /// Text of an id value (numbers as written).
    pub fn id_text(&self, v: IdValue) -> String {
        match v {
            IdValue::Int(i) => i.to_string(),
            IdValue::BigNumber(n) | IdValue::Text(n) => self.name(n).to_owned(),
        }
    }
    /// The occurrence id of a slice: artifact digest plus event index.
    pub fn occurrence(&self, slice: &Slice) -> EventRef {
        EventRef {
            artifact: self.artifact.sha256,
            index: slice.index,
        }
    }

    fn qualified(&self) -> bool {
        self.artifact.provider.is_kineto()
    }

    /// The qualified correlation key of a slice, if its provider defines the
    /// namespace and the slice carries an id.
    pub fn correlation_key(&self, slice: &Slice) -> Option<CorrelationKey> {
        if !self.qualified() {
            return None;
        }
        Some(CorrelationKey::Correlation {
            artifact: self.artifact.sha256,
            correlation: slice.correlation?,
        })
    }

    /// The host process a slice's External id lives in: its own pid for
    /// host slices; for device slices the pid of its proven launch, or the
    /// artifact's only host process. `None` when that cannot be proven.
    pub fn external_id_key(&self, slice_index: usize) -> Option<CorrelationKey> {
        if !self.qualified() {
            return None;
        }
        let slice = self.slices.get(slice_index)?;
        let external_id = slice.external_id?;
        let pid = if slice.class.is_device() || slice.class == SliceClass::GpuUserAnnotation {
            let launches = self.launches_for(slice_index);
            let mut pids = launches.iter().filter_map(|&l| self.slices[l].pid);
            match pids.next() {
                Some(p) if pids.all(|q| q == p) => p,
                Some(_) => return None,
                None => self.sole_host_pid?,
            }
        } else {
            slice.pid?
        };
        Some(CorrelationKey::ExternalId {
            artifact: self.artifact.sha256,
            pid,
            external_id,
        })
    }

    /// Host runtime slices proven to have launched device slice
    /// `slice_index` through `correlation` (empty when unproven).
    pub fn launches_for(&self, slice_index: usize) -> &[usize] {
        let Some(slice) = self.slices.get(slice_index) else {
            return &[];
        };
        if !self.qualified() || !slice.class.is_device() {
            return &[];
        }
        slice
            .correlation
            .map_or(&[], |c| self.launches_by_correlation.get(&c))
    }

    /// Whether device slice `slice_index`'s correlation proves its launch.
    ///
    /// The one rule every analysis shares: a Kineto correlation is keyed per
    /// artifact only, so in a merged file launches from two host processes
    /// (or two captures of one) can carry the same id. An id that names
    /// exactly one host launch proves it; an id that names several proves
    /// nothing for its kernels — they are [`LaunchProof::Ambiguous`], never
    /// counted as correlated.
    pub fn launch_proof(&self, slice_index: usize) -> LaunchProof<'_> {
        match self.launches_for(slice_index) {
            [] => LaunchProof::Unproven,
            [one] => LaunchProof::Proven(*one),
            several => LaunchProof::Ambiguous(several),
        }
    }

    /// Host slices (operators, annotations, runtime calls) sharing slice
    /// `slice_index`'s qualified External id.
    pub fn host_slices_for_external_id(&self, slice_index: usize) -> &[usize] {
        match self.external_id_key(slice_index) {
            Some(CorrelationKey::ExternalId {
                pid, external_id, ..
            }) => self.host_by_external_id.get(&(pid, external_id)),
            _ => &[],
        }
    }

    /// The semantic frame of a slice (see [`SemanticFrame`]).
    pub fn semantic_frame(&self, slice: &Slice) -> SemanticFrame {
        self.semantic_frame_of(slice.class, slice.name, slice.cat)
    }

    /// The semantic frame of any slice of this class, name and category: a
    /// frame depends on nothing else, so a [`HostTotal`] has one too.
    pub fn semantic_frame_of(&self, class: SliceClass, name: NameId, cat: NameId) -> SemanticFrame {
        frame::semantic_frame(self, class, name, cat)
    }

    /// What slice `slice_index` is as host work (see [`HostKind`]).
    pub fn host_kind(&self, slice_index: usize) -> HostKind {
        host::host_kind(self, slice_index)
    }

    /// The shapes and XLA names slice `slice_index` carries, if any.
    pub fn host_detail(&self, slice_index: usize) -> Option<&HostDetail> {
        self.host_details.get(&slice_index)
    }

    /// Whether the model was read with [`ModelOptions::operation_args`] (and
    /// host operators): without it [`TraceModel::operation_args`] is always
    /// `None`.
    pub fn keeps_operation_args(&self) -> bool {
        self.keeps_operation_args
    }

    /// What host operator `slice_index` (a `cpu_op`) was called with, when
    /// the model keeps it ([`ModelOptions::operation_args`]) and the
    /// operator carries any of it.
    pub fn operation_args(&self, slice_index: usize) -> Option<&OperationArgs> {
        self.operation_args.get(&slice_index)
    }

    /// The `traceEvents` index of the first `cpu_op` or `python_function`
    /// complete event without `ts`, which the model leaves out (noted only
    /// with [`ModelOptions::operation_args`]): an operation that cannot be
    /// placed, so records derived from the model would silently lack it.
    pub fn first_untimed_operation(&self) -> Option<u64> {
        self.first_untimed_operation
    }

    /// `distributedInfo.rank`, the rank a distributed job's trace states:
    /// `Ok(None)` when there is no `distributedInfo` or it has no `rank`;
    /// `Err` with the value's JSON text when it is not a non-negative
    /// integer within `u32`.
    ///
    /// ```
    /// use opguard_trace::model::{ArtifactSpec, ModelOptions, TraceModel};
    /// use opguard_trace::TraceReader;
    ///
    /// let rank = |trace: &[u8]| {
    ///     let reader = TraceReader::new(trace)?;
    ///     let options = ModelOptions::launches_only();
    ///     let model = TraceModel::from_reader(reader, ArtifactSpec::new(), &options, &mut |_, _| {})?;
    ///     Ok::<_, opguard_trace::Error>(model.distributed_rank())
    /// };
    /// assert_eq!(rank(br#"{"distributedInfo":{"rank":3},"traceEvents":[]}"#)?, Ok(Some(3)));
    /// assert_eq!(rank(br#"{"traceEvents":[]}"#)?, Ok(None));
    /// assert_eq!(rank(br#"{"distributedInfo":{"rank":-1},"traceEvents":[]}"#)?, Err("-1".into()));
    /// # Ok::<(), opguard_trace::Error>(())
    /// ```
    pub fn distributed_rank(&self) -> Result<Option<u32>, String> {
        let Some(info) = self.summary.metadata.get_json("distributedInfo") else {
            return Ok(None);
        };
        match info.get("rank") {
            None => Ok(None),
            Some(r) => r
                .as_u64()
                .and_then(|r| u32::try_from(r).ok())
                .map(Some)
                .ok_or_else(|| r.to_string()),
        }
    }

    /// The host operators (`cpu_op` slices) in start order: by `ts`, longer
    /// `dur` first (an enclosing operator before what it encloses), then
    /// file order. Positions into [`TraceModel::slices`].
    pub fn operations_in_start_order(&self) -> Vec<usize> {
        host::operations_in_start_order(self)
    }

    /// For each slice position in `operations`, the Python frames
    /// (`python_function` slices) of its own (pid, tid) that enclose it,
    /// innermost first: a frame encloses a slice when it starts at or before
    /// it and ends after it starts. `result[k]` belongs to `operations[k]`.
    ///
    /// ```
    /// use opguard_trace::model::{ArtifactSpec, ModelOptions, TraceModel};
    /// use opguard_trace::TraceReader;
    ///
    /// let trace = br#"{"traceEvents":[
    ///   {"ph":"X","cat":"python_function","name":"train.py(3): <module>","pid":1,"tid":1,"ts":0,"dur":50},
    ///   {"ph":"X","cat":"python_function","name":"model.py(12): forward","pid":1,"tid":1,"ts":10,"dur":20},
    ///   {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":40,"dur":1},
    ///   {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":15,"dur":2}]}"#;
    /// let reader = TraceReader::new(&trace[..])?;
    /// let model =
    ///     TraceModel::from_reader(reader, ArtifactSpec::new(), &ModelOptions::new(), &mut |_, _| {})?;
    /// let operations = model.operations_in_start_order();
    /// let names = |positions: &[usize]| -> Vec<&str> {
    ///     positions.iter().map(|&p| model.name(model.slices()[p].name)).collect()
    /// };
    /// assert_eq!(names(&operations), ["aten::mm", "aten::relu"]);
    /// let stacks = model.python_stacks(&operations);
    /// assert_eq!(names(&stacks[0]), ["model.py(12): forward", "train.py(3): <module>"]);
    /// assert_eq!(names(&stacks[1]), ["train.py(3): <module>"]);
    /// # Ok::<(), opguard_trace::Error>(())
    /// ```
    pub fn python_stacks(&self, operations: &[usize]) -> Vec<Vec<usize>> {
        host::python_stacks(self, operations)
    }

    /// Every slice's self time in nanoseconds, by slice position: its
    /// counted duration minus the union of the slices of its own thread
    /// that start inside it, clipped to its end. Device slices, runtime
    /// calls and markers get 0.
    pub fn host_self_times(&self) -> Vec<i64> {
        host::host_self_times(self)
    }
}

struct Builder {
    host_ops: bool,
    device_activity: bool,
    host_totals: bool,
    operation_args: bool,
    keep_flows: bool,
    op_args: HashMap<usize, OperationArgs>,
    first_untimed_operation: Option<u64>,
    names: Interner,
    slices: Vec<Slice>,
    host_details: HashMap<usize, HostDetail>,
    flows: Vec<FlowPoint>,
    detector: ProviderDetector,
    empty: NameId,
    totals: Vec<HostTotal>,
    total_index: FastMap<(NameId, NameId, SliceClass), usize>,
    /// Empty until [`Builder::finish`] fills them; kept from the storage.
    launches_by_correlation: SliceIndex<IdValue>,
    host_by_external_id: SliceIndex<(IdValue, IdValue)>,
}

fn runtime_category(cat: &str) -> bool {
    matches!(
        cat,
        "cuda_runtime" | "cuda_driver" | "hip_runtime" | "hip_driver" | "mtia_runtime"
    ) || cat.eq_ignore_ascii_case("runtime")
}

/// The launch kind a runtime call's name announces, if any. A call whose
/// name is not listed still becomes a launch when a kernel correlates with
/// it, so new APIs do not orphan kernels.
pub(crate) fn launch_kind_from_name(name: &str) -> Option<LaunchKind> {
    if name.contains("GraphLaunch") {
        Some(LaunchKind::Graph)
    } else if name.contains("LaunchKernel")
        || name.contains("LaunchCooperativeKernel")
        || name.starts_with("cuLaunch")
        || name.starts_with("hipLaunch")
        || name.contains("ModuleLaunch")
    {
        Some(LaunchKind::Direct)
    } else {
        None
    }
}

fn classify(cat: &str, name: &str) -> SliceClass {
    if runtime_category(cat) {
        return match launch_kind_from_name(name) {
            Some(kind) => SliceClass::Launch(kind),
            None => SliceClass::Runtime,
        };
    }
    match cat {
        "gpu_memcpy" => SliceClass::Memcpy,
        "gpu_memset" => SliceClass::Memset,
        "cpu_op" => SliceClass::CpuOp,
        "user_annotation" => SliceClass::UserAnnotation,
        "gpu_user_annotation" => SliceClass::GpuUserAnnotation,
        "python_function" => SliceClass::PythonFunction,
        "mtia_ccp_events" => SliceClass::DeviceOther,
        c if c.eq_ignore_ascii_case("kernel") => SliceClass::Kernel,
        _ => SliceClass::Other,
    }
}

impl Builder {
    /// A builder filling `storage`'s buffers (empty ones).
    fn new(options: &ModelOptions, mut storage: ModelStorage) -> Self {
        storage.clear();
        let mut names = storage.names;
        let empty = names.intern("");
        Builder {
            host_ops: options.host_ops,
            device_activity: options.device_activity,
            host_totals: options.host_totals && !options.host_ops,
            operation_args: options.operation_args && options.host_ops,
            keep_flows: options.flows && options.device_activity,
            op_args: storage.op_args,
            first_untimed_operation: None,
            names,
            slices: storage.slices,
            host_details: storage.host_details,
            flows: storage.flows,
            detector: ProviderDetector::new(),
            empty,
            totals: storage.totals,
            total_index: FastMap::default(),
            launches_by_correlation: storage.launches_by_correlation,
            host_by_external_id: storage.host_by_external_id,
        }
    }

    /// The buffers back, empty, when the read failed.
    fn into_storage(self) -> ModelStorage {
        let mut storage = ModelStorage {
            names: self.names,
            slices: self.slices,
            flows: self.flows,
            totals: self.totals,
            host_details: self.host_details,
            op_args: self.op_args,
            launches_by_correlation: self.launches_by_correlation,
            host_by_external_id: self.host_by_external_id,
        };
        storage.clear();
        storage
    }

    fn add_host_total(&mut self, class: SliceClass, name: &str, cat: &str, dur_ns: i64) {
        let (name, cat) = (self.names.intern(name), self.names.intern(cat));
        let totals = &mut self.totals;
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

    fn id(&mut self, v: Option<Scalar<'_>>) -> Option<IdValue> {
        Some(match v? {
            Scalar::Number(n) => match n.as_i64() {
                Some(i) => IdValue::Int(i),
                None => IdValue::BigNumber(self.names.intern(n.as_str())),
            },
            Scalar::String(s) => IdValue::Text(self.names.intern(&s.as_cow())),
        })
    }

    fn host_detail(&mut self, e: &Event<'_>, class: SliceClass) -> HostDetail {
        let mut text = |v: Option<crate::event::Value<'_>>| {
            let v = v?;
            let owned = v
                .as_str()
                .map_or_else(|| v.raw().to_owned(), |s| s.into_owned());
            Some(self.names.intern(&owned))
        };
        // Only slices of no known category can be XLA's: a `cpu_op`'s args
        // are not searched for HLO names.
        let xla = class == SliceClass::Other;
        HostDetail {
            input_dims: text(e.input_dims()),
            hlo_op: if xla { text(e.arg("hlo_op")) } else { None },
            hlo_module: if xla { text(e.arg("hlo_module")) } else { None },
        }
    }

    fn operation_args_of(&mut self, e: &Event<'_>) -> OperationArgs {
        // As written: records tell an array from a string that looks like one.
        let mut raw = |v: Option<crate::event::Value<'_>>| Some(self.names.intern(v?.raw()));
        let input_dims = raw(e.input_dims());
        let input_types = raw(e.input_type());
        let input_strides = raw(e.arg("Input Strides"));
        let call_stack = e
            .arg("Call stack")
            .and_then(|v| v.as_str())
            .map(|s| self.names.intern(&s));
        OperationArgs {
            input_dims,
            input_types,
            input_strides,
            call_stack,
            sequence_number: self.id(e.sequence_number()),
        }
    }

    fn observe(&mut self, e: &Event<'_>) -> Result<(), Error> {
        self.detector.observe(e);
        let Some(ph) = e.ph() else { return Ok(()) };
        match ph.raw() {
            "X" => {
                let cat = e.cat().map(|c| c.as_cow());
                let cat = cat.as_deref().unwrap_or("");
                let name = e.name().map(|n| n.as_cow());
                let name = name.as_deref().unwrap_or("");
                let class = classify(cat, name);
                let device_side = class.is_runtime()
                    || class.is_device()
                    || class == SliceClass::GpuUserAnnotation;
                let keep = if device_side {
                    self.device_activity
                } else {
                    self.host_ops
                };
                // Left-out device work is still timed, so a model fails
                // where the full model fails.
                if !keep && !device_side && !self.host_totals {
                    return Ok(());
                }
                let ts = e.ts_ns().map_err(|err| number_error(e, err))?;
                let dur = e.dur_ns().map_err(|err| number_error(e, err))?;
                let (Some(ts_ns), dur_ns) = (ts, dur.unwrap_or(0)) else {
                    let operation = matches!(class, SliceClass::CpuOp | SliceClass::PythonFunction);
                    if self.operation_args && operation && self.first_untimed_operation.is_none() {
                        self.first_untimed_operation = Some(e.index());
                    }
                    return Ok(());
                };
                if !keep {
                    if !device_side {
                        self.add_host_total(class, name, cat, dur_ns);
                    }
                    return Ok(());
                }
                let args = e.launch_args();
                let slice = Slice {
                    index: e.index(),
                    class,
                    name: self.names.intern(name),
                    cat: self.names.intern(cat),
                    pid: self.id(e.pid()),
                    tid: self.id(e.tid()),
                    ts_ns,
                    dur_ns,
                    correlation: self.id(args.correlation),
                    external_id: self.id(args.external_id),
                    device: self.id(args.device),
                    context: self.id(args.context),
                    stream: self.id(args.stream),
                };
                if self.host_ops && !class.is_device() && !class.is_runtime() {
                    let detail = self.host_detail(e, class);
                    if !detail.is_empty() {
                        self.host_details.insert(self.slices.len(), detail);
                    }
                }
                if self.operation_args && class == SliceClass::CpuOp {
                    let args = self.operation_args_of(e);
                    if !args.is_empty() {
                        self.op_args.insert(self.slices.len(), args);
                    }
                }
                self.slices.push(slice);
            }
            p @ ("s" | "f") => {
                let (Some(ts), Some(id)) = (e.ts_ns().map_err(|err| number_error(e, err))?, e.id())
                else {
                    return Ok(());
                };
                if !self.keep_flows {
                    return Ok(());
                }
                let cat = e.cat().map(|c| c.as_cow());
                let flow = FlowPoint {
                    index: e.index(),
                    phase: if p == "s" {
                        FlowPhase::Start
                    } else {
                        FlowPhase::End
                    },
                    cat: cat.as_deref().map_or(self.empty, |c| self.names.intern(c)),
                    id: self.id(Some(id)).unwrap_or(IdValue::Int(0)),
                    pid: self.id(e.pid()),
                    tid: self.id(e.tid()),
                    ts_ns: ts,
                };
                self.flows.push(flow);
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(mut self, summary: TraceSummary, spec: ArtifactSpec) -> TraceModel {
        let detected = self.detector.provider(&summary.metadata);
        let provider = spec.provider.unwrap_or(detected);
        let artifact = Artifact {
            sha256: summary.sha256,
            provider,
            provider_detected: spec.provider.is_none(),
            role: spec.role,
            stage: spec.stage,
            clock_domain: format!("artifact:{}", summary.sha256),
            source: spec.source,
            source_root: spec.source_root.or_else(|| {
                // Host totals keep the order of first appearance, so the
                // first `<module>` frame among them is the first in the file.
                let python = self
                    .slices
                    .iter()
                    .map(|s| (s.class, s.name))
                    .chain(self.totals.iter().map(|t| (t.class, t.name)));
                frame::infer_source_root(python, |n| self.names.get(n))
            }),
        };
        let mut launches_by_correlation = std::mem::take(&mut self.launches_by_correlation);
        let mut host_by_external_id = std::mem::take(&mut self.host_by_external_id);
        let mut host_pids: Vec<IdValue> = Vec::new();
        if provider.is_kineto() {
            let host = |s: &Slice| {
                s.class.is_runtime()
                    || matches!(s.class, SliceClass::CpuOp | SliceClass::UserAnnotation)
            };
            for pid in self.slices.iter().filter(|s| host(s)).filter_map(|s| s.pid) {
                if !host_pids.contains(&pid) {
                    host_pids.push(pid);
                    if host_pids.len() == 2 {
                        break;
                    }
                }
            }
            let positioned = self.slices.iter().enumerate();
            launches_by_correlation.build(
                positioned
                    .clone()
                    .filter(|(_, s)| s.class.is_runtime())
                    .filter_map(|(i, s)| Some((s.correlation?, i))),
            );
            host_by_external_id.build(
                positioned
                    .filter(|(_, s)| host(s))
                    .filter_map(|(i, s)| Some(((s.pid?, s.external_id?), i))),
            );
            // A runtime call a kernel correlates with is a launch, whatever
            // its name.
            let proven: Vec<usize> = self
                .slices
                .iter()
                .filter(|s| s.class == SliceClass::Kernel)
                .filter_map(|s| s.correlation)
                .flat_map(|c| launches_by_correlation.get(&c))
                .copied()
                .collect();
            for i in proven {
                if self.slices[i].class == SliceClass::Runtime {
                    self.slices[i].class = SliceClass::Launch(LaunchKind::Direct);
                }
            }
        }
        TraceModel {
            artifact,
            summary,
            names: self.names,
            slices: self.slices,
            flows: self.flows,
            launches_by_correlation,
            host_by_external_id,
            sole_host_pid: (host_pids.len() == 1).then(|| host_pids[0]),
            host_details: self.host_details,
            host_totals: self.totals,
            keeps_operation_args: self.operation_args,
            operation_args: self.op_args,
            first_untimed_operation: self.first_untimed_operation,
        }
    }
}

fn number_error(e: &Event<'_>, err: crate::NumberError) -> Error {
    Error::new(crate::ErrorKind::Number(err))
        .at(e.offset())
        .in_event(Some(e.index()))
}
