//! The trials document: which traces belong to which trial, at which input.
//!
//! ```json
//! {
//!   "format": "opguard.scaling/trials-v1",
//!   "metric": "inclusive_ns",
//!   "unit": "ns",
//!   "source_root": "/srv/ci/proj",
//!   "trials": [
//!     {"id": "t1", "input": 1, "variant": "base", "traces": ["t1.json.gz"],
//!      "build_id": "abc123", "source_state": "git:4f2c", "metric": "inclusive_ns", "unit": "ns",
//!      "source_root": "/home/u1/src/proj"}
//!   ]
//! }
//! ```
//!
//! Only `trials` and, per trial, `id`, `input`, `variant` and `traces` are
//! required. Trace paths are relative to the document's folder. A
//! `source_root` (per trial, or for every trial that names none) is the
//! checkout the trial's traces were captured from, as the traces print it
//! (so never resolved against the document's folder): absolute Python frame
//! paths under it become relative, and one function in two checkouts is one
//! frame (opguard-trace's `ArtifactSpec::source_root`; without one, the
//! entry script's directory is used). Unknown fields and repeated keys are
//! refused, so a misspelt field is never silently ignored.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use opguard_document::{JsonPath, Value};

use crate::error::{Error, ErrorKind};
use crate::metric::{Metric, Unit};

/// The value of the optional `format` field.
pub const TRIALS_FORMAT: &str = "opguard.scaling/trials-v1";

/// The largest trials document read: 16 MiB. One byte more is
/// `limit_exceeded`, never a truncation.
pub const MAX_TRIALS_DOCUMENT_BYTES: u64 = 16 << 20;

/// A parsed and checked trials document.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TrialsDocument {
    /// Where it was read from (`<memory>` otherwise), for messages.
    pub source: String,
    /// The metric it asks for (`None`: the caller's choice or `inclusive_ns`).
    pub metric: Option<Metric>,
    /// The unit it declares; must be the metric's unit.
    pub unit: Option<Unit>,
    /// The source root of every trial that names none of its own.
    pub source_root: Option<String>,
    /// The trials, in document order.
    pub trials: Vec<TrialSpec>,
}

/// One trial: one run of the experiment at one input value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TrialSpec {
    /// Unique id.
    pub id: String,
    /// The experiment's numeric input (batch size, sequence length, ...).
    pub input: f64,
    /// The variant label; series never mix variants.
    pub variant: String,
    /// Trace files, resolved against the document's folder.
    pub traces: Vec<PathBuf>,
    /// The build id, when declared (traces may carry it too).
    pub build_id: Option<String>,
    /// The source state (e.g. a commit), when declared.
    pub source_state: Option<String>,
    /// The metric this trial declares it was measured with, if any.
    pub metric: Option<Metric>,
    /// The unit this trial declares, if any.
    pub unit: Option<Unit>,
    /// The checkout its traces were captured from, as they print it: its
    /// own, or the document's (see the module docs).
    pub source_root: Option<String>,
}

impl TrialSpec {
    /// A trial with the required fields; trace paths are used as given.
    pub fn new(
        id: impl Into<String>,
        input: f64,
        variant: impl Into<String>,
        traces: Vec<PathBuf>,
    ) -> Self {
        TrialSpec {
            id: id.into(),
            input,
            variant: variant.into(),
            traces,
            build_id: None,
            source_state: None,
            metric: None,
            unit: None,
            source_root: None,
        }
    }
    /// Declares the build id.
    pub fn build_id(mut self, build_id: impl Into<String>) -> Self {
        self.build_id = Some(build_id.into());
        self
    }
    /// Declares the source state.
    pub fn source_state(mut self, source_state: impl Into<String>) -> Self {
        self.source_state = Some(source_state.into());
        self
    }
    /// Declares the checkout its traces were captured from.
    pub fn source_root(mut self, source_root: impl Into<String>) -> Self {
        self.source_root = Some(source_root.into());
        self
    }
}

impl TrialsDocument {
    /// Reads and checks a trials document; trace paths are resolved against
    /// its folder.
    pub fn read(path: impl AsRef<Path>) -> Result<TrialsDocument, Error> {
        let path = path.as_ref();
        let what = path.display().to_string();
        let bytes = opguard_document::read_path_bounded(path, MAX_TRIALS_DOCUMENT_BYTES)
            .map_err(|e| document_error(&what, e))?;
        let base = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        Self::from_json(&bytes, &base, &what)
    }

    /// Parses and checks a document held in memory (at most
    /// [`MAX_TRIALS_DOCUMENT_BYTES`]; an object, no key twice at any depth).
    /// `base` resolves relative trace paths; `what` names the document in
    /// errors.
    pub fn from_json(bytes: &[u8], base: &Path, what: &str) -> Result<TrialsDocument, Error> {
        let value: Value<'_> = opguard_document::from_slice(bytes, MAX_TRIALS_DOCUMENT_BYTES)
            .map_err(|e| document_error(what, e))?;
        Parser { what }.document(&value, base)
    }

    /// The run's metric and unit: `override_metric`, else the document's,
    /// else `inclusive_ns`; every declared unit and trial metric must agree.
    pub fn measure(&self, override_metric: Option<Metric>) -> Result<(Metric, Unit), Error> {
        let metric = override_metric
            .or(self.metric)
            .unwrap_or(Metric::InclusiveNs);
        let unit = metric.unit();
        if let Some(found) = self.unit.filter(|&u| u != unit) {
            return Err(ErrorKind::MixedUnits {
                location: format!("trials document {}: unit", self.source),
                expected: unit,
                found,
            }
            .into());
        }
        for (i, t) in self.trials.iter().enumerate() {
            if let Some(found) = t.metric.filter(|&m| m != metric) {
                return Err(ErrorKind::MixedMetrics {
                    location: format!("trials document {}: trials[{i}].metric", self.source),
                    expected: metric,
                    found,
                }
                .into());
            }
            if let Some(found) = t.unit.filter(|&u| u != unit) {
                return Err(ErrorKind::MixedUnits {
                    location: format!("trials document {}: trials[{i}].unit", self.source),
                    expected: unit,
                    found,
                }
                .into());
            }
        }
        Ok((metric, unit))
    }
}

/// A document the reader refused, or a value in it this format cannot hold:
/// the document's own error (code, JSON path, line and column).
fn document_error(what: &str, source: opguard_document::Error) -> Error {
    ErrorKind::Document {
        what: what.to_owned(),
        source,
    }
    .into()
}

struct Parser<'a> {
    what: &'a str,
}

const DOCUMENT_FIELDS: &[&str] = &["format", "metric", "unit", "source_root", "trials"];
const TRIAL_FIELDS: &[&str] = &[
    "id",
    "input",
    "variant",
    "traces",
    "build_id",
    "source_state",
    "metric",
    "unit",
    "source_root",
];

type Entries<'v> = [(Cow<'v, str>, Value<'v>)];

fn get<'v>(map: &'v Entries<'v>, key: &str) -> Option<&'v Value<'v>> {
    map.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

impl Parser<'_> {
    fn fail(&self, e: opguard_document::Error) -> Error {
        document_error(self.what, e)
    }

    fn wrong_type(&self, path: &JsonPath<'_>, v: &Value<'_>, expected: &str) -> Error {
        self.fail(opguard_document::Error::wrong_type(
            path,
            v.type_name(),
            expected,
        ))
    }

    fn invalid(
        &self,
        path: &JsonPath<'_>,
        problem: impl std::fmt::Display,
        expected: &str,
    ) -> Error {
        self.fail(opguard_document::Error::invalid_value(
            path,
            format!("{problem}; expected {expected}"),
        ))
    }

    fn object<'v>(
        &self,
        v: &'v Value<'v>,
        path: &JsonPath<'_>,
        fields: &'static [&'static str],
    ) -> Result<&'v Entries<'v>, Error> {
        let Value::Object(map) = v else {
            return Err(self.wrong_type(path, v, "an object"));
        };
        if let Some((k, _)) = map.iter().find(|(k, _)| !fields.contains(&&**k)) {
            return Err(self.fail(opguard_document::Error::unknown_field(
                &path.key(k),
                k,
                fields,
            )));
        }
        Ok(map)
    }

    fn string(
        &self,
        map: &Entries<'_>,
        path: &JsonPath<'_>,
        key: &str,
    ) -> Result<Option<String>, Error> {
        match get(map, key) {
            None => Ok(None),
            Some(Value::Str(s)) if !s.trim().is_empty() => Ok(Some(s.to_string())),
            Some(Value::Str(_)) => {
                Err(self.invalid(&path.key(key), "the string is empty", "a non-empty string"))
            }
            Some(v) => Err(self.wrong_type(&path.key(key), v, "a non-empty string")),
        }
    }

    fn required(
        &self,
        value: Option<String>,
        path: &JsonPath<'_>,
        key: &'static str,
    ) -> Result<String, Error> {
        value.ok_or_else(|| self.fail(opguard_document::Error::missing_field(path, key)))
    }

    fn metric(&self, map: &Entries<'_>, path: &JsonPath<'_>) -> Result<Option<Metric>, Error> {
        let Some(name) = self.string(map, path, "metric")? else {
            return Ok(None);
        };
        name.parse().map(Some).map_err(|_| {
            self.invalid(
                &path.key("metric"),
                format_args!("unknown metric {name:?}"),
                "one of inclusive_ns, self_ns, count",
            )
        })
    }

    fn unit(&self, map: &Entries<'_>, path: &JsonPath<'_>) -> Result<Option<Unit>, Error> {
        let Some(name) = self.string(map, path, "unit")? else {
            return Ok(None);
        };
        Unit::from_name(&name).map(Some).ok_or_else(|| {
            self.invalid(
                &path.key("unit"),
                format_args!("unknown unit {name:?}"),
                "ns or count",
            )
        })
    }

    fn document(&self, v: &Value<'_>, base: &Path) -> Result<TrialsDocument, Error> {
        let root = JsonPath::Root;
        let map = self.object(v, &root, DOCUMENT_FIELDS)?;
        if let Some(format) = self.string(map, &root, "format")? {
            if format != TRIALS_FORMAT {
                return Err(self.invalid(
                    &root.key("format"),
                    format_args!("format is {format:?}"),
                    &format!("{TRIALS_FORMAT:?}"),
                ));
            }
        }
        let metric = self.metric(map, &root)?;
        let unit = self.unit(map, &root)?;
        let source_root = self.string(map, &root, "source_root")?;
        let trials_path = root.key("trials");
        let trials_value = get(map, "trials")
            .ok_or_else(|| self.fail(opguard_document::Error::missing_field(&root, "trials")))?;
        let Value::Array(items) = trials_value else {
            return Err(self.wrong_type(&trials_path, trials_value, "an array of trials"));
        };
        if items.is_empty() {
            return Err(self.invalid(&trials_path, "the array is empty", "at least one trial"));
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut trials = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let path = trials_path.index(i);
            let mut trial = self.trial(item, &path, base)?;
            if trial.source_root.is_none() {
                trial.source_root.clone_from(&source_root);
            }
            if let Some(first) = seen.get(trial.id.as_str()) {
                return Err(self.invalid(
                    &path.key("id"),
                    format_args!("id {:?} is already used by trials[{first}]", trial.id),
                    "a unique trial id",
                ));
            }
            seen.insert(trial.id.clone(), i);
            trials.push(trial);
        }
        Ok(TrialsDocument {
            source: self.what.to_owned(),
            metric,
            unit,
            source_root,
            trials,
        })
    }

    fn trial(&self, v: &Value<'_>, path: &JsonPath<'_>, base: &Path) -> Result<TrialSpec, Error> {
        let map = self.object(v, path, TRIAL_FIELDS)?;
        let id = self.required(self.string(map, path, "id")?, path, "id")?;
        let variant = self.required(self.string(map, path, "variant")?, path, "variant")?;
        let input_path = path.key("input");
        let finite = |n: f64, shown: &dyn std::fmt::Display| {
            if n.is_finite() {
                Ok(n)
            } else {
                Err(self.invalid(
                    &input_path,
                    format_args!("{shown} is not a finite number"),
                    "a finite number",
                ))
            }
        };
        let input = match get(map, "input") {
            None => return Err(self.fail(opguard_document::Error::missing_field(path, "input"))),
            Some(Value::Int(n)) => *n as f64,
            Some(Value::BigUint(n)) => *n as f64,
            Some(Value::Float(n)) => finite(*n, n)?,
            Some(other) => return Err(self.wrong_type(&input_path, other, "a finite number")),
        };
        let traces_path = path.key("traces");
        let traces = match get(map, "traces") {
            None => return Err(self.fail(opguard_document::Error::missing_field(path, "traces"))),
            Some(Value::Array(items)) if items.is_empty() => {
                return Err(self.invalid(
                    &traces_path,
                    "the array is empty",
                    "at least one trace path",
                ))
            }
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(j, t)| match t {
                    Value::Str(s) if !s.is_empty() => Ok(base.join(&**s)),
                    other => Err(self.wrong_type(
                        &traces_path.index(j),
                        other,
                        "a non-empty path string",
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => {
                return Err(self.wrong_type(&traces_path, other, "an array of trace paths"))
            }
        };
        Ok(TrialSpec {
            id,
            // -0.0 and 0.0 are one input value.
            input: input + 0.0,
            variant,
            traces,
            build_id: self.string(map, path, "build_id")?,
            source_state: self.string(map, path, "source_state")?,
            metric: self.metric(map, path)?,
            unit: self.unit(map, path)?,
            source_root: self.string(map, path, "source_root")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TrialsDocument, Error> {
        TrialsDocument::from_json(text.as_bytes(), Path::new("/data"), "test.json")
    }

    #[test]
    fn the_minimal_document_is_accepted() {
        let doc = parse(
            r#"{"trials": [{"id": "t1", "input": 1, "variant": "base", "traces": ["t1.json.gz"]}], "metric": "inclusive_ns"}"#,
        );
        let doc = doc.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc.metric, Some(Metric::InclusiveNs));
        assert_eq!(doc.trials.len(), 1);
        assert_eq!(
            doc.trials[0].traces,
            vec![PathBuf::from("/data/t1.json.gz")]
        );
        assert_eq!(doc.trials[0].input, 1.0);
    }

    #[test]
    fn a_trial_takes_its_own_source_root_or_the_documents() {
        let doc = parse(
            r#"{"source_root": "/srv/ci/proj", "trials": [
              {"id": "a", "input": 1, "variant": "v", "traces": ["x"]},
              {"id": "b", "input": 2, "variant": "v", "traces": ["y"], "source_root": "/home/u1/proj"}]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let roots: Vec<_> = doc
            .trials
            .iter()
            .map(|t| t.source_root.as_deref())
            .collect();
        assert_eq!(roots, [Some("/srv/ci/proj"), Some("/home/u1/proj")]);
        // As the traces print it: never resolved against the document's folder.
        let doc = parse(
            r#"{"trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x"], "source_root": "proj"}]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc.trials[0].source_root.as_deref(), Some("proj"));
    }

    #[test]
    fn schema_breaks_are_the_documents_errors_at_their_json_path() {
        let cases = [
            (r#"{"trials": []}"#, "invalid_value", "trials"),
            (
                r#"{"trials": [{"id": "a", "input": "2", "variant": "v", "traces": ["x"]}]}"#,
                "wrong_type",
                "trials[0].input",
            ),
            (
                r#"{"trials": [{"id": "a", "input": 2, "variant": "v", "traces": []}]}"#,
                "invalid_value",
                "trials[0].traces",
            ),
            (
                r#"{"trials": [{"id": "a", "input": 2, "variant": "v", "traces": ["x"], "inptu": 3}]}"#,
                "unknown_field",
                "trials[0].inptu",
            ),
            (
                r#"{"trials": [{"id": "a", "input": 2, "traces": ["x"]}]}"#,
                "missing_field",
                "trials[0].variant",
            ),
            (
                r#"{"trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x"]}, {"id": "a", "input": 2, "variant": "v", "traces": ["y"]}]}"#,
                "invalid_value",
                "trials[1].id",
            ),
            (
                r#"{"trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x"]}], "metric": "wall"}"#,
                "invalid_value",
                "metric",
            ),
            (
                r#"{"format": "other/v2", "trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x"]}]}"#,
                "invalid_value",
                "format",
            ),
            (
                r#"{"trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x", 3]}]}"#,
                "wrong_type",
                "trials[0].traces[1]",
            ),
            (
                r#"{"source_root": "", "trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x"]}]}"#,
                "invalid_value",
                "source_root",
            ),
            (
                r#"{"trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x"], "source_root": 3}]}"#,
                "wrong_type",
                "trials[0].source_root",
            ),
        ];
        for (text, code, path) in cases {
            match parse(text) {
                Err(e) => match e.kind() {
                    ErrorKind::Document { source, .. } => {
                        assert_eq!(
                            (source.code(), source.path().as_str()),
                            (code, path),
                            "{text}"
                        )
                    }
                    other => panic!("{text}: expected {code} at {path}, got {other:?}"),
                },
                other => panic!("{text}: expected {code} at {path}, got {other:?}"),
            }
        }
    }

    #[test]
    fn repeated_keys_and_bad_syntax_are_refused_with_a_position() {
        let dup =
            r#"{"trials": [{"id": "a", "input": 1, "input": 5, "variant": "v", "traces": ["x"]}]}"#;
        let err = parse(dup).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("at trials[0].input (line 1, column"), "{err}");
        assert!(err.contains("duplicate key \"input\""), "{err}");
        let truncated = r#"{"trials": [{"id": "a""#;
        assert_eq!(
            parse(truncated).err().map(|e| e.code()),
            Some("json_syntax")
        );
    }

    #[test]
    fn the_limit_holds_at_n_and_one_byte_more_is_refused() {
        let text = r#"{"trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["x"]}]}"#;
        let limit = MAX_TRIALS_DOCUMENT_BYTES as usize;
        let padded = |n: usize| format!("{text}{}", " ".repeat(n - text.len()));
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("trials.json");
        std::fs::write(&path, padded(limit)).unwrap_or_else(|e| panic!("{e}"));
        assert!(TrialsDocument::read(&path).is_ok());
        std::fs::write(&path, padded(limit + 1)).unwrap_or_else(|e| panic!("{e}"));
        let code = TrialsDocument::read(&path).err().map(|e| e.code());
        assert_eq!(code, Some("limit_exceeded"));
        let code = parse(&padded(limit + 1)).err().map(|e| e.code());
        assert_eq!(code, Some("limit_exceeded"));
    }

    #[test]
    fn declared_units_and_trial_metrics_must_agree_with_the_run() {
        let doc = parse(
            r#"{"metric": "count", "unit": "count", "trials": [
              {"id": "a", "input": 1, "variant": "v", "traces": ["x"], "unit": "count"},
              {"id": "b", "input": 2, "variant": "v", "traces": ["y"], "metric": "count"}]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc.measure(None).ok(), Some((Metric::Count, Unit::Count)));
        // The caller's metric overrides the document's, but the declared
        // units and trial metrics still bind the series.
        let err = doc.measure(Some(Metric::InclusiveNs)).err();
        assert_eq!(err.map(|e| e.code()), Some("mixed_units"));
        let doc = parse(
            r#"{"trials": [
              {"id": "a", "input": 1, "variant": "v", "traces": ["x"], "metric": "self_ns"},
              {"id": "b", "input": 2, "variant": "v", "traces": ["y"], "metric": "inclusive_ns"}]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let err = doc.measure(None).err();
        assert_eq!(err.as_ref().map(|e| e.code()), Some("mixed_metrics"));
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("trials[0].metric"), "{text}");
    }
}
