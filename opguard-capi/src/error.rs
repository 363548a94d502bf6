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
/// crate's prefix (`trace.*`, `census.*`); see [`LIBRARY_CODES`].
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
        code: "capi.invalid_json",
        status: None,
        meaning: "the request is not JSON (fields `line`, `column`)",
    },
    CodeInfo {
        code: "capi.invalid_request",
        status: None,
        meaning: "the request is JSON but not the entry point's request: a missing, unknown or \
                  repeated field, a wrong type, or two fields that exclude each other",
    },
    CodeInfo {
        code: "capi.internal_error",
        status: None,
        meaning: "a bug: a result could not be encoded as JSON",
    },
];

/// Library codes that reach the boundary, prefixed by crate.
///
/// `trace.*` is `opguard_trace::Error::code()` (also when the reader failed
/// inside align), `census.*` `opguard_census::CensusError::code()`, `align.*`
/// `opguard_align::Error::code()` (its `invalid_request` is reported as
/// `capi.invalid_request`), `scaling.*` `opguard_scaling::Error::code()`,
/// `select.*` `opguard_select::Error::code()`; the
/// crates promise those strings are stable. This list is what ABI version 1
/// can return.
pub const LIBRARY_CODES: &[CodeInfo] = &[
    lib("trace.io", "a trace file cannot be opened or read"),
    lib(
        "trace.gzip_invalid",
        "the input starts like gzip but is not a valid gzip stream",
    ),
    lib("trace.gzip_truncated", "the gzip stream ends early"),
    lib(
        "trace.limit_exceeded",
        "an encoded, decoded, depth or value-size limit was exceeded",
    ),
    lib("trace.invalid_utf8", "the trace is not UTF-8"),
    lib("trace.empty_input", "the trace is empty"),
    lib("trace.json_truncated", "the trace ends inside a JSON value"),
    lib("trace.json_syntax", "the trace is not valid JSON"),
    lib(
        "trace.unescaped_quote",
        "a string is followed by text: probably an unescaped quote",
    ),
    lib("trace.non_finite_number", "NaN or Infinity in the trace"),
    lib("trace.event_not_object", "a trace event is not an object"),
    lib(
        "trace.trace_events_not_array",
        "`traceEvents` is not an array",
    ),
    lib(
        "trace.top_level_not_container",
        "the document is neither an object nor an array",
    ),
    lib(
        "trace.missing_trace_events",
        "the top-level object has no `traceEvents`",
    ),
    lib(
        "trace.duplicate_key",
        "an object of the trace has the same key twice",
    ),
    lib("trace.wrong_type", "a trace field has the wrong JSON type"),
    lib(
        "trace.trailing_data",
        "data after the end of the trace document",
    ),
    lib(
        "trace.invalid_reference",
        "an event reference does not parse",
    ),
    lib("trace.invalid_write", "the trace writer was misused"),
    lib(
        "trace.number_out_of_range",
        "a number does not fit where it is used",
    ),
    lib("census.io", "a census input file cannot be read"),
    lib(
        "census.too_large",
        "a census input is larger than its limit",
    ),
    lib("census.json_syntax", "a census input is not JSON"),
    lib(
        "census.wrong_format",
        "a census input's `format` is missing or another format",
    ),
    lib(
        "census.missing_field",
        "a required field of a census input is absent",
    ),
    lib(
        "census.unknown_field",
        "a census input has a field its format does not define",
    ),
    lib(
        "census.duplicate_key",
        "a census input has the same key twice in one object",
    ),
    lib(
        "census.wrong_type",
        "a census input field has the wrong JSON type",
    ),
    lib(
        "census.invalid_value",
        "a census input field has a value the format cannot hold",
    ),
    lib(
        "census.invalid_expression",
        "a shape entry is not a symbolic expression",
    ),
    lib(
        "census.conflicting_fields",
        "two census input fields disagree",
    ),
    lib(
        "census.step_axis_not_symbolic",
        "a capture offered as symbolic has no symbolic step axis",
    ),
    lib(
        "census.duplicate_operator",
        "a family table names one operator twice",
    ),
    lib(
        "census.duplicate_family",
        "a family table defines a family twice",
    ),
    lib(
        "census.unclassified_operators",
        "`require_classified` and some operator has no family",
    ),
    lib(
        "census.host_resolutions_differ",
        "`require_host_resolutions` and the log differs",
    ),
    lib(
        "census.same_width",
        "a width comparison got two captures at one width",
    ),
    lib(
        "census.control_not_concrete",
        "the control capture declares a step axis",
    ),
    lib(
        "select.request_unreadable",
        "the seam request file cannot be read",
    ),
    lib(
        "select.request_invalid",
        "the seam request is not JSON of the documented shape",
    ),
    lib(
        "select.unsupported_protocol_version",
        "the seam request's `protocol_version` is not 1",
    ),
    lib(
        "select.invalid_spec",
        "a callable spec is not `module:attr`",
    ),
    lib(
        "select.no_device_symbol",
        "the request names no device kernel symbol",
    ),
    lib(
        "select.invalid_value",
        "a seam request field has a value the protocol does not allow",
    ),
    lib(
        "select.trace_unreadable",
        "a trace that exists cannot be read (field `trace_code`)",
    ),
    lib(
        "align.io",
        "reading an alignment input or writing the output failed",
    ),
    lib(
        "align.limit_exceeded",
        "a size limit of opguard-align was exceeded",
    ),
    lib(
        "align.output_exists",
        "the output path exists; outputs are never overwritten",
    ),
    lib(
        "align.output_is_symlink",
        "the output path is a symbolic link",
    ),
    lib(
        "align.output_path_symlink",
        "a directory on the output path is a symbolic link",
    ),
    lib(
        "align.output_dir_missing",
        "the output's directory does not exist",
    ),
    lib(
        "align.output_dir_not_writable",
        "the output's directory cannot be written",
    ),
    lib(
        "align.not_an_export",
        "the artifact is not an `opguard.export/v1` file",
    ),
    lib(
        "align.invalid_export",
        "the artifact claims `opguard.export/v1` but breaks its structure",
    ),
    lib("align.invalid_map", "the alignment map is malformed"),
    lib(
        "align.stale_artifact_hash",
        "the map was written for another artifact",
    ),
    lib(
        "align.ref_artifact_mismatch",
        "an event reference names another artifact",
    ),
    lib(
        "align.ref_out_of_range",
        "an event reference's index is past the end",
    ),
    lib(
        "align.ref_not_operation",
        "an event reference names an event that is not an operation",
    ),
    lib(
        "align.invalid_selector",
        "a tensor selector is malformed or out of range",
    ),
    lib(
        "align.selectors_incomplete",
        "only one of `left_tensor` / `right_tensor` is given",
    ),
    lib(
        "align.selectors_required",
        "a new `comparable` pair needs both selectors",
    ),
    lib(
        "align.selectors_not_allowed",
        "`not_comparable` / `undetermined` take no selectors",
    ),
    lib(
        "align.same_run_pair",
        "both ends of a pair are in the same run",
    ),
    lib(
        "align.conflicting_mappings",
        "two active comparable relations share an operation",
    ),
    lib(
        "align.unsupported_protocol_version",
        "the apply request's `protocol_version` is not 1",
    ),
    lib("align.invalid_records", "the records file is malformed"),
    lib(
        "align.duplicate_record_id",
        "two records share a `record_id`",
    ),
    lib(
        "align.duplicate_sequence",
        "two records of one run and rank share a sequence number",
    ),
    lib("align.run_count", "an export compares exactly two runs"),
    lib(
        "align.duplicate_run_rank",
        "two profiler traces claim the same run and rank",
    ),
    lib(
        "align.invalid_profile",
        "a profiler trace cannot be turned into records",
    ),
    lib(
        "align.source_changed",
        "an input changed between the two passes over it",
    ),
    lib(
        "scaling.trials_unreadable",
        "the trials document cannot be read",
    ),
    lib(
        "scaling.trials_invalid",
        "the trials document is not JSON or breaks its schema",
    ),
    lib(
        "scaling.trace_unreadable",
        "a trial's trace cannot be read (field `trace_code`)",
    ),
    lib(
        "scaling.artifact_reused",
        "the same trace bytes are offered twice",
    ),
    lib(
        "scaling.source_state_conflict",
        "a trial's build id or source state is stated twice, differently",
    ),
    lib(
        "scaling.mixed_units",
        "two units in what must be one series",
    ),
    lib(
        "scaling.mixed_metrics",
        "two metrics in what must be one series",
    ),
    lib(
        "scaling.unknown_metric",
        "a metric name other than inclusive_ns, self_ns, count",
    ),
    // ---- job (opguard_job::Error::code()) ----
    lib(
        "job.too_large",
        "a summary or job document is over opguard_job::MAX_DOCUMENT_BYTES",
    ),
    lib(
        "job.invalid_document",
        "a summary or job document breaks its format (unknown, repeated or mistyped field)",
    ),
    lib(
        "job.wrong_format",
        "a document's `format` is neither opguard.job.rank/v1 nor opguard.job/v1",
    ),
];

const fn lib(code: &'static str, meaning: &'static str) -> CodeInfo {
    CodeInfo {
        code,
        status: None,
        meaning,
    }
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

    /// Maps a request parse failure: syntax to `capi.invalid_json`, shape to
    /// `capi.invalid_request`.
    pub(crate) fn request(entry: &str, e: &serde_json::Error) -> Self {
        let code = match e.classify() {
            serde_json::error::Category::Data => "capi.invalid_request",
            _ => "capi.invalid_json",
        };
        Error::new(code, format!("{entry} request: {e}"))
            .with("line", e.line())
            .with("column", e.column())
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

    pub(crate) fn census(e: &opguard_census::CensusError) -> Self {
        Error::new(format!("census.{}", e.code()), e.to_string())
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
