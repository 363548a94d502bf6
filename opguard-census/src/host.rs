//! The host-resolution log against a declared set.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::error::Error;
use crate::json::{self, Ctx, Document, JPath};

/// A declared host-resolution multiset: innermost frame (`file:line in function`) →
/// the number of conversions expected at that line.
///
/// JSON form: a plain object, `{"pkg/a.py:1106 in prepare_decode": 2, ...}`. Counts
/// are positive integers (a line expected to convert zero times is simply absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredHostResolutions {
    lines: BTreeMap<String, u64>,
}

impl DeclaredHostResolutions {
    /// Parse a declared set from JSON bytes.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error> {
        <Self as Document>::parse_as(bytes, Self::KIND)
    }

    /// Parse a declared set from a reader, reading at most `limit` bytes.
    pub fn from_reader<R: Read>(reader: R, limit: u64) -> Result<Self, Error> {
        json::load_reader(reader, limit)
    }

    /// Read and parse a declared-set file (at most [`crate::DEFAULT_MAX_BYTES`]).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, Error> {
        json::load_path(path.as_ref())
    }

    /// Build a declared set in code. A line named twice, an empty line or a count of
    /// zero is an error, as in a file.
    pub fn from_lines<I, S>(lines: I) -> Result<Self, Error>
    where
        I: IntoIterator<Item = (S, u64)>,
        S: Into<String>,
    {
        let ctx = Ctx {
            what: "declared host resolutions",
        };
        let mut out = BTreeMap::new();
        for (line, count) in lines {
            let line = line.into();
            let root = JPath::Root;
            let p = root.key(&line);
            check_line(&ctx, &p, &line, count)?;
            if out.insert(line.clone(), count).is_some() {
                return Err(ctx.fail(opguard_document::Error::duplicate_key(&p, &line)));
            }
        }
        Ok(DeclaredHostResolutions { lines: out })
    }
}

impl Document for DeclaredHostResolutions {
    const KIND: &'static str = "declared host resolutions";

    fn parse_as(bytes: &[u8], what: &str) -> Result<Self, Error> {
        let tree = json::parse(bytes, u64::MAX, what)?;
        let ctx = Ctx { what };
        let root = JPath::Root;
        let entries = ctx.object(
            &root,
            &tree,
            "an object mapping \"file:line in function\" to a count",
        )?;
        let mut lines = BTreeMap::new();
        for (k, v) in entries {
            let p = root.key(k);
            let count = ctx.u64(&p, v, "a positive count of conversions")?;
            check_line(&ctx, &p, k, count)?;
            lines.insert(k.to_string(), count);
        }
        Ok(DeclaredHostResolutions { lines })
    }
}

impl DeclaredHostResolutions {
    /// The declared lines and counts.
    pub fn lines(&self) -> &BTreeMap<String, u64> {
        &self.lines
    }

    /// Total declared conversions.
    pub fn conversions(&self) -> u64 {
        self.lines.values().sum()
    }
}

fn check_line(ctx: &Ctx, p: &JPath, line: &str, count: u64) -> Result<(), Error> {
    if line.trim().is_empty() {
        return Err(ctx.invalid(p, "the line is empty".into(), "\"file:line in function\""));
    }
    if count == 0 {
        return Err(ctx.invalid(
            p,
            "a count of 0".into(),
            "a positive count (leave out a line that should not convert)",
        ));
    }
    Ok(())
}

/// One line whose count differs between the log and the declared set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LineDiff {
    /// The innermost frame.
    pub line: String,
    /// Conversions declared at it (0 for an extra line).
    pub declared: u64,
    /// Conversions observed at it (0 for a missing line).
    pub observed: u64,
}

/// The host-resolution log compared to a declared set, as multisets.
///
/// `extra` names lines the capture converted at that the set does not declare (a
/// seventeenth line), `missing` declared lines that did not convert, `changed` lines
/// whose count differs (a line converting twice where it was declared once).
/// `matches` is true only when all three are empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HostResolutionDiff {
    /// Whether the log equals the declared set.
    pub matches: bool,
    /// Declared conversions in total.
    pub declared_conversions: u64,
    /// Observed conversions in total.
    pub observed_conversions: u64,
    /// Distinct declared lines.
    pub declared_lines: u64,
    /// Distinct observed lines.
    pub observed_lines: u64,
    /// Observed, not declared.
    pub extra: Vec<LineDiff>,
    /// Declared, not observed.
    pub missing: Vec<LineDiff>,
    /// Both, with different counts.
    pub changed: Vec<LineDiff>,
}

impl HostResolutionDiff {
    /// Compare an observed multiset (see [`crate::host_resolutions_by_line`]) to a
    /// declared one.
    pub fn between(
        observed: &BTreeMap<String, u64>,
        declared: &DeclaredHostResolutions,
    ) -> HostResolutionDiff {
        let mut extra = Vec::new();
        let mut missing = Vec::new();
        let mut changed = Vec::new();
        for (line, &o) in observed {
            match declared.lines.get(line) {
                None => extra.push(LineDiff {
                    line: line.clone(),
                    declared: 0,
                    observed: o,
                }),
                Some(&d) if d != o => changed.push(LineDiff {
                    line: line.clone(),
                    declared: d,
                    observed: o,
                }),
                Some(_) => {}
            }
        }
        for (line, &d) in &declared.lines {
            if !observed.contains_key(line) {
                missing.push(LineDiff {
                    line: line.clone(),
                    declared: d,
                    observed: 0,
                });
            }
        }
        HostResolutionDiff {
            matches: extra.is_empty() && missing.is_empty() && changed.is_empty(),
            declared_conversions: declared.conversions(),
            observed_conversions: observed.values().sum(),
            declared_lines: declared.lines.len() as u64,
            observed_lines: observed.len() as u64,
            extra,
            missing,
            changed,
        }
    }

    /// The differences in one sentence.
    pub fn summary(&self) -> String {
        if self.matches {
            return format!(
                "{} conversions over {} lines, as declared",
                self.observed_conversions, self.observed_lines
            );
        }
        let mut parts = Vec::new();
        for d in &self.extra {
            parts.push(format!(
                "extra line {} ({} conversion(s), not declared)",
                d.line, d.observed
            ));
        }
        for d in &self.missing {
            parts.push(format!(
                "missing line {} (declared {}, none observed)",
                d.line, d.declared
            ));
        }
        for d in &self.changed {
            parts.push(format!(
                "line {} converted {} time(s), declared {}",
                d.line, d.observed, d.declared
            ));
        }
        format!(
            "{} observed conversions over {} lines against {} declared over {} lines: {}",
            self.observed_conversions,
            self.observed_lines,
            self.declared_conversions,
            self.declared_lines,
            parts.join("; ")
        )
    }
}
