//! Reader: a rocprofv3 CSV capture (`--output-format csv`).
//!
//! rocprofv3 writes one CSV file per record kind, every name sharing the
//! output prefix (by default the process id): `<prefix>kernel_trace.csv`,
//! `<prefix>hip_api_trace.csv`, `<prefix>agent_info.csv`... A capture is the
//! `*_kernel_trace.csv` file, any other file of the set, or the directory
//! holding them; the files of one prefix are one process's output.
//!
//! Files are read in this order, which is the occurrence order of their rows
//! (indexes count data rows from 0 across the files of a prefix, prefixes in
//! name order): `agent_info`, the API traces (`hip_api_trace`,
//! `hsa_api_trace`, `rccl_api_trace`, `rocdecode_api_trace`,
//! `rocjpeg_api_trace`, `marker_api_trace`), `kernel_trace`,
//! `memory_copy_trace`. The API traces come first because their
//! `Process_Id` is the process whose correlation namespace the prefix's
//! dispatches belong to (the kernel trace has no process column).
//!
//! Every header is checked against the columns rocprofv3 writes (ROCm 6.2 to
//! 7.x); a file that ends without a line break was cut and is refused.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use opguard_trace::DecodedInput;

use crate::digest::FileSet;
use crate::error::{Error, ErrorKind, Limit};
use crate::record::{
    Agent, AgentKind, ApiCall, CaptureFormat, CaptureSummary, DeviceRef, KernelDispatch, Marker,
    MemoryCopy, ProcessInfo, ReadOptions, Record, RecordBase, RecordCounts, Sink, Span,
};

/// What a CSV file holds, by its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    AgentInfo,
    Api,
    KernelTrace,
    MemoryCopy,
}

/// The files rocprofv3 writes that this reader reads, in reading order, with
/// what each holds.
const READ_FILES: &[(&str, Layout)] = &[
    ("agent_info", Layout::AgentInfo),
    ("hip_api_trace", Layout::Api),
    ("hsa_api_trace", Layout::Api),
    ("rccl_api_trace", Layout::Api),
    ("rocdecode_api_trace", Layout::Api),
    ("rocjpeg_api_trace", Layout::Api),
    ("marker_api_trace", Layout::Api),
    ("kernel_trace", Layout::KernelTrace),
    ("memory_copy_trace", Layout::MemoryCopy),
];

/// Other files rocprofv3 writes beside them, named so a capture can say what
/// it did not read.
const OTHER_FILES: &[&str] = &[
    "counter_collection",
    "memory_allocation_trace",
    "scratch_memory_trace",
    "kernel_stats",
    "hip_api_stats",
    "hsa_api_stats",
    "marker_api_stats",
    "memory_copy_stats",
    "rccl_api_stats",
    "domain_stats",
    "pc_sampling_host_trap",
    "pc_sampling_stochastic",
];

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::AgentInfo => "agent_info",
            Layout::Api => "api_trace",
            Layout::KernelTrace => "kernel_trace",
            Layout::MemoryCopy => "memory_copy_trace",
        }
    }

    /// Columns without which the file is not read.
    fn required(self) -> &'static [&'static str] {
        match self {
            Layout::AgentInfo => &["Node_Id", "Logical_Node_Id", "Agent_Type", "Name"],
            Layout::Api => &[
                "Domain",
                "Function",
                "Process_Id",
                "Thread_Id",
                "Correlation_Id",
                "Start_Timestamp",
                "End_Timestamp",
            ],
            Layout::KernelTrace => &[
                "Kind",
                "Agent_Id",
                "Queue_Id",
                "Kernel_Name",
                "Correlation_Id",
                "Start_Timestamp",
                "End_Timestamp",
            ],
            Layout::MemoryCopy => &[
                "Kind",
                "Direction",
                "Source_Agent_Id",
                "Destination_Agent_Id",
                "Correlation_Id",
                "Start_Timestamp",
                "End_Timestamp",
            ],
        }
    }

    /// Every column some rocprofv3 version writes in this file.
    fn known(self) -> &'static [&'static str] {
        match self {
            Layout::AgentInfo => AGENT_INFO_COLUMNS,
            Layout::Api => self.required(),
            Layout::KernelTrace => &[
                "Kind",
                "Agent_Id",
                "Queue_Id",
                "Stream_Id",
                "Thread_Id",
                "Dispatch_Id",
                "Kernel_Id",
                "Kernel_Name",
                "Correlation_Id",
                "Start_Timestamp",
                "End_Timestamp",
                "Private_Segment_Size",
                "Group_Segment_Size",
                "LDS_Block_Size",
                "Scratch_Size",
                "VGPR_Count",
                "Arch_VGPR_Count",
                "Accum_VGPR_Count",
                "SGPR_Count",
                "Workgroup_Size_X",
                "Workgroup_Size_Y",
                "Workgroup_Size_Z",
                "Grid_Size_X",
                "Grid_Size_Y",
                "Grid_Size_Z",
            ],
            Layout::MemoryCopy => &[
                "Kind",
                "Direction",
                "Stream_Id",
                "Source_Agent_Id",
                "Destination_Agent_Id",
                "Correlation_Id",
                "Start_Timestamp",
                "End_Timestamp",
            ],
        }
    }

    /// The layout a header is, when its file name does not say.
    fn of_header(header: &csv::ByteRecord) -> Option<Layout> {
        let has = |c: &str| header.iter().any(|h| h == c.as_bytes());
        match header.get(0)? {
            b"Kind" if has("Kernel_Name") => Some(Layout::KernelTrace),
            b"Kind" if has("Direction") => Some(Layout::MemoryCopy),
            b"Domain" => Some(Layout::Api),
            b"Node_Id" => Some(Layout::AgentInfo),
            _ => None,
        }
    }
}

const AGENT_INFO_COLUMNS: &[&str] = &[
    "Node_Id",
    "Logical_Node_Id",
    "Agent_Type",
    "Cpu_Cores_Count",
    "Simd_Count",
    "Cpu_Core_Id_Base",
    "Simd_Id_Base",
    "Max_Waves_Per_Simd",
    "Lds_Size_In_Kb",
    "Gds_Size_In_Kb",
    "Num_Gws",
    "Wave_Front_Size",
    "Num_Xcc",
    "Cu_Count",
    "Array_Count",
    "Num_Shader_Banks",
    "Simd_Arrays_Per_Engine",
    "Cu_Per_Simd_Array",
    "Simd_Per_Cu",
    "Max_Slots_Scratch_Cu",
    "Gfx_Target_Version",
    "Vendor_Id",
    "Device_Id",
    "Location_Id",
    "Domain",
    "Drm_Render_Minor",
    "Num_Sdma_Engines",
    "Num_Sdma_Xgmi_Engines",
    "Num_Sdma_Queues_Per_Engine",
    "Num_Cp_Queues",
    "Max_Engine_Clk_Ccompute",
    "Max_Engine_Clk_Fcompute",
    "Sdma_Fw_Version",
    "Fw_Version",
    "Capability",
    "Cu_Per_Engine",
    "Max_Waves_Per_Cu",
    "Family_Id",
    "Workgroup_Max_Size",
    "Grid_Max_Size",
    "Local_Mem_Size",
    "Hive_Id",
    "Gpu_Id",
    "Workgroup_Max_Dim_X",
    "Workgroup_Max_Dim_Y",
    "Workgroup_Max_Dim_Z",
    "Grid_Max_Dim_X",
    "Grid_Max_Dim_Y",
    "Grid_Max_Dim_Z",
    "Name",
    "Vendor_Name",
    "Product_Name",
    "Model_Name",
];

/// One file of a capture, before it is read.
#[derive(Debug, Clone)]
struct PlannedFile {
    path: PathBuf,
    /// `kernel_trace`, `hip_api_trace`... or `csv` for a file whose name
    /// rocprofv3 would not give it.
    kind: String,
    /// From its name; `None`: from its header.
    layout: Option<Layout>,
}

/// The files of one prefix: one process's output.
#[derive(Debug, Clone)]
struct PlannedGroup {
    files: Vec<PlannedFile>,
}

/// The prefix and kind of a file named as rocprofv3 names its CSV files.
fn split_name(name: &str) -> Option<(&str, usize)> {
    let stem = name.strip_suffix(".csv")?;
    READ_FILES
        .iter()
        .position(|(kind, _)| {
            stem.strip_suffix(kind)
                .is_some_and(|prefix| prefix.is_empty() || prefix.ends_with('_'))
        })
        .map(|i| (&stem[..stem.len() - READ_FILES[i].0.len()], i))
}

fn is_other_output(name: &str) -> bool {
    name.strip_suffix(".csv").is_some_and(|stem| {
        OTHER_FILES.iter().any(|kind| {
            stem.strip_suffix(kind)
                .is_some_and(|p| p.is_empty() || p.ends_with('_'))
        })
    })
}

/// The files a CSV capture at `path` consists of, and the rocprofv3 files
/// beside them that are not read.
fn plan(path: &Path) -> Result<(Vec<PlannedGroup>, Vec<String>), Error> {
    let (dir, only_prefix) = if path.is_dir() {
        (path.to_path_buf(), None)
    } else {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match split_name(name) {
            Some((prefix, _)) => {
                let dir = match path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                (dir, Some(prefix.to_owned()))
            }
            None => {
                // A file renamed by hand: read it alone, its header says what
                // it holds.
                let file = PlannedFile {
                    path: path.to_path_buf(),
                    kind: "csv".to_owned(),
                    layout: None,
                };
                return Ok((vec![PlannedGroup { files: vec![file] }], Vec::new()));
            }
        }
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| Error::from(e).in_file(&dir))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|t| !t.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut groups: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    let mut not_read = Vec::new();
    for name in &names {
        let Some((prefix, kind)) = split_name(name) else {
            if is_other_output(name) && only_prefix.as_deref().is_none_or(|p| name.starts_with(p)) {
                not_read.push(name.clone());
            }
            continue;
        };
        if only_prefix.as_deref().is_some_and(|p| p != prefix) {
            continue;
        }
        match groups.iter_mut().find(|(p, _)| p == prefix) {
            Some((_, files)) => files.push((kind, name.clone())),
            None => groups.push((prefix.to_owned(), vec![(kind, name.clone())])),
        }
    }
    // A prefix is a capture when it has a kernel trace, or when the user
    // named one of its files.
    let kernel = READ_FILES
        .iter()
        .position(|(k, _)| *k == "kernel_trace")
        .unwrap_or_default();
    groups.retain(|(_, files)| only_prefix.is_some() || files.iter().any(|(k, _)| *k == kernel));
    if groups.is_empty() {
        return Err(Error::not_rocprof(
            "the directory holds no *_kernel_trace.csv (rocprofv3 --output-format csv writes one \
             per process)",
        )
        .in_file(path));
    }
    let planned = groups
        .into_iter()
        .map(|(_, mut files)| {
            files.sort();
            PlannedGroup {
                files: files
                    .into_iter()
                    .map(|(kind, name)| PlannedFile {
                        path: dir.join(&name),
                        kind: READ_FILES[kind].0.to_owned(),
                        layout: Some(READ_FILES[kind].1),
                    })
                    .collect(),
            }
        })
        .collect();
    Ok((planned, not_read))
}

/// Reads the CSV capture at `path` (a `*_kernel_trace.csv`, another file of
/// the set, or the directory holding them), giving every record to `sink`.
pub fn read_csv(
    path: &Path,
    options: &ReadOptions,
    sink: &mut dyn Sink,
) -> Result<CaptureSummary, Error> {
    let (groups, not_read) = plan(path)?;
    let mut encoded = 0u64;
    for file in groups.iter().flat_map(|g| &g.files) {
        let len = std::fs::metadata(&file.path)
            .map_err(|e| Error::from(e).in_file(&file.path))?
            .len();
        encoded = encoded.saturating_add(len);
    }
    options
        .check_encoded(encoded)
        .map_err(|e| e.in_file(path))?;
    let mut state = ReadState {
        options: *options,
        decoded: 0,
        next_index: 0,
        counts: RecordCounts::default(),
        files: FileSet::default(),
        warnings: Vec::new(),
        processes: Vec::new(),
        agents: Vec::new(),
    };
    for group in &groups {
        read_group(group, &mut state, sink)?;
    }
    if !not_read.is_empty() {
        state.warnings.push(format!(
            "rocprofv3 files beside the capture not read: {}",
            not_read.join(", ")
        ));
    }
    let (sha256, files) = state.files.finish();
    Ok(CaptureSummary {
        format: CaptureFormat::Csv,
        sha256,
        producer: "rocprofv3".to_owned(),
        files,
        encoded_bytes: encoded,
        decoded_bytes: state.decoded,
        processes: state.processes,
        agents: state.agents,
        records: state.counts,
        warnings: state.warnings,
    })
}

struct ReadState {
    options: ReadOptions,
    decoded: u64,
    next_index: u64,
    counts: RecordCounts,
    files: FileSet,
    warnings: Vec<String>,
    processes: Vec<ProcessInfo>,
    /// Agents of all groups, in reading order.
    agents: Vec<Agent>,
}

/// What the API files of a group say about its process.
#[derive(Debug, Default)]
struct GroupProcess {
    pid: Option<i64>,
    conflicting: bool,
}

impl GroupProcess {
    fn saw(&mut self, pid: i64) {
        match self.pid {
            None if !self.conflicting => self.pid = Some(pid),
            Some(p) if p != pid => {
                self.pid = None;
                self.conflicting = true;
            }
            _ => {}
        }
    }
}

fn read_group(
    group: &PlannedGroup,
    state: &mut ReadState,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    let agents_before = state.agents.len();
    let mut process = GroupProcess::default();
    for file in &group.files {
        read_file(file, state, agents_before, &mut process, sink)
            .map_err(|e| e.in_file(&file.path))?;
    }
    if process.conflicting {
        state.warnings.push(format!(
            "the API traces of {} name more than one Process_Id: no dispatch of it is given a \
             process, so none is proven launched",
            group
                .files
                .first()
                .map_or(String::new(), |f| f.path.display().to_string())
        ));
    }
    state.processes.push(ProcessInfo {
        pid: process.pid,
        command: None,
        hostname: None,
    });
    Ok(())
}

/// Remembers the last byte read, to tell a file that ends with a line break
/// from one cut inside a row.
struct LastByte<R> {
    inner: R,
    last: Option<u8>,
}

impl<R: Read> Read for LastByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }
}

fn read_file(
    file: &PlannedFile,
    state: &mut ReadState,
    agents_from: usize,
    process: &mut GroupProcess,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    let remaining = state
        .options
        .max_decoded_bytes
        .saturating_sub(state.decoded);
    let pipeline = state.options.pipeline(remaining);
    let configured = state.options.max_decoded_bytes;
    let over_budget = |e: Error| match e.kind() {
        ErrorKind::Input(inner) if inner.code() == "limit_exceeded" => {
            Error::new(ErrorKind::LimitExceeded {
                which: Limit::DecodedBytes,
                limit: configured,
            })
        }
        _ => e,
    };
    let input = DecodedInput::open(&file.path, &pipeline).map_err(Error::from)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(256 << 10)
        .from_reader(LastByte {
            inner: input,
            last: None,
        });
    let mut row = csv::ByteRecord::new();
    let header_read = reader
        .read_byte_record(&mut row)
        .map_err(|e| over_budget(csv_error(e)))?;
    if !header_read {
        return Err(Error::not_rocprof("the file is empty").at_line(1, None));
    }
    let header = row.clone();
    let layout = match file.layout.or_else(|| Layout::of_header(&header)) {
        Some(layout) => layout,
        None => {
            let first = header
                .get(0)
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            return Err(Error::new(ErrorKind::ForeignHeader {
                file_kind: "CSV",
                column: first.into_owned(),
                missing: false,
                required: Layout::KernelTrace.required(),
            })
            .at_line(1, None));
        }
    };
    let columns = Columns::check(layout, &header, &mut state.warnings, &file.path)?;
    let agents_end = state.agents.len();
    let rows = Rows {
        layout,
        f: Fields::of(&columns),
        expected_fields: header.len() as u64,
        group_agents: agents_from..agents_end,
        process: process.pid,
    };
    // Lines are counted here: rows can hold quoted line breaks, and the
    // csv crate's record positions lag a line behind at its first refill.
    let mut next_line = 2 + newlines(header.as_slice());
    let mut line = 1u64;
    loop {
        let more = reader
            .read_byte_record(&mut row)
            .map_err(|e| over_budget(csv_error(e)).at_line(next_line, None))?;
        if !more {
            break;
        }
        line = next_line;
        next_line = line + 1 + newlines(row.as_slice());
        if row.len() as u64 != rows.expected_fields {
            // A row cut short is the common case: say so where the file ends.
            let mut after = csv::ByteRecord::new();
            let at_end = !reader
                .read_byte_record(&mut after)
                .map_err(|e| over_budget(csv_error(e)).at_line(next_line, None))?;
            let kind = if at_end {
                ErrorKind::CsvTruncated
            } else {
                ErrorKind::CsvRowLength {
                    expected: rows.expected_fields,
                    found: row.len() as u64,
                }
            };
            return Err(Error::new(kind).at_line(line, None));
        }
        match layout {
            Layout::AgentInfo => {
                let agent = rows.agent(&row).map_err(|e| e.at_line(line, None))?;
                state.agents.push(agent);
            }
            Layout::Api => {
                let index = state.next_index;
                rows.api(&row, index, process, &mut state.counts, sink)
                    .map_err(|e| e.at_line(line, None))?;
                state.next_index += 1;
            }
            Layout::KernelTrace | Layout::MemoryCopy => {
                let index = state.next_index;
                rows.device(&row, index, &state.agents, &mut state.counts, sink)
                    .map_err(|e| e.at_line(line, None))?;
                state.next_index += 1;
            }
        }
    }
    let last = reader.get_ref().last;
    if last.is_some_and(|b| b != b'\n') {
        return Err(Error::new(ErrorKind::CsvTruncated).at_line(line, None));
    }
    let input = reader.into_inner().inner;
    let summary = input.finish().map_err(|e| over_budget(Error::from(e)))?;
    if layout == Layout::AgentInfo {
        assign_type_indexes(&mut state.agents[agents_end..]);
    }
    state.decoded += summary.decoded_bytes;
    state.files.add(
        &file.path,
        &file.kind,
        summary.sha256,
        summary.encoded_bytes,
    );
    Ok(())
}

fn newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

fn csv_error(e: csv::Error) -> Error {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => Error::from(io),
        other => Error::new(ErrorKind::Csv(format!("{other:?}"))),
    }
}

/// rocprofv3 counts agents of one kind in logical-node order (`GPU 0` is
/// the GPU of the lowest logical node id); agent_info.csv does not write
/// the count, so it is derived the same way.
fn assign_type_indexes(agents: &mut [Agent]) {
    let mut order: Vec<usize> = (0..agents.len()).collect();
    order.sort_by_key(|&i| agents[i].logical_node_id);
    let (mut cpus, mut gpus) = (0u64, 0u64);
    for i in order {
        let counter = match agents[i].kind {
            AgentKind::Cpu => &mut cpus,
            AgentKind::Gpu => &mut gpus,
            AgentKind::Other => continue,
        };
        agents[i].type_index = Some(*counter);
        *counter += 1;
    }
}

/// Where each column the reader uses is in a file's header.
#[derive(Debug, Default)]
struct Columns {
    by_name: Vec<(&'static str, usize)>,
}

impl Columns {
    fn check(
        layout: Layout,
        header: &csv::ByteRecord,
        warnings: &mut Vec<String>,
        path: &Path,
    ) -> Result<Columns, Error> {
        let known = layout.known();
        let mut by_name = Vec::new();
        let mut unknown = Vec::new();
        for (i, column) in header.iter().enumerate() {
            match known.iter().find(|k| k.as_bytes() == column) {
                Some(k) => by_name.push((*k, i)),
                None => unknown.push(String::from_utf8_lossy(column).into_owned()),
            }
        }
        if let Some(missing) = layout
            .required()
            .iter()
            .find(|r| !by_name.iter().any(|(k, _)| k == *r))
        {
            // Name the first foreign column when there is one: that is what
            // the user will recognise (a pandas index, another tool's file).
            let (column, missing) = match unknown.first() {
                Some(foreign) => (foreign.clone(), false),
                None => ((*missing).to_owned(), true),
            };
            return Err(Error::new(ErrorKind::ForeignHeader {
                file_kind: layout.name(),
                column,
                missing,
                required: layout.required(),
            })
            .at_line(1, None));
        }
        if !unknown.is_empty() {
            warnings.push(format!(
                "{}: columns rocprofv3 is not known to write, not read: {}",
                path.display(),
                unknown.join(", ")
            ));
        }
        Ok(Columns { by_name })
    }

    fn get(&self, name: &str) -> Option<usize> {
        self.by_name
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, i)| *i)
    }
}

/// Reading the rows of one file.
struct Rows {
    layout: Layout,
    f: Fields,
    expected_fields: u64,
    /// This group's agents in the capture's agent list.
    group_agents: std::ops::Range<usize>,
    process: Option<i64>,
}

/// Where one column is in a file's rows.
#[derive(Debug, Clone, Copy)]
struct Field {
    index: usize,
    name: &'static str,
}

fn field<'r>(row: &'r csv::ByteRecord, f: &Field) -> Result<&'r [u8], Error> {
    row.get(f.index)
        .ok_or_else(|| Error::new(ErrorKind::CsvTruncated).in_column(f.name))
}

fn text<'r>(row: &'r csv::ByteRecord, f: &Field) -> Result<&'r str, Error> {
    std::str::from_utf8(field(row, f)?)
        .map_err(|_| Error::new(ErrorKind::InvalidUtf8).in_column(f.name))
}

fn unsigned(row: &csv::ByteRecord, f: &Field) -> Result<u64, Error> {
    let bytes = field(row, f)?;
    parse_u64(bytes)
        .ok_or_else(|| Error::invalid_field(bytes, "an unsigned integer").in_column(f.name))
}

fn signed(row: &csv::ByteRecord, f: &Field) -> Result<i64, Error> {
    let bytes = field(row, f)?;
    let value = match bytes.strip_prefix(b"-") {
        Some(digits) => parse_u64(digits).and_then(|v| 0i64.checked_sub_unsigned(v)),
        None => parse_u64(bytes).and_then(|v| i64::try_from(v).ok()),
    };
    value.ok_or_else(|| Error::invalid_field(bytes, "an integer").in_column(f.name))
}

fn timestamp(row: &csv::ByteRecord, f: &Field) -> Result<i64, Error> {
    let value = unsigned(row, f)?;
    i64::try_from(value).map_err(|_| {
        Error::new(ErrorKind::NumberOutOfRange {
            value: value.to_string(),
        })
        .in_column(f.name)
    })
}

pub(crate) fn parse_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > 20 {
        return None;
    }
    let mut value: u64 = 0;
    for &b in bytes {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    Some(value)
}

/// The columns the rows of a file are read from, looked up once per file
/// (a required column a header lacks was refused with the header).
struct Fields {
    agent_type: Field,
    product_name: Option<Field>,
    node_id: Field,
    logical_node_id: Field,
    name: Field,
    start: Field,
    end: Field,
    process: Field,
    thread: Option<Field>,
    correlation: Field,
    domain: Field,
    function: Field,
    kernel_name: Field,
    kernel_id: Option<Field>,
    dispatch_id: Option<Field>,
    agent: Field,
    queue: Field,
    stream: Option<Field>,
    grid: [Option<Field>; 3],
    workgroup: [Option<Field>; 3],
    direction: Field,
    source: Field,
    destination: Field,
}

impl Fields {
    fn of(columns: &Columns) -> Fields {
        let optional = |name: &'static str| columns.get(name).map(|index| Field { index, name });
        let need = |name: &'static str| Field {
            index: columns.get(name).unwrap_or(usize::MAX),
            name,
        };
        Fields {
            agent_type: need("Agent_Type"),
            product_name: optional("Product_Name"),
            node_id: need("Node_Id"),
            logical_node_id: need("Logical_Node_Id"),
            name: need("Name"),
            start: need("Start_Timestamp"),
            end: need("End_Timestamp"),
            process: need("Process_Id"),
            thread: optional("Thread_Id"),
            correlation: need("Correlation_Id"),
            domain: need("Domain"),
            function: need("Function"),
            kernel_name: need("Kernel_Name"),
            kernel_id: optional("Kernel_Id"),
            dispatch_id: optional("Dispatch_Id"),
            agent: need("Agent_Id"),
            queue: need("Queue_Id"),
            stream: optional("Stream_Id"),
            grid: ["Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"].map(optional),
            workgroup: ["Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z"].map(optional),
            direction: need("Direction"),
            source: need("Source_Agent_Id"),
            destination: need("Destination_Agent_Id"),
        }
    }
}

fn optional_unsigned(row: &csv::ByteRecord, f: Option<Field>) -> Result<Option<u64>, Error> {
    f.map(|f| unsigned(row, &f)).transpose()
}

impl Rows {
    fn agent(&self, row: &csv::ByteRecord) -> Result<Agent, Error> {
        let f = &self.f;
        let kind = match field(row, &f.agent_type)? {
            b"GPU" => AgentKind::Gpu,
            b"CPU" => AgentKind::Cpu,
            _ => AgentKind::Other,
        };
        let product = match &f.product_name {
            Some(p) => text(row, p)?.to_owned(),
            None => String::new(),
        };
        Ok(Agent {
            handle: None,
            kind,
            node_id: Some(unsigned(row, &f.node_id)?),
            logical_node_id: Some(unsigned(row, &f.logical_node_id)?),
            type_index: None,
            name: text(row, &f.name)?.to_owned(),
            product_name: product,
        })
    }

    fn span(&self, row: &csv::ByteRecord) -> Result<Span, Error> {
        Ok(Span {
            start_ns: timestamp(row, &self.f.start)?,
            end_ns: timestamp(row, &self.f.end)?,
        })
    }

    fn api(
        &self,
        row: &csv::ByteRecord,
        index: u64,
        process: &mut GroupProcess,
        counts: &mut RecordCounts,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let f = &self.f;
        let pid = signed(row, &f.process)?;
        process.saw(pid);
        let base = RecordBase {
            index,
            process: Some(pid),
            thread: f.thread.map(|t| signed(row, &t)).transpose()?,
            correlation: Some(unsigned(row, &f.correlation)?),
            span: self.span(row)?,
        };
        let domain = text(row, &f.domain)?;
        let function = text(row, &f.function)?;
        let record = if is_marker_domain(domain) {
            Record::Marker(Marker {
                base,
                domain,
                message: function,
            })
        } else {
            Record::Api(ApiCall {
                base,
                domain,
                function,
            })
        };
        counts.count(&record);
        sink.record(&record);
        Ok(())
    }

    fn device(
        &self,
        row: &csv::ByteRecord,
        index: u64,
        agents: &[Agent],
        counts: &mut RecordCounts,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let f = &self.f;
        let group_agents = &agents[self.group_agents.clone()];
        let device = |column: &Field| -> Result<DeviceRef<'_>, Error> {
            let label = text(row, column)?;
            Ok(DeviceRef {
                label,
                agent: resolve_agent(group_agents, label),
            })
        };
        let dim = |axis: &[Option<Field>; 3]| -> Result<[u64; 3], Error> {
            Ok([
                optional_unsigned(row, axis[0])?.unwrap_or(0),
                optional_unsigned(row, axis[1])?.unwrap_or(0),
                optional_unsigned(row, axis[2])?.unwrap_or(0),
            ])
        };
        let base = RecordBase {
            index,
            process: self.process,
            thread: f.thread.map(|t| signed(row, &t)).transpose()?,
            correlation: Some(unsigned(row, &f.correlation)?),
            span: self.span(row)?,
        };
        let record = match self.layout {
            Layout::KernelTrace => Record::Dispatch(KernelDispatch {
                base,
                kernel_name: text(row, &f.kernel_name)?,
                kernel_id: optional_unsigned(row, f.kernel_id)?,
                dispatch_id: optional_unsigned(row, f.dispatch_id)?,
                device: device(&f.agent)?,
                queue: Some(unsigned(row, &f.queue)?),
                stream: optional_unsigned(row, f.stream)?,
                grid: dim(&f.grid)?,
                workgroup: dim(&f.workgroup)?,
            }),
            _ => Record::MemoryCopy(MemoryCopy {
                base,
                direction: text(row, &f.direction)?,
                source: device(&f.source)?,
                destination: device(&f.destination)?,
                bytes: None,
                stream: optional_unsigned(row, f.stream)?,
            }),
        };
        counts.count(&record);
        sink.record(&record);
        Ok(())
    }
}

/// Whether an API domain is roctx's annotations (ranges and marks) rather
/// than a runtime API.
pub(crate) fn is_marker_domain(domain: &str) -> bool {
    matches!(domain, "MARKER_CORE_API" | "MARKER_CORE_RANGE_API")
}

/// The agent a CSV agent label names: `Agent N` by logical node id (the
/// default `--agent-index relative`), `GPU N` / `CPU N` by type index
/// (`type-relative`), a bare number by node id (ROCm 6.2 wrote node ids).
pub(crate) fn resolve_agent<'a>(agents: &'a [Agent], label: &str) -> Option<&'a Agent> {
    let (prefix, number) = match label.rsplit_once(' ') {
        Some((prefix, n)) => (prefix, parse_u64(n.as_bytes())?),
        None => ("", parse_u64(label.as_bytes())?),
    };
    agents.iter().find(|a| match prefix {
        "Agent" => a.logical_node_id == Some(number),
        "GPU" => a.kind == AgentKind::Gpu && a.type_index == Some(number),
        "CPU" => a.kind == AgentKind::Cpu && a.type_index == Some(number),
        "" => a.node_id == Some(number),
        _ => false,
    })
}
