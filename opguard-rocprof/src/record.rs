//! The rows a capture holds, typed the same way whichever file they come
//! from, and the [`Sink`] a reader hands them to.

use opguard_trace::Sha256Digest;

/// What kind of agent (HSA device) an [`Agent`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentKind {
    /// A CPU agent.
    Cpu,
    /// A GPU agent.
    Gpu,
    /// Anything else (rocprofv3 writes `UNK`).
    Other,
}

/// One agent (a CPU or GPU) as the capture's agent records describe it.
///
/// rocprofv3 names an agent three ways: its node id (absolute), its logical
/// node id (`Agent 2` in the CSV by default) and its index among agents of
/// its type (`GPU 0`); the JSON and the database also give it a handle.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Agent {
    /// The agent's handle (`id.handle` in JSON, `id` in rocpd), when the
    /// capture has one.
    pub handle: Option<u64>,
    /// CPU, GPU or other.
    pub kind: AgentKind,
    /// Node id (absolute index).
    pub node_id: Option<u64>,
    /// Logical node id (relative index).
    pub logical_node_id: Option<u64>,
    /// Index among agents of the same kind (`GPU 0`, `GPU 1`...): the HIP
    /// device ordinal when no device is hidden from the process.
    pub type_index: Option<u64>,
    /// The agent's name (`gfx950`, or the CPU's model).
    pub name: String,
    /// The product name (`AMD Instinct MI350X`), when written.
    pub product_name: String,
}

impl Agent {
    /// The name to show: the product name, else the agent name.
    pub fn display_name(&self) -> &str {
        if self.product_name.is_empty() {
            &self.name
        } else {
            &self.product_name
        }
    }

    /// `GPU 0`, `CPU 1`...: the agent by its kind and type index, the way
    /// a user counts devices; `None` when the capture does not say.
    pub fn device_label(&self) -> Option<String> {
        let kind = match self.kind {
            AgentKind::Gpu => "GPU",
            AgentKind::Cpu => "CPU",
            AgentKind::Other => return None,
        };
        self.type_index.map(|i| format!("{kind} {i}"))
    }
}

/// The device a record ran on: the label as the capture writes it, and the
/// agent record it resolves to when the capture has agent records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceRef<'a> {
    /// As written: `Agent 1` (CSV), or the handle / node id as a number.
    pub label: &'a str,
    /// The agent, when the capture's agent records name it.
    pub agent: Option<&'a Agent>,
}

/// Start and end of a record, nanoseconds in the capture's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns (rocprofv3 writes end ≥ start; this reader does not reorder).
    pub end_ns: i64,
}

impl Span {
    /// `end - start`, ns (negative when the capture says so).
    pub fn duration_ns(self) -> i64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// What every record has: where it is and whose it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordBase {
    /// The record's occurrence index in the capture (per format: see the
    /// crate docs). Unique within one capture.
    pub index: u64,
    /// The operating-system process whose correlation namespace the record
    /// belongs to, when the capture establishes it.
    pub process: Option<i64>,
    /// The operating-system thread (for a dispatch: the thread that
    /// enqueued it).
    pub thread: Option<i64>,
    /// rocprofiler's internal correlation id (`Correlation_Id`,
    /// `correlation_id.internal`, rocpd `stack_id`): the key that joins an
    /// API call to the device work it caused, unique within one process.
    pub correlation: Option<u64>,
    /// When it ran.
    pub span: Span,
}

/// One kernel dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelDispatch<'a> {
    /// Index, process, thread, correlation, time.
    pub base: RecordBase,
    /// The kernel's name as rocprofv3 formats it (demangled when it could).
    pub kernel_name: &'a str,
    /// The kernel symbol's id, when written.
    pub kernel_id: Option<u64>,
    /// rocprofiler's dispatch id, when written.
    pub dispatch_id: Option<u64>,
    /// The GPU.
    pub device: DeviceRef<'a>,
    /// The HSA queue.
    pub queue: Option<u64>,
    /// The HIP stream, when written.
    pub stream: Option<u64>,
    /// Grid size (work items) x, y, z.
    pub grid: [u64; 3],
    /// Workgroup size x, y, z.
    pub workgroup: [u64; 3],
}

/// One runtime API call (HIP, HSA, RCCL, rocDecode...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiCall<'a> {
    /// Index, process, thread, correlation, time.
    pub base: RecordBase,
    /// The tracing domain as rocprofv3 names it (`HIP_RUNTIME_API_EXT`,
    /// `HSA_CORE_API`, `RCCL_API`...).
    pub domain: &'a str,
    /// The function (`hipGraphLaunch`).
    pub function: &'a str,
}

/// A roctx range or mark: a host annotation on its thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker<'a> {
    /// Index, process, thread, correlation, time.
    pub base: RecordBase,
    /// The domain (`MARKER_CORE_API`, `MARKER_CORE_RANGE_API`).
    pub domain: &'a str,
    /// The message the program gave (`roctxRangePush("step")` → `step`).
    pub message: &'a str,
}

impl Marker<'_> {
    /// Whether it is a range (start before end) rather than a mark.
    pub fn is_range(&self) -> bool {
        self.base.span.end_ns > self.base.span.start_ns
    }
}

/// One memory copy done by a DMA engine (a copy done by a kernel, such as
/// `__amd_rocclr_copyBuffer`, is a [`KernelDispatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryCopy<'a> {
    /// Index, process, thread, correlation, time.
    pub base: RecordBase,
    /// The direction as rocprofv3 names it (`MEMORY_COPY_HOST_TO_DEVICE`).
    pub direction: &'a str,
    /// The source agent.
    pub source: DeviceRef<'a>,
    /// The destination agent.
    pub destination: DeviceRef<'a>,
    /// Bytes copied, when written.
    pub bytes: Option<u64>,
    /// The HIP stream, when written.
    pub stream: Option<u64>,
}

/// One record of a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Record<'a> {
    /// A kernel dispatch.
    Dispatch(KernelDispatch<'a>),
    /// A runtime API call.
    Api(ApiCall<'a>),
    /// A roctx range or mark.
    Marker(Marker<'a>),
    /// A DMA memory copy.
    MemoryCopy(MemoryCopy<'a>),
}

impl Record<'_> {
    /// What every record has.
    pub fn base(&self) -> &RecordBase {
        match self {
            Record::Dispatch(r) => &r.base,
            Record::Api(r) => &r.base,
            Record::Marker(r) => &r.base,
            Record::MemoryCopy(r) => &r.base,
        }
    }
}

/// Receives a capture's records, one at a time, in the reader's documented
/// order. Any `FnMut(&Record)` is a sink.
pub trait Sink {
    /// One record; what it borrows lives only for this call.
    fn record(&mut self, record: &Record<'_>);
}

impl<F: FnMut(&Record<'_>)> Sink for F {
    fn record(&mut self, record: &Record<'_>) {
        self(record)
    }
}

/// The three ways rocprofv3 writes its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureFormat {
    /// `--output-format csv`: one CSV file per record kind, sharing a prefix.
    Csv,
    /// `--output-format json`: one `rocprofiler-sdk-tool` document.
    Json,
    /// `--output-format rocpd` (the default since ROCm 7): a SQLite database.
    Rocpd,
}

impl CaptureFormat {
    /// `csv`, `json`, `rocpd`.
    pub fn as_str(self) -> &'static str {
        match self {
            CaptureFormat::Csv => "csv",
            CaptureFormat::Json => "json",
            CaptureFormat::Rocpd => "rocpd",
        }
    }
}

/// One file a capture was read from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CaptureFile {
    /// Its path as opened.
    pub path: String,
    /// What rocprofv3 wrote in it (`kernel_trace`, `hip_api_trace`,
    /// `results.json`, `results.db`...).
    pub kind: String,
    /// SHA-256 of its bytes.
    pub sha256: Sha256Digest,
    /// Its size.
    pub bytes: u64,
}

/// One profiled process, as the capture describes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct ProcessInfo {
    /// The operating-system process id, when the capture says.
    pub pid: Option<i64>,
    /// The command line, when written.
    pub command: Option<String>,
    /// The host it ran on, when written.
    pub hostname: Option<String>,
}

/// How many records of each kind a read gave the sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct RecordCounts {
    /// Kernel dispatches.
    pub dispatches: u64,
    /// Runtime API calls.
    pub api_calls: u64,
    /// roctx ranges and marks.
    pub markers: u64,
    /// DMA memory copies.
    pub memory_copies: u64,
}

impl RecordCounts {
    pub(crate) fn count(&mut self, record: &Record<'_>) {
        match record {
            Record::Dispatch(_) => self.dispatches += 1,
            Record::Api(_) => self.api_calls += 1,
            Record::Marker(_) => self.markers += 1,
            Record::MemoryCopy(_) => self.memory_copies += 1,
        }
    }

    /// All records.
    pub fn total(&self) -> u64 {
        self.dispatches + self.api_calls + self.markers + self.memory_copies
    }
}

/// What reading a whole capture established.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct CaptureSummary {
    /// CSV, JSON or rocpd.
    pub format: CaptureFormat,
    /// The capture's identity: a single file's SHA-256; for a CSV capture
    /// of several files, the SHA-256 of one line per file read, in reading
    /// order: `<file kind> <sha256 hex>\n`.
    pub sha256: Sha256Digest,
    /// `rocprofv3`, with what the capture says of its version.
    pub producer: String,
    /// The files read, in reading order.
    pub files: Vec<CaptureFile>,
    /// Bytes of the files read.
    pub encoded_bytes: u64,
    /// Bytes parsed after decompression.
    pub decoded_bytes: u64,
    /// The processes the capture describes.
    pub processes: Vec<ProcessInfo>,
    /// The agents the capture's agent records describe.
    pub agents: Vec<Agent>,
    /// Records given to the sink.
    pub records: RecordCounts,
    /// What the read accepted that deserves a word (an unknown CSV column,
    /// files not read...).
    pub warnings: Vec<String>,
}

/// Byte limits for reading a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// The bytes of the capture's files, checked before any is opened
    /// (a CSV capture: the sum of the files read).
    pub max_encoded_bytes: u64,
    /// Bytes parsed after decompression (uncompressed files: their bytes).
    pub max_decoded_bytes: u64,
    /// Bytes of one JSON value read whole (a record, a kernel symbol, a
    /// metadata object).
    pub max_value_bytes: u64,
    /// Read, hash and decompress files on a second thread (opguard-trace's
    /// `decode_thread`), so parsing and SHA-256 use two cores. Off by
    /// default: a library starts no thread its host did not ask for.
    pub decode_thread: bool,
}

/// The limit on one JSON value read whole: 64 MiB, as opguard-trace's.
pub const DEFAULT_MAX_VALUE_BYTES: u64 = opguard_trace::DEFAULT_MAX_VALUE_BYTES as u64;

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_encoded_bytes: opguard_trace::DEFAULT_MAX_ENCODED_BYTES,
            max_decoded_bytes: opguard_trace::DEFAULT_MAX_DECODED_BYTES,
            max_value_bytes: DEFAULT_MAX_VALUE_BYTES,
            decode_thread: false,
        }
    }
}

impl ReadOptions {
    /// The default limits (those of opguard-trace's JSON reader).
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the encoded-bytes limit.
    pub fn max_encoded_bytes(mut self, limit: u64) -> Self {
        self.max_encoded_bytes = limit;
        self
    }
    /// Sets the decoded-bytes limit.
    pub fn max_decoded_bytes(mut self, limit: u64) -> Self {
        self.max_decoded_bytes = limit;
        self
    }
    /// Sets whether a second thread reads, hashes and decompresses.
    pub fn decode_thread(mut self, on: bool) -> Self {
        self.decode_thread = on;
        self
    }
    /// The byte pipeline's options for one file with `decoded` bytes of
    /// budget left.
    pub(crate) fn pipeline(&self, decoded: u64) -> opguard_trace::ReaderOptions {
        opguard_trace::ReaderOptions::new()
            .max_encoded_bytes(self.max_encoded_bytes)
            .max_decoded_bytes(decoded)
            .decode_thread(self.decode_thread)
    }
    /// Refuses a capture of `size` encoded bytes over the limit, before it
    /// is opened.
    pub(crate) fn check_encoded(&self, size: u64) -> Result<(), crate::Error> {
        if size > self.max_encoded_bytes {
            return Err(crate::Error::new(crate::ErrorKind::LimitExceeded {
                which: crate::Limit::EncodedBytes,
                limit: self.max_encoded_bytes,
            }));
        }
        Ok(())
    }
    /// Sets the one-value limit.
    pub fn max_value_bytes(mut self, limit: u64) -> Self {
        self.max_value_bytes = limit;
        self
    }
}

/// A kernel symbol as rocprofv3 formats it for display (what its CSV writes
/// as `Kernel_Name`): without the `.kd` that names an AMDGPU kernel
/// descriptor, for a name taken from a symbol when the capture has no
/// formatted name.
pub(crate) fn formatted_kernel_name(symbol: &str) -> &str {
    symbol.strip_suffix(".kd").unwrap_or(symbol)
}
