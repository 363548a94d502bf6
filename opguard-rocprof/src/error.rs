//! The one error type of this crate: what went wrong, in which file, where.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A failure reading a rocprofv3 capture.
///
/// Boxed so the reading loops stay small. Every error has a stable
/// [`code`](Error::code), the file it is about when there is one, and a
/// [`Position`] in it: a CSV line and column, a JSON byte offset and path,
/// or a database table and row.
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    file: Option<PathBuf>,
    position: Option<Position>,
}

/// Where in a file an error is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Position {
    /// A CSV file: the 1-based line, and the column when one field is at
    /// fault.
    Csv {
        /// 1-based line (the header is line 1).
        line: u64,
        /// The column's header name.
        column: Option<String>,
    },
    /// The JSON document: the decoded byte offset and the JSON path of the
    /// value, e.g. `rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[12]`.
    Json {
        /// Byte offset into the decoded document.
        offset: u64,
        /// JSON path of the value being read.
        path: String,
    },
    /// The database: the table (or view) and the row's `rowid`.
    Row {
        /// The table or view read.
        table: String,
        /// The row's `rowid`, when the row is known.
        rowid: Option<i64>,
    },
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Csv { line, column: None } => write!(f, "line {line}"),
            Position::Csv {
                line,
                column: Some(c),
            } => write!(f, "line {line}, column {c}"),
            Position::Json { offset, path } => write!(f, "byte {offset} ({path})"),
            Position::Row { table, rowid: None } => write!(f, "table {table}"),
            Position::Row {
                table,
                rowid: Some(r),
            } => write!(f, "table {table}, rowid {r}"),
        }
    }
}

/// Which configured limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// The bytes of the capture's files (a CSV capture: all of them).
    EncodedBytes,
    /// The bytes read after decompression.
    DecodedBytes,
    /// The bytes of one JSON value read whole (a record or a table entry).
    ValueBytes,
}

impl Limit {
    fn describe(self) -> &'static str {
        match self {
            Limit::EncodedBytes => "encoded bytes",
            Limit::DecodedBytes => "decoded bytes",
            Limit::ValueBytes => "bytes in one JSON value",
        }
    }
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file cannot be opened or read.
    Io(io::Error),
    /// The byte pipeline (gzip, SHA-256, limits) refused the input; its own
    /// code is kept.
    Input(opguard_trace::Error),
    /// A configured limit was exceeded; nothing past it was read.
    LimitExceeded {
        /// Which limit.
        which: Limit,
        /// Its configured value.
        limit: u64,
    },
    /// The input is not rocprofv3 output (a directory without a
    /// `*_kernel_trace.csv`, a JSON document without `rocprofiler-sdk-tool`,
    /// a database without the rocpd tables).
    NotRocprof(String),
    /// A CSV header that is not the one rocprofv3 writes for this file.
    ForeignHeader {
        /// The file's kind, e.g. `kernel_trace`.
        file_kind: &'static str,
        /// The column at fault: a required column that is missing, or the
        /// first column rocprofv3 never writes in this file.
        column: String,
        /// Whether `column` is missing (true) or unknown (false).
        missing: bool,
        /// The columns this reader requires.
        required: &'static [&'static str],
    },
    /// A CSV file that ends inside a row (it does not end with a line
    /// break, as every rocprofv3 CSV does).
    CsvTruncated,
    /// A CSV row whose field count differs from the header's.
    CsvRowLength {
        /// Fields in the header.
        expected: u64,
        /// Fields in the row.
        found: u64,
    },
    /// A CSV file the `csv` reader refuses.
    Csv(String),
    /// A field whose text is not what its column holds.
    InvalidField {
        /// The text found (at most 80 bytes of it).
        value: String,
        /// What the column holds.
        expected: &'static str,
    },
    /// Text that is not UTF-8.
    InvalidUtf8,
    /// The JSON is malformed.
    JsonSyntax(String),
    /// The JSON ends inside a value.
    JsonTruncated,
    /// A JSON record or table entry does not have the shape rocprofv3
    /// writes.
    InvalidRecord(String),
    /// A key this reader types appears twice in one object; readers
    /// disagree on which one wins, so neither is taken.
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// A record names a kernel symbol, agent or string the capture does
    /// not hold.
    DanglingReference {
        /// What is named, e.g. `kernel_id`.
        what: &'static str,
        /// The id it names.
        id: String,
    },
    /// A number does not fit the model's range (timestamps are `i64`
    /// nanoseconds).
    NumberOutOfRange {
        /// The number.
        value: String,
    },
    /// The database cannot be read.
    Sqlite(String),
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                file: None,
                position: None,
            }),
        }
    }

    pub(crate) fn in_file(mut self, file: &Path) -> Self {
        if self.inner.file.is_none() {
            self.inner.file = Some(file.to_path_buf());
        }
        self
    }

    pub(crate) fn at(mut self, position: Position) -> Self {
        if self.inner.position.is_none() {
            self.inner.position = Some(position);
        }
        self
    }

    /// A CSV position: the line, and the column when given. An error that
    /// already names its column (from a field parser, which knows no line)
    /// keeps the column and takes the line.
    pub(crate) fn at_line(mut self, line: u64, column: Option<&str>) -> Self {
        if let Some(Position::Csv {
            line: at,
            column: named,
        }) = &mut self.inner.position
        {
            if *at == 0 {
                *at = line;
                if named.is_none() {
                    *named = column.map(str::to_owned);
                }
            }
            return self;
        }
        self.at(Position::Csv {
            line,
            column: column.map(str::to_owned),
        })
    }

    /// A JSON position whose path the reader adds ([`Error::in_json_path`]).
    pub(crate) fn at_offset(self, offset: u64) -> Self {
        self.at(Position::Json {
            offset,
            path: String::new(),
        })
    }

    /// Names the JSON path of an error at a byte offset (or gives both).
    pub(crate) fn in_json_path(mut self, offset: u64, path: impl FnOnce() -> String) -> Self {
        match &mut self.inner.position {
            Some(Position::Json { path: p, .. }) if p.is_empty() => *p = path(),
            None => {
                self.inner.position = Some(Position::Json {
                    offset,
                    path: path(),
                })
            }
            _ => {}
        }
        self
    }

    /// The column a field error is in, before its line is known.
    pub(crate) fn in_column(self, column: &str) -> Self {
        self.at(Position::Csv {
            line: 0,
            column: Some(column.to_owned()),
        })
    }

    pub(crate) fn not_rocprof(why: impl Into<String>) -> Self {
        Error::new(ErrorKind::NotRocprof(why.into()))
    }

    pub(crate) fn invalid_field(value: &[u8], expected: &'static str) -> Self {
        let shown = &value[..value.len().min(80)];
        Error::new(ErrorKind::InvalidField {
            value: String::from_utf8_lossy(shown).into_owned(),
            expected,
        })
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The file the error is about, when there is one.
    pub fn file(&self) -> Option<&Path> {
        self.inner.file.as_deref()
    }

    /// Where in the file.
    pub fn position(&self) -> Option<&Position> {
        self.inner.position.as_ref()
    }

    /// A stable, machine-readable code for the kind of error (see
    /// [`ERROR_CODES`]).
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }

    /// The message and position, without the file (for a front end that
    /// names the file itself).
    pub fn located_message(&self) -> String {
        match &self.inner.position {
            Some(p) => format!("{} at {p}", self.message()),
            None => self.message(),
        }
    }

    /// The message without file or position.
    pub fn message(&self) -> String {
        match &self.inner.kind {
            ErrorKind::Io(e) => format!("I/O error: {e}"),
            ErrorKind::Input(e) => e.to_string(),
            ErrorKind::LimitExceeded { which, limit } => {
                format!("limit of {limit} {} exceeded", which.describe())
            }
            ErrorKind::NotRocprof(why) => format!("not rocprofv3 output: {why}"),
            ErrorKind::ForeignHeader {
                file_kind,
                column,
                missing: true,
                required,
            } => format!(
                "not a rocprofv3 {file_kind} header: column {column:?} is missing \
                 (rocprofv3 writes {})",
                required.join(", ")
            ),
            ErrorKind::ForeignHeader {
                file_kind,
                column,
                missing: false,
                required,
            } => format!(
                "not a rocprofv3 {file_kind} header: rocprofv3 never writes a column {column:?} \
                 there (it writes {})",
                required.join(", ")
            ),
            ErrorKind::CsvTruncated => {
                "the file ends inside a row (rocprofv3 ends every row with a line break): \
                 the file was cut"
                    .into()
            }
            ErrorKind::CsvRowLength { expected, found } => {
                format!("a row of {found} fields where the header has {expected}")
            }
            ErrorKind::Csv(m) => format!("invalid CSV: {m}"),
            ErrorKind::InvalidField { value, expected } => {
                format!("{value:?} is not {expected}")
            }
            ErrorKind::InvalidUtf8 => "invalid UTF-8".into(),
            ErrorKind::JsonSyntax(m) => format!("invalid JSON: {m}"),
            ErrorKind::JsonTruncated => {
                "unexpected end of input inside a JSON value: the document was cut".into()
            }
            ErrorKind::InvalidRecord(m) => format!("not a rocprofv3 record: {m}"),
            ErrorKind::DuplicateKey { key } => format!("duplicate key {key:?}"),
            ErrorKind::DanglingReference { what, id } => {
                format!("{what} {id} names nothing the capture holds")
            }
            ErrorKind::NumberOutOfRange { value } => {
                format!("{value} does not fit a signed 64-bit nanosecond time")
            }
            ErrorKind::Sqlite(m) => format!("SQLite: {m}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.inner.file {
            write!(f, "{}: ", file.display())?;
        }
        f.write_str(&self.message())?;
        if let Some(p) = &self.inner.position {
            write!(f, " at {p}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.code())
            .field("kind", &self.inner.kind)
            .field("file", &self.inner.file)
            .field("position", &self.inner.position)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Io(e) => Some(e),
            ErrorKind::Input(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        // The byte pipeline's errors travel inside io::Error; give them back.
        let ours = e
            .get_ref()
            .is_some_and(|inner| inner.is::<opguard_trace::Error>());
        if ours {
            return Error::new(ErrorKind::Input(opguard_trace::Error::from(e)));
        }
        Error::new(ErrorKind::Io(e))
    }
}

impl From<opguard_trace::Error> for Error {
    fn from(e: opguard_trace::Error) -> Self {
        Error::new(ErrorKind::Input(e))
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::new(ErrorKind::Sqlite(e.to_string()))
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning (the C ABI
    /// lists them under the `trace.` prefix, beside the other readers'). Errors of the byte pipeline
    /// (gzip, limits while decoding) keep opguard-trace's codes.
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    passthrough {
        ErrorKind::Input(e) => e.code(),
    }
    codes {
        ErrorKind::Io(_) => "io": "a capture file cannot be opened or read",
        ErrorKind::LimitExceeded { .. } => "limit_exceeded": "an encoded, decoded or value-size limit was exceeded",
        ErrorKind::NotRocprof(_) => "not_rocprofv3": "the input is not rocprofv3 CSV, JSON or rocpd output",
        ErrorKind::ForeignHeader { .. } => "foreign_csv_header": "a CSV header is not the one rocprofv3 writes for that file",
        ErrorKind::CsvTruncated => "csv_truncated": "a CSV file ends inside a row",
        ErrorKind::CsvRowLength { .. } => "csv_row_length": "a CSV row has a different number of fields than its header",
        ErrorKind::Csv(_) => "csv_syntax": "a CSV file is malformed",
        ErrorKind::InvalidField { .. } => "invalid_field": "a field's text is not what its column holds",
        ErrorKind::InvalidUtf8 => "invalid_utf8": "text that is not UTF-8",
        ErrorKind::JsonSyntax(_) => "json_syntax": "the JSON document is malformed",
        ErrorKind::JsonTruncated => "json_truncated": "the JSON document ends inside a value",
        ErrorKind::InvalidRecord(_) => "invalid_record": "a JSON record does not have the shape rocprofv3 writes",
        ErrorKind::DuplicateKey { .. } => "duplicate_key": "a key the reader types appears twice in one object",
        ErrorKind::DanglingReference { .. } => "dangling_reference": "a record names a kernel, agent or string the capture does not hold",
        ErrorKind::NumberOutOfRange { .. } => "number_out_of_range": "a number does not fit where it is used",
        ErrorKind::Sqlite(_) => "sqlite": "the rocpd database cannot be read",
    }
}
