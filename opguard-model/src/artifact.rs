//! Model stage: one capture as a unit of identity, provenance and time, and
//! what its reader established about it.

use std::fmt;

use crate::identity::Sha256Digest;
use crate::provider::{Format, Provider};

/// What the caller knows about an artifact that its content does not say.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ArtifactSpec {
    /// The artifact's role, e.g. `inference_profile`.
    pub role: Option<String>,
    /// The stage it captured, e.g. `prefill`, `decode`. Stages stay distinct.
    pub stage: Option<String>,
    /// Overrides provider detection.
    pub provider: Option<Provider>,
    /// Where the artifact came from (a path), for provenance.
    pub source: Option<String>,
    /// The project's source root: absolute Python frame paths under it
    /// become relative in semantic frames (see [`SemanticFrame::file`](crate::SemanticFrame::file)).
    /// Inferred when absent.
    pub source_root: Option<String>,
}

impl ArtifactSpec {
    /// An empty spec: provider detected, no role or stage.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the role.
    pub fn role(mut self, role: impl Into<String>) -> Self {
        self.role = Some(role.into());
        self
    }
    /// Sets the stage.
    pub fn stage(mut self, stage: impl Into<String>) -> Self {
        self.stage = Some(stage.into());
        self
    }
    /// Overrides provider detection.
    pub fn provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }
    /// Records where the artifact came from.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }
    /// Sets the project's source root (see [`ArtifactSpec::source_root`]).
    pub fn source_root(mut self, root: impl Into<String>) -> Self {
        self.source_root = Some(root.into());
        self
    }
}

/// One capture (a trace file, an export, a capture directory), as a unit of
/// identity, provenance and time.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Artifact {
    /// SHA-256 of the capture's bytes (for a capture of several files, the
    /// reader documents what it hashes).
    pub sha256: Sha256Digest,
    /// The format it was read from.
    pub format: Format,
    /// The producer's own name and version when the capture states them
    /// (`Nsight Systems 2024.5.1`, `rocprofv3 1.0.0`, `jax 0.8.0`).
    pub producer: Option<String>,
    /// Who wrote it.
    pub provider: Provider,
    /// Whether `provider` was detected (true) or given by the caller.
    pub provider_detected: bool,
    /// Role given by the caller.
    pub role: Option<String>,
    /// Stage given by the caller.
    pub stage: Option<String>,
    /// The clock domain its timestamps live in: one per artifact, because
    /// nothing in a capture proves two captures share a clock.
    pub clock_domain: String,
    /// Where it came from.
    pub source: Option<String>,
    /// The source root Python frame paths are made relative to: given, or
    /// inferred as the directory of the program's entry script (the file of
    /// the first `<module>` frame) when that path is absolute.
    pub source_root: Option<String>,
}

/// A capture's top-level metadata: `(key, JSON text)` pairs in the order
/// the capture gives them (a Chrome trace's keys other than `traceEvents`;
/// a native export's metadata rows).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    entries: Vec<(String, String)>,
}

impl Metadata {
    /// No entries.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds `key` with its value as JSON text.
    pub fn push(&mut self, key: impl Into<String>, json_text: impl Into<String>) {
        self.entries.push((key.into(), json_text.into()));
    }
    /// The raw JSON text of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    /// `key` parsed as a `serde_json::Value`.
    pub fn get_json(&self, key: &str) -> Option<serde_json::Value> {
        self.get(key).and_then(|v| serde_json::from_str(v).ok())
    }
    /// All entries in order: `(key, JSON text)`.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Something a reader accepted that a strict reader would not, reported
/// beside the records instead of being silently smoothed over (a Chrome
/// trace's array without its `]`, a file cut short read with salvage...).
/// Each reader documents its codes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ReadWarning {
    /// Stable machine-readable code.
    pub code: &'static str,
    /// Decoded byte offset the warning is about.
    pub offset: u64,
    /// Compressed byte offset, when the warning is about the compression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoded_offset: Option<u64>,
    /// Complete records read before the place the warning is about.
    pub complete_events: u64,
    /// What happened and what was kept.
    pub message: String,
}

impl ReadWarning {
    /// A warning at decoded byte `offset`, after `complete_events` records.
    pub fn new(code: &'static str, offset: u64, complete_events: u64, message: String) -> Self {
        ReadWarning {
            code,
            offset,
            encoded_offset: None,
            complete_events,
            message,
        }
    }

    /// The same warning, also at compressed byte `encoded_offset`.
    pub fn at_encoded(mut self, encoded_offset: u64) -> Self {
        self.encoded_offset = Some(encoded_offset);
        self
    }
}

impl fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// What a reader established about a capture once it read it whole: its
/// identity, format, provider, sizes, metadata and warnings. The reader
/// hands it to [`ModelBuilder::finish`](crate::ModelBuilder::finish).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReadSummary {
    /// SHA-256 of the capture's bytes.
    pub sha256: Sha256Digest,
    /// The format read.
    pub format: Format,
    /// The provider the reader detected (the caller's
    /// [`ArtifactSpec::provider`] overrides it).
    pub provider: Provider,
    /// The producer's name and version, when the capture states them.
    pub producer: Option<String>,
    /// Bytes read from storage.
    pub encoded_bytes: u64,
    /// Bytes parsed after decompression (equal to `encoded_bytes` for
    /// formats that are not compressed).
    pub decoded_bytes: u64,
    /// Records read (a Chrome trace's `traceEvents` elements, an export's
    /// rows, an XSpace's events).
    pub events: u64,
    /// Top-level metadata.
    pub metadata: Metadata,
    /// What the read accepted that a strict reader would not.
    pub warnings: Vec<ReadWarning>,
}

impl ReadSummary {
    /// A summary with every count at zero and no metadata.
    pub fn new(sha256: Sha256Digest, format: Format, provider: Provider) -> Self {
        ReadSummary {
            sha256,
            format,
            provider,
            producer: None,
            encoded_bytes: 0,
            decoded_bytes: 0,
            events: 0,
            metadata: Metadata::new(),
            warnings: Vec::new(),
        }
    }
    /// Sets the producer's name and version.
    pub fn producer(mut self, producer: impl Into<String>) -> Self {
        self.producer = Some(producer.into());
        self
    }
    /// Sets the byte counts.
    pub fn bytes(mut self, encoded: u64, decoded: u64) -> Self {
        self.encoded_bytes = encoded;
        self.decoded_bytes = decoded;
        self
    }
    /// Sets the record count.
    pub fn events(mut self, events: u64) -> Self {
        self.events = events;
        self
    }
    /// Sets the metadata.
    pub fn metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = metadata;
        self
    }
    /// Sets the warnings.
    pub fn warnings(mut self, warnings: Vec<ReadWarning>) -> Self {
        self.warnings = warnings;
        self
    }
}
