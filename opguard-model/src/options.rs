//! Model stage: what a reader asks the model to keep.

use crate::sink::SinkSlot;
#[cfg(doc)]
use crate::{HostDetail, OperationArgs, RecordSink, TraceModel};

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
    /// A consumer that sees every record it wants as the reader pushes it,
    /// whatever the model keeps ([`RecordSink`]): with
    /// [`ModelOptions::nothing`] a read's memory is the sink's, not the
    /// model's.
    pub sink: Option<SinkSlot>,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            host_ops: true,
            host_totals: false,
            operation_args: false,
            device_activity: true,
            flows: true,
            sink: None,
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
    /// Keep no record at all: the model is the artifact and what the reader
    /// established of it (summary, metadata, provider). For a read that
    /// streams its records into a [`ModelOptions::sink`].
    pub fn nothing() -> Self {
        ModelOptions {
            host_ops: false,
            host_totals: false,
            operation_args: false,
            device_activity: false,
            flows: false,
            sink: None,
        }
    }
    /// Sets [`ModelOptions::sink`].
    pub fn sink(mut self, sink: SinkSlot) -> Self {
        self.sink = Some(sink);
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
    /// use opguard_model::{ArtifactSpec, ModelBuilder, ModelOptions, SliceClass, SliceRecord};
    /// use opguard_model::{Format, OperationArgs, Provider, ReadSummary, Sha256Digest};
    ///
    /// let options = ModelOptions::new().operation_args(true);
    /// let mut builder = ModelBuilder::new(&options);
    /// let args = OperationArgs {
    ///     input_types: Some(builder.intern(r#"["float","float"]"#)),
    ///     ..OperationArgs::default()
    /// };
    /// let mm = SliceRecord { class: SliceClass::CpuOp, name: "aten::mm", ts_ns: 1, dur_ns: 2, ..SliceRecord::new(0) };
    /// let position = builder.push_slice(&mm).expect("host operators are kept");
    /// builder.set_operation_args(position, args);
    /// let summary = ReadSummary::new(Sha256Digest::of(b""), Format::ChromeJson, Provider::KinetoOther);
    /// let model = builder.finish(summary, ArtifactSpec::new());
    /// let kept = model.operation_args(0).expect("kept when asked");
    /// assert_eq!(kept.input_types.map(|t| model.name(t)), Some(r#"["float","float"]"#));
    /// ```
    pub fn operation_args(mut self, on: bool) -> Self {
        self.operation_args = on;
        self
    }
}
