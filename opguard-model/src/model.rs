//! Model stage: one artifact's records, classified and indexed for
//! qualified joins.
//!
//! A [`TraceModel`] is what a reader builds ([`crate::ModelBuilder`]) from
//! one capture: the records analyses need as compact [`Slice`]s and
//! [`FlowPoint`]s with interned names, and the [`Artifact`] they belong to.
//! Correlation is only ever joined inside one artifact and one process, in
//! the namespace the artifact's provider defines (the table in
//! [`crate::provider`]). Two models are two artifacts: nothing here can join
//! across them, and each is its own clock domain.

use std::collections::HashMap;

use crate::artifact::{Artifact, ReadSummary};
use crate::builder::ModelStorage;
use crate::frame::{self, SemanticFrame};
use crate::host::{self, HostDetail, HostKind, OperationArgs};
use crate::identity::EventRef;
use crate::index::{Interner, SliceIndex};
use crate::join;
use crate::slice::{
    CorrelationKey, FlowPoint, HostTotal, IdValue, LaunchProof, NameId, Slice, SliceClass, Unproven,
};

#[cfg(doc)]
use crate::ModelOptions;

/// One artifact's events, classified and indexed for qualified joins.
#[derive(Debug, Clone)]
pub struct TraceModel {
    artifact: Artifact,
    summary: ReadSummary,
    names: Interner,
    slices: Vec<Slice>,
    flows: Vec<FlowPoint>,
    /// Runtime slices by (process, correlation) (only for providers with a
    /// namespace).
    launches_by_correlation: SliceIndex<(IdValue, IdValue)>,
    /// Host slices by (process, External id) (likewise).
    host_by_external_id: SliceIndex<(IdValue, IdValue)>,
    /// How many processes made runtime calls: 0, 1, or 2 for several.
    launching_processes: usize,
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
    pub(crate) fn new(
        artifact: Artifact,
        summary: ReadSummary,
        storage: ModelStorage,
        launching_processes: usize,
        keeps_operation_args: bool,
        first_untimed_operation: Option<u64>,
    ) -> TraceModel {
        TraceModel {
            artifact,
            summary,
            names: storage.names,
            slices: storage.slices,
            flows: storage.flows,
            launches_by_correlation: storage.launches_by_correlation,
            host_by_external_id: storage.host_by_external_id,
            launching_processes,
            host_details: storage.host_details,
            host_totals: storage.totals,
            keeps_operation_args,
            operation_args: storage.op_args,
            first_untimed_operation,
        }
    }

    /// Gives the model's buffers back, empty, for the next model read on
    /// this thread ([`crate::ModelBuilder::reusing`]).
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
    /// What the reader established (digest, format, sizes, metadata,
    /// warnings).
    pub fn summary(&self) -> &ReadSummary {
        &self.summary
    }
    /// Timed records kept, in occurrence order.
    pub fn slices(&self) -> &[Slice] {
        &self.slices
    }
    /// Flow points kept, in occurrence order.
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
        self.names.find(s)
    }
    /// Text of an id value (numbers as written).
    pub fn id_text(&self, v: IdValue) -> String {
        match v {
            IdValue::Int(i) => i.to_string(),
            IdValue::BigNumber(n) | IdValue::Text(n) => self.name(n).to_owned(),
        }
    }
    /// The occurrence id of a slice: artifact digest plus occurrence index.
    pub fn occurrence(&self, slice: &Slice) -> EventRef {
        EventRef {
            artifact: self.artifact.sha256,
            index: slice.index,
        }
    }

    fn qualified(&self) -> bool {
        self.artifact.provider.correlation_namespace().is_some()
    }

    /// How many processes made runtime calls in this artifact: 0, 1, or 2
    /// meaning several. With several, device records whose owning process
    /// the capture does not state have none ([`Slice::process`]).
    pub fn launching_processes(&self) -> usize {
        self.launching_processes
    }

    /// The qualified correlation key of a slice: its provider defines the
    /// namespace, and the slice carries an id and an established process.
    pub fn correlation_key(&self, slice: &Slice) -> Option<CorrelationKey> {
        if !self.qualified() {
            return None;
        }
        Some(CorrelationKey::Correlation {
            artifact: self.artifact.sha256,
            process: slice.process?,
            correlation: slice.correlation?,
        })
    }

    /// The qualified External-id key of a slice: (artifact, its owning
    /// process, External id). `None` when the provider defines no
    /// namespace, the slice carries no id, or its process is not
    /// established.
    pub fn external_id_key(&self, slice_index: usize) -> Option<CorrelationKey> {
        if !self.qualified() {
            return None;
        }
        let slice = self.slices.get(slice_index)?;
        Some(CorrelationKey::ExternalId {
            artifact: self.artifact.sha256,
            pid: slice.process?,
            external_id: slice.external_id?,
        })
    }

    /// Host runtime slices of its own process carrying device slice
    /// `slice_index`'s correlation id (empty when there are none or nothing
    /// can be proven: see [`TraceModel::launch_proof`]).
    pub fn launches_for(&self, slice_index: usize) -> &[usize] {
        match self.launch_candidates(slice_index) {
            Ok(launches) => launches,
            Err(_) => &[],
        }
    }

    fn launch_candidates(&self, slice_index: usize) -> Result<&[usize], Unproven> {
        let slice = self.slices.get(slice_index).ok_or(Unproven::NotDevice)?;
        join::launch_candidates(slice, self.qualified(), &self.launches_by_correlation)
    }

    /// What device slice `slice_index`'s correlation proves about its
    /// launch: the one rule every analysis shares.
    ///
    /// Correlation ids are unique per process only, so the key is
    /// (artifact, owning process, id) (the table in [`crate::provider`]).
    /// An id that names exactly one launch row of the process proves it; an
    /// id that names several proves nothing ([`LaunchProof::Ambiguous`]);
    /// a slice whose owning process is not established (a merge of several
    /// launching processes) proves nothing however its id matches.
    pub fn launch_proof(&self, slice_index: usize) -> LaunchProof<'_> {
        join::proof(self.launch_candidates(slice_index))
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

    /// The occurrence index of the first host operator or Python frame
    /// without a start (a Chrome trace's `cpu_op` or `python_function`
    /// complete event without `ts`), which the model leaves out (noted only
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
    /// use opguard_model::{ArtifactSpec, Format, Metadata, ModelBuilder, ModelOptions};
    /// use opguard_model::{Provider, ReadSummary, Sha256Digest};
    ///
    /// let rank = |distributed_info: Option<&str>| {
    ///     let mut metadata = Metadata::new();
    ///     if let Some(json) = distributed_info {
    ///         metadata.push("distributedInfo", json);
    ///     }
    ///     let summary = ReadSummary::new(Sha256Digest::of(b""), Format::ChromeJson, Provider::KinetoCuda)
    ///         .metadata(metadata);
    ///     let model = ModelBuilder::new(&ModelOptions::launches_only()).finish(summary, ArtifactSpec::new());
    ///     model.distributed_rank()
    /// };
    /// assert_eq!(rank(Some(r#"{"rank":3}"#)), Ok(Some(3)));
    /// assert_eq!(rank(None), Ok(None));
    /// assert_eq!(rank(Some(r#"{"rank":-1}"#)), Err("-1".into()));
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
    /// use opguard_model::{ArtifactSpec, Format, IdValue, ModelBuilder, ModelOptions};
    /// use opguard_model::{Provider, ReadSummary, Sha256Digest, SliceClass, SliceRecord};
    ///
    /// let mut builder = ModelBuilder::new(&ModelOptions::new());
    /// let thread = Some(IdValue::Int(1));
    /// let record = |index, class, name, ts_ns, dur_ns| SliceRecord {
    ///     class, name, ts_ns, dur_ns, pid: thread, tid: thread, ..SliceRecord::new(index)
    /// };
    /// builder.push_slice(&record(0, SliceClass::PythonFunction, "train.py(3): <module>", 0, 50));
    /// builder.push_slice(&record(1, SliceClass::PythonFunction, "model.py(12): forward", 10, 20));
    /// builder.push_slice(&record(2, SliceClass::CpuOp, "aten::relu", 40, 1));
    /// builder.push_slice(&record(3, SliceClass::CpuOp, "aten::mm", 15, 2));
    /// let summary = ReadSummary::new(Sha256Digest::of(b""), Format::ChromeJson, Provider::KinetoOther);
    /// let model = builder.finish(summary, ArtifactSpec::new());
    /// let operations = model.operations_in_start_order();
    /// let names = |positions: &[usize]| -> Vec<&str> {
    ///     positions.iter().map(|&p| model.name(model.slices()[p].name)).collect()
    /// };
    /// assert_eq!(names(&operations), ["aten::mm", "aten::relu"]);
    /// let stacks = model.python_stacks(&operations);
    /// assert_eq!(names(&stacks[0]), ["model.py(12): forward", "train.py(3): <module>"]);
    /// assert_eq!(names(&stacks[1]), ["train.py(3): <module>"]);
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
