//! Writer stage: the tables and their schemas.

use std::fmt;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};

/// One of the tables a trace gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// Device-timeline rows: kernels, memory copies and sets, other device
    /// activity, and annotations re-emitted on the device timeline
    /// (`class` says which). Columns: see [`Table::schema`].
    Device,
    /// Host work: framework operators, annotations and ranges, Python
    /// frames, and every other host record that is not a runtime call.
    Host,
    /// Runtime and driver calls (launches and the rest: `class` says which,
    /// settled as the model settles it), each with the device rows it
    /// launched.
    Launches,
    /// The artifact (digest, format, provider, producer, sizes, clock
    /// domain) and the capture's own metadata, as `(key, JSON text)` rows.
    Metadata,
}

impl Table {
    /// Every table, in this order.
    pub const ALL: [Table; 4] = [Table::Device, Table::Host, Table::Launches, Table::Metadata];

    /// The table's name: `device`, `host`, `launches`, `metadata`.
    pub fn as_str(self) -> &'static str {
        match self {
            Table::Device => "device",
            Table::Host => "host",
            Table::Launches => "launches",
            Table::Metadata => "metadata",
        }
    }

    /// Parses [`Table::as_str`].
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The names [`Table::from_name`] accepts, comma-separated.
    pub fn names() -> String {
        Table::ALL.map(Table::as_str).join(", ")
    }

    /// The table's schema. Every table but `metadata` starts with `index`
    /// (the record's occurrence index in its capture: a Chrome trace's
    /// `traceEvents` index; each native reader documents its own), and
    /// times are integer nanoseconds in the artifact's clock domain.
    /// Strings that repeat are dictionary-encoded (`Int32` keys); ids are
    /// `Int64`, null when absent or not an integer (then `text_ids` holds
    /// them as written).
    ///
    /// | table | columns |
    /// |---|---|
    /// | `device` | `index`, `class`, `name`, `kernel_identity` (opguard-kernel-name's canonical identity of the name), `category`, `ts_ns`, `dur_ns`, `pid`, `tid`, `device`, `context`, `stream`, `correlation`, `external_id`, `process` (the owning process, settled), `launch` (`proven`, `ambiguous`, `no_launch`, `no_id`, `owner_unknown`, `no_namespace`, `not_device` for device-timeline annotations), `launch_index` (the proven launch's `index`), `text_ids` |
    /// | `host` | `index`, `class`, `name`, `category`, `ts_ns`, `dur_ns`, `self_ns` (duration minus the union of what starts inside it on its own thread), `pid`, `tid`, `external_id`, `input_dims`, `input_type`, `input_strides` (JSON text as written), `hlo_op`, `hlo_module`, `text_ids` |
    /// | `launches` | `index`, `class` (`launch_direct`, `launch_graph`, `runtime`), `name`, `category`, `ts_ns`, `dur_ns`, `pid`, `tid`, `process`, `correlation`, `external_id`, `device_rows` (the `index` of every device row whose launch it proves), `text_ids` |
    /// | `metadata` | `origin` (`artifact`: what opguard established; `capture`: the capture's own metadata), `key`, `value` (JSON text) |
    pub fn schema(self) -> SchemaRef {
        let dict = |name: &str| {
            Field::new(
                name,
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                true,
            )
        };
        let int = |name: &str| Field::new(name, DataType::Int64, true);
        let required = |name: &str, t: DataType| Field::new(name, t, false);
        let index = required("index", DataType::UInt64);
        let text_ids = Field::new("text_ids", DataType::Utf8, true);
        let fields = match self {
            Table::Device => vec![
                index,
                dict("class"),
                dict("name"),
                dict("kernel_identity"),
                dict("category"),
                required("ts_ns", DataType::Int64),
                required("dur_ns", DataType::Int64),
                int("pid"),
                int("tid"),
                int("device"),
                int("context"),
                int("stream"),
                int("correlation"),
                int("external_id"),
                int("process"),
                dict("launch"),
                Field::new("launch_index", DataType::UInt64, true),
                text_ids,
            ],
            Table::Host => vec![
                index,
                dict("class"),
                dict("name"),
                dict("category"),
                required("ts_ns", DataType::Int64),
                required("dur_ns", DataType::Int64),
                required("self_ns", DataType::Int64),
                int("pid"),
                int("tid"),
                int("external_id"),
                dict("input_dims"),
                dict("input_type"),
                dict("input_strides"),
                dict("hlo_op"),
                dict("hlo_module"),
                text_ids,
            ],
            Table::Launches => vec![
                index,
                dict("class"),
                dict("name"),
                dict("category"),
                required("ts_ns", DataType::Int64),
                required("dur_ns", DataType::Int64),
                int("pid"),
                int("tid"),
                int("process"),
                int("correlation"),
                int("external_id"),
                Field::new(
                    "device_rows",
                    DataType::List(Arc::new(Field::new("item", DataType::UInt64, false))),
                    false,
                ),
                text_ids,
            ],
            Table::Metadata => vec![
                required("origin", DataType::Utf8),
                required("key", DataType::Utf8),
                required("value", DataType::Utf8),
            ],
        };
        Arc::new(Schema::new(fields))
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
