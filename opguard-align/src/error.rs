//! The one error type of this crate.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A failure of export, apply or validation: what went wrong, and which file
/// it concerns. Every error has a stable [`code`](Error::code) (listed in
/// [`ERROR_CODES`]) and a `Display` message; callers shape their own error
/// documents from the two (the CLI's `{"error": {"code", "message", ...}}`,
/// the C ABI's `align.`-prefixed codes).
///
/// Every failure happens before the output is linked into place, so an
/// error always means that no output file (and no temporary file) exists.
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    kind: ErrorKind,
    path: Option<PathBuf>,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading an input or writing the output failed.
    #[error("I/O error while {during}: {source}")]
    Io {
        /// What was being done.
        during: &'static str,
        /// The underlying error.
        source: io::Error,
    },
    /// The trace reader refused an input (bad JSON, bad gzip, limits...).
    /// [`Error::code`] is the reader's own code, e.g. `limit_exceeded`.
    #[error("{0}")]
    Trace(opguard_trace::Error),
    /// A profile of any format could not be read (`opguard-formats`: a
    /// reader's error keeps its own code and position).
    #[error("{0}")]
    Capture(opguard_formats::Error),
    /// A hand-written document (alignment map, apply or export request,
    /// records line) could not be read: unreadable, over its limit, not
    /// JSON, or not of its documented shape (a missing or unknown field, a
    /// wrong type, a key given twice, an array where an object is read).
    /// [`Error::code`] is the document reader's own (`duplicate_key`,
    /// `wrong_type`, ...), and `source` keeps its JSON path, line and column
    /// (of the records file, for a records line).
    #[error("{what}: {source}")]
    Document {
        /// Which document (`the alignment map`, `the request`, `records file
        /// line 5`).
        what: String,
        /// The document reader's error.
        source: opguard_document::Error,
    },
    /// A size limit of this crate was exceeded.
    #[error("{what} exceeds the limit of {limit} bytes")]
    LimitExceeded {
        /// What was too large.
        what: &'static str,
        /// The limit in bytes.
        limit: u64,
    },
    /// The output path already exists; outputs are never overwritten.
    #[error("the output already exists; choose a new path (outputs are never overwritten)")]
    OutputExists,
    /// The output path is itself a symbolic link.
    #[error("the output path is a symbolic link; give a plain path")]
    OutputIsSymlink,
    /// A directory on the output path is a symbolic link.
    #[error("the output path goes through the symbolic link {0}; give a path without links")]
    OutputPathSymlink(PathBuf),
    /// The output's directory does not exist.
    #[error("the output directory does not exist")]
    OutputDirMissing,
    /// The output's directory cannot be written.
    #[error("the output directory is not writable: {0}")]
    OutputDirNotWritable(io::Error),
    /// The artifact is not an `opguard.export/v1` file.
    #[error("not an opguard.export/v1 artifact: {0}")]
    NotAnExport(String),
    /// The artifact claims `opguard.export/v1` but breaks its structure.
    #[error("invalid opguard.export/v1 artifact: {0}")]
    InvalidExport(String),
    /// The alignment map is not a v1 map (another or no `version`) or breaks
    /// a rule the reader cannot see (an empty reason, a malformed digest or
    /// event reference, ...).
    #[error("invalid alignment map: {0}")]
    InvalidMap(String),
    /// The map was written for another artifact.
    #[error(
        "stale alignment map: artifact_sha256 is {map} but the artifact's SHA-256 is {artifact}"
    )]
    StaleArtifactHash {
        /// `artifact_sha256` in the map.
        map: String,
        /// The artifact's actual digest.
        artifact: String,
    },
    /// An event reference names another artifact.
    #[error("{at}: reference {reference} names artifact {found}, expected {expected}")]
    RefArtifactMismatch {
        /// JSON path in the map, e.g. `reviews[2].left_ref`.
        at: String,
        /// The reference as written.
        reference: String,
        /// Its digest.
        found: String,
        /// The artifact's digest.
        expected: String,
    },
    /// An event reference's index is past the end of `traceEvents`.
    #[error("{at}: event index {index} is out of range (the artifact has {events} events)")]
    RefOutOfRange {
        /// JSON path in the map.
        at: String,
        /// The index.
        index: u64,
        /// Number of events in the artifact.
        events: u64,
    },
    /// An event reference names an event that is not an operation.
    #[error(
        "{at}: event {index} is not an operation (operations are traceEvents[0..{operations}])"
    )]
    RefNotOperation {
        /// JSON path in the map.
        at: String,
        /// The index.
        index: u64,
        /// Number of operation events.
        operations: u64,
    },
    /// A tensor selector is malformed or out of range.
    #[error("{at}: {detail}")]
    InvalidSelector {
        /// JSON path in the map.
        at: String,
        /// What is wrong and what was expected.
        detail: String,
    },
    /// Only one of `left_tensor` / `right_tensor` is given.
    #[error("{at}: give both left_tensor and right_tensor, or neither")]
    SelectorsIncomplete {
        /// JSON path in the map.
        at: String,
    },
    /// A `comparable` review of a pair that is not an existing candidate
    /// needs both selectors.
    #[error("{at}: this pair is not an existing candidate; a new comparable pair requires left_tensor and right_tensor")]
    SelectorsRequired {
        /// JSON path in the map.
        at: String,
    },
    /// `not_comparable` and `undetermined` judge a relation as a whole.
    #[error("{at}: decision {decision} takes null selectors")]
    SelectorsNotAllowed {
        /// JSON path in the map.
        at: String,
        /// The decision.
        decision: &'static str,
    },
    /// Both ends of a pair are in the same run.
    #[error("{at}: both operations are in run {run:?}; a pair joins two different runs")]
    SameRunPair {
        /// JSON path in the map.
        at: String,
        /// The run.
        run: String,
    },
    /// Two active comparable relations share an operation.
    #[error("conflicting mappings: operation {record_id} is in two active comparable relations ({first} and {second}); resolve one of them in the map")]
    ConflictingMappings {
        /// The operation's record id.
        record_id: String,
        /// The first relation (a map path or `automatic candidate`).
        first: String,
        /// The second relation.
        second: String,
    },
    /// The request does not fit: neither records nor two or more traces, no
    /// `protocol_version`, an output path without a file name.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The request's `protocol_version` is not 1.
    #[error("unsupported protocol_version {0}; this library speaks protocol_version 1")]
    UnsupportedProtocolVersion(String),
    /// The records file is not an `opguard.records/v1` file (no header,
    /// another format, not UTF-8) or a record breaks a rule the reader
    /// cannot see (an empty id, run or operator).
    #[error("invalid records file, line {line}: {detail}")]
    InvalidRecords {
        /// One-based line number.
        line: u64,
        /// What is wrong.
        detail: String,
    },
    /// Two records share a `record_id`.
    #[error("duplicate record_id {0:?}: record ids must be unique in the export")]
    DuplicateRecordId(String),
    /// Two records of one run and rank share a sequence number.
    #[error("run {run:?} rank {rank} has sequence {sequence} twice")]
    DuplicateSequence {
        /// The run.
        run: String,
        /// The rank.
        rank: u32,
        /// The sequence number.
        sequence: u64,
    },
    /// An export compares exactly two runs.
    #[error("an export compares exactly two runs; the input has {0:?}")]
    RunCount(Vec<String>),
    /// Two profiler traces claim the same run and rank.
    #[error("two inputs are run {run:?} rank {rank}; give each trace its own run label or rank")]
    DuplicateRunRank {
        /// The run.
        run: String,
        /// The rank.
        rank: u32,
    },
    /// A profiler trace cannot be turned into records.
    #[error("cannot derive operation records: {0}")]
    InvalidProfile(String),
    /// A profiler trace yields no operation (`cpu_op`) at all.
    #[error("no operations to export: {reason}")]
    NoOperations {
        /// Why: not a PyTorch profiler trace, or one without `cpu_op` events.
        reason: String,
    },
    /// A PyTorch profiler trace recorded without `record_shapes=True`: its
    /// operations carry no input shapes, so every one would be unpaired.
    #[error(
        "the trace's {operations} operations carry no input shapes (no \"Input Dims\"): it was \
         recorded without record_shapes=True; record it with \
         torch.profiler.profile(record_shapes=True)"
    )]
    RecordedWithoutShapes {
        /// `cpu_op` events found.
        operations: u64,
    },
    /// An input changed between the two passes over it.
    #[error("the input changed while it was being read (SHA-256 {first} then {second})")]
    SourceChanged {
        /// Digest seen by the first pass.
        first: String,
        /// Digest seen by the second pass.
        second: String,
    },
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(ErrorImpl { kind, path: None }),
        }
    }

    pub(crate) fn io(during: &'static str, source: io::Error) -> Self {
        Error::new(ErrorKind::Io { during, source })
    }

    /// Attaches the file the error concerns (kept if one is already set).
    pub(crate) fn with_path(mut self, path: &Path) -> Self {
        if self.inner.path.is_none() {
            self.inner.path = Some(path.to_path_buf());
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The file the error concerns, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// A hand-written document (map, request, records line) that could not
    /// be read: the document reader's error, passed through.
    pub(crate) fn document(what: impl Into<String>, source: opguard_document::Error) -> Self {
        Error::new(ErrorKind::Document {
            what: what.into(),
            source,
        })
    }

    /// A stable, machine-readable code.
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.inner.kind, f)?;
        if let Some(p) = &self.inner.path {
            write!(f, " ({})", p.display())?;
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
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Io { source, .. } => Some(source),
            ErrorKind::OutputDirNotWritable(e) => Some(e),
            ErrorKind::Trace(e) => Some(e),
            ErrorKind::Capture(e) => Some(e),
            ErrorKind::Document { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<opguard_trace::Error> for Error {
    fn from(e: opguard_trace::Error) -> Self {
        Error::new(ErrorKind::Trace(e))
    }
}

impl From<opguard_formats::Error> for Error {
    fn from(e: opguard_formats::Error) -> Self {
        Error::new(ErrorKind::Capture(e))
    }
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns for this crate's own faults, with
    /// its one-line meaning (the C ABI lists them under the `align.` prefix).
    /// A document the reader refuses keeps the document reader's code
    /// ([`opguard_document::ERROR_CODES`], `document.` in the C ABI), a trace
    /// the trace reader's.
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    passthrough {
        ErrorKind::Trace(e) => e.code(),
        ErrorKind::Capture(e) => e.code(),
        ErrorKind::Document { source, .. } => source.code(),
    }
    codes {
        ErrorKind::Io { .. } => "io": "reading an alignment input or writing the output failed",
        ErrorKind::LimitExceeded { .. } => "limit_exceeded": "a size limit of opguard-align was exceeded",
        ErrorKind::OutputExists => "output_exists": "the output path exists; outputs are never overwritten",
        ErrorKind::OutputIsSymlink => "output_is_symlink": "the output path is a symbolic link",
        ErrorKind::OutputPathSymlink(_) => "output_path_symlink": "a directory on the output path is a symbolic link",
        ErrorKind::OutputDirMissing => "output_dir_missing": "the output's directory does not exist",
        ErrorKind::OutputDirNotWritable(_) => "output_dir_not_writable": "the output's directory cannot be written",
        ErrorKind::NotAnExport(_) => "not_an_export": "the artifact is not an `opguard.export/v1` file",
        ErrorKind::InvalidExport(_) => "invalid_export": "the artifact claims `opguard.export/v1` but breaks its structure",
        ErrorKind::InvalidMap(_) => "invalid_map": "the alignment map is not a v1 map or breaks a rule of one",
        ErrorKind::StaleArtifactHash { .. } => "stale_artifact_hash": "the map was written for another artifact",
        ErrorKind::RefArtifactMismatch { .. } => "ref_artifact_mismatch": "an event reference names another artifact",
        ErrorKind::RefOutOfRange { .. } => "ref_out_of_range": "an event reference's index is past the end",
        ErrorKind::RefNotOperation { .. } => "ref_not_operation": "an event reference names an event that is not an operation",
        ErrorKind::InvalidSelector { .. } => "invalid_selector": "a tensor selector is malformed or out of range",
        ErrorKind::SelectorsIncomplete { .. } => "selectors_incomplete": "only one of `left_tensor` / `right_tensor` is given",
        ErrorKind::SelectorsRequired { .. } => "selectors_required": "a new `comparable` pair needs both selectors",
        ErrorKind::SelectorsNotAllowed { .. } => "selectors_not_allowed": "`not_comparable` / `undetermined` take no selectors",
        ErrorKind::SameRunPair { .. } => "same_run_pair": "both ends of a pair are in the same run",
        ErrorKind::ConflictingMappings { .. } => "conflicting_mappings": "two active comparable relations share an operation",
        ErrorKind::InvalidRequest(_) => "invalid_request": "an apply or export request does not fit (the C ABI reports it as `capi.invalid_request`)",
        ErrorKind::UnsupportedProtocolVersion(_) => "unsupported_protocol_version": "the apply request's `protocol_version` is not 1",
        ErrorKind::InvalidRecords { .. } => "invalid_records": "the records file is not an `opguard.records/v1` file or a record breaks one of its rules",
        ErrorKind::DuplicateRecordId(_) => "duplicate_record_id": "two records share a `record_id`",
        ErrorKind::DuplicateSequence { .. } => "duplicate_sequence": "two records of one run and rank share a sequence number",
        ErrorKind::RunCount(_) => "run_count": "an export compares exactly two runs",
        ErrorKind::DuplicateRunRank { .. } => "duplicate_run_rank": "two profiler traces claim the same run and rank",
        ErrorKind::InvalidProfile(_) => "invalid_profile": "a profiler trace cannot be turned into records",
        ErrorKind::NoOperations { .. } => "no_operations": "an export input yields no operations (not a PyTorch trace, or no cpu_op events)",
        ErrorKind::RecordedWithoutShapes { .. } => "recorded_without_shapes": "a PyTorch trace recorded without record_shapes cannot be exported",
        ErrorKind::SourceChanged { .. } => "source_changed": "an input changed between the two passes over it",
    }
}
