//! Review stage: alignment maps v1 (seed 000), parsed and checked.
//!
//! ```json
//! {
//!   "version": 1,
//!   "artifact_sha256": "<64 hex of the export>",
//!   "reviews": [{
//!     "left_ref": "<64 hex>:<traceEvents index>",
//!     "right_ref": "<64 hex>:<traceEvents index>",
//!     "left_tensor": ["outputs", 0],
//!     "right_tensor": ["inputs", 1],
//!     "decision": "comparable",
//!     "reason": "why these slots are the same logical boundary",
//!     "evidence": [{"basis": "source_inference", "reference": "..."}],
//!     "id": "optional", "created_at": "optional"
//!   }]
//! }
//! ```
//!
//! Checks made here, before the artifact is read: the map is at most
//! [`MAX_MAP_BYTES`](crate::MAX_MAP_BYTES), valid JSON with no unknown
//! fields, `version` 1, `artifact_sha256` a digest, refs well formed,
//! every decision with a non-empty reason and at least one evidence entry
//! whose basis is one of the four and whose reference is non-empty,
//! selectors `["inputs"|"outputs", n]`, both or neither, and null for
//! `not_comparable` / `undetermined`. Evidence is provenance: it is copied
//! into the view and never executed or verified.

use std::path::Path;

use opguard_trace::{EventRef, Sha256Digest};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::format::{Selector, Side};

/// The only map version.
pub const MAP_VERSION: u64 = 1;

/// An alignment map document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlignmentMap {
    /// Always 1.
    pub version: u64,
    /// SHA-256 of the export the refs point into.
    pub artifact_sha256: String,
    /// Ordered review history; the last entry for an event pair is active.
    pub reviews: Vec<Review>,
}

/// One review entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// `<artifact sha256>:<traceEvents index>` of one operation.
    pub left_ref: String,
    /// The other operation (in the other run).
    pub right_ref: String,
    /// Slot of the left operation, or null.
    #[serde(default)]
    pub left_tensor: Option<serde_json::Value>,
    /// Slot of the right operation, or null.
    #[serde(default)]
    pub right_tensor: Option<serde_json::Value>,
    /// The decision.
    pub decision: Decision,
    /// Why.
    pub reason: String,
    /// Non-empty provenance.
    pub evidence: Vec<Evidence>,
    /// Optional review-history id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Optional creation time, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

/// A review decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Retain the candidate comparison, or compare the selected slots.
    Comparable,
    /// Reject this direct comparison (removes its active flow).
    NotComparable,
    /// Keep the relation unresolved.
    Undetermined,
}

impl Decision {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Comparable => "comparable",
            Decision::NotComparable => "not_comparable",
            Decision::Undetermined => "undetermined",
        }
    }
}

/// One evidence reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// How it was established.
    pub basis: Basis,
    /// What it refers to (kept as provenance, never executed).
    pub reference: String,
}

/// Evidence bases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Seen in the recorded data.
    Observed,
    /// Inferred from source code.
    SourceInference,
    /// Tested by an intervention.
    InterventionTested,
    /// Reported by someone else.
    ExternallyReported,
}

/// A review after the checks that need no artifact.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    /// Position in `reviews`.
    pub at: usize,
    pub left: EventRef,
    pub right: EventRef,
    pub selectors: Option<(Selector, Selector)>,
    pub decision: Decision,
    /// The entry as JSON, for provenance in the view.
    pub raw: serde_json::Value,
}

/// A parsed and checked map.
#[derive(Debug, Clone)]
pub(crate) struct ParsedMap {
    pub artifact: Sha256Digest,
    pub artifact_text: String,
    pub reviews: Vec<Checked>,
    pub entries: usize,
}

fn invalid(msg: String) -> Error {
    Error::new(ErrorKind::InvalidMap(msg))
}

fn selector(v: &serde_json::Value, at: &str) -> Result<Selector, Error> {
    let bad = |detail: String| {
        Error::new(ErrorKind::InvalidSelector {
            at: at.to_owned(),
            detail,
        })
    };
    let expected = "expected [\"inputs\" or \"outputs\", a non-negative integer]";
    let Some(items) = v.as_array() else {
        return Err(bad(format!("{v} is not a selector; {expected}")));
    };
    if items.len() != 2 {
        return Err(bad(format!("{v} has {} elements; {expected}", items.len())));
    }
    let side = match items[0].as_str() {
        Some("inputs") => Side::Inputs,
        Some("outputs") => Side::Outputs,
        _ => return Err(bad(format!("{} is not a slot array; {expected}", items[0]))),
    };
    let Some(index) = items[1].as_u64() else {
        return Err(bad(format!("{} is not a slot index; {expected}", items[1])));
    };
    Ok(Selector(side, index))
}

/// Reads a map file, at most `limit` bytes; returns it, its bytes' digest.
pub(crate) fn read_map(path: &Path, limit: u64) -> Result<(ParsedMap, Sha256Digest), Error> {
    let bytes = opguard_document::read_path_bounded(path, limit)
        .map_err(|e| Error::document("the alignment map", e).with_path(path))?;
    let digest = Sha256Digest::of(&bytes);
    let map = parse_map(&bytes, limit).map_err(|e| e.with_path(path))?;
    Ok((map, digest))
}

/// Parses and checks a map document of at most `limit` bytes. Maps are
/// written by hand: the strict reader refuses repeated keys and reads the
/// map, its reviews and their evidence only from objects (serde alone would
/// read `[1, "<sha256>", []]` as a map), naming the JSON path.
pub(crate) fn parse_map(bytes: &[u8], limit: u64) -> Result<ParsedMap, Error> {
    let map: AlignmentMap = match opguard_document::from_slice(bytes, limit) {
        Ok(m) => m,
        Err(e) => {
            // The typed error is the better one when the map is no object at all.
            let Ok(doc) = opguard_document::from_slice::<opguard_document::Value>(bytes, limit)
            else {
                return Err(Error::document("the alignment map", e));
            };
            // Say "wrong version" rather than complain about a future
            // version's fields.
            return Err(match doc.get("version") {
                Some(opguard_document::Value::Int(1)) => Error::document("the alignment map", e),
                Some(v) => invalid(format!("version is {v}; this library reads version 1")),
                None => Error::document(
                    "the alignment map",
                    opguard_document::Error::missing_field(
                        &opguard_document::JsonPath::Root,
                        "version",
                    ),
                ),
            });
        }
    };
    if map.version != MAP_VERSION {
        return Err(invalid(format!(
            "version is {}; this library reads version 1",
            map.version
        )));
    }
    let artifact: Sha256Digest = map.artifact_sha256.parse().map_err(|_| {
        invalid(format!(
            "artifact_sha256 {:?} is not a SHA-256 digest (64 lowercase hex digits)",
            map.artifact_sha256
        ))
    })?;
    let mut reviews = Vec::with_capacity(map.reviews.len());
    for (k, r) in map.reviews.iter().enumerate() {
        let at = format!("reviews[{k}]");
        let parse_ref = |s: &str, side: &str| -> Result<EventRef, Error> {
            s.parse().map_err(|_| {
                invalid(format!(
                    "{at}.{side} {s:?} is not an event reference <64 hex>:<index>"
                ))
            })
        };
        let left = parse_ref(&r.left_ref, "left_ref")?;
        let right = parse_ref(&r.right_ref, "right_ref")?;
        if r.reason.trim().is_empty() {
            return Err(invalid(format!(
                "{at}.reason is empty; every decision needs a reason"
            )));
        }
        if r.evidence.is_empty() {
            return Err(invalid(format!(
                "{at}.evidence is empty; every decision needs at least one evidence reference"
            )));
        }
        for (j, e) in r.evidence.iter().enumerate() {
            if e.reference.trim().is_empty() {
                return Err(invalid(format!("{at}.evidence[{j}].reference is empty")));
            }
        }
        let selectors = match (&r.left_tensor, &r.right_tensor) {
            (None, None) => None,
            (Some(l), Some(rt)) => Some((
                selector(l, &format!("{at}.left_tensor"))?,
                selector(rt, &format!("{at}.right_tensor"))?,
            )),
            _ => return Err(Error::new(ErrorKind::SelectorsIncomplete { at })),
        };
        if selectors.is_some() && r.decision != Decision::Comparable {
            return Err(Error::new(ErrorKind::SelectorsNotAllowed {
                at,
                decision: r.decision.as_str(),
            }));
        }
        let raw = serde_json::to_value(r)
            .map_err(|e| invalid(format!("{at} cannot be re-encoded: {e}")))?;
        reviews.push(Checked {
            at: k,
            left,
            right,
            selectors,
            decision: r.decision,
            raw,
        });
    }
    Ok(ParsedMap {
        artifact,
        artifact_text: map.artifact_sha256,
        reviews,
        entries: map.reviews.len(),
    })
}
