//! Opening an export (limits, format checks, the version gate) and reading
//! its tables row by row.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Limit, Position};
use crate::read::{each_row, Cursor, Strings};
use crate::rows::{
    Api, ApiCall, DeviceTrack, GlobalId, Gpu, Kernel, MemoryKind, MemoryOp, NvtxEvent, NvtxKind,
    Process, StringId, Sync, ThreadName, MEMORY_KINDS,
};
use crate::schema::{self, Schema, Spec};
use crate::version::{ExportMeta, SchemaVersion, EXPORT_META_DATA, META_DATA_EXPORT};

/// Default limit on the export's size in bytes (256 MiB, the JSON reader's
/// default too).
pub const DEFAULT_MAX_ENCODED_BYTES: u64 = 256 * 1024 * 1024;
/// Default limit on the bytes SQLite may read; an export is not compressed,
/// so this too is its size.
pub const DEFAULT_MAX_DECODED_BYTES: u64 = 256 * 1024 * 1024;

/// How to open an export.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Largest file accepted, in bytes; checked before SQLite opens it.
    pub max_encoded_bytes: u64,
    /// Largest database SQLite may read, in bytes: the same file size, as an
    /// export is not compressed. Both limits apply; the smaller decides.
    pub max_decoded_bytes: u64,
    /// Read an export whose schema version is outside
    /// [`crate::VERIFIED_SCHEMAS`] (every table and column read is still
    /// checked by name and declared type).
    pub unverified_schema: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_encoded_bytes: DEFAULT_MAX_ENCODED_BYTES,
            max_decoded_bytes: DEFAULT_MAX_DECODED_BYTES,
            unverified_schema: false,
        }
    }
}

impl ReadOptions {
    /// Default limits, verified schemas only.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`ReadOptions::max_encoded_bytes`].
    pub fn max_encoded_bytes(mut self, bytes: u64) -> Self {
        self.max_encoded_bytes = bytes;
        self
    }
    /// Sets [`ReadOptions::max_decoded_bytes`].
    pub fn max_decoded_bytes(mut self, bytes: u64) -> Self {
        self.max_decoded_bytes = bytes;
        self
    }
    /// Sets [`ReadOptions::unverified_schema`].
    pub fn unverified_schema(mut self, on: bool) -> Self {
        self.unverified_schema = on;
        self
    }
}

/// The first bytes of an SQLite database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whether the SQLite database at `path` is an Nsight Systems export: it has
/// the export's metadata table (`META_DATA_EXPORT`, or `EXPORT_META_DATA`
/// before schema 3.4). What a front end probes to tell an export from
/// another SQLite capture (a rocpd database) before choosing a reader;
/// nothing else is checked until [`Export::open`].
pub fn is_export(path: impl AsRef<Path>) -> Result<bool, Error> {
    let path = path.as_ref();
    let probe = || {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| Error::sqlite(e, None))?;
        let tables = schema::table_names(&conn)?;
        Ok(tables
            .iter()
            .any(|t| t == META_DATA_EXPORT || t == EXPORT_META_DATA))
    };
    probe().map_err(|e: Error| e.with_path(path))
}

/// An open Nsight Systems SQLite export whose metadata and tables passed
/// the version gate. Rows are read on demand, one at a time.
pub struct Export {
    conn: Connection,
    path: PathBuf,
    size: u64,
    sha256: [u8; 32],
    meta: ExportMeta,
    schema: Schema,
}

impl std::fmt::Debug for Export {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Export")
            .field("path", &self.path)
            .field("size", &self.size)
            .field("meta", &self.meta)
            .finish()
    }
}

/// Hashes the file and returns its first bytes: the identity of the bytes
/// SQLite is about to read.
fn hash_file(path: &Path) -> Result<([u8; 32], Vec<u8>), Error> {
    let mut file = File::open(path).map_err(|e| Error::new(ErrorKind::Io(e)))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut head = Vec::new();
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::new(ErrorKind::Io(e))),
        };
        if head.len() < 100 {
            let take = (100 - head.len()).min(n);
            head.extend_from_slice(&buf[..take]);
        }
        hasher.update(&buf[..n]);
    }
    Ok((hasher.finalize().into(), head))
}

impl Export {
    /// Opens `path` read-only: checks the limits on its size, that it is an
    /// SQLite database, reads the export metadata, gates on the schema version and
    /// checks every table the reader reads has the columns it needs.
    pub fn open(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Export, Error> {
        let path = path.as_ref();
        Self::open_inner(path, options).map_err(|e| e.with_path(path))
    }

    fn open_inner(path: &Path, options: &ReadOptions) -> Result<Export, Error> {
        let size = std::fs::metadata(path)
            .map_err(|e| Error::new(ErrorKind::Io(e)))?
            .len();
        for (which, limit) in [
            (Limit::EncodedBytes, options.max_encoded_bytes),
            (Limit::DecodedBytes, options.max_decoded_bytes),
        ] {
            if size > limit {
                return Err(Error::new(ErrorKind::LimitExceeded { which, limit, size }));
            }
        }
        let (sha256, head) = hash_file(path)?;
        // An `.nsys-rep` is not SQLite either: opguard-formats' door names
        // it (`nsight_report`) before any reader is chosen.
        if !head.starts_with(SQLITE_MAGIC) {
            return Err(Error::new(ErrorKind::NotSqlite));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| Error::sqlite(e, None))?;
        // Nothing this reader runs writes; say so to SQLite too.
        conn.pragma_update(None, "query_only", true)
            .map_err(|e| Error::sqlite(e, None))?;
        let all_tables = schema::table_names(&conn)?;
        let has = |name: &str| all_tables.iter().any(|t| t == name);
        let metadata_table = if has(META_DATA_EXPORT) {
            META_DATA_EXPORT
        } else if has(EXPORT_META_DATA) {
            EXPORT_META_DATA
        } else {
            return Err(Error::new(ErrorKind::NotNsysExport {
                tables: all_tables.len(),
            }));
        };
        let meta = ExportMeta::read(&conn, metadata_table)?;
        if !meta.schema_verified && !options.unverified_schema {
            return Err(Error::new(ErrorKind::SchemaUnverified {
                schema: meta.schema,
                product_version: meta.product_version.clone(),
            }));
        }
        let schema = Schema::probe(&conn, all_tables, meta.schema)?;
        check_enums(&conn, &schema)?;
        Ok(Export {
            conn,
            path: path.to_path_buf(),
            size,
            sha256,
            meta,
            schema,
        })
    }

    /// What the export says about itself.
    pub fn meta(&self) -> &ExportMeta {
        &self.meta
    }

    /// Its schema version.
    pub fn schema_version(&self) -> SchemaVersion {
        self.meta.schema
    }

    /// The file's path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// SHA-256 of the file's bytes.
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// Every table name in the database, sorted.
    pub fn table_names(&self) -> &[String] {
        &self.schema.all_tables
    }

    /// Whether the export has kernel rows' table at all (a CPU-only capture
    /// has none).
    pub fn has_kernels(&self) -> bool {
        self.schema.table(&schema::KERNEL).is_some()
    }

    /// Whether the kernel table has `graphId` (schema 3.24 and later).
    pub fn kernels_have_graph_id(&self) -> bool {
        self.schema
            .table(&schema::KERNEL)
            .is_some_and(|t| t.has("graphId"))
    }

    /// The `StringIds` lookup (see [`Strings`]).
    pub fn strings(&self) -> Result<Strings<'_>, Error> {
        Strings::new(&self.conn).map_err(|e| e.with_path(&self.path))
    }

    /// Rows of `spec`'s table, in `rowid` order; 0 when the export has none.
    fn rows<E: From<Error>>(
        &self,
        spec: &'static Spec,
        f: impl FnMut(&mut Cursor<'_, '_>) -> Result<(), E>,
    ) -> Result<u64, E> {
        let Some(table) = self.schema.table(spec) else {
            return Ok(0);
        };
        each_row(&self.conn, &self.path, spec, &table.select(), f)
    }

    /// Rows of `spec`'s table, each decoded by `decode` and handed to `f`.
    fn decoded<T, E: From<Error>>(
        &self,
        spec: &'static Spec,
        decode: impl Fn(&mut Cursor<'_, '_>) -> Result<T, Error>,
        mut f: impl FnMut(&T) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.rows(spec, |c| {
            let row = decode(c).map_err(|e| e.with_path(&self.path))?;
            f(&row)
        })
    }

    /// Every kernel, in `rowid` order. Returns the rows read.
    pub fn kernels<E: From<Error>>(
        &self,
        f: impl FnMut(&Kernel) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.decoded(&schema::KERNEL, decode_kernel, f)
    }

    /// Every memory copy, then every memory set, each in `rowid` order.
    pub fn memory_ops<E: From<Error>>(
        &self,
        mut f: impl FnMut(&MemoryOp) -> Result<(), E>,
    ) -> Result<u64, E> {
        let copies = self.decoded(&schema::MEMCPY, |c| decode_memory(c, true), &mut f)?;
        let sets = self.decoded(&schema::MEMSET, |c| decode_memory(c, false), &mut f)?;
        Ok(copies + sets)
    }

    /// Every synchronization, in `rowid` order.
    pub fn syncs<E: From<Error>>(&self, f: impl FnMut(&Sync) -> Result<(), E>) -> Result<u64, E> {
        self.decoded(&schema::SYNC, decode_sync, f)
    }

    /// Every row of `CUPTI_ACTIVITY_KIND_RUNTIME`, in `rowid` order: CUDA
    /// runtime and driver API calls, and in older exports the backtrace
    /// rows of runtime calls ([`Api::CudaBacktrace`], which
    /// [`ApiCall::is_call`] says are not calls).
    pub fn api_calls<E: From<Error>>(
        &self,
        f: impl FnMut(&ApiCall) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.decoded(&schema::RUNTIME, decode_call, f)
    }

    /// The calls of [`Export::api_calls`] in time order (`start`, then
    /// `rowid`), sorted by SQLite.
    pub fn api_calls_by_start<E: From<Error>>(
        &self,
        mut f: impl FnMut(&ApiCall) -> Result<(), E>,
    ) -> Result<u64, E> {
        let Some(table) = self.schema.table(&schema::RUNTIME) else {
            return Ok(0);
        };
        let select = table.select_ordered("start, rowid");
        each_row(&self.conn, &self.path, &schema::RUNTIME, &select, |c| {
            let call = decode_call(c).map_err(|e| e.with_path(&self.path))?;
            f(&call)
        })
    }

    /// The connection and the schema, for queries of several tables.
    pub(crate) fn parts(&self) -> (&Connection, &Schema) {
        (&self.conn, &self.schema)
    }

    /// Every NVTX row, in `rowid` order.
    pub fn nvtx<E: From<Error>>(
        &self,
        mut f: impl FnMut(&NvtxEvent<'_>) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.rows(&schema::NVTX, |c| {
            let event = decode_nvtx(c).map_err(|e| e.with_path(&self.path))?;
            f(&event)
        })
    }

    /// Every process of `PROCESSES`, in `rowid` order.
    pub fn processes<E: From<Error>>(
        &self,
        mut f: impl FnMut(&Process<'_>) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.rows(&schema::PROCESSES, |c| {
            let process = decode_process(c).map_err(|e| e.with_path(&self.path))?;
            f(&process)
        })
    }

    /// Every thread name of `ThreadNames`, in `rowid` order.
    pub fn thread_names<E: From<Error>>(
        &self,
        f: impl FnMut(&ThreadName) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.decoded(
            &schema::THREAD_NAMES,
            |c| {
                Ok(ThreadName {
                    name: StringId(c.int()?),
                    global_tid: GlobalId(c.int()?),
                })
            },
            f,
        )
    }

    /// The GPUs of `TARGET_INFO_GPU` (empty when the export has none).
    pub fn gpus(&self) -> Result<Vec<Gpu>, Error> {
        let mut gpus = Vec::new();
        self.rows(&schema::TARGET_INFO_GPU, |c| {
            let text = |t: Option<&str>| t.map(str::to_owned);
            let id = c.int()?;
            let name = text(c.opt_text()?);
            let bus_location = text(c.opt_text()?);
            let uuid = text(c.opt_text()?);
            let chip_name = text(c.opt_text()?);
            let sm_count = c.opt_int()?;
            let total_memory = c.opt_int()?;
            let compute_capability = c.opt_int()?.zip(c.opt_int()?);
            gpus.push(Gpu {
                id,
                name,
                bus_location,
                uuid,
                chip_name,
                sm_count,
                total_memory,
                compute_capability,
            });
            Ok::<_, Error>(())
        })
        .map_err(|e| e.with_path(&self.path))?;
        Ok(gpus)
    }

    /// Whether the export has `table`.
    pub fn has_table(&self, table: KnownTable) -> bool {
        self.schema.table(table.spec()).is_some()
    }

    /// The smallest `start` and largest `end` (or `start`, for a row without
    /// an end) of a timed table; `None` when it is absent or empty.
    pub(crate) fn time_bounds(&self, table: KnownTable) -> Result<Option<(i64, i64)>, Error> {
        let spec = table.spec();
        if self.schema.table(spec).is_none() {
            return Ok(None);
        }
        let sql = format!(
            "SELECT MIN(start), MAX(COALESCE(\"end\", start)) FROM \"{}\"",
            spec.name
        );
        let bounds: (Option<i64>, Option<i64>) = self
            .conn
            .query_row(&sql, [], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| Error::sqlite(e, Some(spec.name)).with_path(&self.path))?;
        Ok(bounds.0.zip(bounds.1))
    }

    /// Rows of a table the reader knows, by SQLite's `COUNT(*)` (0 when the
    /// export lacks it).
    pub fn row_count(&self, table: KnownTable) -> Result<u64, Error> {
        let spec = table.spec();
        if self.schema.table(spec).is_none() {
            return Ok(0);
        }
        let sql = format!("SELECT COUNT(*) FROM \"{}\"", spec.name);
        let count: i64 = self
            .conn
            .query_row(&sql, [], |row| row.get(0))
            .map_err(|e| Error::sqlite(e, Some(spec.name)).with_path(&self.path))?;
        Ok(count.max(0) as u64)
    }
}

/// The tables of an export the reader reads rows of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KnownTable {
    /// `CUPTI_ACTIVITY_KIND_KERNEL`.
    Kernel,
    /// `CUPTI_ACTIVITY_KIND_MEMCPY`.
    Memcpy,
    /// `CUPTI_ACTIVITY_KIND_MEMSET`.
    Memset,
    /// `CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`.
    Sync,
    /// `CUPTI_ACTIVITY_KIND_RUNTIME`.
    Runtime,
    /// `NVTX_EVENTS`.
    Nvtx,
    /// `PROCESSES`.
    Processes,
    /// `ThreadNames`.
    ThreadNames,
    /// `StringIds`.
    StringIds,
    /// `TARGET_INFO_GPU`.
    Gpus,
}

impl KnownTable {
    /// The tables of timed rows, the ones whose rows become slices of the
    /// model: their position (from 1) is their occurrence code
    /// ([`crate::occurrence`]), and the model reader pushes them in this
    /// order.
    pub const TIMED: [KnownTable; 6] = [
        KnownTable::Kernel,
        KnownTable::Memcpy,
        KnownTable::Memset,
        KnownTable::Sync,
        KnownTable::Runtime,
        KnownTable::Nvtx,
    ];

    /// Every known table.
    pub const ALL: [KnownTable; 10] = [
        KnownTable::Kernel,
        KnownTable::Memcpy,
        KnownTable::Memset,
        KnownTable::Sync,
        KnownTable::Runtime,
        KnownTable::Nvtx,
        KnownTable::Processes,
        KnownTable::ThreadNames,
        KnownTable::StringIds,
        KnownTable::Gpus,
    ];

    fn spec(self) -> &'static Spec {
        match self {
            KnownTable::Kernel => &schema::KERNEL,
            KnownTable::Memcpy => &schema::MEMCPY,
            KnownTable::Memset => &schema::MEMSET,
            KnownTable::Sync => &schema::SYNC,
            KnownTable::Runtime => &schema::RUNTIME,
            KnownTable::Nvtx => &schema::NVTX,
            KnownTable::Processes => &schema::PROCESSES,
            KnownTable::ThreadNames => &schema::THREAD_NAMES,
            KnownTable::StringIds => &schema::STRING_IDS,
            KnownTable::Gpus => &schema::TARGET_INFO_GPU,
        }
    }

    /// The table's name in the export.
    pub fn name(self) -> &'static str {
        self.spec().name
    }
}

fn track(c: &mut Cursor<'_, '_>) -> Result<DeviceTrack, Error> {
    Ok(DeviceTrack {
        device: c.int()?,
        context: c.int()?,
        stream: c.int()?,
    })
}

fn decode_kernel(c: &mut Cursor<'_, '_>) -> Result<Kernel, Error> {
    Ok(Kernel {
        rowid: c.rowid(),
        start: c.int()?,
        end: c.int()?,
        track: track(c)?,
        correlation_id: c.opt_int()?,
        global_pid: c.opt_int()?.map(GlobalId),
        demangled_name: StringId(c.int()?),
        short_name: StringId(c.int()?),
        mangled_name: c.opt_int()?.map(StringId),
        grid: [c.int()?, c.int()?, c.int()?],
        block: [c.int()?, c.int()?, c.int()?],
        graph_node_id: c.opt_int()?,
        graph_id: c.opt_int()?,
    })
}

fn decode_memory(c: &mut Cursor<'_, '_>, copy: bool) -> Result<MemoryOp, Error> {
    let rowid = c.rowid();
    let start = c.int()?;
    let end = c.int()?;
    let track = track(c)?;
    let correlation_id = c.opt_int()?;
    let global_pid = c.opt_int()?.map(GlobalId);
    let bytes = c.int()?;
    let kind = if copy {
        MemoryKind::Copy {
            copy_kind: c.int()?,
            src_kind: c.opt_int()?,
            dst_kind: c.opt_int()?,
        }
    } else {
        MemoryKind::Set {
            value: c.opt_int()?,
            memory_kind: c.opt_int()?,
        }
    };
    Ok(MemoryOp {
        rowid,
        kind,
        start,
        end,
        track,
        correlation_id,
        global_pid,
        bytes,
        graph_node_id: c.opt_int()?,
    })
}

fn decode_sync(c: &mut Cursor<'_, '_>) -> Result<Sync, Error> {
    Ok(Sync {
        rowid: c.rowid(),
        start: c.int()?,
        end: c.int()?,
        track: track(c)?,
        correlation_id: c.opt_int()?,
        global_pid: c.opt_int()?.map(GlobalId),
        sync_type: c.int()?,
    })
}

fn decode_call(c: &mut Cursor<'_, '_>) -> Result<ApiCall, Error> {
    Ok(ApiCall {
        rowid: c.rowid(),
        start: c.int()?,
        end: c.int()?,
        api: Api::from_event_class(c.int()?),
        global_tid: c.opt_int()?.map(GlobalId),
        correlation_id: c.opt_int()?,
        name: StringId(c.int()?),
    })
}

fn decode_process<'a>(c: &mut Cursor<'a, '_>) -> Result<Process<'a>, Error> {
    Ok(Process {
        global_pid: GlobalId(c.int()?),
        pid: c.int()?,
        name: c.opt_text()?,
    })
}

fn decode_nvtx<'a>(c: &mut Cursor<'a, '_>) -> Result<NvtxEvent<'a>, Error> {
    let rowid = c.rowid();
    let start = c.int()?;
    let end = c.opt_int()?;
    let kind = NvtxKind::from_event_type(c.int()?);
    let _range_id = c.opt_int()?;
    let text = c.opt_text()?;
    let global_tid = c.opt_int()?.map(GlobalId);
    let end_global_tid = c.opt_int()?.map(GlobalId);
    let text_id = c.opt_int()?.map(StringId);
    let domain_id = c.opt_int()?;
    Ok(NvtxEvent {
        rowid,
        start,
        end,
        kind,
        text,
        text_id,
        global_tid,
        end_global_tid: end_global_tid.filter(|e| Some(*e) != global_tid),
        domain_id,
    })
}

/// Enum values the reader relies on, checked against the export's own enum
/// tables when it has them (schema 3 and later; 2.x exports carry none, and
/// the same values were checked against a real 2.9 export's rows).
const RELIED_ON: [(&str, i64, &str); 17] = [
    (
        schema::ENUM_EVENT_CLASS,
        Api::RUNTIME_CLASS,
        "TRACE_PROCESS_EVENT_CUDA_RUNTIME",
    ),
    (
        schema::ENUM_EVENT_CLASS,
        Api::DRIVER_CLASS,
        "TRACE_PROCESS_EVENT_CUDA_DRIVER",
    ),
    (
        schema::ENUM_EVENT_CLASS,
        Api::BACKTRACE_CLASS,
        "TRACE_PROCESS_EVENT_CUDABACKTRACE",
    ),
    (schema::ENUM_EVENT_TYPE, NvtxKind::MARK, "NvtxMark"),
    (
        schema::ENUM_EVENT_TYPE,
        NvtxKind::PUSH_POP,
        "NvtxPushPopRange",
    ),
    (
        schema::ENUM_EVENT_TYPE,
        NvtxKind::START_END,
        "NvtxStartEndRange",
    ),
    (
        schema::ENUM_EVENT_TYPE,
        NvtxKind::TEXT_PUSH_POP,
        "NvtxtPushPopRange",
    ),
    (
        schema::ENUM_EVENT_TYPE,
        NvtxKind::TEXT_START_END,
        "NvtxtStartEndRange",
    ),
    (
        schema::ENUM_EVENT_TYPE,
        NvtxKind::DOMAIN_CREATE,
        "NvtxDomainCreate",
    ),
    memory_kind(0),
    memory_kind(1),
    memory_kind(2),
    memory_kind(3),
    memory_kind(4),
    memory_kind(5),
    memory_kind(6),
    memory_kind(7),
];

/// Memory kind `id` as [`RELIED_ON`] checks it (see [`MEMORY_KINDS`]).
const fn memory_kind(id: usize) -> (&'static str, i64, &'static str) {
    (schema::ENUM_MEMORY_KIND, id as i64, MEMORY_KINDS[id].0)
}

fn check_enums(conn: &Connection, schema: &Schema) -> Result<(), Error> {
    for (table, id, expected) in RELIED_ON {
        if !schema.has_table(table) {
            continue;
        }
        let sql = format!("SELECT name FROM \"{table}\" WHERE id = ?1");
        let fail = |e| {
            Error::sqlite(e, None).at(Position {
                table,
                rowid: None,
                column: Some("name"),
            })
        };
        let mut statement = conn.prepare(&sql).map_err(fail)?;
        let mut rows = statement.query([id]).map_err(fail)?;
        let found: Option<String> = match rows.next().map_err(fail)? {
            Some(row) => row.get(0).map_err(fail)?,
            None => None,
        };
        if found.as_deref() != Some(expected) {
            return Err(Error::new(ErrorKind::EnumMismatch {
                table,
                id,
                expected,
                found,
            }));
        }
    }
    Ok(())
}
