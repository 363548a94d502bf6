//! Reader: the rocpd SQLite database (`--output-format rocpd`, rocprofv3's
//! default since ROCm 7).
//!
//! rocprofiler-sdk writes one set of tables per process, named with a UUID
//! suffix (`rocpd_kernel_dispatch_<uuid>`), and views without it
//! (`rocpd_kernel_dispatch`) that this reader reads. Rows carry the
//! process's `guid`; `pid` and `tid` name `rocpd_info_process` and
//! `rocpd_info_thread` rows, whose `pid`/`tid` are the operating system's.
//! A record's correlation is its `rocpd_event` row's `stack_id`: rocprofv3
//! stores the internal correlation id there (and the external one in
//! `correlation_id`).
//!
//! Records are read in this order, which is their occurrence order:
//! `rocpd_region` (API calls and roctx ranges) by `id`, the roctx marks of
//! `rocpd_sample` by `id`, `rocpd_kernel_dispatch` by `id`,
//! `rocpd_memory_copy` by `id` (ties, in a database merging several
//! processes, by `guid`).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, Row};
use sha2::Digest;

use crate::csv::is_marker_domain;
use crate::digest::FileSet;
use crate::error::{Error, ErrorKind, Limit, Position};
use crate::record::{
    Agent, AgentKind, ApiCall, CaptureFormat, CaptureSummary, DeviceRef, KernelDispatch, Marker,
    MemoryCopy, ProcessInfo, ReadOptions, Record, RecordBase, RecordCounts, Sink, Span,
};

/// The first 16 bytes of every SQLite database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The views (or tables) a rocpd database must have.
const REQUIRED: &[&str] = &[
    "rocpd_kernel_dispatch",
    "rocpd_info_kernel_symbol",
    "rocpd_event",
    "rocpd_string",
    "rocpd_info_process",
];

/// Reads the rocpd database at `path`, giving every record to `sink`.
pub fn read_rocpd(
    path: &Path,
    options: &ReadOptions,
    sink: &mut dyn Sink,
) -> Result<CaptureSummary, Error> {
    read(path, options, sink).map_err(|e| e.in_file(path))
}

fn read(path: &Path, options: &ReadOptions, sink: &mut dyn Sink) -> Result<CaptureSummary, Error> {
    let size = std::fs::metadata(path)?.len();
    options.check_encoded(size)?;
    // SQLite reads the file as it is: its decoded bytes are its bytes.
    if size > options.max_decoded_bytes {
        return Err(Error::new(ErrorKind::LimitExceeded {
            which: Limit::DecodedBytes,
            limit: options.max_decoded_bytes,
        }));
    }
    let (sha256, stated) = hash_file(path)?;
    // SQLite reads a page past the end of a cut file as zeros (a short
    // read), so a file cut inside its last pages can open and read with
    // rows lost or garbled; its header says how long it is.
    if let Some(stated) = stated.filter(|&stated| size < stated) {
        return Err(Error::new(ErrorKind::Sqlite(format!(
            "the file is {size} bytes where its header states {stated}: it was cut"
        ))));
    }
    let db = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let relations = relations(&db)?;
    if let Some(missing) = REQUIRED.iter().find(|r| !relations.iter().any(|n| n == *r)) {
        return Err(Error::not_rocprof(format!(
            "the database has no {missing} table or view (rocprofv3's rocpd schema has it)"
        )));
    }
    let has = |name: &str| relations.iter().any(|n| n == name);
    let mut reader = DbReader {
        db: &db,
        sink,
        counts: RecordCounts::default(),
        next_index: 0,
        warnings: Vec::new(),
        guids: Vec::new(),
        processes: HashMap::new(),
        agents: Vec::new(),
        agent_ids: HashMap::new(),
    };
    let schema = if has("rocpd_metadata") {
        reader.schema_version()?
    } else {
        None
    };
    let process_info = reader.processes()?;
    if has("rocpd_info_agent") {
        reader.agents()?;
    }
    let threads = has("rocpd_info_thread");
    if has("rocpd_region") {
        reader.regions(threads)?;
    }
    if has("rocpd_sample") && has("rocpd_track") {
        reader.marks(threads)?;
    }
    reader.dispatches(threads)?;
    if has("rocpd_memory_copy") {
        reader.memory_copies(threads)?;
    }
    let mut files = FileSet::default();
    files.add(path, "rocpd", sha256, size);
    let (sha256, files) = files.finish();
    let producer = match schema {
        Some(v) => format!("rocprofv3 (rocpd schema {v})"),
        None => "rocprofv3 (rocpd)".to_owned(),
    };
    Ok(CaptureSummary {
        format: CaptureFormat::Rocpd,
        sha256,
        producer,
        files,
        encoded_bytes: size,
        decoded_bytes: size,
        processes: process_info,
        agents: reader.agents,
        records: reader.counts,
        warnings: reader.warnings,
    })
}

/// The SHA-256 of the database file, and the size its SQLite header states
/// for it (see [`stated_size`]).
fn hash_file(path: &Path) -> Result<(opguard_trace::Sha256Digest, Option<u64>), Error> {
    let mut file = std::fs::File::open(path)?;
    let mut head = [0u8; 100];
    let mut got = 0;
    while got < head.len() {
        let n = file.read(&mut head[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    if !head[..got].starts_with(SQLITE_MAGIC) {
        return Err(Error::not_rocprof("the file is not a SQLite database"));
    }
    let mut hasher = sha2::Sha256::new();
    hasher.update(&head[..got]);
    let mut buf = vec![0u8; 256 << 10];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let stated = stated_size(&head[..got]);
    Ok((
        opguard_trace::Sha256Digest(hasher.finalize().into()),
        stated,
    ))
}

/// The database size an SQLite header states (page size × page count), when
/// it states one: the in-header page count is valid only when nonzero and
/// written by the change that wrote the version-valid-for number (SQLite's
/// file format, section 1.3.7).
fn stated_size(head: &[u8]) -> Option<u64> {
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(head.get(at..at + 4)?.try_into().ok()?))
    };
    let page_size = match u16::from_be_bytes(head.get(16..18)?.try_into().ok()?) {
        1 => 65536,
        n => u64::from(n),
    };
    let pages = be32(28)?;
    (pages != 0 && be32(24)? == be32(92)?).then(|| page_size * u64::from(pages))
}

fn relations(db: &Connection) -> Result<Vec<String>, Error> {
    let mut stmt = db
        .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        .map_err(|e| in_table(e.into(), "sqlite_master"))?;
    let names = stmt
        .query_map([], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| in_table(e.into(), "sqlite_master"))?;
    Ok(names)
}

/// Runs `sql` over `table` and hands each row to `each`; an error in a row
/// names the table and the row's `id` (the query's first column).
fn each_row<T>(
    db: &Connection,
    reader: &mut T,
    table: &str,
    sql: &str,
    mut each: impl FnMut(&mut T, &Row<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut stmt = db.prepare(sql).map_err(|e| in_table(e.into(), table))?;
    let mut rows = stmt.query([]).map_err(|e| in_table(e.into(), table))?;
    while let Some(row) = rows.next().map_err(|e| in_table(e.into(), table))? {
        let id: Option<i64> = row.get(0).map_err(|e| in_table(e.into(), table))?;
        each(reader, row).map_err(|e| {
            e.at(Position::Row {
                table: table.to_owned(),
                rowid: id,
            })
        })?;
    }
    Ok(())
}

fn in_table(e: Error, table: &str) -> Error {
    e.at(Position::Row {
        table: table.to_owned(),
        rowid: None,
    })
}

struct DbReader<'a> {
    db: &'a Connection,
    sink: &'a mut dyn Sink,
    counts: RecordCounts,
    next_index: u64,
    warnings: Vec<String>,
    /// Distinct `guid`s (one per profiled process run).
    guids: Vec<String>,
    /// (guid index, rocpd_info_process.id) → OS pid; `None` when two runs
    /// in one database share a pid (their correlation ids would collide).
    processes: HashMap<(usize, i64), Option<i64>>,
    agents: Vec<Agent>,
    /// (guid index, rocpd_info_agent.id) → (label, index into `agents`).
    agent_ids: HashMap<(usize, i64), (String, usize)>,
}

/// Columns read as optional integers.
fn int(row: &Row<'_>, i: usize) -> rusqlite::Result<Option<i64>> {
    row.get::<_, Option<i64>>(i)
}

fn unsigned(value: Option<i64>) -> Option<u64> {
    value.and_then(|v| u64::try_from(v).ok())
}

impl DbReader<'_> {
    fn guid(&mut self, guid: &str) -> usize {
        match self.guids.iter().position(|g| g == guid) {
            Some(i) => i,
            None => {
                self.guids.push(guid.to_owned());
                self.guids.len() - 1
            }
        }
    }

    fn next(&mut self) -> u64 {
        let index = self.next_index;
        self.next_index += 1;
        index
    }

    fn emit(&mut self, record: &Record<'_>) {
        self.counts.count(record);
        self.sink.record(record);
    }

    fn schema_version(&self) -> Result<Option<String>, Error> {
        let version = self
            .db
            .query_row(
                "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version' LIMIT 1",
                [],
                |row| row.get::<_, String>(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                other => Err(other),
            })
            .map_err(|e| in_table(e.into(), "rocpd_metadata"))?;
        Ok(version)
    }

    fn processes(&mut self) -> Result<Vec<ProcessInfo>, Error> {
        let table = "rocpd_info_process";
        let mut stmt = self
            .db
            .prepare("SELECT guid, id, pid, command FROM rocpd_info_process ORDER BY id, guid")
            .map_err(|e| in_table(e.into(), table))?;
        let mut rows = stmt.query([]).map_err(|e| in_table(e.into(), table))?;
        let mut info = Vec::new();
        let mut seen_pid: HashMap<i64, usize> = HashMap::new();
        while let Some(row) = rows.next().map_err(|e| in_table(e.into(), table))? {
            let read = |row: &Row<'_>| -> rusqlite::Result<(String, i64, i64, Option<String>)> {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            };
            let (guid, id, pid, command) = read(row).map_err(|e| in_table(e.into(), table))?;
            let g = self.guid(&guid);
            let shared = seen_pid.insert(pid, g).is_some_and(|other| other != g);
            self.processes.insert((g, id), Some(pid));
            if shared {
                // Two runs with one pid: neither's records may claim a
                // process, or their correlation ids would be joined.
                for value in self.processes.values_mut() {
                    if *value == Some(pid) {
                        *value = None;
                    }
                }
                self.warnings.push(format!(
                    "two processes in the database have pid {pid}: their records are given no \
                     process, so none is proven launched"
                ));
            }
            info.push(ProcessInfo {
                pid: Some(pid),
                command: command.filter(|c| !c.is_empty()),
                hostname: None,
            });
        }
        Ok(info)
    }

    fn agents(&mut self) -> Result<(), Error> {
        let table = "rocpd_info_agent";
        let mut stmt = self
            .db
            .prepare(
                "SELECT guid, id, type, absolute_index, logical_index, type_index, name, \
                 product_name FROM rocpd_info_agent ORDER BY id, guid",
            )
            .map_err(|e| in_table(e.into(), table))?;
        let mut rows = stmt.query([]).map_err(|e| in_table(e.into(), table))?;
        while let Some(row) = rows.next().map_err(|e| in_table(e.into(), table))? {
            let read = |row: &Row<'_>| -> rusqlite::Result<_> {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, Option<String>>(2)?,
                    int(row, 3)?,
                    int(row, 4)?,
                    int(row, 5)?,
                    row.get::<_, Option<String>>(6)?,
                    row.get::<_, Option<String>>(7)?,
                ))
            };
            let (guid, id, kind, absolute, logical, type_index, name, product) =
                read(row).map_err(|e| in_table(e.into(), table))?;
            let g = self.guid(&guid);
            let label = match logical {
                Some(n) => format!("Agent {n}"),
                None => id.to_string(),
            };
            self.agent_ids.insert((g, id), (label, self.agents.len()));
            self.agents.push(Agent {
                handle: u64::try_from(id).ok(),
                kind: match kind.as_deref() {
                    Some("GPU") => AgentKind::Gpu,
                    Some("CPU") => AgentKind::Cpu,
                    _ => AgentKind::Other,
                },
                node_id: unsigned(absolute),
                logical_node_id: unsigned(logical),
                type_index: unsigned(type_index),
                name: name.unwrap_or_default(),
                product_name: product.unwrap_or_default(),
            });
        }
        Ok(())
    }

    fn process_of(&self, g: usize, id: Option<i64>) -> Option<i64> {
        id.and_then(|id| self.processes.get(&(g, id)).copied().flatten())
    }

    fn regions(&mut self, threads: bool) -> Result<(), Error> {
        let table = "rocpd_region";
        let thread = if threads {
            "(SELECT T.tid FROM rocpd_info_thread T WHERE T.id = R.tid AND T.guid = R.guid)"
        } else {
            "R.tid"
        };
        let sql = format!(
            "SELECT R.id, R.guid, R.pid, {thread}, R.start, R.\"end\", N.string, C.string, \
             E.stack_id, E.extdata \
             FROM rocpd_region R \
             LEFT JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid \
             LEFT JOIN rocpd_string N ON N.id = R.name_id AND N.guid = R.guid \
             LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid \
             ORDER BY R.id, R.guid"
        );
        each_row(self.db, self, table, &sql, |r, row| r.region(row, false))
    }

    /// One `rocpd_region` row, or one `rocpd_sample` row (`mark`: its
    /// start is its end, its name is its message).
    fn region(&mut self, row: &Row<'_>, mark: bool) -> Result<(), Error> {
        let guid: String = row.get(1)?;
        let g = self.guid(&guid);
        let start = row.get::<_, i64>(4)?;
        let end = if mark { start } else { row.get::<_, i64>(5)? };
        let name: Option<String> = row.get(6)?;
        let category: Option<String> = row.get(7)?;
        let category = category.unwrap_or_default();
        let extdata: Option<String> = row.get::<_, Option<String>>(9).unwrap_or(None);
        let base = RecordBase {
            index: self.next(),
            process: self.process_of(g, int(row, 2)?),
            thread: int(row, 3)?,
            correlation: unsigned(int(row, 8)?),
            span: Span {
                start_ns: start,
                end_ns: end,
            },
        };
        let message = extdata
            .as_deref()
            .and_then(|x| serde_json::from_str::<MarkerExtdata>(x).ok())
            .and_then(|x| x.message)
            .filter(|m| !m.is_empty());
        let name = name.unwrap_or_default();
        let record = if is_marker_domain(&category) {
            Record::Marker(Marker {
                base,
                domain: &category,
                message: message.as_deref().unwrap_or(&name),
            })
        } else {
            Record::Api(ApiCall {
                base,
                domain: &category,
                function: &name,
            })
        };
        self.emit(&record);
        Ok(())
    }

    /// roctx marks: `rocpd_sample` rows of a marker category (a zero-length
    /// API call is a sample too, but its function is not stored).
    fn marks(&mut self, threads: bool) -> Result<(), Error> {
        let table = "rocpd_sample";
        let thread = if threads {
            "(SELECT T.tid FROM rocpd_info_thread T WHERE T.id = K.tid AND T.guid = K.guid)"
        } else {
            "K.tid"
        };
        let sql = format!(
            "SELECT S.id, S.guid, K.pid, {thread}, S.timestamp, NULL, N.string, C.string, \
             E.stack_id, E.extdata \
             FROM rocpd_sample S \
             LEFT JOIN rocpd_track K ON K.id = S.track_id AND K.guid = S.guid \
             LEFT JOIN rocpd_event E ON E.id = S.event_id AND E.guid = S.guid \
             LEFT JOIN rocpd_string N ON N.id = K.name_id AND N.guid = K.guid \
             LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid \
             WHERE C.string IN ('MARKER_CORE_API', 'MARKER_CORE_RANGE_API') \
             ORDER BY S.id, S.guid"
        );
        each_row(self.db, self, table, &sql, |r, row| r.region(row, true))
    }

    fn dispatches(&mut self, threads: bool) -> Result<(), Error> {
        let table = "rocpd_kernel_dispatch";
        let thread = if threads {
            "(SELECT T.tid FROM rocpd_info_thread T WHERE T.id = K.tid AND T.guid = K.guid)"
        } else {
            "K.tid"
        };
        let sql = format!(
            "SELECT K.id, K.guid, K.pid, {thread}, K.start, K.\"end\", K.agent_id, K.kernel_id, \
             K.dispatch_id, K.queue_id, K.stream_id, K.grid_size_x, K.grid_size_y, \
             K.grid_size_z, K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z, \
             E.stack_id, S.display_name, S.kernel_name \
             FROM rocpd_kernel_dispatch K \
             LEFT JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid \
             LEFT JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid \
             ORDER BY K.id, K.guid"
        );
        each_row(self.db, self, table, &sql, |r, row| r.dispatch(row))
    }

    fn dispatch(&mut self, row: &Row<'_>) -> Result<(), Error> {
        let guid = row.get_ref(1)?.as_str().map_err(sql_text)?;
        let g = self.guid(guid);
        let kernel_id = int(row, 7)?;
        let display = row.get_ref(18)?.as_str_or_null().map_err(sql_text)?;
        let symbol = row.get_ref(19)?.as_str_or_null().map_err(sql_text)?;
        // rocprofv3 writes the formatted name as display_name (what its CSV
        // writes as Kernel_Name), the symbol as kernel_name.
        let name = match (display, symbol) {
            (Some(d), _) if !d.is_empty() => d,
            (_, Some(s)) => crate::record::formatted_kernel_name(s),
            (Some(d), None) => d,
            (None, None) => {
                return Err(Error::new(ErrorKind::DanglingReference {
                    what: "kernel_id",
                    id: kernel_id.map_or("NULL".to_owned(), |k| k.to_string()),
                }))
            }
        };
        let index = self.next();
        let dim = |a: usize| -> rusqlite::Result<[u64; 3]> {
            Ok([
                unsigned(int(row, a)?).unwrap_or(0),
                unsigned(int(row, a + 1)?).unwrap_or(0),
                unsigned(int(row, a + 2)?).unwrap_or(0),
            ])
        };
        let record = Record::Dispatch(KernelDispatch {
            base: RecordBase {
                index,
                process: self.process_of(g, int(row, 2)?),
                thread: int(row, 3)?,
                correlation: unsigned(int(row, 17)?),
                span: Span {
                    start_ns: row.get(4)?,
                    end_ns: row.get(5)?,
                },
            },
            kernel_name: name,
            kernel_id: unsigned(kernel_id),
            dispatch_id: unsigned(int(row, 8)?),
            device: device(&self.agent_ids, &self.agents, g, int(row, 6)?)?,
            queue: unsigned(int(row, 9)?),
            stream: unsigned(int(row, 10)?),
            grid: dim(11)?,
            workgroup: dim(14)?,
        });
        self.counts.count(&record);
        self.sink.record(&record);
        Ok(())
    }

    fn memory_copies(&mut self, threads: bool) -> Result<(), Error> {
        let table = "rocpd_memory_copy";
        let thread = if threads {
            "(SELECT T.tid FROM rocpd_info_thread T WHERE T.id = M.tid AND T.guid = M.guid)"
        } else {
            "M.tid"
        };
        let sql = format!(
            "SELECT M.id, M.guid, M.pid, {thread}, M.start, M.\"end\", N.string, \
             M.src_agent_id, M.dst_agent_id, M.size, M.stream_id, E.stack_id \
             FROM rocpd_memory_copy M \
             LEFT JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid \
             LEFT JOIN rocpd_string N ON N.id = M.name_id AND N.guid = M.guid \
             ORDER BY M.id, M.guid"
        );
        each_row(self.db, self, table, &sql, |r, row| r.memory_copy(row))
    }

    fn memory_copy(&mut self, row: &Row<'_>) -> Result<(), Error> {
        let guid: String = row.get(1)?;
        let g = self.guid(&guid);
        let direction: Option<String> = row.get(6)?;
        let index = self.next();
        let record = Record::MemoryCopy(MemoryCopy {
            base: RecordBase {
                index,
                process: self.process_of(g, int(row, 2)?),
                thread: int(row, 3)?,
                correlation: unsigned(int(row, 11)?),
                span: Span {
                    start_ns: row.get(4)?,
                    end_ns: row.get(5)?,
                },
            },
            direction: direction.as_deref().unwrap_or(""),
            source: device(&self.agent_ids, &self.agents, g, int(row, 7)?)?,
            destination: device(&self.agent_ids, &self.agents, g, int(row, 8)?)?,
            bytes: unsigned(int(row, 9)?),
            stream: unsigned(int(row, 10)?),
        });
        self.counts.count(&record);
        self.sink.record(&record);
        Ok(())
    }
}

/// The agent a row's `agent_id` names, in the agents read.
fn device<'a>(
    ids: &'a HashMap<(usize, i64), (String, usize)>,
    agents: &'a [Agent],
    g: usize,
    agent: Option<i64>,
) -> Result<DeviceRef<'a>, Error> {
    let Some(id) = agent else {
        return Ok(DeviceRef {
            label: "",
            agent: None,
        });
    };
    match ids.get(&(g, id)) {
        Some((label, i)) => Ok(DeviceRef {
            label,
            agent: Some(&agents[*i]),
        }),
        None => Err(Error::new(ErrorKind::DanglingReference {
            what: "agent_id",
            id: id.to_string(),
        })),
    }
}

fn sql_text(e: rusqlite::types::FromSqlError) -> Error {
    Error::new(ErrorKind::Sqlite(e.to_string()))
}

#[derive(serde::Deserialize)]
struct MarkerExtdata {
    message: Option<String>,
}
