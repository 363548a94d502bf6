//! Model stage: which program wrote a trace, and which correlation
//! namespaces that program defines.

use crate::event::Event;
use crate::reader::Metadata;

/// The program that wrote a trace, detected from content or given by the
/// caller. It decides which correlation namespaces exist: an event of an
/// [`Provider::Unknown`] trace can never claim a correlation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Provider {
    /// PyTorch profiler (Kineto) with CUDA (CUPTI) activities.
    KinetoCuda,
    /// PyTorch profiler (Kineto) with ROCm (roctracer/rocprofiler) activities.
    KinetoRocm,
    /// PyTorch profiler (Kineto) with another accelerator (e.g. MTIA) or
    /// none (CPU only).
    KinetoOther,
    /// Perfetto's JSON export (trace processor's exporter: metadata rows of
    /// category `__metadata`, `metadata.trace_processor_stats`).
    PerfettoJson,
    /// opguard's own export (`opguard.export/v1`).
    OpguardExport,
    /// viztracer (top-level `viztracer_metadata`): Python function entries
    /// on the host; no correlation namespace.
    Viztracer,
    /// JAX's profiler (XLA), either file it writes: `perfetto_trace.json.gz`
    /// or the TensorBoard `*.trace.json.gz`. Detected from XLA operations
    /// (`args.hlo_op`, `args.hlo_module`), `PjitFunction(...)` and
    /// `$file.py:line` Python frames. No correlation namespace is trusted.
    Jax,
    /// A trace Chrome itself recorded (its top-level `metadata` names the
    /// browser, or its categories are Chrome's `disabled-by-default-*`).
    Chrome,
    /// Anything else: no correlation namespace is trusted.
    Unknown,
}

impl Provider {
    /// The stable name used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::KinetoCuda => "kineto_cuda",
            Provider::KinetoRocm => "kineto_rocm",
            Provider::KinetoOther => "kineto_other",
            Provider::PerfettoJson => "perfetto_json",
            Provider::OpguardExport => "opguard_export",
            Provider::Viztracer => "viztracer",
            Provider::Jax => "jax",
            Provider::Chrome => "chrome",
            Provider::Unknown => "unknown",
        }
    }

    /// Parses [`Provider::as_str`].
    pub fn from_name(name: &str) -> Option<Provider> {
        Some(match name {
            "kineto_cuda" => Provider::KinetoCuda,
            "kineto_rocm" => Provider::KinetoRocm,
            "kineto_other" => Provider::KinetoOther,
            "perfetto_json" => Provider::PerfettoJson,
            "opguard_export" => Provider::OpguardExport,
            "viztracer" => Provider::Viztracer,
            "jax" => Provider::Jax,
            "chrome" => Provider::Chrome,
            "unknown" => Provider::Unknown,
            _ => return None,
        })
    }

    /// Every provider, in the order `--provider` lists them.
    pub const ALL: [Provider; 9] = [
        Provider::KinetoCuda,
        Provider::KinetoRocm,
        Provider::KinetoOther,
        Provider::PerfettoJson,
        Provider::OpguardExport,
        Provider::Viztracer,
        Provider::Jax,
        Provider::Chrome,
        Provider::Unknown,
    ];

    /// The names [`Provider::from_name`] accepts, comma-separated (for
    /// error messages and `--help`).
    pub fn names() -> String {
        Provider::ALL.map(Provider::as_str).join(", ")
    }

    /// The family whose naming conventions the provider shares: all Kineto
    /// variants name operators the same way, whichever device they ran on.
    /// Semantic frame ids hash the family, so one CPU-only trial of a program
    /// still matches its CUDA trials.
    pub fn family(self) -> &'static str {
        match self {
            Provider::KinetoCuda | Provider::KinetoRocm | Provider::KinetoOther => "kineto",
            other => other.as_str(),
        }
    }

    /// Whether Kineto's namespaces apply: `args.correlation` per artifact,
    /// `args["External id"]` per (artifact, host process), `ac2g` flows per
    /// artifact.
    pub fn is_kineto(self) -> bool {
        matches!(
            self,
            Provider::KinetoCuda | Provider::KinetoRocm | Provider::KinetoOther
        )
    }
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
pub struct ProviderDetector {
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
    pub fn new() -> Self {
        Self::default()
    }

    /// Looks at one event.
    pub fn observe(&mut self, e: &Event<'_>) {
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
    pub fn provider(&self, metadata: &Metadata) -> Provider {
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
