//! The crate's one error type and the stable error-code table.

use serde_json::{Map, Value};

/// A stable error code of the C ABI, with the one-line meaning the README's
/// table shows. Codes are never renamed, and a retired code is never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// The code string carried in `error.code`.
    pub code: &'static str,
    /// The status a direct (non-JSON) call returns for it, when it has one.
    pub status: Option<i32>,
    /// What it means.
    pub meaning: &'static str,
}

/// The codes the boundary itself produces (`capi.*`).
///
/// Library errors pass through with their own crate's stable code under the
/// crate's prefix (`trace.*`, `census.*`); a JSON document that cannot be
/// read, the request itself or one it names, is `document.*` from every
/// entry point; see [`library_codes`]. Retired, never reused:
/// `capi.invalid_json` and `capi.limit_exceeded` (now `document.json_syntax`
/// and `document.limit_exceeded`).
pub const CAPI_CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "capi.null_argument",
        status: Some(-1),
        meaning: "a pointer argument was NULL",
    },
    CodeInfo {
        code: "capi.invalid_utf8",
        status: Some(-2),
        meaning: "an argument is not valid UTF-8 (fields `argument`, `byte_offset`)",
    },
    CodeInfo {
        code: "capi.internal_panic",
        status: Some(-3),
        meaning: "a bug: the library panicked and the panic was stopped at the boundary",
    },
    CodeInfo {
        code: "capi.invalid_request",
        status: None,
        meaning: "the request does not fit the entry point although its document reads: two \
                  fields that exclude each other, neither of two that one is needed, a value \
                  out of its set",
    },
    CodeInfo {
        code: "capi.internal_error",
        status: None,
        meaning: "a bug: a result could not be encoded as JSON",
    },
];

/// One crate's published error codes, as the boundary reports them:
/// `<prefix>.<code>` (`census.limit_exceeded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LibraryCodes {
    /// The crate's prefix (`trace`, `census`, `select`, `align`, `scaling`).
    pub prefix: &'static str,
    /// The crate's own `ERROR_CODES`: every code its `code()` returns, with
    /// its one-line meaning.
    pub codes: &'static [(&'static str, &'static str)],
    /// Codes of the crate the boundary reports as a `capi.*` code instead.
    pub reported_as_capi: &'static [&'static str],
}

/// The library codes that reach the boundary, built from each crate's
/// published list (nothing is copied here): `document.*` is
/// `opguard_document::Error::code()`, wherever the document was read (a
/// request, a capture, a map, a trials or job document); `trace.*` is
/// `opguard_trace::Error::code()` (also when the reader failed inside align
/// or behind a selection or scaling error's `trace_code`), the door's own
/// (`opguard_formats`: `nsight_report`, `unsupported_database`), the
/// Nsight Systems reader's (`opguard_nsys`) and rocprofv3's (`opguard_rocprof`), `census.*`
/// `opguard_census::Error::code()`, `select.*`, `align.*` (its
/// `invalid_request` is reported as `capi.invalid_request`) and `scaling.*`
/// likewise. The crates promise those strings are stable; see
/// [`library_codes`] for the flat list ABI version 1 can return.
pub const LIBRARY_CODES: &[LibraryCodes] = &[
    LibraryCodes {
        prefix: "document",
        codes: opguard_document::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "trace",
        codes: opguard_trace::ERROR_CODES,
        reported_as_capi: &[],
    },
    // The door to every format and the model read captures too: their
    // faults are `trace.*` like the reader's.
    LibraryCodes {
        prefix: "trace",
        codes: opguard_formats::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "trace",
        codes: opguard_xplane::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "trace",
        codes: opguard_model::ERROR_CODES,
        reported_as_capi: &["out_of_order"],
    },
    LibraryCodes {
        prefix: "trace",
        codes: opguard_nsys::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "trace",
        codes: opguard_rocprof::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "census",
        codes: opguard_census::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "select",
        codes: opguard_select::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "align",
        codes: opguard_align::ERROR_CODES,
        reported_as_capi: &["invalid_request"],
    },
    LibraryCodes {
        prefix: "scaling",
        codes: opguard_scaling::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "job",
        codes: opguard_job::ERROR_CODES,
        reported_as_capi: &[],
    },
    LibraryCodes {
        prefix: "compare",
        codes: opguard_compare::ERROR_CODES,
        reported_as_capi: &[],
    },
];

/// Every library code the boundary can return, prefixed
/// (`census.limit_exceeded`), with its meaning, in [`LIBRARY_CODES`] order.
/// A code two crates of one prefix both publish (`trace.io` from the JSON
/// reader, the door to every format and the Nsight Systems reader) is one
/// meaning, listed once, with the first meaning.
pub fn library_codes() -> impl Iterator<Item = (String, &'static str)> {
    let mut seen = std::collections::HashSet::new();
    LIBRARY_CODES
        .iter()
        .flat_map(|lib| {
            lib.codes
                .iter()
                .filter(|(code, _)| !lib.reported_as_capi.contains(code))
                .map(|(code, meaning)| (format!("{}.{code}", lib.prefix), *meaning))
        })
        .filter(move |(code, _)| seen.insert(code.clone()))
}

/// An error on its way to an error envelope: a stable code, a message that
/// says what, where and what was expected, and optional details.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    code: String,
    message: String,
    details: Map<String, Value>,
}

impl Error {
    /// An error with a code from the tables above.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            code: code.into(),
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds a detail field to the envelope's `error` object.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// The stable code (`capi.null_argument`, `trace.json_syntax`, ...).
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Extra fields (`argument`, `line`, `input`, ...).
    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }

    /// The status a direct call returns for this error (`capi.*` codes only).
    pub fn status(&self) -> Option<i32> {
        CAPI_CODES
            .iter()
            .find(|c| c.code == self.code)
            .and_then(|c| c.status)
    }

    pub(crate) fn null_argument(argument: &str) -> Self {
        Error::new(
            "capi.null_argument",
            format!("argument `{argument}` is NULL; expected a NUL-terminated UTF-8 string"),
        )
        .with("argument", argument)
    }

    pub(crate) fn invalid_utf8(argument: &str, byte_offset: usize) -> Self {
        Error::new(
            "capi.invalid_utf8",
            format!(
                "argument `{argument}` is not valid UTF-8 at byte {byte_offset}; expected UTF-8 text"
            ),
        )
        .with("argument", argument)
        .with("byte_offset", byte_offset)
    }

    pub(crate) fn panic(payload: &(dyn std::any::Any + Send)) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string panic payload".to_owned());
        Error::new(
            "capi.internal_panic",
            format!("internal error (a bug in opguard, please report it): {what}"),
        )
    }

    /// A request that parsed as JSON but does not fit the entry point.
    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        Error::new("capi.invalid_request", message)
    }

    /// A JSON document that could not be read, wherever it was read (the
    /// request, or a document inside or named by it): `document.<code>` with
    /// the JSON path, line and column, or the limit. `message` is the
    /// library's, which names the document.
    pub(crate) fn document(message: String, e: &opguard_document::Error) -> Self {
        let err = Error::new(format!("document.{}", e.code()), message);
        if let Some(limit) = e.limit() {
            return err.with("limit", limit);
        }
        if matches!(e.kind(), opguard_document::ErrorKind::Io(_)) {
            return err;
        }
        let err = match (e.line(), e.column()) {
            (Some(line), Some(column)) => err.with("line", line).with("column", column),
            _ => err,
        };
        err.with("json_path", e.path())
    }

    /// A request that could not be read as the entry point's request.
    pub(crate) fn request(entry: &str, e: &opguard_document::Error) -> Self {
        Error::document(format!("{entry} request: {e}"), e)
    }

    pub(crate) fn trace(e: &opguard_trace::Error) -> Self {
        let mut err = Error::new(format!("trace.{}", e.code()), e.to_string());
        if let Some(offset) = e.offset() {
            err = err.with("byte_offset", offset);
        }
        if let Some(offset) = e.encoded_offset() {
            err = err.with("encoded_offset", offset);
        }
        if let Some(index) = e.event_index() {
            err = err.with("event_index", index);
        }
        if let Some(path) = e.path() {
            err = err.with("json_path", path);
        }
        err
    }

    /// A capture of any format that could not be read: a reader's error
    /// keeps its code (under `trace.`) and position.
    pub(crate) fn capture(e: &opguard_formats::Error) -> Self {
        match e.kind() {
            opguard_formats::ErrorKind::Json(json) => Error::trace(json),
            opguard_formats::ErrorKind::Nsys(nsys) => Error::nsys(nsys),
            opguard_formats::ErrorKind::Xplane(x) => {
                let mut err = Error::new(format!("trace.{}", x.code()), x.to_string());
                if let Some(offset) = x.offset() {
                    err = err.with("byte_offset", offset);
                }
                if let Some(path) = x.message_path() {
                    // The message being read (`planes[2].lines[0].events[7]`), under
                    // the key a JSON error gives its path.
                    err = err.with("json_path", path);
                }
                err
            }
            _ => Error::new(format!("trace.{}", e.code()), e.to_string()),
        }
    }

    /// An Nsight Systems export's error: its code under `trace.`, and the
    /// table, rowid and column it is about when it is in one.
    pub(crate) fn nsys(e: &opguard_nsys::Error) -> Self {
        let mut err = Error::new(format!("trace.{}", e.code()), e.to_string());
        if let Some(position) = e.position() {
            err = err.with("table", position.table);
            if let Some(rowid) = position.rowid {
                err = err.with("rowid", rowid);
            }
            if let Some(column) = position.column {
                err = err.with("column", column);
            }
        }
        err
    }

    pub(crate) fn census(e: &opguard_census::Error) -> Self {
        match e.kind() {
            opguard_census::ErrorKind::Document { source, .. } => {
                Error::document(e.to_string(), source)
            }
            _ => Error::new(format!("census.{}", e.code()), e.to_string()),
        }
    }

    /// Says which input of a request the error is about (`capture`, `artifacts[1]`).
    ///
    /// The message gains the input's name in front, unless the library's own
    /// message already opens with it (a census error names its document).
    pub(crate) fn in_input(self, input: impl Into<String>) -> Self {
        let input = input.into();
        let named = self
            .message
            .strip_prefix(input.as_str())
            .is_some_and(|rest| rest.starts_with(": "));
        let message = if named {
            self.message
        } else {
            format!("{input}: {}", self.message)
        };
        Error { message, ..self }.with("input", input)
    }
}
