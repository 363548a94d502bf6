//! Model stage: two frame identities that must never be confused.
//!
//! An occurrence ([`EventRef`](crate::EventRef): artifact digest and event
//! index) names one event of one file. A [`SemanticFrameId`] names what the
//! event *is* — provider, category, normalized name, source location, and for
//! device work the canonical kernel identity — so the same operator in three
//! separately captured files has one semantic id and three occurrences.
//! When the identity cannot be established completely (no name, a
//! degenerate or elided kernel name), the frame says it is partial instead of
//! guessing, and consumers report it as unmatched.

use std::fmt;

use super::{Slice, SliceClass, TraceModel};

/// The version tag hashed into every [`SemanticFrameId`].
pub const SEMANTIC_FRAME_VERSION: &str = "semantic-frame/v1";

/// A versioned semantic frame id: `sf1:` and 32 hex digits of the SHA-256 of
/// the frame's projection: version, provider family, category, then for
/// device work the kernel-name identity scheme and canonical identity,
/// otherwise the normalized name and source location.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct SemanticFrameId(String);

impl SemanticFrameId {
    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SemanticFrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether a frame's identity is complete.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum FrameIdentity {
    /// Complete: frames with equal ids are the same thing.
    Complete,
    /// Partial, with the reason: never merged with other frames.
    Partial(String),
}

/// The semantic projection of one event.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SemanticFrame {
    /// The id, present only when the identity is complete.
    pub id: Option<SemanticFrameId>,
    /// Complete or partial.
    pub identity: FrameIdentity,
    /// The provider (`kineto_cuda`, ...); its family (`kineto`) is what the
    /// id hashes.
    pub provider: &'static str,
    /// The event category.
    pub category: String,
    /// The normalized name (iteration counters such as `#12` become `#N`;
    /// Python frames lose their location, which moves to `file`/`line`).
    pub name: String,
    /// Source file, when the event names one.
    pub file: Option<String>,
    /// Source line, when the event names one.
    pub line: Option<u32>,
    /// Canonical kernel identity for device work (`opguard-kernel-name`).
    pub kernel_identity: Option<String>,
}

/// Replaces a trailing iteration counter (`ProfilerStep#12`) with `#N`.
fn normalize_name(name: &str) -> String {
    let trimmed = name.trim();
    if let Some((head, tail)) = trimmed.rsplit_once('#') {
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
            return format!("{head}#N");
        }
    }
    trimmed.to_owned()
}

/// `path/file.py(123): function` as Kineto writes Python frames.
fn python_location(name: &str) -> Option<(String, u32, String)> {
    let (loc, func) = name.split_once("): ")?;
    let (file, line) = loc.rsplit_once('(')?;
    let line = line.parse().ok()?;
    Some((file.to_owned(), line, func.trim().to_owned()))
}

pub(super) fn semantic_frame(model: &TraceModel, slice: &Slice) -> SemanticFrame {
    let provider = model.artifact().provider.as_str();
    let category = model.name(slice.cat).to_owned();
    let raw_name = model.name(slice.name);
    let mut partial: Option<String> = None;
    let (mut name, mut file, mut line, mut kernel_identity) =
        (normalize_name(raw_name), None, None, None);
    if raw_name.trim().is_empty() {
        partial = Some("event has no name".into());
    }
    if slice.class == SliceClass::PythonFunction {
        if let Some((f, l, func)) = python_location(raw_name) {
            (name, file, line) = (func, Some(f), Some(l));
        }
    }
    if slice.class.is_device() && partial.is_none() {
        let canonical = opguard_kernel_name::canonicalize(raw_name);
        match canonical.strict_identity() {
            Ok(_) => kernel_identity = Some(canonical.qualified_identity()),
            Err(e) => partial = Some(format!("kernel identity is partial: {e}")),
        }
    }
    let identity = match &partial {
        None => FrameIdentity::Complete,
        Some(reason) => FrameIdentity::Partial(reason.clone()),
    };
    let id = partial.is_none().then(|| {
        // Device work is what its canonical identity says, however the
        // symbol was spelled (mangled or not); everything else is its
        // normalized name and source location.
        let projection = match &kernel_identity {
            // The identity scheme is hashed too: when the kernel-name rules
            // change, ids change with them instead of silently aliasing.
            Some(kernel) => serde_json::json!([
                SEMANTIC_FRAME_VERSION,
                model.artifact().provider.family(),
                category,
                opguard_kernel_name::IDENTITY_SCHEME,
                kernel,
            ]),
            None => serde_json::json!([
                SEMANTIC_FRAME_VERSION,
                model.artifact().provider.family(),
                category,
                name,
                file,
                line,
            ]),
        };
        let digest = crate::Sha256Digest::of(projection.to_string().as_bytes());
        SemanticFrameId(format!("sf1:{}", &digest.to_hex()[..32]))
    });
    SemanticFrame {
        id,
        identity,
        provider,
        category,
        name,
        file,
        line,
        kernel_identity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_iteration_counters_only() {
        assert_eq!(normalize_name("ProfilerStep#12"), "ProfilerStep#N");
        assert_eq!(normalize_name(" aten::mm "), "aten::mm");
        assert_eq!(normalize_name("a#b"), "a#b");
        assert_eq!(normalize_name("x#"), "x#");
    }

    #[test]
    fn python_frames_split_their_location() {
        assert_eq!(
            python_location("torch/nn/modules/linear.py(114): forward"),
            Some(("torch/nn/modules/linear.py".into(), 114, "forward".into()))
        );
        assert_eq!(python_location("<built-in method mm>"), None);
    }
}
