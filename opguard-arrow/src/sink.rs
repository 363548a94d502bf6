//! Writer stage: records into Arrow column builders as the reader pushes
//! them ([`TableSink`], a [`RecordSink`]), frozen into batches as they
//! fill; the columns that need the whole trace (owning process, launch
//! proof, self time, launched rows) are computed at the end from compact
//! state and set beside the frozen batches.

use std::any::Any;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, UInt64Builder};
use arrow_array::{
    ArrayRef, Int32Array, Int64Array, ListArray, RecordBatch, StringArray, UInt64Array,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field};
use opguard_model::{
    HostDetail, HostSelfTimes, IdValue, Interner, LaunchJoin, LaunchKind, LaunchProof,
    OperationArgs, RecordSink, SliceClass, SliceRecord, TraceModel, Unproven,
};

use crate::column::{dictionary_column, DictKeys, Dictionary, IdColumn, TextIds};
use crate::table::Table;
use crate::tables::Tables;

/// Rows per batch unless asked otherwise: 64 Ki rows (about 4 MiB of
/// device columns).
pub const DEFAULT_BATCH_ROWS: usize = 1 << 16;

/// Which table a class of record lands in (`None`: none).
fn table_of(class: SliceClass) -> Table {
    if class.is_runtime() {
        Table::Launches
    } else if class.is_device() || class == SliceClass::GpuUserAnnotation {
        Table::Device
    } else {
        Table::Host
    }
}

/// The stable name of a class in the tables' `class` columns.
fn class_name(class: SliceClass) -> &'static str {
    match class {
        SliceClass::Launch(LaunchKind::Direct) => "launch_direct",
        SliceClass::Launch(LaunchKind::Graph) => "launch_graph",
        SliceClass::Runtime => "runtime",
        SliceClass::Kernel => "kernel",
        SliceClass::Memcpy => "memcpy",
        SliceClass::Memset => "memset",
        SliceClass::DeviceOther => "device_other",
        SliceClass::CpuOp => "cpu_op",
        SliceClass::UserAnnotation => "user_annotation",
        SliceClass::GpuUserAnnotation => "gpu_user_annotation",
        SliceClass::PythonFunction => "python_function",
        _ => "other",
    }
}

/// The `launch` column's value for a proof.
fn proof_name(proof: LaunchProof<'_>) -> &'static str {
    match proof {
        LaunchProof::Proven(_) => "proven",
        LaunchProof::Ambiguous(_) => "ambiguous",
        LaunchProof::Unproven(why) => match why {
            Unproven::NotDevice => "not_device",
            Unproven::NoNamespace => "no_namespace",
            Unproven::NoId => "no_id",
            Unproven::OwnerUnknown => "owner_unknown",
            Unproven::NoLaunch => "no_launch",
        },
    }
}

/// The columns every record table shares, built for the batch being
/// filled.
#[derive(Debug, Default)]
struct Common {
    rows: usize,
    index: UInt64Builder,
    class: DictKeys,
    name: DictKeys,
    category: DictKeys,
    ts: Int64Builder,
    dur: Int64Builder,
    pid: IdColumn,
    tid: IdColumn,
    external_id: IdColumn,
    text_ids: TextIds,
}

/// A [`Common`] batch, frozen.
#[derive(Debug)]
struct CommonFrozen {
    index: ArrayRef,
    class: Int32Array,
    name: Int32Array,
    category: Int32Array,
    ts: ArrayRef,
    dur: ArrayRef,
    pid: ArrayRef,
    tid: ArrayRef,
    external_id: ArrayRef,
    text_ids: ArrayRef,
}

/// The dictionaries of one table.
#[derive(Debug, Default)]
struct Dictionaries {
    class: Dictionary,
    name: Dictionary,
    category: Dictionary,
}

impl Common {
    fn push(&mut self, r: &SliceRecord<'_>, dicts: &mut Dictionaries, names: &Interner) -> i32 {
        self.rows += 1;
        self.index.append_value(r.index);
        self.class.push(Some(dicts.class.key(class_name(r.class))));
        let name = dicts.name.key(r.name);
        self.name.push(Some(name));
        self.category.push(Some(dicts.category.key(r.category)));
        self.ts.append_value(r.ts_ns);
        self.dur.append_value(r.dur_ns);
        let pid = self.pid.push(r.pid, names);
        self.text_ids.note("pid", pid);
        let tid = self.tid.push(r.tid, names);
        self.text_ids.note("tid", tid);
        let external_id = self.external_id.push(r.external_id, names);
        self.text_ids.note("external_id", external_id);
        name
    }

    fn freeze(&mut self) -> CommonFrozen {
        self.rows = 0;
        CommonFrozen {
            index: Arc::new(self.index.finish()),
            class: self.class.freeze(),
            name: self.name.freeze(),
            category: self.category.freeze(),
            ts: Arc::new(self.ts.finish()),
            dur: Arc::new(self.dur.finish()),
            pid: self.pid.freeze(),
            tid: self.tid.freeze(),
            external_id: self.external_id.freeze(),
            text_ids: self.text_ids.freeze(),
        }
    }
}

/// The device table while it is read.
#[derive(Debug, Default)]
struct DeviceTable {
    common: Common,
    dicts: Dictionaries,
    identity: Dictionary,
    /// Per name key: its identity key.
    identity_of_name: Vec<i32>,
    identity_keys: DictKeys,
    device: IdColumn,
    context: IdColumn,
    stream: IdColumn,
    correlation: IdColumn,
    /// Per row of the table: its launch-join position.
    join: Vec<u32>,
    batches: Vec<DeviceFrozen>,
}

#[derive(Debug)]
struct DeviceFrozen {
    common: CommonFrozen,
    identity: Int32Array,
    device: ArrayRef,
    context: ArrayRef,
    stream: ArrayRef,
    correlation: ArrayRef,
}

impl DeviceTable {
    fn push(&mut self, r: &SliceRecord<'_>, names: &Interner, join: u32) {
        let name = self.common.push(r, &mut self.dicts, names);
        while self.identity_of_name.len() <= name as usize {
            let text = self.dicts.name.get(self.identity_of_name.len() as i32);
            let identity = opguard_kernel_name::canonicalize(text).identity();
            self.identity_of_name.push(self.identity.key(&identity));
        }
        self.identity_keys
            .push(Some(self.identity_of_name[name as usize]));
        let texts = &mut self.common.text_ids;
        texts.note("device", self.device.push(r.device, names));
        texts.note("context", self.context.push(r.context, names));
        texts.note("stream", self.stream.push(r.stream, names));
        texts.note("correlation", self.correlation.push(r.correlation, names));
        texts.end_row();
        self.join.push(join);
    }

    fn freeze(&mut self) {
        let frozen = DeviceFrozen {
            common: self.common.freeze(),
            identity: self.identity_keys.freeze(),
            device: self.device.freeze(),
            context: self.context.freeze(),
            stream: self.stream.freeze(),
            correlation: self.correlation.freeze(),
        };
        self.batches.push(frozen);
    }
}

/// What a host row carries after it is pushed (shapes, XLA names,
/// operator arguments), held until the next record.
#[derive(Debug, Default)]
struct PendingDetail {
    input_dims: Option<i32>,
    input_type: Option<i32>,
    input_strides: Option<i32>,
    hlo_op: Option<i32>,
    hlo_module: Option<i32>,
}

/// The host table while it is read.
#[derive(Debug, Default)]
struct HostTable {
    common: Common,
    dicts: Dictionaries,
    details: Dictionary,
    input_dims: DictKeys,
    input_type: DictKeys,
    input_strides: DictKeys,
    hlo_op: DictKeys,
    hlo_module: DictKeys,
    pending: Option<PendingDetail>,
    self_times: HostSelfTimes,
    batches: Vec<HostFrozen>,
}

#[derive(Debug)]
struct HostFrozen {
    common: CommonFrozen,
    input_dims: Int32Array,
    input_type: Int32Array,
    input_strides: Int32Array,
    hlo_op: Int32Array,
    hlo_module: Int32Array,
}

impl HostTable {
    fn push(&mut self, r: &SliceRecord<'_>, names: &Interner) {
        self.common.push(r, &mut self.dicts, names);
        self.common.text_ids.end_row();
        self.self_times.push(r);
        self.pending = Some(PendingDetail::default());
    }

    /// Appends the last row's details.
    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            self.input_dims.push(p.input_dims);
            self.input_type.push(p.input_type);
            self.input_strides.push(p.input_strides);
            self.hlo_op.push(p.hlo_op);
            self.hlo_module.push(p.hlo_module);
        }
    }

    fn freeze(&mut self) {
        self.flush();
        let frozen = HostFrozen {
            common: self.common.freeze(),
            input_dims: self.input_dims.freeze(),
            input_type: self.input_type.freeze(),
            input_strides: self.input_strides.freeze(),
            hlo_op: self.hlo_op.freeze(),
            hlo_module: self.hlo_module.freeze(),
        };
        self.batches.push(frozen);
    }
}

/// The launches table while it is read.
#[derive(Debug, Default)]
struct LaunchTable {
    common: Common,
    dicts: Dictionaries,
    process: IdColumn,
    correlation: IdColumn,
    /// Per row: its launch-join position.
    join: Vec<u32>,
    batches: Vec<LaunchFrozen>,
}

#[derive(Debug)]
struct LaunchFrozen {
    common: CommonFrozen,
    process: ArrayRef,
    correlation: ArrayRef,
}

impl LaunchTable {
    fn push(&mut self, r: &SliceRecord<'_>, names: &Interner, join: u32) {
        self.common.push(r, &mut self.dicts, names);
        let texts = &mut self.common.text_ids;
        // A runtime call's process is its own: the one the format states,
        // else its pid (as the model decides).
        texts.note("process", self.process.push(r.process.or(r.pid), names));
        texts.note("correlation", self.correlation.push(r.correlation, names));
        texts.end_row();
        self.join.push(join);
    }

    fn freeze(&mut self) {
        let frozen = LaunchFrozen {
            common: self.common.freeze(),
            process: self.process.freeze(),
            correlation: self.correlation.freeze(),
        };
        self.batches.push(frozen);
    }
}

/// A [`RecordSink`] that builds the asked-for tables as records arrive.
///
/// Memory: the tables' own Arrow buffers (dictionary keys, not strings,
/// per row; each distinct string once), plus, for the columns that need the
/// whole trace, 52 bytes per runtime call and device row (the launch join
/// and each row's occurrence index) and 32 bytes per host row (self time).
/// No model is built and no record is kept in any other form.
#[derive(Debug)]
pub struct TableSink {
    wanted: [bool; 4],
    batch_rows: usize,
    device: DeviceTable,
    host: HostTable,
    launches: LaunchTable,
    join: LaunchJoin,
    /// Per join position: the record's occurrence index.
    join_index: Vec<u64>,
    /// Per join position: its launches row, or `u32::MAX` for a device row.
    join_launch_row: Vec<u32>,
    done: Option<Tables>,
}

impl TableSink {
    /// A sink building `tables`, `batch_rows` rows per batch (at least 1).
    pub fn new(tables: &[Table], batch_rows: usize) -> Self {
        let mut wanted = [false; 4];
        for t in tables {
            wanted[*t as usize] = true;
        }
        TableSink {
            wanted,
            batch_rows: batch_rows.max(1),
            device: DeviceTable::default(),
            host: HostTable::default(),
            launches: LaunchTable::default(),
            join: LaunchJoin::new(),
            join_index: Vec::new(),
            join_launch_row: Vec::new(),
            done: None,
        }
    }

    fn wanted(&self, t: Table) -> bool {
        self.wanted[t as usize]
    }

    /// The tables, once the read finished.
    pub fn into_tables(self) -> Option<Tables> {
        self.done
    }

    fn device_batches(
        &mut self,
        model: &TraceModel,
        joined: &opguard_model::JoinedLaunches,
    ) -> Vec<RecordBatch> {
        let t = &mut self.device;
        if t.common.rows > 0 || t.batches.is_empty() {
            t.freeze();
        }
        let schema = Table::Device.schema();
        let values = [
            t.dicts.class.values(),
            t.dicts.name.values(),
            t.identity.values(),
            t.dicts.category.values(),
        ];
        let mut launch_dict = Dictionary::default();
        let mut row = 0usize;
        let mut frozen = Vec::with_capacity(t.batches.len());
        for b in t.batches.drain(..) {
            let n = b.common.index.len();
            let mut process = Int64Builder::with_capacity(n);
            let mut launch = DictKeys::default();
            let mut launch_index = UInt64Builder::with_capacity(n);
            for &jp in &t.join[row..row + n] {
                let jp = jp as usize;
                process.append_option(match joined.process(jp) {
                    Some(IdValue::Int(p)) => Some(p),
                    _ => None,
                });
                let proof = joined.proof(jp);
                launch.push(Some(launch_dict.key(proof_name(proof))));
                launch_index.append_option(proof.launch().map(|l| self.join_index[l]));
            }
            row += n;
            frozen.push((b, process.finish(), launch.freeze(), launch_index.finish()));
        }
        let _ = model;
        let launch_values = launch_dict.values();
        frozen
            .into_iter()
            .map(|(b, process, launch, launch_index)| {
                let c = b.common;
                let columns: Vec<ArrayRef> = vec![
                    c.index,
                    dictionary_column(&c.class, &values[0]),
                    dictionary_column(&c.name, &values[1]),
                    dictionary_column(&b.identity, &values[2]),
                    dictionary_column(&c.category, &values[3]),
                    c.ts,
                    c.dur,
                    c.pid,
                    c.tid,
                    b.device,
                    b.context,
                    b.stream,
                    b.correlation,
                    c.external_id,
                    Arc::new(process) as ArrayRef,
                    dictionary_column(&launch, &launch_values),
                    Arc::new(launch_index),
                    c.text_ids,
                ];
                batch(&schema, columns)
            })
            .collect()
    }

    fn host_batches(&mut self, model: &TraceModel) -> Vec<RecordBatch> {
        let t = &mut self.host;
        if t.common.rows > 0 || t.batches.is_empty() {
            t.freeze();
        }
        let schema = Table::Host.schema();
        let self_times = std::mem::take(&mut t.self_times).finish(model.artifact().provider);
        let class = t.dicts.class.values();
        let name = t.dicts.name.values();
        let category = t.dicts.category.values();
        let details = t.details.values();
        let mut row = 0usize;
        t.batches
            .drain(..)
            .map(|b| {
                let c = b.common;
                let n = c.index.len();
                let own = Int64Array::from(self_times[row..row + n].to_vec());
                row += n;
                let columns: Vec<ArrayRef> = vec![
                    c.index,
                    dictionary_column(&c.class, &class),
                    dictionary_column(&c.name, &name),
                    dictionary_column(&c.category, &category),
                    c.ts,
                    c.dur,
                    Arc::new(own),
                    c.pid,
                    c.tid,
                    c.external_id,
                    dictionary_column(&b.input_dims, &details),
                    dictionary_column(&b.input_type, &details),
                    dictionary_column(&b.input_strides, &details),
                    dictionary_column(&b.hlo_op, &details),
                    dictionary_column(&b.hlo_module, &details),
                    c.text_ids,
                ];
                batch(&schema, columns)
            })
            .collect()
    }

    fn launch_batches(&mut self, joined: &opguard_model::JoinedLaunches) -> Vec<RecordBatch> {
        // The device rows each launch proves, in the device table's order.
        let mut launched: Vec<Vec<u64>> = vec![Vec::new(); self.launches.join.len()];
        let device_rows =
            (0..self.join_launch_row.len()).filter(|&jp| self.join_launch_row[jp] == u32::MAX);
        for jp in device_rows {
            if let Some(l) = joined.proof(jp).launch() {
                let row = self.join_launch_row[l];
                if let Some(rows) = launched.get_mut(row as usize) {
                    rows.push(self.join_index[jp]);
                }
            }
        }
        let t = &mut self.launches;
        if t.common.rows > 0 || t.batches.is_empty() {
            t.freeze();
        }
        let schema = Table::Launches.schema();
        let mut class_dict = Dictionary::default();
        let name = t.dicts.name.values();
        let category = t.dicts.category.values();
        let item = Arc::new(Field::new("item", DataType::UInt64, false));
        let mut row = 0usize;
        let mut out = Vec::with_capacity(t.batches.len());
        for b in t.batches.drain(..) {
            let c = b.common;
            let n = c.index.len();
            let rows = &t.join[row..row + n];
            let mut class = DictKeys::default();
            for &jp in rows {
                class.push(Some(class_dict.key(class_name(joined.class(jp as usize)))));
            }
            let lists = &launched[row..row + n];
            let offsets = OffsetBuffer::from_lengths(lists.iter().map(Vec::len));
            let values = UInt64Array::from(lists.concat());
            let device_rows = ListArray::new(item.clone(), offsets, Arc::new(values), None);
            row += n;
            out.push((c, class.freeze(), b.process, b.correlation, device_rows));
        }
        let class_values = class_dict.values();
        out.into_iter()
            .map(|(c, class, process, correlation, device_rows)| {
                let columns: Vec<ArrayRef> = vec![
                    c.index,
                    dictionary_column(&class, &class_values),
                    dictionary_column(&c.name, &name),
                    dictionary_column(&c.category, &category),
                    c.ts,
                    c.dur,
                    c.pid,
                    c.tid,
                    process,
                    correlation,
                    c.external_id,
                    Arc::new(device_rows),
                    c.text_ids,
                ];
                batch(&schema, columns)
            })
            .collect()
    }
}

/// A batch of columns built to `schema`: a mismatch is a bug of this crate.
fn batch(schema: &arrow_schema::SchemaRef, columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_new(schema.clone(), columns)
        .unwrap_or_else(|e| panic!("opguard-arrow built a batch unlike its schema: {e}"))
}

impl RecordSink for TableSink {
    fn wants(&self, class: SliceClass) -> bool {
        match table_of(class) {
            // The launch join needs both sides for either table.
            Table::Device | Table::Launches => {
                self.wanted(Table::Device) || self.wanted(Table::Launches)
            }
            t => self.wanted(t),
        }
    }

    fn record(&mut self, r: &SliceRecord<'_>, names: &Interner) {
        self.host.flush();
        let table = table_of(r.class);
        let join = if matches!(table, Table::Device | Table::Launches) {
            self.join.push(r).map(|jp| {
                self.join_index.push(r.index);
                jp as u32
            })
        } else {
            None
        };
        match (table, join) {
            (Table::Device, Some(jp)) => {
                self.join_launch_row.push(u32::MAX);
                if self.wanted(Table::Device) {
                    self.device.push(r, names, jp);
                    if self.device.common.rows >= self.batch_rows {
                        self.device.freeze();
                    }
                }
            }
            (Table::Launches, Some(jp)) => {
                self.join_launch_row.push(self.launches.join.len() as u32);
                self.launches.push(r, names, jp);
                if self.launches.common.rows >= self.batch_rows {
                    self.launches.freeze();
                }
            }
            (Table::Host, _) => {
                // A full batch is frozen when the next row comes, not after
                // its last row: that row's details (shapes, types) arrive
                // after it and would be lost.
                if self.host.common.rows >= self.batch_rows {
                    self.host.freeze();
                }
                self.host.push(r, names);
            }
            _ => {}
        }
    }

    fn host_detail(&mut self, detail: &HostDetail, names: &Interner) {
        let dict = &mut self.host.details;
        if let Some(p) = self.host.pending.as_mut() {
            let mut key = |id: Option<opguard_model::NameId>| id.map(|n| dict.key(names.get(n)));
            p.input_dims = key(detail.input_dims).or(p.input_dims);
            p.hlo_op = key(detail.hlo_op);
            p.hlo_module = key(detail.hlo_module);
        }
    }

    fn wants_operation_args(&self) -> bool {
        self.wanted(Table::Host)
    }

    fn operation_args(&mut self, args: &OperationArgs, names: &Interner) {
        let dict = &mut self.host.details;
        if let Some(p) = self.host.pending.as_mut() {
            let mut key = |id: Option<opguard_model::NameId>| id.map(|n| dict.key(names.get(n)));
            p.input_type = key(args.input_types);
            p.input_strides = key(args.input_strides);
        }
    }

    fn finish(&mut self, model: &TraceModel) {
        self.host.flush();
        let joined = std::mem::take(&mut self.join).finish(model.artifact().provider);
        let mut tables = Tables::empty(model.artifact().clone(), model.summary().warnings.clone());
        if self.wanted(Table::Device) {
            tables.set(Table::Device, self.device_batches(model, &joined));
        }
        if self.wanted(Table::Host) {
            tables.set(Table::Host, self.host_batches(model));
        }
        if self.wanted(Table::Launches) {
            tables.set(Table::Launches, self.launch_batches(&joined));
        }
        if self.wanted(Table::Metadata) {
            let joins = self.wanted(Table::Device) || self.wanted(Table::Launches);
            let launching = joins.then(|| joined.launching_processes());
            tables.set(Table::Metadata, vec![metadata_batch(model, launching)]);
        }
        self.done = Some(tables);
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any + Send> {
        self
    }
}

/// The metadata table: what opguard established, then the capture's own.
fn metadata_batch(model: &TraceModel, joined: Option<usize>) -> RecordBatch {
    let a = model.artifact();
    let s = model.summary();
    let text = |v: &str| serde_json::Value::from(v).to_string();
    let mut rows: Vec<(&str, String, String)> = vec![
        ("artifact", "sha256".into(), text(&a.sha256.to_string())),
        ("artifact", "format".into(), text(a.format.as_str())),
        ("artifact", "provider".into(), text(a.provider.as_str())),
        ("artifact", "clock_domain".into(), text(&a.clock_domain)),
        (
            "artifact",
            "encoded_bytes".into(),
            s.encoded_bytes.to_string(),
        ),
        (
            "artifact",
            "decoded_bytes".into(),
            s.decoded_bytes.to_string(),
        ),
        ("artifact", "events".into(), s.events.to_string()),
    ];
    if let Some(n) = joined {
        rows.push(("artifact", "launching_processes".into(), n.to_string()));
    }
    if let Some(producer) = &a.producer {
        rows.push(("artifact", "producer".into(), text(producer)));
    }
    if let Some(source) = &a.source {
        rows.push(("artifact", "source".into(), text(source)));
    }
    for w in &s.warnings {
        let warning = serde_json::to_string(w).unwrap_or_else(|_| text(&w.message));
        rows.push(("artifact", "warning".into(), warning));
    }
    for (k, v) in s.metadata.entries() {
        rows.push(("capture", k.clone(), v.clone()));
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0))),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.1.as_str()),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.2.as_str()),
        )),
    ];
    batch(&Table::Metadata.schema(), columns)
}
