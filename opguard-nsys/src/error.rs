//! The one error type of this crate.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::version::SchemaVersion;

/// An export that could not be read: what went wrong, in which file, and
/// where in it (table, row and column) when the fault is in a row.
///
/// Boxed so a successful read carries one pointer, not the context.
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    path: Option<PathBuf>,
    position: Option<Position>,
}

/// Where in the database a fault is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The table being read.
    pub table: &'static str,
    /// The SQLite `rowid` of the row, when the fault is in one row.
    pub rowid: Option<i64>,
    /// The column, when the fault is in one value.
    pub column: Option<&'static str>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.table)?;
        if let Some(rowid) = self.rowid {
            write!(f, " rowid {rowid}")?;
        }
        if let Some(column) = self.column {
            write!(f, " column {column}")?;
        }
        Ok(())
    }
}

/// Which configured limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// The export's size on disk.
    EncodedBytes,
    /// The bytes SQLite may read: for an uncompressed database, its size too.
    DecodedBytes,
}

impl Limit {
    fn describe(self) -> &'static str {
        match self {
            Limit::EncodedBytes => "encoded bytes",
            Limit::DecodedBytes => "decoded bytes",
        }
    }
}

/// Columns a table of the export lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingColumns {
    /// The table.
    pub table: &'static str,
    /// The columns it lacks, in the reader's order.
    pub columns: Vec<&'static str>,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be opened or read.
    Io(io::Error),
    /// The file is larger than a configured limit; SQLite never opened it.
    LimitExceeded {
        /// Which limit.
        which: Limit,
        /// Its configured value.
        limit: u64,
        /// The file's size.
        size: u64,
    },
    /// The file is not an SQLite database (its first 16 bytes are not
    /// `SQLite format 3\0`). An `.nsys-rep` (or `.qdrep`) report is one
    /// such file; opguard-formats' door tells it apart by its first bytes
    /// and refuses it as `nsight_report`.
    NotSqlite,
    /// SQLite found the database malformed: truncated, overwritten, or not
    /// a database after its header.
    Corrupt {
        /// SQLite's message.
        message: String,
    },
    /// Any other SQLite failure.
    Sqlite {
        /// SQLite's message.
        message: String,
    },
    /// An SQLite database without the export's metadata table
    /// (`META_DATA_EXPORT`, or `EXPORT_META_DATA` before schema 3.2): not
    /// written by `nsys export`.
    NotNsysExport {
        /// How many tables the database has.
        tables: usize,
    },
    /// The metadata table lacks an entry the reader needs.
    MetadataMissing {
        /// The metadata table.
        table: &'static str,
        /// The entry (`EXPORT_SCHEMA_VERSION`, ...).
        key: &'static str,
    },
    /// A metadata entry that does not parse.
    MetadataInvalid {
        /// The entry.
        key: &'static str,
        /// Its value.
        value: String,
    },
    /// The export declares a product other than Nsight Systems.
    NotNsightSystems {
        /// `EXPORT_PRODUCT_NAME` as written.
        product: String,
    },
    /// The schema version is outside the versions this reader was checked
    /// against real exports of (see [`crate::VERIFIED_SCHEMAS`]), and
    /// [`crate::ReadOptions::unverified_schema`] was not set.
    SchemaUnverified {
        /// The export's schema version.
        schema: SchemaVersion,
        /// The product version that wrote it.
        product_version: String,
    },
    /// Tables the reader reads lack columns it needs.
    ColumnsMissing {
        /// The export's schema version.
        schema: SchemaVersion,
        /// Each table and what it lacks.
        missing: Vec<MissingColumns>,
    },
    /// A column is declared with a type the reader does not read it as.
    ColumnType {
        /// The export's schema version.
        schema: SchemaVersion,
        /// The table.
        table: &'static str,
        /// The column.
        column: &'static str,
        /// Its declared type.
        declared: String,
        /// The type the reader reads.
        expected: &'static str,
    },
    /// An enum table of the export gives a value a different meaning than
    /// the one the reader relies on.
    EnumMismatch {
        /// The enum table.
        table: &'static str,
        /// The value.
        id: i64,
        /// The name the reader expects for it.
        expected: &'static str,
        /// The name the export gives it (`None`: the value is absent).
        found: Option<String>,
    },
    /// A value of a row has the wrong type (or is NULL where the schema
    /// says NOT NULL).
    BadValue {
        /// What the reader expected (`an integer`, ...).
        expected: &'static str,
        /// What it found (`NULL`, `a text`, ...).
        found: &'static str,
    },
    /// A row names a string id that `StringIds` does not have.
    StringMissing {
        /// The id.
        id: i64,
    },
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                path: None,
                position: None,
            }),
        }
    }

    pub(crate) fn with_path(mut self, path: &Path) -> Self {
        self.inner.path.get_or_insert_with(|| path.to_path_buf());
        self
    }

    pub(crate) fn at(mut self, position: Position) -> Self {
        self.inner.position.get_or_insert(position);
        self
    }

    /// An SQLite failure while reading `table`.
    pub(crate) fn sqlite(e: rusqlite::Error, table: Option<&'static str>) -> Self {
        let corrupt = matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
        );
        let message = e.to_string();
        let kind = if corrupt {
            ErrorKind::Corrupt { message }
        } else {
            ErrorKind::Sqlite { message }
        };
        let error = Error::new(kind);
        match table {
            Some(table) => error.at(Position {
                table,
                rowid: None,
                column: None,
            }),
            None => error,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The file, when the error concerns one.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// Where in the database, when the error is in a table or row.
    pub fn position(&self) -> Option<&Position> {
        self.inner.position.as_ref()
    }

    /// A stable, machine-readable code for the kind of error.
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }

    /// The message without path or position.
    pub fn message(&self) -> String {
        match &self.inner.kind {
            ErrorKind::Io(e) => format!("I/O error: {e}"),
            ErrorKind::LimitExceeded { which, limit, size } => format!(
                "the export is {size} bytes, over the limit of {limit} {}",
                which.describe()
            ),
            ErrorKind::NotSqlite => "not an SQLite database: an Nsight Systems export starts with \
                 \"SQLite format 3\"; a report (.nsys-rep) is exported with \
                 `nsys export --type sqlite --output REPORT.sqlite REPORT.nsys-rep`"
                .into(),
            ErrorKind::Corrupt { message } => format!(
                "the database is corrupt or truncated (SQLite: {message}); export the report again"
            ),
            ErrorKind::Sqlite { message } => format!("SQLite failed: {message}"),
            ErrorKind::NotNsysExport { tables } => format!(
                "an SQLite database with {tables} tables but no META_DATA_EXPORT or \
                 EXPORT_META_DATA table: not written by `nsys export --type sqlite`"
            ),
            ErrorKind::MetadataMissing { table, key } => {
                format!("the export's metadata table {table} has no {key}")
            }
            ErrorKind::MetadataInvalid { key, value } => {
                format!("the export's {key} is {value:?}, which does not parse")
            }
            ErrorKind::NotNsightSystems { product } => format!(
                "the export names its product {product:?}, not NVIDIA Nsight Systems"
            ),
            ErrorKind::SchemaUnverified {
                schema,
                product_version,
            } => format!(
                "export schema {schema} (Nsight Systems {product_version}) is outside the schemas \
                 this reader was checked against ({}); read it anyway with --unverified-schema \
                 (ReadOptions::unverified_schema), which still checks every table and column it reads",
                crate::version::verified_text()
            ),
            ErrorKind::ColumnsMissing { schema, missing } => {
                let what: Vec<String> = missing
                    .iter()
                    .map(|m| format!("{} lacks {}", m.table, m.columns.join(", ")))
                    .collect();
                format!(
                    "export schema {schema} cannot be read: {}",
                    what.join("; ")
                )
            }
            ErrorKind::ColumnType {
                schema,
                table,
                column,
                declared,
                expected,
            } => format!(
                "export schema {schema} cannot be read: {table}.{column} is declared {declared:?}, \
                 read as {expected}"
            ),
            ErrorKind::EnumMismatch {
                table,
                id,
                expected,
                found,
            } => match found {
                Some(found) => format!(
                    "{table} names value {id} {found:?}; the reader relies on it being {expected}"
                ),
                None => format!(
                    "{table} has no value {id}; the reader relies on it being {expected}"
                ),
            },
            ErrorKind::BadValue { expected, found } => {
                format!("expected {expected}, found {found}")
            }
            ErrorKind::StringMissing { id } => {
                format!("string id {id} is not in StringIds")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        if let Some(position) = &self.inner.position {
            write!(f, " (at {position})")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.code())
            .field("kind", &self.inner.kind)
            .field("path", &self.inner.path)
            .field("position", &self.inner.position)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning (the C ABI
    /// lists them under the `trace.` prefix, beside the other readers').
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    codes {
        ErrorKind::Io(_) => "io": "the export cannot be opened or read",
        ErrorKind::LimitExceeded { .. } => "limit_exceeded": "the export is larger than its limit",
        ErrorKind::NotSqlite => "not_sqlite": "the file is not an SQLite database",
        ErrorKind::Corrupt { .. } => "sqlite_corrupt": "SQLite finds the database malformed or truncated",
        ErrorKind::Sqlite { .. } => "sqlite": "SQLite failed while reading the export",
        ErrorKind::NotNsysExport { .. } => "not_nsys_export": "an SQLite database without Nsight Systems export metadata",
        ErrorKind::MetadataMissing { .. } => "metadata_missing": "the export metadata lacks an entry the reader needs",
        ErrorKind::MetadataInvalid { .. } => "metadata_invalid": "an export metadata entry does not parse",
        ErrorKind::NotNsightSystems { .. } => "not_nsight_systems": "the export names a product other than Nsight Systems",
        ErrorKind::SchemaUnverified { .. } => "schema_unverified": "the export schema is outside the versions the reader was checked against",
        ErrorKind::ColumnsMissing { .. } => "columns_missing": "tables of the export lack columns the reader needs",
        ErrorKind::ColumnType { .. } => "column_type": "a column is declared with a type the reader does not read",
        ErrorKind::EnumMismatch { .. } => "enum_mismatch": "an enum table gives a value another meaning than the reader relies on",
        ErrorKind::BadValue { .. } => "bad_value": "a row's value has the wrong type or is NULL",
        ErrorKind::StringMissing { .. } => "string_missing": "a row names a string id StringIds does not have",
    }
}
