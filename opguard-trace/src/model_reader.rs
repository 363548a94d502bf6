//! Reader → model: a Chrome trace's events into the provider-neutral
//! [`TraceModel`], with the provider detected from content.
//!
//! Each complete (`ph: "X"`) event becomes a slice classified by
//! [`classify::kineto_slice_class`] (the model's one rule); `args.correlation`,
//! `args["External id"]`, `args.device`, `args.context` and `args.stream`
//! become the slice's ids; flow events (`s`, `f`) become flow points. The
//! occurrence index is the event's `traceEvents` index.

use std::io::Read;
use std::path::Path;

use opguard_model::{
    classify, ArtifactSpec, FlowPhase, FlowRecord, Format, HostDetail, IdValue, Kept, Metadata,
    ModelBuilder, ModelOptions, ModelStorage, OperationArgs, Progress, Provider, ReadSummary,
    SliceClass, SliceRecord, TraceModel,
};

use crate::error::Error;
use crate::event::{Event, Scalar, Value};
use crate::reader::{ReaderOptions, TraceReader, TraceSummary};

/// Reads a Chrome trace file into a model.
///
/// ```no_run
/// use opguard_model::{ArtifactSpec, ModelOptions};
/// use opguard_model::analysis::launch_region;
///
/// let options = opguard_trace::ReaderOptions::new();
/// let prefill = opguard_trace::read_model("prefill.json.gz", ArtifactSpec::new().stage("prefill"),
///                                         &ModelOptions::launches_only(), &options)?;
/// let region = launch_region(&prefill, 10);
/// println!("{} of {} kernels have a proven launch", region.correlated_kernel_count, region.kernel_count);
/// # Ok::<(), opguard_trace::Error>(())
/// ```
pub fn read_model(
    path: impl AsRef<Path>,
    spec: ArtifactSpec,
    options: &ModelOptions,
    reader: &ReaderOptions,
) -> Result<TraceModel, Error> {
    read_model_reusing(
        path,
        spec,
        options,
        reader,
        &mut |_, _| {},
        &mut ModelStorage::new(),
    )
}

/// [`read_model`], calling `progress` every few MB and reading into the
/// buffers of `storage` (taken out of it: [`TraceModel::into_storage`] gives
/// them back; on an error they are back in `storage`, empty).
pub fn read_model_reusing(
    path: impl AsRef<Path>,
    mut spec: ArtifactSpec,
    options: &ModelOptions,
    reader: &ReaderOptions,
    progress: Progress<'_>,
    storage: &mut ModelStorage,
) -> Result<TraceModel, Error> {
    let path = path.as_ref();
    if spec.source.is_none() {
        spec.source = Some(path.display().to_string());
    }
    let reader = TraceReader::open_with(path, reader.clone())?;
    model_from_reader_reusing(reader, spec, options, progress, storage)
}

/// Builds a model from an open reader, calling `progress` every few MB.
pub fn model_from_reader<R: Read>(
    reader: TraceReader<R>,
    spec: ArtifactSpec,
    options: &ModelOptions,
    progress: Progress<'_>,
) -> Result<TraceModel, Error> {
    model_from_reader_reusing(reader, spec, options, progress, &mut ModelStorage::new())
}

/// [`model_from_reader`], into the buffers of `storage` (see
/// [`read_model_reusing`]).
///
/// ```
/// use opguard_model::{ArtifactSpec, ModelOptions, ModelStorage};
/// use opguard_trace::TraceReader;
///
/// let trace = br#"{"traceEvents":[
///   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1,"dur":2}]}"#;
/// let mut storage = ModelStorage::new();
/// let reader = TraceReader::new(&trace[..])?;
/// let options = ModelOptions::launches_only();
/// let model = opguard_trace::model_from_reader_reusing(reader, ArtifactSpec::new(), &options, &mut |_, _| {}, &mut storage)?;
/// assert_eq!(model.slices().len(), 1);
/// assert_eq!(model.artifact().format.as_str(), "chrome_json");
/// # Ok::<(), opguard_trace::Error>(())
/// ```
pub fn model_from_reader_reusing<R: Read>(
    mut reader: TraceReader<R>,
    spec: ArtifactSpec,
    options: &ModelOptions,
    progress: Progress<'_>,
    storage: &mut ModelStorage,
) -> Result<TraceModel, Error> {
    let mut events = EventsToModel {
        builder: ModelBuilder::reusing(options, std::mem::take(storage)),
        detector: ProviderDetector::new(),
    };
    let mut next_report = 0u64;
    let read = loop {
        let e = match reader.next_event() {
            Ok(Some(e)) => e,
            Ok(None) => break reader.finish(),
            Err(err) => break Err(err),
        };
        if let Err(err) = events.observe(&e) {
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
            let provider = events.detector.provider(&summary.metadata);
            Ok(events.builder.finish(read_summary(summary, provider), spec))
        }
        Err(err) => {
            *storage = events.builder.into_storage();
            Err(err)
        }
    }
}

/// The model's view of what the reader established.
fn read_summary(summary: TraceSummary, provider: Provider) -> ReadSummary {
    ReadSummary::new(summary.sha256, Format::ChromeJson, provider)
        .bytes(summary.encoded_bytes, summary.decoded_bytes)
        .events(summary.events)
        .metadata(summary.metadata)
        .warnings(summary.warnings)
}

/// The builder and the provider detector, fed one event at a time.
struct EventsToModel {
    builder: ModelBuilder,
    detector: ProviderDetector,
}

impl EventsToModel {
    fn id(&mut self, v: Option<Scalar<'_>>) -> Option<IdValue> {
        Some(match v? {
            Scalar::Number(n) => match n.as_i64() {
                Some(i) => IdValue::Int(i),
                None => self.builder.big_number_id(n.as_str()),
            },
            Scalar::String(s) => self.builder.text_id(&s.as_cow()),
        })
    }

    fn host_detail(&mut self, e: &Event<'_>, class: SliceClass) -> HostDetail {
        let builder = &mut self.builder;
        let mut text = |v: Option<Value<'_>>| {
            let v = v?;
            let owned = v
                .as_str()
                .map_or_else(|| v.raw().to_owned(), |s| s.into_owned());
            Some(builder.intern(&owned))
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
        let builder = &mut self.builder;
        let mut raw = |v: Option<Value<'_>>| Some(builder.intern(v?.raw()));
        let input_dims = raw(e.input_dims());
        let input_types = raw(e.input_type());
        let input_strides = raw(e.arg("Input Strides"));
        let call_stack = e
            .arg("Call stack")
            .and_then(|v| v.as_str())
            .map(|s| builder.intern(&s));
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
            "X" => self.complete_event(e),
            p @ ("s" | "f") => {
                let (Some(ts_ns), Some(id)) =
                    (e.ts_ns().map_err(|err| number_error(e, err))?, e.id())
                else {
                    return Ok(());
                };
                let cat = e.cat().map(|c| c.as_cow());
                let flow = FlowRecord {
                    index: e.index(),
                    phase: if p == "s" {
                        FlowPhase::Start
                    } else {
                        FlowPhase::End
                    },
                    category: cat.as_deref().unwrap_or(""),
                    id: self.id(Some(id)).unwrap_or(IdValue::Int(0)),
                    pid: self.id(e.pid()),
                    tid: self.id(e.tid()),
                    ts_ns,
                };
                self.builder.push_flow(&flow);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn complete_event(&mut self, e: &Event<'_>) -> Result<(), Error> {
        let cat = e.cat().map(|c| c.as_cow());
        let cat = cat.as_deref().unwrap_or("");
        let name = e.name().map(|n| n.as_cow());
        let name = name.as_deref().unwrap_or("");
        let class = classify::kineto_slice_class(cat, name);
        let device_side =
            class.is_runtime() || class.is_device() || class == SliceClass::GpuUserAnnotation;
        let kept = self.builder.keeps(class);
        // Left-out device work is still timed, so a model fails where the
        // full model fails.
        if kept == Kept::Nothing && !device_side {
            return Ok(());
        }
        let ts = e.ts_ns().map_err(|err| number_error(e, err))?;
        let dur = e.dur_ns().map_err(|err| number_error(e, err))?;
        let (Some(ts_ns), dur_ns) = (ts, dur.unwrap_or(0)) else {
            if matches!(class, SliceClass::CpuOp | SliceClass::PythonFunction) {
                self.builder.note_untimed_operation(e.index());
            }
            return Ok(());
        };
        if kept != Kept::Slice {
            let record = SliceRecord {
                class,
                name,
                category: cat,
                ts_ns,
                dur_ns,
                ..SliceRecord::new(e.index())
            };
            self.builder.push_slice(&record);
            return Ok(());
        }
        let args = e.launch_args();
        let record = SliceRecord {
            index: e.index(),
            class,
            name,
            category: cat,
            pid: self.id(e.pid()),
            tid: self.id(e.tid()),
            process: None,
            ts_ns,
            dur_ns,
            correlation: self.id(args.correlation),
            external_id: self.id(args.external_id),
            device: self.id(args.device),
            context: self.id(args.context),
            stream: self.id(args.stream),
        };
        let Some(position) = self.builder.push_slice(&record) else {
            return Ok(());
        };
        let host_kept = self.builder.keeps(SliceClass::Other) == Kept::Slice;
        if host_kept && !class.is_device() && !class.is_runtime() {
            let detail = self.host_detail(e, class);
            self.builder.set_host_detail(position, detail);
        }
        if class == SliceClass::CpuOp && self.builder.keeps_operation_args() {
            let args = self.operation_args_of(e);
            self.builder.set_operation_args(position, args);
        }
        Ok(())
    }
}

fn number_error(e: &Event<'_>, err: crate::NumberError) -> Error {
    Error::new(crate::ErrorKind::Number(err))
        .at(e.offset())
        .in_event(Some(e.index()))
}

/// Categories only Kineto writes.
const KINETO_CATEGORIES: &[&str] = &[
    "cpu_op",
    "user_annotation",
    "gpu_user_annotation",
    "cuda_runtime",
    "cuda_driver",
    "cuda_sync",
    "gpu_memcpy",
    "gpu_memset",
    "ac2g",
    "python_function",
    "mtia_runtime",
    "mtia_ccp_events",
    "cuda_profiler_range",
];

/// Categories older Kineto versions wrote (before `schemaVersion` and the
/// snake_case categories): `Kernel`, `Runtime`, `Operator`, ... and
/// `async_gpu` launch flows. Matched exactly: the capitals are the signal.
const LEGACY_KINETO_CATEGORIES: &[&str] = &[
    "Kernel",
    "Runtime",
    "Operator",
    "Memcpy",
    "Memset",
    "async_gpu",
    "gpu_async",
];

/// Top-level `metadata` keys Chrome's tracing writes about the browser.
const CHROME_METADATA_KEYS: &[&str] =
    &["product-version", "user-agent", "cpu-brand", "trace-config"];

/// Detects the provider while events stream past.
#[derive(Debug, Default, Clone)]
pub(crate) struct ProviderDetector {
    kineto_events: u64,
    legacy_kineto_events: u64,
    hip_calls: u64,
    cuda_calls: u64,
    device_kernels: u64,
    xla_events: u64,
    chrome_categories: u64,
    perfetto_metadata_events: u64,
}

impl ProviderDetector {
    /// A detector that has seen nothing.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Looks at one event.
    pub(crate) fn observe(&mut self, e: &Event<'_>) {
        let Some(cat) = e.cat() else {
            // XLA's events carry no category; one is proof enough, and
            // searching `args` of every event of a large Kineto trace is not
            // free.
            if self.xla_events == 0 {
                self.observe_xla(e);
            }
            return;
        };
        let cat = cat.raw();
        if KINETO_CATEGORIES.contains(&cat) {
            self.kineto_events += 1;
        }
        if LEGACY_KINETO_CATEGORIES.contains(&cat) {
            self.legacy_kineto_events += 1;
        }
        if cat.starts_with("disabled-by-default-") {
            self.chrome_categories += 1;
        }
        // Perfetto's JSON exporter writes its metadata rows with this
        // category; nothing else does.
        if cat == "__metadata" {
            self.perfetto_metadata_events += 1;
        }
        match cat {
            "cuda_runtime" | "cuda_driver" | "hip_runtime" | "Runtime" => {
                if let Some(name) = e.name() {
                    let name = name.raw();
                    if name.starts_with("hip") {
                        self.hip_calls += 1;
                    } else if name.starts_with("cu") {
                        self.cuda_calls += 1;
                    }
                }
            }
            "kernel" | "Kernel" => self.device_kernels += 1,
            _ => {}
        }
    }

    fn observe_xla(&mut self, e: &Event<'_>) {
        let named = e.name().is_some_and(|n| {
            let n = n.raw();
            n.starts_with("PjitFunction(") || (n.starts_with('$') && n.contains(".py:"))
        });
        if named || e.has_xla_args() {
            self.xla_events += 1;
        }
    }

    /// The verdict, given the document's top-level metadata.
    pub(crate) fn provider(&self, metadata: &Metadata) -> Provider {
        let opguard = metadata
            .get_json("opguard")
            .and_then(|v| v.get("format").and_then(|f| f.as_str()).map(str::to_owned));
        if opguard.is_some_and(|f| f.starts_with("opguard.export/")) {
            return Provider::OpguardExport;
        }
        if metadata.get("viztracer_metadata").is_some() {
            return Provider::Viztracer;
        }
        let kineto = metadata.get("schemaVersion").is_some()
            || self.kineto_events > 0
            || self.legacy_kineto_events > 0;
        if !kineto {
            return self.generic_provider(metadata);
        }
        if self.hip_calls > 0 && self.hip_calls >= self.cuda_calls {
            Provider::KinetoRocm
        } else if self.cuda_calls > 0 || self.device_kernels > 0 {
            Provider::KinetoCuda
        } else {
            Provider::KinetoOther
        }
    }

    /// A trace no profiler of a framework we know claims: JAX, Chrome,
    /// Perfetto's exporter, or unknown.
    fn generic_provider(&self, metadata: &Metadata) -> Provider {
        if self.xla_events > 0 {
            return Provider::Jax;
        }
        let chrome_metadata = metadata
            .get_json("metadata")
            .is_some_and(|m| CHROME_METADATA_KEYS.iter().any(|k| m.get(k).is_some()));
        let perfetto_metadata = metadata
            .get_json("metadata")
            .is_some_and(|m| m.get("trace_processor_stats").is_some());
        // Chrome writes its JSON through Perfetto's exporter: the browser's
        // own metadata decides first.
        if chrome_metadata || self.chrome_categories > 0 {
            Provider::Chrome
        } else if perfetto_metadata || self.perfetto_metadata_events > 0 {
            Provider::PerfettoJson
        } else {
            Provider::Unknown
        }
    }
}
