//! Model: a rocprofv3 capture's records pushed into opguard-model's
//! provider-neutral model, so every analysis reads it as it reads any
//! other format.
//!
//! | record | slice class | category | `pid` / `tid` | `process` | `device` / `stream` |
//! |---|---|---|---|---|---|
//! | kernel dispatch | `Kernel` | `KERNEL_DISPATCH` | device / HSA queue | the capture's process (see the crate's join-key table) | GPU index (`type_index`) or the agent label / HIP stream, else queue |
//! | API call | `classify::runtime_call(function)` | its domain (`HIP_RUNTIME_API_EXT`) | process / thread | its process | — |
//! | roctx range | `UserAnnotation` | its domain | process / thread | its process | — |
//! | roctx mark (start = end) | `Other` | its domain | process / thread | its process | — |
//! | DMA memory copy | `Memcpy`, named by its direction | `MEMORY_COPY` | device / stream | the capture's process | the GPU end of the copy / HIP stream |
//!
//! Correlation ids are the internal ones; the model joins a dispatch to a
//! launch only inside (artifact, process, correlation id).

use std::path::Path;

use opguard_model::{
    classify, ArtifactSpec, Format, IdValue, Metadata, ModelBuilder, ModelOptions, ModelStorage,
    Provider, ReadSummary, ReadWarning, SliceClass, SliceRecord, TraceModel,
};

use crate::error::Error;
use crate::record::{
    AgentKind, CaptureFormat, CaptureSummary, DeviceRef, ReadOptions, Record, RecordBase,
};

/// The category of kernel dispatches: rocprofiler's record kind.
pub const DISPATCH_CATEGORY: &str = "KERNEL_DISPATCH";
/// The category of DMA memory copies.
pub const MEMORY_COPY_CATEGORY: &str = "MEMORY_COPY";

impl CaptureFormat {
    /// The model's format of this capture.
    pub fn model_format(self) -> Format {
        match self {
            CaptureFormat::Csv => Format::RocprofCsv,
            CaptureFormat::Json => Format::RocprofJson,
            CaptureFormat::Rocpd => Format::RocpdSqlite,
        }
    }
}

impl ReadOptions {
    /// The limits of opguard-trace's reader options (the ones every
    /// front end sets), for a rocprofv3 capture.
    pub fn from_reader(reader: &opguard_trace::ReaderOptions) -> Self {
        ReadOptions::new()
            .max_encoded_bytes(reader.max_encoded_bytes)
            .max_decoded_bytes(reader.max_decoded_bytes)
            .max_value_bytes(reader.max_value_bytes as u64)
            .decode_thread(reader.decode_thread)
    }
}

/// Reads the rocprofv3 capture at `path` (CSV, JSON or rocpd, by content)
/// into a model.
///
/// ```no_run
/// use opguard_model::{analysis::launch_region, ArtifactSpec, ModelOptions};
/// use opguard_rocprof::ReadOptions;
///
/// let model = opguard_rocprof::read_model(
///     "out/host/3985093_kernel_trace.csv",
///     ArtifactSpec::new(),
///     &ModelOptions::launches_only(),
///     &ReadOptions::new(),
/// )?;
/// let region = launch_region(&model, 10);
/// println!("{} kernels, {} proven launched", region.kernel_count, region.correlated_kernel_count);
/// # Ok::<(), opguard_rocprof::Error>(())
/// ```
pub fn read_model(
    path: impl AsRef<Path>,
    spec: ArtifactSpec,
    model: &ModelOptions,
    options: &ReadOptions,
) -> Result<TraceModel, Error> {
    read_model_reusing(path, spec, model, options, &mut ModelStorage::new())
}

/// [`read_model`] into the buffers of `storage` (on an error they are back
/// in `storage`, empty).
pub fn read_model_reusing(
    path: impl AsRef<Path>,
    mut spec: ArtifactSpec,
    model: &ModelOptions,
    options: &ReadOptions,
    storage: &mut ModelStorage,
) -> Result<TraceModel, Error> {
    let path = path.as_ref();
    if spec.source.is_none() {
        spec.source = Some(path.display().to_string());
    }
    let mut builder = ModelBuilder::reusing(model, std::mem::take(storage));
    let read =
        crate::detect::read_capture(path, options, &mut |r: &Record<'_>| push(&mut builder, r));
    match read {
        Ok(summary) => Ok(builder.finish(read_summary(summary), spec)),
        Err(e) => {
            *storage = builder.into_storage();
            Err(e)
        }
    }
}

fn read_summary(capture: CaptureSummary) -> ReadSummary {
    let mut metadata = Metadata::new();
    metadata.push("rocprofv3.files", json(&capture.files));
    metadata.push("rocprofv3.processes", json(&capture.processes));
    metadata.push("rocprofv3.agents", json(&capture.agents));
    metadata.push("rocprofv3.records", json(&capture.records));
    let warnings = capture
        .warnings
        .iter()
        .map(|w| ReadWarning::new("rocprofv3_note", 0, 0, w.clone()))
        .collect();
    ReadSummary::new(
        capture.sha256,
        capture.format.model_format(),
        Provider::Rocprofv3,
    )
    .producer(capture.producer)
    .bytes(capture.encoded_bytes, capture.decoded_bytes)
    .events(capture.records.total())
    .metadata(metadata)
    .warnings(warnings)
}

/// A summary part as the JSON text the model's metadata holds.
fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

fn id(value: i64) -> IdValue {
    IdValue::Int(value)
}

fn unsigned_id(builder: &mut ModelBuilder, value: u64) -> IdValue {
    match i64::try_from(value) {
        Ok(v) => IdValue::Int(v),
        Err(_) => builder.big_number_id(&value.to_string()),
    }
}

/// A device as the model keys it: a GPU by its index among GPUs (the HIP
/// device ordinal a Kineto trace of the same program shows), else the
/// label the capture writes.
fn device_id(builder: &mut ModelBuilder, device: &DeviceRef<'_>) -> Option<IdValue> {
    match device.agent {
        Some(agent) if agent.kind == AgentKind::Gpu && agent.type_index.is_some() => {
            agent.type_index.map(|i| unsigned_id(builder, i))
        }
        _ if device.label.is_empty() => None,
        _ => Some(builder.text_id(device.label)),
    }
}

fn base_record<'a>(
    builder: &mut ModelBuilder,
    base: &RecordBase,
    class: SliceClass,
    name: &'a str,
    category: &'a str,
) -> SliceRecord<'a> {
    SliceRecord {
        class,
        name,
        category,
        process: base.process.map(id),
        ts_ns: base.span.start_ns,
        dur_ns: base.span.duration_ns(),
        correlation: base.correlation.map(|c| unsigned_id(builder, c)),
        ..SliceRecord::new(base.index)
    }
}

fn push(builder: &mut ModelBuilder, record: &Record<'_>) {
    match record {
        Record::Dispatch(d) => {
            let device = device_id(builder, &d.device);
            let queue = d.queue.map(|q| unsigned_id(builder, q));
            let stream = match d.stream {
                Some(s) => Some(unsigned_id(builder, s)),
                None => queue,
            };
            let slice = SliceRecord {
                pid: device,
                tid: queue,
                device,
                stream,
                ..base_record(
                    builder,
                    &d.base,
                    SliceClass::Kernel,
                    d.kernel_name,
                    DISPATCH_CATEGORY,
                )
            };
            builder.push_slice(&slice);
        }
        Record::MemoryCopy(c) => {
            let gpu_end = match c.destination.agent {
                Some(a) if a.kind == AgentKind::Gpu => &c.destination,
                _ => &c.source,
            };
            let device = device_id(builder, gpu_end);
            let stream = c.stream.map(|s| unsigned_id(builder, s));
            let slice = SliceRecord {
                pid: device,
                tid: stream,
                device,
                stream,
                ..base_record(
                    builder,
                    &c.base,
                    SliceClass::Memcpy,
                    c.direction,
                    MEMORY_COPY_CATEGORY,
                )
            };
            builder.push_slice(&slice);
        }
        Record::Api(a) => {
            let class = classify::runtime_call(a.function);
            let slice = host(builder, &a.base, class, a.function, a.domain);
            builder.push_slice(&slice);
        }
        Record::Marker(m) => {
            // A roctx range is a host annotation on its thread, read like a
            // `record_function` span; a mark has no extent to nest in.
            let class = if m.is_range() {
                SliceClass::UserAnnotation
            } else {
                SliceClass::Other
            };
            let slice = host(builder, &m.base, class, m.message, m.domain);
            builder.push_slice(&slice);
        }
    }
}

fn host<'a>(
    builder: &mut ModelBuilder,
    base: &RecordBase,
    class: SliceClass,
    name: &'a str,
    category: &'a str,
) -> SliceRecord<'a> {
    SliceRecord {
        pid: base.process.map(id),
        tid: base.thread.map(id),
        ..base_record(builder, base, class, name, category)
    }
}
