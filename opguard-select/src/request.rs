//! The seam-verdict request (`protocol_version` 1): what was selected, what
//! was probed, and where each capture process left its trace.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};

/// The one request protocol this crate implements.
pub const PROTOCOL_VERSION: u64 = 1;

/// The largest seam request read: 8 MiB. A request names a callable, its
/// candidates and one entry per capture process; one byte more is
/// `limit_exceeded`, never a truncation.
pub const MAX_REQUEST_BYTES: u64 = 8 * 1024 * 1024;

/// The marker prefix when a request names none: `opguard.seam::<spec>` is
/// the name `seam_trace` gives the `record_function` it installs on `<spec>`.
pub const DEFAULT_MARKER_PREFIX: &str = "opguard.seam::";

/// A seam-verdict request, as JSON.
///
/// ```json
/// {"protocol_version": 1,
///  "target": "pkg.mod:Runner.run",
///  "device_kernel": "fused_moe_kernel",
///  "capture_target": "pkg.mod:Runner.run",
///  "marker_prefix": "opguard.seam::",
///  "candidates": [{"spec": "pkg.mod:outer", "declared_depth": null, "marker": null}],
///  "processes": [{"name": "pid-1234", "trace": "trace.pid-1234.json.gz",
///                 "installed": ["pkg.mod:outer"],
///                 "refused": [{"spec": "pkg.jit:kernel", "reason": "jit_object"}]}]}
/// ```
///
/// Unknown fields and repeated keys are refused, never ignored. Paths are
/// relative to the request file. Seed 001's names are read too, so a
/// request written against the seed works: `target_callable` for `target`,
/// `depth` for a candidate's `declared_depth` (a field given under both
/// names is refused as given twice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Request {
    /// Must be [`PROTOCOL_VERSION`].
    pub protocol_version: u64,
    /// The selected callable, `module:attr` (dotted class methods such as
    /// `pkg.mod:Runner.run` included). Also read as `target_callable`.
    #[serde(alias = "target_callable")]
    pub target: String,
    /// The profiled device kernel symbol. A request without one is refused
    /// at admission ([`ErrorKind::NoDeviceSymbol`](crate::ErrorKind::NoDeviceSymbol)).
    #[serde(default)]
    pub device_kernel: Option<String>,
    /// The target the capture recorded (its meta). `null` fails the verdict
    /// with `capture_target_missing`; a different callable with
    /// `capture_target_mismatch`.
    #[serde(default)]
    pub capture_target: Option<String>,
    /// Prefix of a candidate's default marker name
    /// ([`DEFAULT_MARKER_PREFIX`] when absent).
    #[serde(default)]
    pub marker_prefix: Option<String>,
    /// The declared probe candidates. The target is a probe too: when it is
    /// not listed it is probed under its default marker.
    #[serde(default)]
    pub candidates: Vec<CandidateSpec>,
    /// Every capture process (TP rank, PID) and its install log.
    pub processes: Vec<ProcessSpec>,
}

/// One declared probe candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CandidateSpec {
    /// The callable, `module:attr`.
    pub spec: String,
    /// A self-reported call depth (larger is deeper). It can add a
    /// rejection, never buy a pass. Also read as `depth`.
    #[serde(default, alias = "depth")]
    pub declared_depth: Option<i64>,
    /// The exact marker name, when the markers are existing
    /// `record_function` annotations rather than `marker_prefix + spec`.
    #[serde(default)]
    pub marker: Option<String>,
}

/// One capture process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ProcessSpec {
    /// Its name (`pid-1234`, `rank-0`); unique within the request.
    pub name: String,
    /// Its trace file, relative to the request file. `null` (or absent):
    /// the process exported no trace, which fails the verdict with
    /// `capture_process_trace_missing`, as does a path that does not exist.
    #[serde(default)]
    pub trace: Option<String>,
    /// Its capture meta file, relative to the request file, reported as
    /// `best_process_meta_file` when this process is the best one (the
    /// trace path stands in when absent).
    #[serde(default)]
    pub meta: Option<String>,
    /// The host process id inside the trace, when one trace file holds
    /// several processes (a merged trace): only markers and launches of
    /// this pid count for this process.
    #[serde(default)]
    pub pid: Option<ProcessId>,
    /// Specs whose markers were installed in this process.
    #[serde(default)]
    pub installed: Vec<String>,
    /// Specs the installer refused (JIT or native objects), with the reason.
    #[serde(default)]
    pub refused: Vec<Refusal>,
}

/// A host process id as a trace writes it: a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProcessId {
    /// A numeric pid.
    Int(i64),
    /// A string pid.
    Text(String),
}

/// A candidate the installer refused to wrap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Refusal {
    /// The callable.
    pub spec: String,
    /// Why (`jit_object`, `native_object`, ...).
    pub reason: String,
}

/// A probe: a declared candidate, or the target probed under its default
/// marker, with the marker name resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Probe {
    pub spec: String,
    pub marker: String,
    pub declared_depth: Option<i64>,
    /// Listed in `candidates` (false only for an implicit target probe).
    pub declared: bool,
}

/// A request that passed admission: specs valid, a device symbol named,
/// probes resolved (the target's probe is `probes[target]`).
#[derive(Debug, Clone)]
pub(crate) struct Admitted {
    pub request: Request,
    pub device_kernel: String,
    pub probes: Vec<Probe>,
    pub target: usize,
}

impl Request {
    /// Parses a request from JSON bytes (not yet admitted: see
    /// [`crate::verdict`]).
    pub fn from_json(bytes: &[u8], what: &str) -> Result<Request, Error> {
        opguard_document::from_slice(bytes, MAX_REQUEST_BYTES).map_err(|e| Error::document(what, e))
    }

    /// Reads and parses a request file (at most [`MAX_REQUEST_BYTES`]).
    pub fn read(path: &Path) -> Result<Request, Error> {
        let what = path.display().to_string();
        let bytes = opguard_document::read_path_bounded(path, MAX_REQUEST_BYTES)
            .map_err(|e| Error::document(&what, e))?;
        Request::from_json(&bytes, &what)
    }

    /// The marker prefix in force.
    pub fn marker_prefix(&self) -> &str {
        self.marker_prefix
            .as_deref()
            .unwrap_or(DEFAULT_MARKER_PREFIX)
    }

    /// The marker a spec is observed under: its declared `marker`, or
    /// `marker_prefix + spec`.
    pub fn marker_for(&self, candidate: &CandidateSpec) -> String {
        match &candidate.marker {
            Some(m) => m.clone(),
            None => format!("{}{}", self.marker_prefix(), candidate.spec),
        }
    }

    pub(crate) fn admit(self) -> Result<Admitted, Error> {
        if self.protocol_version != PROTOCOL_VERSION {
            return Err(ErrorKind::UnsupportedProtocol {
                found: self.protocol_version,
                expected: PROTOCOL_VERSION,
            }
            .into());
        }
        check_spec("target", &self.target)?;
        let device_kernel = admit_device_kernel(self.device_kernel.as_deref())?;
        if let Some(c) = &self.capture_target {
            if c.trim().is_empty() {
                return Err(Error::invalid(
                    "capture_target",
                    "is an empty string",
                    "the recorded module:attr, or null when the capture recorded none",
                ));
            }
        }
        let mut probes: Vec<Probe> = Vec::with_capacity(self.candidates.len() + 1);
        for (i, c) in self.candidates.iter().enumerate() {
            check_spec(&format!("candidates[{i}].spec"), &c.spec)?;
            if c.marker.as_deref().is_some_and(|m| m.trim().is_empty()) {
                return Err(Error::invalid(
                    format!("candidates[{i}].marker"),
                    "is an empty string",
                    "the exact marker name, or null for marker_prefix + spec",
                ));
            }
            let marker = self.marker_for(c);
            if let Some(j) = probes.iter().position(|p| p.spec == c.spec) {
                return Err(Error::invalid(
                    format!("candidates[{i}].spec"),
                    format!("repeats candidates[{j}].spec {:?}", c.spec),
                    "each candidate once",
                ));
            }
            if let Some(j) = probes.iter().position(|p| p.marker == marker) {
                return Err(Error::invalid(
                    format!("candidates[{i}].marker"),
                    format!("{marker:?} is also the marker of candidates[{j}]"),
                    "one marker per candidate, so a span names one callable",
                ));
            }
            probes.push(Probe {
                spec: c.spec.clone(),
                marker,
                declared_depth: c.declared_depth,
                declared: true,
            });
        }
        let target = match probes.iter().position(|p| p.spec == self.target) {
            Some(t) => t,
            None => {
                let marker = format!("{}{}", self.marker_prefix(), self.target);
                if let Some(j) = probes.iter().position(|p| p.marker == marker) {
                    return Err(Error::invalid(
                        format!("candidates[{j}].marker"),
                        format!("{marker:?} is the target's marker but names another spec"),
                        "one marker per callable",
                    ));
                }
                probes.insert(
                    0,
                    Probe {
                        spec: self.target.clone(),
                        marker,
                        declared_depth: None,
                        declared: false,
                    },
                );
                0
            }
        };
        let mut names: Vec<&str> = Vec::new();
        for (i, p) in self.processes.iter().enumerate() {
            if p.name.trim().is_empty() {
                return Err(Error::invalid(
                    format!("processes[{i}].name"),
                    "is empty",
                    "a process name such as \"pid-1234\" or \"rank-0\"",
                ));
            }
            if names.contains(&p.name.as_str()) {
                return Err(Error::invalid(
                    format!("processes[{i}].name"),
                    format!("{:?} names two processes", p.name),
                    "one entry per capture process",
                ));
            }
            names.push(&p.name);
            for (field, value) in [("trace", &p.trace), ("meta", &p.meta)] {
                if value.as_deref().is_some_and(|t| t.trim().is_empty()) {
                    return Err(Error::invalid(
                        format!("processes[{i}].{field}"),
                        "is an empty string",
                        "a path relative to the request file, or null",
                    ));
                }
            }
            for (j, s) in p.installed.iter().enumerate() {
                check_spec(&format!("processes[{i}].installed[{j}]"), s)?;
            }
            for (j, r) in p.refused.iter().enumerate() {
                check_spec(&format!("processes[{i}].refused[{j}].spec"), &r.spec)?;
            }
        }
        Ok(Admitted {
            request: self,
            device_kernel,
            probes,
            target,
        })
    }
}

/// Resolves a path written in a request against the request's folder.
pub(crate) fn resolve(base: &Path, relative: &str) -> PathBuf {
    base.join(relative)
}

fn admit_device_kernel(found: Option<&str>) -> Result<String, Error> {
    let refuse = |found: &str, problem: &str| -> Error {
        ErrorKind::NoDeviceSymbol {
            found: found.to_owned(),
            problem: problem.to_owned(),
        }
        .into()
    };
    let Some(symbol) = found else {
        return Err(refuse("", "the request has no device_kernel"));
    };
    let trimmed = symbol.trim();
    if trimmed.is_empty() {
        return Err(refuse(symbol, "it is empty"));
    }
    if spec_problem(trimmed).is_none() {
        return Err(refuse(
            symbol,
            "it is a Python module:attr callable, not a device symbol",
        ));
    }
    let canonical = opguard_kernel_name::canonicalize(trimmed);
    if canonical.is_degenerate() {
        return Err(refuse(
            symbol,
            &format!(
                "its identifier {:?} is shorter than {} characters and certifies nothing",
                canonical.base(),
                opguard_kernel_name::MIN_TOKEN_LEN
            ),
        ));
    }
    Ok(trimmed.to_owned())
}

fn check_spec(path: &str, spec: &str) -> Result<(), Error> {
    match spec_problem(spec) {
        None => Ok(()),
        Some(problem) => Err(ErrorKind::InvalidSpec {
            path: path.to_owned(),
            spec: spec.to_owned(),
            problem,
        }
        .into()),
    }
}

/// Why `spec` is not `module:attr`, or `None` when it is.
pub(crate) fn spec_problem(spec: &str) -> Option<String> {
    let mut parts = spec.split(':');
    let (Some(module), Some(attr), None) = (parts.next(), parts.next(), parts.next()) else {
        return Some("it needs exactly one ':' between module and attribute".into());
    };
    for (side, text) in [("module", module), ("attribute", attr)] {
        if text.is_empty() {
            return Some(format!("the {side} is empty"));
        }
        for part in text.split('.') {
            if !is_identifier(part) {
                return Some(format!(
                    "the {side} part {part:?} is not a Python identifier"
                ));
            }
        }
    }
    None
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        assert_eq!(spec_problem("pkg.mod:Runner.run"), None);
        assert_eq!(spec_problem("m:f"), None);
        assert!(spec_problem("pkg.mod.Runner.run").is_some());
        assert!(spec_problem("pkg::mod:f").is_some());
        assert!(spec_problem("pkg.mod:").is_some());
        assert!(spec_problem(":f").is_some());
        assert!(spec_problem("pkg.mod:outer.<locals>.inner").is_some());
        assert!(spec_problem("pkg..mod:f").is_some());
        assert!(spec_problem("pkg.mod:1f").is_some());
        assert!(spec_problem("the attention wrapper").is_some());
    }
}
