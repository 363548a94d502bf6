//! The crate's one error type.

use std::path::PathBuf;

use crate::metric::{Metric, Unit, UnknownMetric};

/// Everything that can stop a scaling run: an [`ErrorKind`], boxed so that
/// results stay small.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error(Box<ErrorKind>);

impl Error {
    /// What went wrong, with where and what was expected.
    pub fn kind(&self) -> &ErrorKind {
        &self.0
    }

    /// The stable code of this error (see [`ErrorKind::code`]).
    pub fn code(&self) -> &'static str {
        self.0.code()
    }
}

impl From<UnknownMetric> for Error {
    fn from(e: UnknownMetric) -> Self {
        ErrorKind::UnknownMetric { found: e.found }.into()
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error(Box::new(kind))
    }
}

/// What went wrong.
///
/// Each variant says what was being read, where (a JSON path such as
/// `trials[2].input`, a line and column, a trial id and trace path) and what
/// was expected. [`ErrorKind::code`] gives a stable machine-readable string per
/// variant; the codes are part of the contract and never change meaning.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The trials document could not be read: unreadable, larger than
    /// [`MAX_TRIALS_DOCUMENT_BYTES`](crate::MAX_TRIALS_DOCUMENT_BYTES), not
    /// JSON, or a field of the wrong type, missing, unknown, given twice or
    /// holding a value the format does not allow. [`ErrorKind::code`] is the
    /// document reader's own (`duplicate_key`, `wrong_type`, ...), and
    /// `source` keeps its JSON path, line and column.
    #[error("trials document {what}: {source}")]
    Document {
        /// The document (its path, or the name the caller gave it).
        what: String,
        /// The document reader's error.
        #[source]
        source: opguard_document::Error,
    },
    /// Trial costs given in memory cannot form series (a repeated id, an
    /// input that is not a finite number).
    #[error("{document}: {location}: {problem}; expected {expected}")]
    TrialsInvalid {
        /// What was checked (`<trial costs>`).
        document: String,
        /// Which trial and field.
        location: String,
        /// What is wrong.
        problem: String,
        /// What was expected.
        expected: String,
    },
    /// A trial's trace could not be read by `opguard-trace`.
    #[error("trial {trial:?}: cannot read trace {path}: [{code}] {source}", path = path.display(), code = source.code())]
    TraceUnreadable {
        /// The trial id.
        trial: String,
        /// The trace file.
        path: PathBuf,
        /// The reader's error (its own `code()` says why).
        #[source]
        source: opguard_formats::Error,
    },
    /// The same trace bytes were offered twice: as two trials (which would
    /// not be independent samples) or twice inside one trial (which would
    /// double its cost).
    #[error("trace {path} (sha256 {sha256}) is used by trial {first_trial:?} and again by trial {trial:?}; every trial must be its own capture and every trace counted once", path = path.display())]
    ArtifactReused {
        /// SHA-256 of the trace bytes.
        sha256: String,
        /// The second path the bytes were read from.
        path: PathBuf,
        /// The trial that used them first.
        first_trial: String,
        /// The trial that used them again (may equal `first_trial`).
        trial: String,
    },
    /// A trial's build id or source state is stated twice with different
    /// values (in the document and a trace, or in two of its traces).
    #[error("trial {trial:?}: {field} is {first:?} in {first_origin} but {second:?} in {second_origin}; a trial has one {field}")]
    SourceStateConflict {
        /// The trial id.
        trial: String,
        /// `build_id` or `source_state`.
        field: &'static str,
        /// The first value.
        first: String,
        /// Where it was stated.
        first_origin: String,
        /// The conflicting value.
        second: String,
        /// Where it was stated.
        second_origin: String,
    },
    /// Two units in what must be one series (a trial's declared unit, the
    /// document's unit, or the unit of the chosen metric disagree).
    #[error("{location}: unit {found} where the series is measured in {expected}; a series has one unit and is never pooled across units")]
    MixedUnits {
        /// Where the other unit was found.
        location: String,
        /// The series' unit.
        expected: Unit,
        /// The other unit.
        found: Unit,
    },
    /// Two metrics in what must be one series.
    #[error("{location}: metric {found} where the series measures {expected}; a series has one metric and is never pooled across metrics")]
    MixedMetrics {
        /// Where the other metric was found.
        location: String,
        /// The series' metric.
        expected: Metric,
        /// The other metric.
        found: Metric,
    },
    /// A metric name this crate does not define.
    #[error("unknown metric {found:?}; expected one of inclusive_ns, self_ns, count")]
    UnknownMetric {
        /// The name given.
        found: String,
    },
}

opguard_document::error_codes! {
    /// Every code [`ErrorKind::code`] returns for this crate's own faults, with
    /// its one-line meaning (the C ABI lists them under the `scaling.` prefix).
    /// A trials document the reader refuses keeps the document reader's code
    /// ([`opguard_document::ERROR_CODES`], `document.` in the C ABI).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this error.
        pub fn code;
    }
    passthrough {
        ErrorKind::Document { source, .. } => source.code(),
    }
    codes {
        ErrorKind::TrialsInvalid { .. } => "trials_invalid": "trial costs given in memory cannot form series (a repeated id, a non-finite input)",
        ErrorKind::TraceUnreadable { .. } => "trace_unreadable": "a trial's trace cannot be read (field `trace_code`)",
        ErrorKind::ArtifactReused { .. } => "artifact_reused": "the same trace bytes are offered twice",
        ErrorKind::SourceStateConflict { .. } => "source_state_conflict": "a trial's build id or source state is stated twice, differently",
        ErrorKind::MixedUnits { .. } => "mixed_units": "two units in what must be one series",
        ErrorKind::MixedMetrics { .. } => "mixed_metrics": "two metrics in what must be one series",
        ErrorKind::UnknownMetric { .. } => "unknown_metric": "a metric name other than inclusive_ns, self_ns, count",
    }
}

#[cfg(test)]
mod tests {
    use super::Error;
    use crate::Metric;

    #[test]
    fn an_unknown_metric_name_converts_to_unknown_metric() {
        let err = "wall_ns".parse::<Metric>().map_err(Error::from).err();
        assert_eq!(err.as_ref().map(Error::code), Some("unknown_metric"));
    }
}
