//! The crate's one error type.

use std::path::PathBuf;

/// Everything that can go wrong reading a capture, a family table or a declared
/// host-resolution set, and every refusal the census makes.
///
/// Each variant says what was being read (`what`, e.g. `capture file a.json`), where
/// (a JSON path such as `ops[12].shapes[1][0]`, or a line and column for syntax), and
/// what was expected. [`CensusError::code`] gives a stable machine-readable string for
/// each variant; the codes are part of the contract and never change meaning.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CensusError {
    /// Reading a file failed.
    #[error("cannot read {path}: {source}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The input is larger than the limit it was read with.
    #[error("{what} is larger than the limit of {limit} bytes")]
    TooLarge {
        /// What was being read.
        what: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The input is not JSON (or not UTF-8).
    #[error("{what} is not valid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// What was being read.
        what: String,
        /// One-based line of the error.
        line: usize,
        /// One-based column of the error.
        column: usize,
        /// serde_json's description.
        message: String,
    },
    /// The document's `format` field is missing or names another format.
    #[error("{what}: format is {found}, expected \"{expected}\"")]
    WrongFormat {
        /// What was being read.
        what: String,
        /// The format found (quoted), or a description of what was there instead.
        found: String,
        /// The one format this reader accepts.
        expected: &'static str,
    },
    /// A required field is absent.
    #[error("{what}: {path} is missing; expected {expected}")]
    MissingField {
        /// What was being read.
        what: String,
        /// JSON path of the missing field.
        path: String,
        /// What the field should hold.
        expected: String,
    },
    /// A field this format does not define. Refused rather than ignored, so that a
    /// field meant for a later version (or misspelt) is never silently misread.
    #[error("{what}: {path} is not a field of this format; the fields here are {known}")]
    UnknownField {
        /// What was being read.
        what: String,
        /// JSON path of the unknown field.
        path: String,
        /// The fields the format defines at that place.
        known: String,
    },
    /// An object with the same key twice (JSON parsers disagree on which one wins).
    #[error("{what}: {path} appears twice in the same object")]
    DuplicateKey {
        /// What was being read.
        what: String,
        /// JSON path of the repeated key.
        path: String,
    },
    /// A field holds the wrong JSON type.
    #[error("{what}: {path} is {found}; expected {expected}")]
    WrongType {
        /// What was being read.
        what: String,
        /// JSON path of the value.
        path: String,
        /// The JSON type found.
        found: &'static str,
        /// What was expected.
        expected: String,
    },
    /// A field has the right type but a value this format cannot hold.
    #[error("{what}: {path}: {problem}; expected {expected}")]
    InvalidValue {
        /// What was being read.
        what: String,
        /// JSON path of the value.
        path: String,
        /// What is wrong with it.
        problem: String,
        /// What was expected.
        expected: String,
    },
    /// A string that should be a symbolic expression does not read as one.
    #[error("{what}: {path}: {text:?} is not a symbolic expression: {problem}")]
    InvalidExpression {
        /// What was being read.
        what: String,
        /// JSON path of the string.
        path: String,
        /// The string.
        text: String,
        /// Why it does not read.
        problem: String,
    },
    /// Two fields that must agree do not.
    #[error("{what}: {first} and {second} disagree: {problem}")]
    ConflictingFields {
        /// What was being read.
        what: String,
        /// JSON path of the first field.
        first: String,
        /// JSON path of the second field.
        second: String,
        /// How they disagree.
        problem: String,
    },
    /// A capture offered as symbolic whose step axis is not a symbol. Torch specialises
    /// sizes 0 and 1 to constants, so a capture at such a width is concrete whatever
    /// mode traced it; it is refused rather than reported as a symbolic capture.
    #[error("capture {label:?} is refused: {reason}")]
    StepAxisNotSymbolic {
        /// The capture's label.
        label: String,
        /// The declared step axis, as written (`null` when absent).
        step_axis: String,
        /// The declared step hint.
        step_hint: u64,
        /// Why, in a sentence.
        reason: String,
    },
    /// A family table names one operator in two families.
    #[error("{what}: operator {operator:?} is in family {first_family:?} and again at {path} in family {second_family:?}; an operator belongs to one family")]
    DuplicateOperator {
        /// What was being read.
        what: String,
        /// The operator.
        operator: String,
        /// The family that named it first.
        first_family: String,
        /// The family that named it again.
        second_family: String,
        /// JSON path of the second naming.
        path: String,
    },
    /// A family table defines a family twice.
    #[error("{what}: family {family:?} is defined again at {path}")]
    DuplicateFamily {
        /// What was being read.
        what: String,
        /// The family.
        family: String,
        /// JSON path of the second definition.
        path: String,
    },
    /// The caller demanded every operator be classified and some were not.
    #[error("capture {label:?}: {count} operator(s) match no family: {names}; classify them in the family table")]
    UnclassifiedOperators {
        /// The capture's label.
        label: String,
        /// How many operator calls are unclassified.
        count: u64,
        /// `name ×count` for each unclassified operator name.
        names: String,
    },
    /// The host-resolution log differs from the declared set.
    #[error("capture {label:?}: host resolutions differ from the declared set: {summary}")]
    HostResolutionsDiffer {
        /// The capture's label.
        label: String,
        /// The lines added, missing and changed.
        summary: String,
    },
    /// A two-width comparison was given two captures at the same width.
    #[error("captures {first:?} and {second:?} are both at step width {hint}; a two-width comparison needs two different widths")]
    SameWidth {
        /// Label of the first capture.
        first: String,
        /// Label of the second capture.
        second: String,
        /// The shared width.
        hint: u64,
    },
    /// The capture offered as the concrete control declares a step axis.
    #[error("capture {label:?} was offered as the concrete control but declares step axis {step_axis:?}; a control is traced with the width left an integer (step_axis null)")]
    ControlNotConcrete {
        /// The capture's label.
        label: String,
        /// Its declared step axis.
        step_axis: String,
    },
}

opguard_document::error_codes! {
    /// Every code [`CensusError::code`] returns, with its one-line meaning (the C ABI
    /// lists them under the `census.` prefix).
    pub const ERROR_CODES;
    impl CensusError {
        /// A stable, machine-readable code for the variant (`"step_axis_not_symbolic"`, …).
        pub fn code;
    }
    codes {
        CensusError::Io { .. } => "io": "a census input file cannot be read",
        CensusError::TooLarge { .. } => "limit_exceeded": "a census input is larger than its limit",
        CensusError::Syntax { .. } => "json_syntax": "a census input is not JSON",
        CensusError::WrongFormat { .. } => "wrong_format": "a census input's `format` is missing or another format",
        CensusError::MissingField { .. } => "missing_field": "a required field of a census input is absent",
        CensusError::UnknownField { .. } => "unknown_field": "a census input has a field its format does not define",
        CensusError::DuplicateKey { .. } => "duplicate_key": "a census input has the same key twice in one object",
        CensusError::WrongType { .. } => "wrong_type": "a census input field has the wrong JSON type",
        CensusError::InvalidValue { .. } => "invalid_value": "a census input field has a value the format cannot hold",
        CensusError::InvalidExpression { .. } => "invalid_expression": "a shape entry is not a symbolic expression",
        CensusError::ConflictingFields { .. } => "conflicting_fields": "two census input fields disagree",
        CensusError::StepAxisNotSymbolic { .. } => "step_axis_not_symbolic": "a capture offered as symbolic has no symbolic step axis",
        CensusError::DuplicateOperator { .. } => "duplicate_operator": "a family table names one operator twice",
        CensusError::DuplicateFamily { .. } => "duplicate_family": "a family table defines a family twice",
        CensusError::UnclassifiedOperators { .. } => "unclassified_operators": "`require_classified` and some operator has no family",
        CensusError::HostResolutionsDiffer { .. } => "host_resolutions_differ": "`require_host_resolutions` and the log differs",
        CensusError::SameWidth { .. } => "same_width": "a width comparison got two captures at one width",
        CensusError::ControlNotConcrete { .. } => "control_not_concrete": "the control capture declares a step axis",
    }
}
