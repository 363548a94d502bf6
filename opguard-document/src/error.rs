//! The crate's one error type and its code list.

use std::fmt;
use std::io;

use crate::path::Segment;
use crate::JsonPath;

/// A document that could not be read: what went wrong, where (JSON path,
/// line and column) and, for a size refusal, the limit.
///
/// Boxed so a successful read carries one pointer, not the context.
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    /// Innermost segment first: segments are added as the error unwinds.
    path: Vec<Segment>,
    line: usize,
    column: usize,
    /// Made by serde_json itself; named by `de::classify` once the read failed.
    unclassified: bool,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The document could not be opened or read.
    Io(io::Error),
    /// The document is longer than its limit; nothing past the limit was read.
    LimitExceeded {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The bytes are not JSON (this includes a document that ends early and
    /// data after its end).
    Syntax(String),
    /// One object names the same key twice. Readers disagree on which one
    /// wins, so the document is refused rather than read one way.
    DuplicateKey {
        /// The repeated key.
        key: String,
    },
    /// A value has the wrong JSON type, e.g. an array where an object is
    /// read (a struct is never filled from an array by position).
    WrongType {
        /// What was found (`an array`, `a string`, …).
        found: String,
        /// What the reader wanted.
        expected: String,
    },
    /// A required field is absent.
    MissingField {
        /// The field.
        field: &'static str,
    },
    /// A field the document type does not define.
    UnknownField {
        /// The field.
        field: String,
        /// The fields it does define.
        known: &'static [&'static str],
    },
    /// Any other value the document type refuses (a number out of range, an
    /// unknown enum variant, a type's own check).
    InvalidValue(String),
}

crate::error_codes! {
    /// The codes [`Error::code`] returns, each with its one-line meaning.
    ///
    /// Stable: a code is never renamed without a CHANGELOG entry, and a
    /// retired code is never reused.
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    codes {
        ErrorKind::Io(_) => "io": "the document cannot be opened or read",
        ErrorKind::LimitExceeded { .. } => "limit_exceeded": "the document is larger than its byte limit",
        ErrorKind::Syntax(_) => "json_syntax": "the document is not JSON",
        ErrorKind::DuplicateKey { .. } => "duplicate_key": "an object names the same key twice",
        ErrorKind::WrongType { .. } => "wrong_type": "a value has the wrong JSON type",
        ErrorKind::MissingField { .. } => "missing_field": "a required field is absent",
        ErrorKind::UnknownField { .. } => "unknown_field": "a field the document type does not define",
        ErrorKind::InvalidValue(_) => "invalid_value": "a value the document type cannot hold",
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                path: Vec::new(),
                line: 0,
                column: 0,
                unclassified: false,
            }),
        }
    }

    pub(crate) fn unclassified(message: String) -> Self {
        let mut e = Error::new(ErrorKind::InvalidValue(message));
        e.inner.unclassified = true;
        e
    }

    pub(crate) fn is_unclassified(&self) -> bool {
        self.inner.unclassified
    }

    pub(crate) fn replace_kind(mut self, kind: ErrorKind) -> Self {
        self.inner.kind = kind;
        self.inner.unclassified = false;
        self
    }

    pub(crate) fn at(mut self, line: usize, column: usize) -> Self {
        if self.inner.line == 0 {
            self.inner.line = line;
            self.inner.column = column;
        }
        self
    }

    /// Adds the segment the error unwinds through (so the innermost comes first).
    pub(crate) fn within(mut self, segment: Segment) -> Self {
        self.inner.path.push(segment);
        self
    }

    /// Classifies a serde_json error that did not come from this crate.
    pub(crate) fn from_json(e: serde_json::Error) -> Self {
        use serde_json::error::Category;
        let (line, column) = (e.line(), e.column());
        let kind = match e.classify() {
            Category::Io => ErrorKind::Io(e.into()),
            Category::Syntax | Category::Eof => ErrorKind::Syntax(message_without_position(&e)),
            Category::Data => ErrorKind::InvalidValue(message_without_position(&e)),
        };
        Error::new(kind).at(line, column)
    }

    /// A value of the wrong JSON type at `path`, for a reader that checks a
    /// [`Value`](crate::Value) tree by hand (`found` as
    /// [`Value::type_name`](crate::Value::type_name) says it).
    pub fn wrong_type(path: &JsonPath<'_>, found: &str, expected: impl Into<String>) -> Self {
        Error::new(ErrorKind::WrongType {
            found: found.to_owned(),
            expected: expected.into(),
        })
        .at_path(path)
    }

    /// A required field `field` absent from the object at `parent`.
    pub fn missing_field(parent: &JsonPath<'_>, field: &'static str) -> Self {
        Error::new(ErrorKind::MissingField { field }).at_path(&parent.key(field))
    }

    /// A field at `path` that the object there does not define (`known`).
    pub fn unknown_field(path: &JsonPath<'_>, field: &str, known: &'static [&'static str]) -> Self {
        Error::new(ErrorKind::UnknownField {
            field: field.to_owned(),
            known,
        })
        .at_path(path)
    }

    /// A key given twice in one object (`path` names the repeated key).
    pub fn duplicate_key(path: &JsonPath<'_>, key: &str) -> Self {
        Error::new(ErrorKind::DuplicateKey {
            key: key.to_owned(),
        })
        .at_path(path)
    }

    /// A value at `path` of the right type that the document type cannot
    /// hold; `message` says what is wrong and what was expected.
    pub fn invalid_value(path: &JsonPath<'_>, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidValue(message.into())).at_path(path)
    }

    /// The document was one line of a larger file, starting at `line`
    /// (1-based) of it: the error's line becomes the file's line.
    pub fn in_file_from_line(mut self, line: usize) -> Self {
        if self.inner.line > 0 && line > 0 {
            self.inner.line += line - 1;
        }
        self
    }

    fn at_path(mut self, path: &JsonPath<'_>) -> Self {
        self.inner.path = path.segments_innermost_first();
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// What went wrong, by value (to keep an [`io::Error`] as a source).
    pub fn into_kind(self) -> ErrorKind {
        self.inner.kind
    }

    /// The stable code of this error; the list is [`ERROR_CODES`].
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }

    /// The JSON path of the value the error is about (`reviews[2].basis`;
    /// `$` for the whole document).
    pub fn path(&self) -> String {
        crate::path::render(self.inner.path.iter().rev())
    }

    /// The 1-based line of the error in the document, when known.
    pub fn line(&self) -> Option<usize> {
        (self.inner.line > 0).then_some(self.inner.line)
    }

    /// The 1-based column of the error in the document, when known.
    pub fn column(&self) -> Option<usize> {
        (self.inner.line > 0).then_some(self.inner.column)
    }

    /// The byte limit a [`ErrorKind::LimitExceeded`] refers to.
    pub fn limit(&self) -> Option<u64> {
        match self.inner.kind {
            ErrorKind::LimitExceeded { limit } => Some(limit),
            _ => None,
        }
    }

    /// The message without the path and position (which [`Display`] adds).
    ///
    /// [`Display`]: fmt::Display
    pub fn message(&self) -> String {
        match &self.inner.kind {
            ErrorKind::Io(e) => e.to_string(),
            ErrorKind::LimitExceeded { limit } => {
                format!("the document is larger than its limit of {limit} bytes")
            }
            ErrorKind::Syntax(m) | ErrorKind::InvalidValue(m) => m.clone(),
            ErrorKind::DuplicateKey { key } => {
                format!("duplicate key {key:?}: it appears twice in one object")
            }
            ErrorKind::WrongType { found, expected } => {
                format!("found {found}, expected {expected}")
            }
            ErrorKind::MissingField { field } => format!("missing field `{field}`"),
            ErrorKind::UnknownField { field, known } => {
                format!(
                    "unknown field `{field}`, expected one of: {}",
                    known.join(", ")
                )
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        match self.inner.kind {
            ErrorKind::Io(_) | ErrorKind::LimitExceeded { .. } => Ok(()),
            _ => {
                write!(f, " at {}", self.path())?;
                if let (Some(line), Some(column)) = (self.line(), self.column()) {
                    write!(f, " (line {line}, column {column})")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("path", &self.path())
            .field("line", &self.inner.line)
            .field("column", &self.inner.column)
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

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::InvalidValue(msg.to_string()))
    }

    fn invalid_type(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Error::new(ErrorKind::WrongType {
            found: found_from_text(&unexp.to_string()),
            expected: exp.to_string(),
        })
    }

    fn missing_field(field: &'static str) -> Self {
        Error::new(ErrorKind::MissingField { field })
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Error::new(ErrorKind::UnknownField {
            field: field.to_string(),
            known: expected,
        })
    }

    fn duplicate_field(field: &'static str) -> Self {
        Error::new(ErrorKind::DuplicateKey {
            key: field.to_string(),
        })
    }
}

/// serde names JSON's types its own way ("sequence", "map", "unit value").
pub(crate) fn found_from_text(found: &str) -> String {
    match found {
        "sequence" => "an array".into(),
        "map" => "an object".into(),
        "unit value" | "null" => "null".into(),
        other => {
            let other = other.replace('`', "");
            let other = other.replacen("floating point ", "number ", 1);
            match other.split_once(' ') {
                Some(("string" | "boolean" | "integer" | "number", _)) => format!("the {other}"),
                _ => other,
            }
        }
    }
}

/// serde_json appends " at line L column C"; the position is kept apart.
fn message_without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) if e.line() > 0 => text[..at].to_string(),
        _ => text,
    }
}
