//! Typed rows of an export, as they are written (times in nanoseconds of
//! the export's session clock, ids as integers, names as [`StringId`]s).

/// Nsight Systems' serialized global id of a process or thread
/// (`globalPid`, `globalTid`): hardware id, VM id, process id and thread id
/// packed into one integer (pid in bits 24..48, tid in bits 0..24).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub i64);

impl GlobalId {
    /// `id >> 24`: hardware, VM and process id together. CUDA correlation
    /// ids are unique only within one process, so this is the namespace a
    /// correlation id lives in: a kernel's `globalPid >> 24` against its
    /// launch's `globalTid >> 24`.
    pub fn process(self) -> i64 {
        self.0 >> 24
    }

    /// The operating system's process id (bits 24..48).
    pub fn pid(self) -> i64 {
        (self.0 >> 24) & 0x00FF_FFFF
    }

    /// The operating system's thread id (bits 0..24); 0 in a `globalPid`.
    pub fn tid(self) -> i64 {
        self.0 & 0x00FF_FFFF
    }
}

/// An id into the export's `StringIds` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringId(pub i64);

/// Where device work ran: device, context and stream as CUPTI numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceTrack {
    /// `deviceId`.
    pub device: i64,
    /// `contextId`.
    pub context: i64,
    /// `streamId`.
    pub stream: i64,
}

/// One kernel (`CUPTI_ACTIVITY_KIND_KERNEL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// The row's `rowid`.
    pub rowid: i64,
    /// `start`, ns.
    pub start: i64,
    /// `end`, ns.
    pub end: i64,
    /// Device, context and stream.
    pub track: DeviceTrack,
    /// `correlationId`: the launching API call's, within the process.
    pub correlation_id: Option<i64>,
    /// `globalPid`: the process that launched it.
    pub global_pid: Option<GlobalId>,
    /// `demangledName`: the name with templates and arguments.
    pub demangled_name: StringId,
    /// `shortName`: the base function name.
    pub short_name: StringId,
    /// `mangledName`, when the schema and the symbol have one.
    pub mangled_name: Option<StringId>,
    /// `gridX`, `gridY`, `gridZ`.
    pub grid: [i64; 3],
    /// `blockX`, `blockY`, `blockZ`.
    pub block: [i64; 3],
    /// `graphNodeId`: set when the kernel ran as a node of a CUDA graph.
    pub graph_node_id: Option<i64>,
    /// `graphId` (schema 3.24 and later): the graph it ran in.
    pub graph_id: Option<i64>,
}

/// A device memory copy or set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// `CUPTI_ACTIVITY_KIND_MEMCPY`, with its `copyKind`
    /// (CUPTI's `CUpti_ActivityMemcpyKind`: 1 host to device, 2 device to
    /// host, 8 device to device, 10 peer to peer, ...).
    Copy {
        /// `copyKind`.
        copy_kind: i64,
        /// `srcKind`: the source memory, in the export's own numbering
        /// ([`MEMORY_KINDS`]).
        src_kind: Option<i64>,
        /// `dstKind`: the destination memory, likewise.
        dst_kind: Option<i64>,
    },
    /// `CUPTI_ACTIVITY_KIND_MEMSET`, with the value set when written.
    Set {
        /// `value`.
        value: Option<i64>,
        /// `memKind`: the memory set ([`MEMORY_KINDS`]).
        memory_kind: Option<i64>,
    },
}

/// One device memory operation (`CUPTI_ACTIVITY_KIND_MEMCPY` or
/// `CUPTI_ACTIVITY_KIND_MEMSET`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryOp {
    /// The row's `rowid` in its table.
    pub rowid: i64,
    /// Copy or set.
    pub kind: MemoryKind,
    /// `start`, ns.
    pub start: i64,
    /// `end`, ns.
    pub end: i64,
    /// Device, context and stream.
    pub track: DeviceTrack,
    /// `correlationId`.
    pub correlation_id: Option<i64>,
    /// `globalPid`.
    pub global_pid: Option<GlobalId>,
    /// `bytes`.
    pub bytes: i64,
    /// `graphNodeId`.
    pub graph_node_id: Option<i64>,
}

impl MemoryOp {
    /// The name nsys shows for it (`[CUDA memcpy Host-to-Device]`,
    /// `[CUDA memset]`), from CUPTI's copy kinds.
    pub fn display_name(&self) -> String {
        match self.kind {
            MemoryKind::Copy { copy_kind, .. } => match copy_kind_label(copy_kind) {
                Some(label) => format!("[CUDA memcpy {label}]"),
                None => format!("[CUDA memcpy kind {copy_kind}]"),
            },
            MemoryKind::Set { .. } => "[CUDA memset]".into(),
        }
    }

    /// The name the PyTorch profiler (Kineto) gives the same CUPTI record
    /// (`Memcpy HtoD (Pageable -> Device)`, `Memset (Device)`), so a copy
    /// has one identity whichever profiler recorded it. A kind the export
    /// does not state is `Unknown`.
    pub fn kineto_name(&self) -> String {
        let memory = |kind: Option<i64>| kind.and_then(memory_kind_label).unwrap_or("Unknown");
        match self.kind {
            MemoryKind::Copy {
                copy_kind,
                src_kind,
                dst_kind,
            } => {
                let direction = match copy_kind {
                    1 => "HtoD",
                    2 => "DtoH",
                    3 => "HtoA",
                    4 => "AtoH",
                    5 => "AtoA",
                    6 => "AtoD",
                    7 => "DtoA",
                    8 => "DtoD",
                    9 => "HtoH",
                    10 => "PtoP",
                    _ => "Unknown",
                };
                format!(
                    "Memcpy {direction} ({} -> {})",
                    memory(src_kind),
                    memory(dst_kind)
                )
            }
            MemoryKind::Set { memory_kind, .. } => format!("Memset ({})", memory(memory_kind)),
        }
    }
}

/// The export's memory kinds (`ENUM_CUDA_MEM_KIND`, the same in every
/// export from schema 3.1 to 3.24; 2.9 exports carry no enum table and
/// write the same values): `(name, label)` by value. Nsight Systems numbers
/// them its own way (0 is pageable), not as CUPTI does (0 is unknown).
pub const MEMORY_KINDS: [(&str, &str); 8] = [
    ("CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"),
    ("CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"),
    ("CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"),
    ("CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"),
    ("CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"),
    ("CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"),
    ("CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"),
    ("CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"),
];

/// The label of memory kind `kind` ([`MEMORY_KINDS`]).
pub fn memory_kind_label(kind: i64) -> Option<&'static str> {
    let i = usize::try_from(kind).ok()?;
    MEMORY_KINDS.get(i).map(|(_, label)| *label)
}

/// CUPTI's `CUpti_ActivityMemcpyKind` labels, as the exports' own
/// `ENUM_CUDA_MEMCPY_OPER` table writes them.
pub fn copy_kind_label(copy_kind: i64) -> Option<&'static str> {
    Some(match copy_kind {
        0 => "Unknown",
        1 => "Host-to-Device",
        2 => "Device-to-Host",
        3 => "Host-to-Array",
        4 => "Array-to-Host",
        5 => "Array-to-Array",
        6 => "Array-to-Device",
        7 => "Device-to-Array",
        8 => "Device-to-Device",
        9 => "Host-to-Host",
        10 => "Peer-to-Peer",
        11 => "Unified Host-to-Device",
        12 => "Unified Device-to-Host",
        13 => "Unified Device-to-Device",
        _ => return None,
    })
}

/// Which API an [`ApiCall`] belongs to, from its `eventClass`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// `TRACE_PROCESS_EVENT_CUDA_RUNTIME` (0): `cudaLaunchKernel`, ...
    CudaRuntime,
    /// `TRACE_PROCESS_EVENT_CUDA_DRIVER` (1): `cuLaunchKernel`, ...
    CudaDriver,
    /// `TRACE_PROCESS_EVENT_CUDABACKTRACE` (67): not a call but the call
    /// stack of one. Older exports (seen in 2022.2, schema 2.9) write it as a
    /// second row of the runtime call, with the call's thread and
    /// correlation id, the name without its version suffix and a slightly
    /// wider time (`cudaLaunchKernel` around `cudaLaunchKernel_v7000`); the
    /// call counts once, as its own row.
    CudaBacktrace,
    /// Any other event class.
    Other(i64),
}

impl Api {
    pub(crate) const RUNTIME_CLASS: i64 = 0;
    pub(crate) const DRIVER_CLASS: i64 = 1;
    pub(crate) const BACKTRACE_CLASS: i64 = 67;

    /// The API of an `eventClass` value.
    pub fn from_event_class(class: i64) -> Api {
        match class {
            Self::RUNTIME_CLASS => Api::CudaRuntime,
            Self::DRIVER_CLASS => Api::CudaDriver,
            Self::BACKTRACE_CLASS => Api::CudaBacktrace,
            other => Api::Other(other),
        }
    }

    /// The category the model files it under (`cuda_runtime`,
    /// `cuda_driver`, as Kineto names the same calls).
    pub fn category(self) -> &'static str {
        match self {
            Api::CudaRuntime => "cuda_runtime",
            Api::CudaDriver => "cuda_driver",
            Api::CudaBacktrace => "cuda_backtrace",
            Api::Other(_) => "cuda_api",
        }
    }
}

/// One CUDA runtime or driver API call (`CUPTI_ACTIVITY_KIND_RUNTIME`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiCall {
    /// The row's `rowid`.
    pub rowid: i64,
    /// `start`, ns.
    pub start: i64,
    /// `end`, ns.
    pub end: i64,
    /// From `eventClass`.
    pub api: Api,
    /// `globalTid`: the calling thread.
    pub global_tid: Option<GlobalId>,
    /// `correlationId`: the id its device work carries, within the process.
    pub correlation_id: Option<i64>,
    /// `nameId`: the API function, as written (`cudaLaunchKernel_v7000`; see
    /// [`api_name`]).
    pub name: StringId,
}

impl ApiCall {
    /// Whether the row is an API call; a backtrace row is not (it describes
    /// the call with its correlation id, which has its own row).
    pub fn is_call(&self) -> bool {
        self.api != Api::CudaBacktrace
    }
}

/// The API function name without the `_vNNNN` version suffix nsys appends
/// to the CUDA runtime's names (`cudaLaunchKernel_v7000` →
/// `cudaLaunchKernel`; `cudaStreamGetCaptureInfo_v2_v11030` →
/// `cudaStreamGetCaptureInfo_v2`), as Kineto and nsys's own reports name
/// the call. Names without the suffix are returned whole.
pub fn api_name(name: &str) -> &str {
    match name.rsplit_once("_v") {
        Some((base, digits))
            if !base.is_empty()
                && digits.len() >= 4
                && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

/// One synchronization (`CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sync {
    /// The row's `rowid`.
    pub rowid: i64,
    /// `start`, ns.
    pub start: i64,
    /// `end`, ns.
    pub end: i64,
    /// Device, context and stream (`streamId` is `0xFFFFFFFF` for a
    /// context-wide synchronization).
    pub track: DeviceTrack,
    /// `correlationId`: the synchronizing API call's.
    pub correlation_id: Option<i64>,
    /// `globalPid`.
    pub global_pid: Option<GlobalId>,
    /// `syncType` (CUPTI's `CUpti_ActivitySynchronizationType`: 1 event,
    /// 2 stream wait event, 3 stream, 4 context).
    pub sync_type: i64,
}

impl Sync {
    /// The label the exports' `ENUM_CUPTI_SYNC_TYPE` table gives `sync_type`.
    pub fn display_name(&self) -> &'static str {
        match self.sync_type {
            1 => "Event sync",
            2 => "Stream wait sync",
            3 => "Stream sync",
            4 => "Context sync",
            _ => "Unknown sync",
        }
    }
}

/// What an NVTX row is, from its `eventType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NvtxKind {
    /// `NvtxPushPopRange` (59) or `NvtxtPushPopRange` (70): a range pushed
    /// and popped on one thread.
    PushPop,
    /// `NvtxStartEndRange` (60) or `NvtxtStartEndRange` (71): a range
    /// started on one thread and possibly ended on another.
    StartEnd,
    /// `NvtxMark` (34): an instant.
    Mark,
    /// `NvtxDomainCreate` (75): names a domain (`text`) for `domainId`.
    DomainCreate,
    /// Anything else (thread and category naming, ...).
    Other(i64),
}

impl NvtxKind {
    pub(crate) const MARK: i64 = 34;
    pub(crate) const PUSH_POP: i64 = 59;
    pub(crate) const START_END: i64 = 60;
    pub(crate) const TEXT_PUSH_POP: i64 = 70;
    pub(crate) const TEXT_START_END: i64 = 71;
    pub(crate) const DOMAIN_CREATE: i64 = 75;

    /// The kind of an `eventType` value.
    pub fn from_event_type(event_type: i64) -> NvtxKind {
        match event_type {
            Self::PUSH_POP | Self::TEXT_PUSH_POP => NvtxKind::PushPop,
            Self::START_END | Self::TEXT_START_END => NvtxKind::StartEnd,
            Self::MARK => NvtxKind::Mark,
            Self::DOMAIN_CREATE => NvtxKind::DomainCreate,
            other => NvtxKind::Other(other),
        }
    }

    /// Whether rows of this kind are ranges (host time on their thread).
    pub fn is_range(self) -> bool {
        matches!(self, NvtxKind::PushPop | NvtxKind::StartEnd)
    }
}

/// One NVTX row (`NVTX_EVENTS`). Text is written inline (`text`) or as a
/// registered string (`textId`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvtxEvent<'r> {
    /// The row's `rowid`.
    pub rowid: i64,
    /// `start`, ns.
    pub start: i64,
    /// `end`, ns: `None` for a mark, or a range still open when the capture
    /// ended.
    pub end: Option<i64>,
    /// From `eventType`.
    pub kind: NvtxKind,
    /// `text`, when written inline.
    pub text: Option<&'r str>,
    /// `textId`, when the text is a registered string.
    pub text_id: Option<StringId>,
    /// `globalTid`: the thread that pushed or started it.
    pub global_tid: Option<GlobalId>,
    /// `endGlobalTid`: the thread that ended a start/end range, when the
    /// schema writes it and it differs.
    pub end_global_tid: Option<GlobalId>,
    /// `domainId`.
    pub domain_id: Option<i64>,
}

/// A process (`PROCESSES`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process<'r> {
    /// `globalPid`.
    pub global_pid: GlobalId,
    /// `pid`.
    pub pid: i64,
    /// `name`.
    pub name: Option<&'r str>,
}

/// A thread's name (`ThreadNames`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadName {
    /// `globalTid`.
    pub global_tid: GlobalId,
    /// `nameId`.
    pub name: StringId,
}

/// A GPU (`TARGET_INFO_GPU`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Gpu {
    /// `id`: the `deviceId` device rows carry.
    pub id: i64,
    /// `name` (`NVIDIA A100-SXM4-80GB`).
    pub name: Option<String>,
    /// `busLocation`.
    pub bus_location: Option<String>,
    /// `uuid`.
    pub uuid: Option<String>,
    /// `chipName` (`GA100`).
    pub chip_name: Option<String>,
    /// `smCount`.
    pub sm_count: Option<i64>,
    /// `totalMemory`, bytes.
    pub total_memory: Option<i64>,
    /// `computeMajor`, `computeMinor`.
    pub compute_capability: Option<(i64, i64)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_ids_split_into_process_pid_and_tid() {
        // From pipit_perlmutter-cloverleaf-cuda.sqlite: a kernel's globalPid
        // and its launching thread's globalTid.
        let pid = GlobalId(310_028_053_512_192);
        let tid = GlobalId(310_028_055_214_088);
        assert_eq!(pid.process(), tid.process());
        assert_eq!(pid.pid(), 1_701_896);
        assert_eq!(tid.pid(), 1_701_896);
        assert_eq!(pid.tid(), 0);
        // The main thread: its tid is the pid.
        assert_eq!(tid.tid(), 1_701_896);
    }

    #[test]
    fn api_names_lose_only_a_version_suffix() {
        assert_eq!(api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
        assert_eq!(
            api_name("cudaStreamGetCaptureInfo_v2_v11030"),
            "cudaStreamGetCaptureInfo_v2"
        );
        assert_eq!(api_name("cudaGraphLaunch_v10000"), "cudaGraphLaunch");
        assert_eq!(api_name("cuLaunchKernelEx"), "cuLaunchKernelEx");
        assert_eq!(api_name("cuMemAlloc_v2"), "cuMemAlloc_v2");
        assert_eq!(api_name("_v7000"), "_v7000");
        assert_eq!(api_name("cudaFoo_v70a0"), "cudaFoo_v70a0");
    }

    #[test]
    fn nvtx_kinds_follow_the_event_type_enum() {
        assert_eq!(NvtxKind::from_event_type(59), NvtxKind::PushPop);
        assert_eq!(NvtxKind::from_event_type(70), NvtxKind::PushPop);
        assert_eq!(NvtxKind::from_event_type(60), NvtxKind::StartEnd);
        assert_eq!(NvtxKind::from_event_type(71), NvtxKind::StartEnd);
        assert_eq!(NvtxKind::from_event_type(34), NvtxKind::Mark);
        assert_eq!(NvtxKind::from_event_type(39), NvtxKind::Other(39));
        assert!(!NvtxKind::Mark.is_range());
    }
}
