//! Reader: the rocprofv3 JSON document (`--output-format json`), plain or
//! gzip.
//!
//! The document is `{"rocprofiler-sdk-tool": [process, ...]}`, one object per
//! profiled process holding `metadata` (its `pid`), `agents`, `strings` (the
//! names of every record kind and operation, and roctx messages),
//! `kernel_symbols`, and `buffer_records` (the records, one array per kind:
//! `kernel_dispatch`, `hip_api`, `hsa_api`, `marker_api`, `rccl_api`,
//! `memory_copy`...). rocprofv3 writes the tables before `buffer_records`;
//! the reader then streams the records one at a time. A document whose keys
//! were reordered (`jq -S`) puts `buffer_records` first: those records are
//! read in a second pass over the file, after the tables.
//!
//! Record indexes count the records in the order given to the sink: the
//! document's order (processes, then `buffer_records`' arrays as written,
//! then their elements), except records read in a second pass, which come
//! after all others.

mod scan;

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::Deserialize;

use opguard_trace::DecodedInput;

use crate::digest::FileSet;
use crate::error::{Error, ErrorKind};
use crate::record::{
    Agent, AgentKind, ApiCall, CaptureFormat, CaptureSummary, DeviceRef, KernelDispatch, Marker,
    MemoryCopy, ProcessInfo, ReadOptions, Record, RecordBase, RecordCounts, Sink, Span,
};
use scan::Scanner;

/// The top-level key of every rocprofv3 JSON document.
pub const TOOL_KEY: &str = "rocprofiler-sdk-tool";

/// Reads the rocprofv3 JSON document at `path` (plain or gzip), giving
/// every record to `sink`.
pub fn read_json(
    path: &Path,
    options: &ReadOptions,
    sink: &mut dyn Sink,
) -> Result<CaptureSummary, Error> {
    read(path, options, sink).map_err(|e| e.in_file(path))
}

fn read(path: &Path, options: &ReadOptions, sink: &mut dyn Sink) -> Result<CaptureSummary, Error> {
    options.check_encoded(std::fs::metadata(path)?.len())?;
    let mut reader = DocumentReader {
        processes: Vec::new(),
        emit: Emitter {
            sink,
            counts: RecordCounts::default(),
            next_index: 0,
        },
        not_read: Vec::new(),
        second_pass: false,
    };
    let summary = reader.pass(path, options, Pass::First)?;
    if reader.second_pass {
        reader.pass(path, options, Pass::Deferred)?;
    }
    let mut files = FileSet::default();
    files.add(path, "json", summary.sha256, summary.encoded_bytes);
    let (sha256, files) = files.finish();
    let mut warnings = Vec::new();
    reader.not_read.sort();
    reader.not_read.dedup_by(|a, b| {
        if a.0 == b.0 {
            b.1 += a.1;
            true
        } else {
            false
        }
    });
    for (kind, count) in &reader.not_read {
        if *count > 0 {
            warnings.push(format!("{count} {kind} records not read"));
        }
    }
    let agents = reader
        .processes
        .iter()
        .flat_map(|p| p.tables.agents.iter().cloned())
        .collect();
    Ok(CaptureSummary {
        format: CaptureFormat::Json,
        sha256,
        producer: "rocprofv3".to_owned(),
        files,
        encoded_bytes: summary.encoded_bytes,
        decoded_bytes: summary.decoded_bytes,
        processes: reader.processes.into_iter().map(|p| p.info).collect(),
        agents,
        records: reader.emit.counts,
        warnings,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Tables, and the records of processes whose tables came first.
    First,
    /// Only the records the first pass had to leave.
    Deferred,
}

struct Emitter<'s> {
    sink: &'s mut dyn Sink,
    counts: RecordCounts,
    next_index: u64,
}

impl Emitter<'_> {
    fn next(&mut self) -> u64 {
        let index = self.next_index;
        self.next_index += 1;
        index
    }
    fn emit(&mut self, record: &Record<'_>) {
        self.counts.count(record);
        self.sink.record(record);
    }
}

/// What one process object says besides its records.
#[derive(Debug, Default)]
struct Tables {
    agents: Vec<Agent>,
    /// Agent handle → (label, index into `agents`).
    agent_labels: HashMap<u64, (String, Option<usize>)>,
    /// `strings.buffer_records`: kind → (kind name, operation names).
    kinds: Vec<(String, Vec<String>)>,
    /// `strings.marker_api`: internal correlation id → roctx message.
    marker_messages: HashMap<u64, String>,
    /// kernel id → name.
    kernels: HashMap<u64, String>,
    seen_agents: bool,
    seen_strings: bool,
    seen_kernels: bool,
}

impl Tables {
    fn complete(&self) -> bool {
        self.seen_agents && self.seen_strings && self.seen_kernels
    }

    /// Makes sure a record's agent handle has a label: an agent of the
    /// process when it lists agents (else the handle names nothing), the
    /// handle's number when it lists none.
    fn ensure_label(&mut self, handle: u64) -> Result<(), Error> {
        if self.agent_labels.contains_key(&handle) {
            return Ok(());
        }
        if !self.agents.is_empty() {
            return Err(dangling("agent handle", handle));
        }
        self.agent_labels.insert(handle, (handle.to_string(), None));
        Ok(())
    }

    fn device(&self, handle: u64) -> Result<DeviceRef<'_>, Error> {
        match self.agent_labels.get(&handle) {
            Some((label, agent)) => Ok(DeviceRef {
                label,
                agent: agent.map(|i| &self.agents[i]),
            }),
            None => Err(dangling("agent handle", handle)),
        }
    }

    fn kind_name(&self, kind: u64) -> Result<&str, Error> {
        self.kinds
            .get(kind as usize)
            .map(|(name, _)| name.as_str())
            .ok_or_else(|| dangling("record kind", kind))
    }

    fn operation_name(&self, kind: u64, operation: u64) -> Result<&str, Error> {
        self.kinds
            .get(kind as usize)
            .and_then(|(_, ops)| ops.get(operation as usize))
            .map(String::as_str)
            .ok_or_else(|| dangling("operation", format!("{kind}.{operation}")))
    }
}

fn dangling(what: &'static str, id: impl ToString) -> Error {
    Error::new(ErrorKind::DanglingReference {
        what,
        id: id.to_string(),
    })
}

#[derive(Debug, Default)]
struct Process {
    info: ProcessInfo,
    tables: Tables,
    /// Its `buffer_records` came before its tables: read them in the
    /// deferred pass.
    deferred: bool,
}

struct DocumentReader<'s> {
    processes: Vec<Process>,
    emit: Emitter<'s>,
    /// Record arrays stepped over: (key, count).
    not_read: Vec<(String, u64)>,
    second_pass: bool,
}

/// Where the reader is, for error paths.
#[derive(Debug, Clone, Default)]
struct Place {
    process: Option<usize>,
    key: Option<String>,
    sub: Option<String>,
    element: Option<u64>,
}

impl Place {
    fn path(&self) -> String {
        let mut p = String::from(TOOL_KEY);
        if let Some(i) = self.process {
            p.push_str(&format!("[{i}]"));
        }
        if let Some(k) = &self.key {
            p.push('.');
            p.push_str(k);
        }
        if let Some(k) = &self.sub {
            p.push('.');
            p.push_str(k);
        }
        if let Some(i) = self.element {
            p.push_str(&format!("[{i}]"));
        }
        p
    }
}

impl DocumentReader<'_> {
    fn pass(
        &mut self,
        path: &Path,
        options: &ReadOptions,
        pass: Pass,
    ) -> Result<opguard_trace::InputSummary, Error> {
        let pipeline = options.pipeline(options.max_decoded_bytes);
        let input = DecodedInput::open(path, &pipeline)?;
        let mut scanner = Scanner::new(input, options.max_value_bytes);
        let mut place = Place::default();
        let result = self.document(&mut scanner, pass, &mut place);
        if let Err(e) = result {
            let offset = scanner.offset();
            return Err(e.in_json_path(offset, || place.path()));
        }
        Ok(scanner.into_inner().finish()?)
    }

    fn document<R: Read>(
        &mut self,
        s: &mut Scanner<R>,
        pass: Pass,
        place: &mut Place,
    ) -> Result<(), Error> {
        match s.peek()? {
            Some(b'{') => {}
            Some(_) => {
                return Err(
                    Error::not_rocprof(format!("expected a JSON object with {TOOL_KEY:?}"))
                        .at_offset(s.offset()),
                )
            }
            None => return Err(Error::not_rocprof("the file is empty")),
        }
        s.expect(b'{', "'{'")?;
        let mut seen_tool = false;
        let mut first = true;
        while let Some(key) = s.next_key(first)? {
            first = false;
            if key != TOOL_KEY {
                s.skip()?;
                continue;
            }
            if seen_tool {
                return Err(Error::new(ErrorKind::DuplicateKey { key }).at_offset(s.offset()));
            }
            seen_tool = true;
            s.expect(b'[', "an array of processes")?;
            let mut index = 0;
            let mut first_element = true;
            while s.next_element(first_element)? {
                first_element = false;
                *place = Place {
                    process: Some(index),
                    ..Place::default()
                };
                self.process(s, index, pass, place)?;
                index += 1;
            }
            *place = Place::default();
        }
        s.end()?;
        if !seen_tool {
            return Err(Error::not_rocprof(format!(
                "the top-level object has no {TOOL_KEY:?}"
            )));
        }
        Ok(())
    }

    fn process<R: Read>(
        &mut self,
        s: &mut Scanner<R>,
        index: usize,
        pass: Pass,
        place: &mut Place,
    ) -> Result<(), Error> {
        if pass == Pass::First {
            self.processes.push(Process::default());
        }
        if pass == Pass::Deferred && !self.processes[index].deferred {
            return s.skip();
        }
        s.expect(b'{', "a process object")?;
        let mut seen: Vec<String> = Vec::new();
        let mut first = true;
        while let Some(key) = s.next_key(first)? {
            first = false;
            place.key = Some(key.clone());
            place.sub = None;
            place.element = None;
            let typed = matches!(
                key.as_str(),
                "metadata" | "agents" | "strings" | "kernel_symbols" | "buffer_records"
            );
            if typed && seen.contains(&key) {
                return Err(Error::new(ErrorKind::DuplicateKey { key }).at_offset(s.offset()));
            }
            if typed {
                seen.push(key.clone());
            }
            match (pass, key.as_str()) {
                (Pass::First, "metadata") => {
                    let (a, b) = s.value()?;
                    let meta: MetadataJson = parse(s.bytes(a, b))?;
                    self.processes[index].info = ProcessInfo {
                        pid: meta.pid,
                        command: meta.command.map(|c| c.join(" ")),
                        hostname: meta.node.and_then(|n| n.hostname),
                    };
                }
                (Pass::First, "agents") => {
                    read_agents(s, &mut self.processes[index].tables, place)?;
                }
                (Pass::First, "strings") => {
                    read_strings(s, &mut self.processes[index].tables, place)?;
                }
                (Pass::First, "kernel_symbols") => {
                    read_kernel_symbols(s, &mut self.processes[index].tables, place)?;
                }
                (Pass::First, "buffer_records") if !self.processes[index].tables.complete() => {
                    self.processes[index].deferred = true;
                    self.second_pass = true;
                    s.skip()?;
                }
                (_, "buffer_records") => {
                    self.buffer_records(s, index, place)?;
                }
                _ => s.skip()?,
            }
        }
        place.key = None;
        Ok(())
    }

    fn buffer_records<R: Read>(
        &mut self,
        s: &mut Scanner<R>,
        index: usize,
        place: &mut Place,
    ) -> Result<(), Error> {
        s.expect(b'{', "an object of record arrays")?;
        let mut seen: Vec<String> = Vec::new();
        let mut first = true;
        while let Some(key) = s.next_key(first)? {
            first = false;
            if seen.contains(&key) {
                return Err(Error::new(ErrorKind::DuplicateKey { key }).at_offset(s.offset()));
            }
            seen.push(key.clone());
            place.sub = Some(key.clone());
            place.element = None;
            let kind = RecordArray::of(&key);
            if s.peek()? != Some(b'[') {
                return Err(Error::new(ErrorKind::InvalidRecord(format!(
                    "buffer_records.{key} is not an array"
                )))
                .at_offset(s.offset()));
            }
            s.expect(b'[', "an array")?;
            let mut element = 0u64;
            let mut first_element = true;
            while s.next_element(first_element)? {
                first_element = false;
                place.element = Some(element);
                match kind {
                    None => s.skip()?,
                    Some(kind) => {
                        let (a, b) = s.value()?;
                        let offset = s.offset_of(a);
                        let process = &mut self.processes[index];
                        emit_record(kind, s.bytes(a, b), process, &mut self.emit)
                            .map_err(|e| e.at_offset(offset))?;
                    }
                }
                element += 1;
            }
            if kind.is_none() {
                self.not_read.push((key, element));
            }
        }
        place.sub = None;
        place.element = None;
        Ok(())
    }
}

fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::new(ErrorKind::InvalidRecord(e.to_string())))
}

fn read_agents<R: Read>(
    s: &mut Scanner<R>,
    tables: &mut Tables,
    place: &mut Place,
) -> Result<(), Error> {
    tables.seen_agents = true;
    each_element(s, place, "an array of agents", |agent: AgentJson| {
        let kind = match agent.kind {
            1 => AgentKind::Cpu,
            2 => AgentKind::Gpu,
            _ => AgentKind::Other,
        };
        let label = match agent.logical_node_id {
            Some(n) => format!("Agent {n}"),
            None => agent.id.handle.to_string(),
        };
        tables
            .agent_labels
            .insert(agent.id.handle, (label, Some(tables.agents.len())));
        tables.agents.push(Agent {
            handle: Some(agent.id.handle),
            kind,
            node_id: agent.node_id,
            logical_node_id: agent.logical_node_id,
            type_index: agent.logical_node_type_id,
            name: agent.name.unwrap_or_default(),
            product_name: agent.product_name.unwrap_or_default(),
        });
    })
}

/// Reads an array of `T`s, one element at a time.
fn each_element<R: Read, T: serde::de::DeserializeOwned>(
    s: &mut Scanner<R>,
    place: &mut Place,
    expected: &str,
    mut each: impl FnMut(T),
) -> Result<(), Error> {
    s.expect(b'[', expected)?;
    let mut first = true;
    let mut element = 0;
    while s.next_element(first)? {
        first = false;
        place.element = Some(element);
        let (a, b) = s.value()?;
        let offset = s.offset_of(a);
        each(parse(s.bytes(a, b)).map_err(|e| e.at_offset(offset))?);
        element += 1;
    }
    place.element = None;
    Ok(())
}

fn read_strings<R: Read>(
    s: &mut Scanner<R>,
    tables: &mut Tables,
    place: &mut Place,
) -> Result<(), Error> {
    tables.seen_strings = true;
    s.expect(b'{', "an object of string tables")?;
    let mut first = true;
    let mut seen: Vec<String> = Vec::new();
    while let Some(key) = s.next_key(first)? {
        first = false;
        place.sub = Some(key.clone());
        let typed = matches!(key.as_str(), "buffer_records" | "marker_api");
        if typed && seen.contains(&key) {
            return Err(Error::new(ErrorKind::DuplicateKey { key }).at_offset(s.offset()));
        }
        if typed {
            seen.push(key.clone());
        }
        match key.as_str() {
            "buffer_records" => {
                let (a, b) = s.value()?;
                let offset = s.offset_of(a);
                let names: Vec<NameInfoJson> =
                    parse(s.bytes(a, b)).map_err(|e| e.at_offset(offset))?;
                tables.kinds = names.into_iter().map(|n| (n.kind, n.operations)).collect();
            }
            "marker_api" => {
                let messages = &mut tables.marker_messages;
                each_element(
                    s,
                    place,
                    "an array of roctx messages",
                    |m: MarkerMessageJson| {
                        messages.insert(m.key, m.value);
                    },
                )?;
            }
            _ => s.skip()?,
        }
    }
    place.sub = None;
    Ok(())
}

fn read_kernel_symbols<R: Read>(
    s: &mut Scanner<R>,
    tables: &mut Tables,
    place: &mut Place,
) -> Result<(), Error> {
    tables.seen_kernels = true;
    let kernels = &mut tables.kernels;
    each_element(
        s,
        place,
        "an array of kernel symbols",
        |symbol: KernelSymbolJson| {
            // rocprofv3 names a dispatch by the formatted name (what its CSV
            // writes as Kernel_Name): demangled, `.kd` dropped.
            let name = match symbol.formatted_kernel_name.filter(|n| !n.is_empty()) {
                Some(formatted) => formatted,
                None => [symbol.demangled_kernel_name, Some(symbol.kernel_name)]
                    .into_iter()
                    .flatten()
                    .find(|n| !n.is_empty())
                    .map(|n| crate::record::formatted_kernel_name(&n).to_owned())
                    .unwrap_or_default(),
            };
            kernels.insert(symbol.kernel_id, name);
        },
    )
}

/// The record arrays this reader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RecordArray {
    Dispatch,
    Api,
    Marker,
    MemoryCopy,
}

impl RecordArray {
    fn of(key: &str) -> Option<Self> {
        match key {
            "kernel_dispatch" => Some(RecordArray::Dispatch),
            "hip_api" | "hsa_api" | "rccl_api" | "rocdecode_api" | "rocjpeg_api" => {
                Some(RecordArray::Api)
            }
            "marker_api" => Some(RecordArray::Marker),
            "memory_copy" => Some(RecordArray::MemoryCopy),
            _ => None,
        }
    }
}

/// The agent handles a record names (parsed once more only for this: the
/// labels must exist before the record borrows them).
fn agent_handles(kind: RecordArray, bytes: &[u8]) -> Result<Vec<u64>, Error> {
    Ok(match kind {
        RecordArray::Dispatch => {
            let r: AgentOfDispatchJson = parse(bytes)?;
            vec![r.dispatch_info.agent_id.handle]
        }
        RecordArray::MemoryCopy => {
            let r: AgentsOfCopyJson = parse(bytes)?;
            vec![r.src_agent_id.handle, r.dst_agent_id.handle]
        }
        RecordArray::Api | RecordArray::Marker => Vec::new(),
    })
}

fn timestamp(value: u64) -> Result<i64, Error> {
    i64::try_from(value).map_err(|_| {
        Error::new(ErrorKind::NumberOutOfRange {
            value: value.to_string(),
        })
    })
}

fn span(start: u64, end: u64) -> Result<Span, Error> {
    Ok(Span {
        start_ns: timestamp(start)?,
        end_ns: timestamp(end)?,
    })
}

fn emit_record(
    kind: RecordArray,
    bytes: &[u8],
    process: &mut Process,
    emit: &mut Emitter<'_>,
) -> Result<(), Error> {
    if process.tables.agents.is_empty() {
        for handle in agent_handles(kind, bytes)? {
            process.tables.ensure_label(handle)?;
        }
    }
    let tables = &process.tables;
    let pid = process.info.pid;
    match kind {
        RecordArray::Dispatch => {
            let r: DispatchJson = parse(bytes)?;
            let info = &r.dispatch_info;
            let name = tables
                .kernels
                .get(&info.kernel_id)
                .ok_or_else(|| dangling("kernel_id", info.kernel_id))?;
            let record = Record::Dispatch(KernelDispatch {
                base: RecordBase {
                    index: emit.next(),
                    process: pid,
                    thread: r.thread_id,
                    correlation: Some(r.correlation_id.internal),
                    span: span(r.start_timestamp, r.end_timestamp)?,
                },
                kernel_name: name,
                kernel_id: Some(info.kernel_id),
                dispatch_id: Some(info.dispatch_id),
                device: tables.device(info.agent_id.handle)?,
                queue: Some(info.queue_id.handle),
                stream: r.stream_id.map(|h| h.handle),
                grid: [info.grid_size.x, info.grid_size.y, info.grid_size.z],
                workgroup: [
                    info.workgroup_size.x,
                    info.workgroup_size.y,
                    info.workgroup_size.z,
                ],
            });
            emit.emit(&record);
        }
        RecordArray::Api | RecordArray::Marker => {
            let r: ApiJson = parse(bytes)?;
            let base = RecordBase {
                index: emit.next(),
                process: pid,
                thread: r.thread_id,
                correlation: Some(r.correlation_id.internal),
                span: span(r.start_timestamp, r.end_timestamp)?,
            };
            let domain = tables.kind_name(r.kind)?;
            let message = tables.marker_messages.get(&r.correlation_id.internal);
            let record = match message {
                Some(message) if kind == RecordArray::Marker => Record::Marker(Marker {
                    base,
                    domain,
                    message,
                }),
                _ => Record::Api(ApiCall {
                    base,
                    domain,
                    function: tables.operation_name(r.kind, r.operation)?,
                }),
            };
            emit.emit(&record);
        }
        RecordArray::MemoryCopy => {
            let r: CopyJson = parse(bytes)?;
            let record = Record::MemoryCopy(MemoryCopy {
                base: RecordBase {
                    index: emit.next(),
                    process: pid,
                    thread: r.thread_id,
                    correlation: Some(r.correlation_id.internal),
                    span: span(r.start_timestamp, r.end_timestamp)?,
                },
                direction: tables.operation_name(r.kind, r.operation)?,
                source: tables.device(r.src_agent_id.handle)?,
                destination: tables.device(r.dst_agent_id.handle)?,
                bytes: r.bytes,
                stream: r.stream_id.map(|h| h.handle),
            });
            emit.emit(&record);
        }
    }
    Ok(())
}

// What this reader takes of rocprofiler-sdk's serialisation (its
// `save(ArchiveT&, ...)` functions write these names); other fields are
// stepped over by serde.

#[derive(Deserialize)]
struct MetadataJson {
    pid: Option<i64>,
    command: Option<Vec<String>>,
    node: Option<NodeJson>,
}

#[derive(Deserialize)]
struct NodeJson {
    hostname: Option<String>,
}

#[derive(Deserialize)]
struct HandleJson {
    handle: u64,
}

#[derive(Deserialize)]
struct AgentJson {
    id: HandleJson,
    #[serde(rename = "type")]
    kind: u64,
    name: Option<String>,
    product_name: Option<String>,
    node_id: Option<u64>,
    logical_node_id: Option<u64>,
    logical_node_type_id: Option<u64>,
}

#[derive(Deserialize)]
struct NameInfoJson {
    kind: String,
    operations: Vec<String>,
}

#[derive(Deserialize)]
struct MarkerMessageJson {
    key: u64,
    value: String,
}

#[derive(Deserialize)]
struct KernelSymbolJson {
    kernel_id: u64,
    kernel_name: String,
    formatted_kernel_name: Option<String>,
    demangled_kernel_name: Option<String>,
}

#[derive(Deserialize)]
struct CorrelationJson {
    internal: u64,
}

#[derive(Deserialize)]
struct DimJson {
    x: u64,
    y: u64,
    z: u64,
}

#[derive(Deserialize)]
struct DispatchInfoJson {
    agent_id: HandleJson,
    queue_id: HandleJson,
    kernel_id: u64,
    dispatch_id: u64,
    workgroup_size: DimJson,
    grid_size: DimJson,
}

#[derive(Deserialize)]
struct DispatchJson {
    thread_id: Option<i64>,
    correlation_id: CorrelationJson,
    start_timestamp: u64,
    end_timestamp: u64,
    dispatch_info: DispatchInfoJson,
    stream_id: Option<HandleJson>,
}

#[derive(Deserialize)]
struct ApiJson {
    kind: u64,
    operation: u64,
    thread_id: Option<i64>,
    correlation_id: CorrelationJson,
    start_timestamp: u64,
    end_timestamp: u64,
}

#[derive(Deserialize)]
struct CopyJson {
    kind: u64,
    operation: u64,
    thread_id: Option<i64>,
    correlation_id: CorrelationJson,
    start_timestamp: u64,
    end_timestamp: u64,
    dst_agent_id: HandleJson,
    src_agent_id: HandleJson,
    bytes: Option<u64>,
    stream_id: Option<HandleJson>,
}

#[derive(Deserialize)]
struct AgentOfDispatchInfoJson {
    agent_id: HandleJson,
}

#[derive(Deserialize)]
struct AgentOfDispatchJson {
    dispatch_info: AgentOfDispatchInfoJson,
}

#[derive(Deserialize)]
struct AgentsOfCopyJson {
    dst_agent_id: HandleJson,
    src_agent_id: HandleJson,
}
