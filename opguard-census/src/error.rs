//! The crate's one error type.

/// Everything that can go wrong reading a capture, a family table or a declared
/// host-resolution set, and every refusal the census makes.
///
/// Boxed, like every opguard error, so a result carries one pointer.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error {
    inner: Box<ErrorKind>,
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner
    }

    /// A stable, machine-readable code (`"step_axis_not_symbolic"`, …): this
    /// crate's own ([`ERROR_CODES`]) or, for a document that cannot be read, the
    /// document reader's ([`opguard_document::ERROR_CODES`]).
    pub fn code(&self) -> &'static str {
        self.inner.code()
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(kind),
        }
    }
}

/// What went wrong.
///
/// Each kind says what was being read (`what`, e.g. `capture file a.json`), where
/// (a JSON path such as `ops[12].shapes[1][0]`, or a line and column for syntax), and
/// what was expected. [`ErrorKind::code`] gives a stable machine-readable string for
/// each kind; the codes are part of the contract and never change meaning.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A document that cannot be read: unreadable, larger than its limit, not
    /// JSON, or a field of the wrong type, missing, unknown, given twice or
    /// holding a value the format cannot hold. [`ErrorKind::code`] is the document
    /// reader's own (`duplicate_key`, `wrong_type`, ...), and `source` keeps its
    /// JSON path and, for syntax, line and column.
    #[error("{what}: {source}")]
    Document {
        /// What was being read.
        what: String,
        /// The document reader's error.
        #[source]
        source: opguard_document::Error,
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
    /// Every code [`Error::code`] returns for this crate's own faults, with its
    /// one-line meaning (the C ABI lists them under the `census.` prefix). A
    /// document the reader refuses keeps the document reader's code
    /// ([`opguard_document::ERROR_CODES`], `document.` in the C ABI).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// A stable, machine-readable code for the kind (`"step_axis_not_symbolic"`, …).
        pub fn code;
    }
    passthrough {
        ErrorKind::Document { source, .. } => source.code(),
    }
    codes {
        ErrorKind::WrongFormat { .. } => "wrong_format": "a census input's `format` is missing or another format",
        ErrorKind::InvalidExpression { .. } => "invalid_expression": "a shape entry is not a symbolic expression",
        ErrorKind::ConflictingFields { .. } => "conflicting_fields": "two census input fields disagree",
        ErrorKind::StepAxisNotSymbolic { .. } => "step_axis_not_symbolic": "a capture offered as symbolic has no symbolic step axis",
        ErrorKind::DuplicateOperator { .. } => "duplicate_operator": "a family table names one operator twice",
        ErrorKind::DuplicateFamily { .. } => "duplicate_family": "a family table defines a family twice",
        ErrorKind::UnclassifiedOperators { .. } => "unclassified_operators": "`require_classified` and some operator has no family",
        ErrorKind::HostResolutionsDiffer { .. } => "host_resolutions_differ": "`require_host_resolutions` and the log differs",
        ErrorKind::SameWidth { .. } => "same_width": "a width comparison got two captures at one width",
        ErrorKind::ControlNotConcrete { .. } => "control_not_concrete": "the control capture declares a step axis",
    }
}
