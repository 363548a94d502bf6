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
    /// Perfetto's JSON export. Never detected from content (its events look
    /// like any Chrome trace); pass it explicitly.
    PerfettoJson,
    /// opguard's own export (`opguard.export/v1`).
    OpguardExport,
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
            "unknown" => Provider::Unknown,
            _ => return None,
        })
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

/// Detects the provider while events stream past.
#[derive(Debug, Default, Clone)]
pub struct ProviderDetector {
    kineto_events: u64,
    hip_calls: u64,
    cuda_calls: u64,
    device_kernels: u64,
}

impl ProviderDetector {
    /// A detector that has seen nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Looks at one event.
    pub fn observe(&mut self, e: &Event<'_>) {
        let Some(cat) = e.cat() else { return };
        let cat = cat.raw();
        if KINETO_CATEGORIES.contains(&cat) {
            self.kineto_events += 1;
        }
        match cat {
            "cuda_runtime" | "cuda_driver" | "hip_runtime" => {
                if let Some(name) = e.name() {
                    let name = name.raw();
                    if name.starts_with("hip") {
                        self.hip_calls += 1;
                    } else if name.starts_with("cu") {
                        self.cuda_calls += 1;
                    }
                }
            }
            "kernel" => self.device_kernels += 1,
            _ => {}
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
        let kineto = metadata.get("schemaVersion").is_some() || self.kineto_events > 0;
        if !kineto {
            return Provider::Unknown;
        }
        if self.hip_calls > 0 && self.hip_calls >= self.cuda_calls {
            Provider::KinetoRocm
        } else if self.cuda_calls > 0 || self.device_kernels > 0 {
            Provider::KinetoCuda
        } else {
            Provider::KinetoOther
        }
    }
}
