//! Model stage: which program wrote a capture, in which format, and the
//! join keys that program defines.
//!
//! # Join keys per provider
//!
//! A device record (kernel, copy, set) is *proven* launched by a host
//! runtime or driver call only when both carry the same correlation id
//! inside one qualified namespace: (artifact, owning process, id). Ids are
//! unique per process only (CUPTI, roctracer and rocprofiler-sdk number
//! them per process), so a key without the process can join a kernel of one
//! process to a launch of another. What every analysis then reports:
//!
//! - **proven**: exactly one launch row of the owning process carries the id;
//! - **ambiguous**: several do (two launch rows of one process with one id):
//!   nothing is proven, the kernels are counted apart;
//! - **present, not proven**: the id is there but names no launch row of the
//!   owning process, or the owning process is not established, or the
//!   provider defines no namespace.
//!
//! A graph launch (`cudaGraphLaunch`, `hipGraphLaunch`) is one launch row
//! whose id many device records carry. A runtime call that device work
//! correlates with is a launch whatever its name ([`crate::classify`]).
//!
//! | provider | format | key | owning process of a device record | unknown or ambiguous |
//! |---|---|---|---|---|
//! | `kineto_cuda`, `kineto_rocm`, `kineto_other` | Chrome JSON (PyTorch profiler) | (artifact, process, `args.correlation`) | the artifact's one launching process (the `pid` of its runtime calls); in a file whose runtime calls come from several processes (a merge of ranks), the process whose launch rows carry the row's id when no id is carried by two processes' launch rows (a merge that prefixes ids per rank), else none: the ranks numbered ids independently | no established owner: present, not proven; several launch rows of the process with the id: ambiguous. `args["External id"]` joins host and device inside (artifact, process, External id); `ac2g` flows (artifact, flow id) are a cross-check only |
//! | `nsight_systems` | Nsight Systems SQLite export (schemas 2.9 to 3.25, Nsight Systems 2022.2 to 2026.2, verified on real exports) | (artifact, process, `correlationId`), the process being the global id shifted right 24 bits: hardware, VM and OS process id | the device row's own `globalPid >> 24` (kernel, memcpy, memset and synchronization rows), set by the reader; the launch's is its `globalTid >> 24` | a device row without `globalPid` gets the owner the model settles for rows that state none (the one launching process, else none); without `correlationId`, nothing is claimed. Two runtime rows of one process with one id: ambiguous — except the backtrace row (`eventClass` 67) schema 2.9 exports write beside each runtime call, which is not a call. A `cudaGraphLaunch` row's id is carried by every kernel node of the graph: one graph launch, each kernel proven (checked on an export derived from a real one; no real export with graphs was found). On a real two-process 2× H100 export, 3,986 of 4,010 kernels are proven; joined on `correlationId` alone, 4,280 rows |
//! | `rocprofv3` | rocprofv3 CSV, JSON, rocpd (rocprofiler-sdk, ROCm 6.2–7.x; rocpd schema 3) | (artifact, process id, internal correlation id: CSV `Correlation_Id`, JSON `correlation_id.internal`, rocpd `rocpd_event.stack_id` — rocpd's `correlation_id` column is the *external* id) | CSV: the `Process_Id` of the API traces of the dispatch's file prefix (one prefix is one process's output; the kernel trace has no process column); JSON: the process object's `metadata.pid`; rocpd: `rocpd_info_process.pid` of the row's (`guid`, `pid`) | a capture without API records, or a CSV prefix whose API traces name several pids: kernels present, no process, nothing proven; two runs with one pid in one rocpd database: no process for either. A `hipGraphLaunch` is one launch row whose id all its kernels carry (the shared capture: 1,123) |
//! | `xla` | XSpace protobuf (`*.xplane.pb`: JAX, TensorFlow) | (artifact, host process, `correlation_id` stat, the event's own or its metadata's) | the file's one `/host:CPU` plane (an XSpace is one host's profile): its `process_id` stat when written (JAX 0.10), else the plane; device events of `/device:GPU:N` stream lines are that process's. Verified on JAX 0.8 ROCm (8 MI300 GPUs: every kernel joined to one `hipModuleLaunchKernel`, `hipExtModuleLaunchKernel` or `hipMemcpyDtoDAsync` call), TensorFlow 2 CUDA (host launch events named after the kernel they launch, joined by id alone) and JAX 0.10 CPU (no device events) | a device event without the stat: present, not proven; a file with several `/host:CPU` planes (a merge): the model's rule for several launching processes (an id carried by two processes' calls: no owner). A host call's `device_id` stat is not the GPU's number (ROCm writes ids such as 47645) and is no part of the key |
//! | `perfetto_json`, `opguard_export`, `viztracer`, `jax`, `chrome`, `unknown` | Chrome JSON | none | — | ids they carry are reported as present; nothing is claimed |
//!
//! Each artifact is its own clock domain: no subtraction, gap or region ever
//! spans two artifacts.
//!
//! What is device activity, a launch and a collective is decided once for
//! every provider in [`crate::classify`]: a collective is a kernel whose
//! function [`crate::classify::is_collective`] names (NCCL, RCCL, MSCCL, and
//! the custom all-reduce kernels of vLLM, SGLang and TensorRT-LLM, which
//! are counted as communication although they also add).

/// The program that wrote a capture, detected from content or given by the
/// caller. It decides which correlation namespaces exist (see the table in
/// this module's docs): a record of an [`Provider::Unknown`] capture can never
/// claim a correlation.
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
    /// NVIDIA Nsight Systems (`nsys export --type sqlite`).
    NsightSystems,
    /// AMD rocprofv3 (rocprofiler-sdk): CSV, JSON or the rocpd database.
    Rocprofv3,
    /// XLA's profiler (JAX, TensorFlow): the XSpace protobuf
    /// (`*.xplane.pb`), which keeps the `correlation_id` the JSON view drops.
    Xla,
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
            Provider::NsightSystems => "nsight_systems",
            Provider::Rocprofv3 => "rocprofv3",
            Provider::Xla => "xla",
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
            "nsight_systems" => Provider::NsightSystems,
            "rocprofv3" => Provider::Rocprofv3,
            "xla" => Provider::Xla,
            "unknown" => Provider::Unknown,
            _ => return None,
        })
    }

    /// Every provider, in the order `--provider` lists them.
    pub const ALL: [Provider; 12] = [
        Provider::KinetoCuda,
        Provider::KinetoRocm,
        Provider::KinetoOther,
        Provider::PerfettoJson,
        Provider::OpguardExport,
        Provider::Viztracer,
        Provider::Jax,
        Provider::Chrome,
        Provider::NsightSystems,
        Provider::Rocprofv3,
        Provider::Xla,
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

    /// Whether this is the PyTorch profiler (Kineto), whichever device.
    pub fn is_kineto(self) -> bool {
        matches!(
            self,
            Provider::KinetoCuda | Provider::KinetoRocm | Provider::KinetoOther
        )
    }

    /// Whether XLA's profiler wrote the capture: JAX's JSON ([`Provider::Jax`])
    /// or the XSpace it is converted from ([`Provider::Xla`]). Both name
    /// host events the same way (`end: X` markers, `$file.py:line` Python
    /// frames, `PjitFunction(...)`), so a host slice is the same kind of
    /// work in either file.
    pub fn is_xla_profiler(self) -> bool {
        matches!(self, Provider::Jax | Provider::Xla)
    }

    /// The qualified correlation namespace the provider defines (the table
    /// in this module's docs), as reported in coverage; `None` when it
    /// defines none and no correlation can be proven.
    pub fn correlation_namespace(self) -> Option<&'static str> {
        match self {
            p if p.is_kineto() => Some("kineto:(artifact, process, correlation)"),
            Provider::NsightSystems => {
                Some("nsight_systems:(artifact, globalPid >> 24, correlationId)")
            }
            Provider::Rocprofv3 => Some("rocprofv3:(artifact, process, correlation_id)"),
            Provider::Xla => Some("xla:(artifact, host process, correlation_id)"),
            _ => None,
        }
    }
}

/// The file format a capture was read from (provenance; the provider says
/// who wrote it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Format {
    /// Chrome Trace Event Format JSON, plain or gzip (PyTorch profiler,
    /// Perfetto's JSON export, opguard's export, viztracer, JAX's JSON).
    ChromeJson,
    /// An Nsight Systems SQLite export.
    NsysSqlite,
    /// A rocprofv3 CSV capture (`*_kernel_trace.csv` and its siblings).
    RocprofCsv,
    /// A rocprofv3 JSON document (`--output-format json`).
    RocprofJson,
    /// A rocprofv3 rocpd SQLite database.
    RocpdSqlite,
    /// An XLA XSpace protobuf (`*.xplane.pb`).
    Xspace,
}

impl Format {
    /// The stable name used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::ChromeJson => "chrome_json",
            Format::NsysSqlite => "nsys_sqlite",
            Format::RocprofCsv => "rocprofv3_csv",
            Format::RocprofJson => "rocprofv3_json",
            Format::RocpdSqlite => "rocpd_sqlite",
            Format::Xspace => "xspace",
        }
    }
}
