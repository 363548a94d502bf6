//! The tables and columns the reader reads, and the probe that checks an
//! export has them (with the types it reads them as) before any row is read.

use std::collections::HashMap;

use rusqlite::Connection;

use crate::error::{Error, ErrorKind, MissingColumns};
use crate::version::SchemaVersion;

/// How a column is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    Int,
    Text,
}

impl Ty {
    fn describe(self) -> &'static str {
        match self {
            Ty::Int => "INTEGER",
            Ty::Text => "TEXT",
        }
    }

    /// Whether a declared type has this affinity (SQLite's rules, section
    /// 3.1 of its datatype documentation: `INT` anywhere is integer; `CHAR`,
    /// `CLOB` or `TEXT` is text).
    fn accepts(self, declared: &str) -> bool {
        let declared = declared.to_ascii_uppercase();
        match self {
            Ty::Int => declared.contains("INT"),
            Ty::Text => {
                !declared.contains("INT")
                    && ["CHAR", "CLOB", "TEXT"]
                        .iter()
                        .any(|t| declared.contains(t))
            }
        }
    }
}

/// One column: its name, how it is read, and whether a table without it
/// can be read at all.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Col {
    pub name: &'static str,
    pub ty: Ty,
    pub required: bool,
}

/// An integer column every readable table has.
const fn req(name: &'static str) -> Col {
    Col {
        name,
        ty: Ty::Int,
        required: true,
    }
}

/// An integer column older or newer schemas lack.
const fn opt(name: &'static str) -> Col {
    Col {
        required: false,
        ..req(name)
    }
}

impl Col {
    /// The same column, read as text.
    const fn text(self) -> Col {
        Col {
            ty: Ty::Text,
            ..self
        }
    }
}

/// A table the reader reads; its rows are decoded in `columns` order.
#[derive(Debug)]
pub(crate) struct Spec {
    pub name: &'static str,
    pub columns: &'static [Col],
}

pub(crate) const KERNEL: Spec = Spec {
    name: "CUPTI_ACTIVITY_KIND_KERNEL",
    columns: &[
        req("start"),
        req("end"),
        req("deviceId"),
        req("contextId"),
        req("streamId"),
        req("correlationId"),
        req("globalPid"),
        req("demangledName"),
        req("shortName"),
        opt("mangledName"),
        req("gridX"),
        req("gridY"),
        req("gridZ"),
        req("blockX"),
        req("blockY"),
        req("blockZ"),
        opt("graphNodeId"),
        // Schema 3.24 and later.
        opt("graphId"),
    ],
};

pub(crate) const MEMCPY: Spec = Spec {
    name: "CUPTI_ACTIVITY_KIND_MEMCPY",
    columns: &[
        req("start"),
        req("end"),
        req("deviceId"),
        req("contextId"),
        req("streamId"),
        req("correlationId"),
        req("globalPid"),
        req("bytes"),
        req("copyKind"),
        opt("srcKind"),
        opt("dstKind"),
        opt("graphNodeId"),
    ],
};

pub(crate) const MEMSET: Spec = Spec {
    name: "CUPTI_ACTIVITY_KIND_MEMSET",
    columns: &[
        req("start"),
        req("end"),
        req("deviceId"),
        req("contextId"),
        req("streamId"),
        req("correlationId"),
        req("globalPid"),
        req("bytes"),
        opt("value"),
        opt("memKind"),
        opt("graphNodeId"),
    ],
};

pub(crate) const SYNC: Spec = Spec {
    name: "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    columns: &[
        req("start"),
        req("end"),
        req("deviceId"),
        req("contextId"),
        req("streamId"),
        req("correlationId"),
        req("globalPid"),
        req("syncType"),
    ],
};

/// CUDA runtime and driver API calls: one table, told apart by
/// `eventClass`.
pub(crate) const RUNTIME: Spec = Spec {
    name: "CUPTI_ACTIVITY_KIND_RUNTIME",
    columns: &[
        req("start"),
        req("end"),
        req("eventClass"),
        req("globalTid"),
        req("correlationId"),
        req("nameId"),
    ],
};

pub(crate) const NVTX: Spec = Spec {
    name: "NVTX_EVENTS",
    columns: &[
        req("start"),
        // NULL for marks and for ranges still open when the capture ended.
        req("end"),
        req("eventType"),
        opt("rangeId"),
        req("text").text(),
        req("globalTid"),
        opt("endGlobalTid"),
        req("textId"),
        opt("domainId"),
    ],
};

pub(crate) const PROCESSES: Spec = Spec {
    name: "PROCESSES",
    columns: &[req("globalPid"), req("pid"), opt("name").text()],
};

pub(crate) const THREAD_NAMES: Spec = Spec {
    name: "ThreadNames",
    columns: &[req("nameId"), req("globalTid")],
};

pub(crate) const STRING_IDS: Spec = Spec {
    name: "StringIds",
    columns: &[req("id"), req("value").text()],
};

pub(crate) const TARGET_INFO_GPU: Spec = Spec {
    name: "TARGET_INFO_GPU",
    columns: &[
        req("id"),
        opt("name").text(),
        opt("busLocation").text(),
        opt("uuid").text(),
        opt("chipName").text(),
        opt("smCount"),
        opt("totalMemory"),
        opt("computeMajor"),
        opt("computeMinor"),
    ],
};

/// Enum tables (schema 3 and later) whose values the reader relies on.
pub(crate) const ENUM_EVENT_CLASS: &str = "ENUM_NSYS_EVENT_CLASS";
pub(crate) const ENUM_EVENT_TYPE: &str = "ENUM_NSYS_EVENT_TYPE";
pub(crate) const ENUM_MEMORY_KIND: &str = "ENUM_CUDA_MEM_KIND";

/// Every table the reader reads rows of; each may be absent (nsys writes a
/// table only when the capture has its kind of data).
pub(crate) const ROW_TABLES: [&Spec; 10] = [
    &KERNEL,
    &MEMCPY,
    &MEMSET,
    &SYNC,
    &RUNTIME,
    &NVTX,
    &PROCESSES,
    &THREAD_NAMES,
    &STRING_IDS,
    &TARGET_INFO_GPU,
];

/// Tables whose rows name strings by `StringIds` id.
const NAMES_STRINGS: [&str; 4] = [KERNEL.name, RUNTIME.name, NVTX.name, THREAD_NAMES.name];

/// A table of the export the reader can read: which of its spec's columns
/// it has.
#[derive(Debug)]
pub(crate) struct Table {
    pub spec: &'static Spec,
    /// Per spec column: whether the table has it.
    pub present: Vec<bool>,
}

impl Table {
    /// `SELECT rowid, <spec columns, NULL for absent optional ones> FROM
    /// <table> ORDER BY rowid`: the result's column `i + 1` is spec column
    /// `i`, and rows come in the table's own order.
    pub fn select(&self) -> String {
        self.select_ordered("rowid")
    }

    /// [`Table::select`] with its rows in `order` (`start, rowid`: time
    /// order, SQLite sorting with its own bounded sorter).
    pub fn select_ordered(&self, order: &str) -> String {
        let mut sql = String::from("SELECT rowid");
        for (col, &present) in self.spec.columns.iter().zip(&self.present) {
            sql.push_str(", ");
            if present {
                sql.push('"');
                sql.push_str(col.name);
                sql.push('"');
            } else {
                sql.push_str("NULL");
            }
        }
        sql.push_str(" FROM \"");
        sql.push_str(self.spec.name);
        sql.push_str("\" ORDER BY ");
        sql.push_str(order);
        sql
    }

    /// Column `name` quoted, or `NULL` when the table lacks it (an
    /// optional column).
    pub fn column_or_null(&self, name: &str) -> String {
        if self.has(name) {
            format!("\"{name}\"")
        } else {
            "NULL".into()
        }
    }

    /// Whether the table has spec column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.spec
            .columns
            .iter()
            .zip(&self.present)
            .any(|(c, &p)| p && c.name == name)
    }
}

/// The tables of one export, checked against the specs.
#[derive(Debug)]
pub(crate) struct Schema {
    tables: Vec<Table>,
    /// Every table name in the database (for the enum checks and counts).
    pub all_tables: Vec<String>,
}

impl Schema {
    /// The table `spec` describes, when the export has it.
    pub fn table(&self, spec: &Spec) -> Option<&Table> {
        self.tables.iter().find(|t| t.spec.name == spec.name)
    }

    pub fn has_table(&self, name: &str) -> bool {
        self.all_tables.iter().any(|t| t == name)
    }
}

/// Every table name in the database.
pub(crate) fn table_names(conn: &Connection) -> Result<Vec<String>, Error> {
    let mut statement = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .map_err(|e| Error::sqlite(e, Some("sqlite_master")))?;
    let names = statement
        .query_map([], |row| row.get::<_, String>(0))
        .map_err(|e| Error::sqlite(e, Some("sqlite_master")))?;
    names
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::sqlite(e, Some("sqlite_master")))
}

/// The declared columns of `table`: name to declared type.
fn declared_columns(conn: &Connection, table: &str) -> Result<HashMap<String, String>, Error> {
    let mut statement = conn
        .prepare("SELECT name, type FROM pragma_table_info(?1)")
        .map_err(|e| Error::sqlite(e, None))?;
    let columns = statement
        .query_map([table], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(|e| Error::sqlite(e, None))?;
    columns
        .collect::<Result<HashMap<_, _>, _>>()
        .map_err(|e| Error::sqlite(e, None))
}

/// Checks one table against its spec: its columns, or what it lacks.
fn probe_table(
    conn: &Connection,
    spec: &'static Spec,
    schema: SchemaVersion,
) -> Result<Result<Table, MissingColumns>, Error> {
    let declared = declared_columns(conn, spec.name)?;
    let mut present = Vec::with_capacity(spec.columns.len());
    let mut missing = Vec::new();
    for col in spec.columns {
        match declared.get(col.name) {
            Some(ty) if !col.ty.accepts(ty) => {
                return Err(Error::new(ErrorKind::ColumnType {
                    schema,
                    table: spec.name,
                    column: col.name,
                    declared: ty.clone(),
                    expected: col.ty.describe(),
                }))
            }
            Some(_) => present.push(true),
            None if col.required => {
                missing.push(col.name);
                present.push(false)
            }
            None => present.push(false),
        }
    }
    if missing.is_empty() {
        Ok(Ok(Table { spec, present }))
    } else {
        Ok(Err(MissingColumns {
            table: spec.name,
            columns: missing,
        }))
    }
}

impl Schema {
    /// Checks every table the reader reads. All that is missing is reported
    /// at once, naming the schema version.
    pub fn probe(
        conn: &Connection,
        all_tables: Vec<String>,
        schema: SchemaVersion,
    ) -> Result<Schema, Error> {
        let mut tables = Vec::new();
        let mut missing = Vec::new();
        for spec in ROW_TABLES {
            if !all_tables.iter().any(|t| t == spec.name) {
                continue;
            }
            match probe_table(conn, spec, schema)? {
                Ok(table) => tables.push(table),
                Err(m) => missing.push(m),
            }
        }
        let has_strings = all_tables.iter().any(|t| t == STRING_IDS.name);
        let needs_strings = NAMES_STRINGS
            .iter()
            .any(|name| all_tables.iter().any(|t| t == name));
        if needs_strings && !has_strings {
            missing.push(MissingColumns {
                table: STRING_IDS.name,
                columns: STRING_IDS.columns.iter().map(|c| c.name).collect(),
            });
        }
        if !missing.is_empty() {
            return Err(Error::new(ErrorKind::ColumnsMissing { schema, missing }));
        }
        Ok(Schema { tables, all_tables })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_are_read_by_sqlite_affinity() {
        assert!(Ty::Int.accepts("INTEGER"));
        assert!(Ty::Int.accepts("integer"));
        assert!(Ty::Int.accepts("BIGINT"));
        assert!(!Ty::Int.accepts("TEXT"));
        assert!(!Ty::Int.accepts("REAL"));
        assert!(!Ty::Int.accepts(""));
        assert!(Ty::Text.accepts("TEXT"));
        assert!(Ty::Text.accepts("VARCHAR(10)"));
        assert!(!Ty::Text.accepts("INTEGER"));
        assert!(!Ty::Text.accepts("BLOB"));
    }

    #[test]
    fn a_select_names_every_spec_column_in_order() {
        let table = Table {
            spec: &PROCESSES,
            present: vec![true, true, false],
        };
        assert_eq!(
            table.select(),
            "SELECT rowid, \"globalPid\", \"pid\", NULL FROM \"PROCESSES\" ORDER BY rowid"
        );
        assert!(table.has("pid"));
        assert!(!table.has("name"));
    }
}
