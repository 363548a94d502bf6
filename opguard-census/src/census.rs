//! The census of one capture.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::{self, Structure};
use crate::capture::Capture;
use crate::error::{Error, ErrorKind};
use crate::families::FamilyTable;
use crate::host::{DeclaredHostResolutions, HostResolutionDiff};

/// The format tag written into every serialised [`Census`].
pub const CENSUS_FORMAT: &str = "opguard.census/census-v1";

/// The key used in [`Census::host_resolutions_by_line`] for a conversion that recorded
/// no frame at all. It is counted, never dropped, so a declared set must name it.
pub const NO_FRAME: &str = "<no frame>";

/// One row of the census: an operator family and what its calls carry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FamilyRow {
    /// The family's name, from the table.
    pub family: String,
    /// Operator calls in the family.
    pub ops: u64,
    /// Shape entries over those calls (inputs then outputs).
    pub shape_entries: u64,
    /// Entries that are not plain integers: symbolic expressions and unknowns.
    pub non_numeric: u64,
}

/// Totals over every operator call, classified or not. Reported next to the
/// families, never instead of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Totals {
    /// Operator calls.
    pub ops: u64,
    /// Shape entries.
    pub shape_entries: u64,
    /// Entries that are not plain integers (including unknowns).
    pub non_numeric: u64,
    /// Entries that are unknown (`null`), a subset of `non_numeric`.
    pub unknown: u64,
}

/// Operator calls that match no family, by name and count, with their counts so
/// that families plus unclassified add up to the totals.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Unclassified {
    /// Unclassified operator calls.
    pub ops: u64,
    /// Their shape entries.
    pub shape_entries: u64,
    /// Their non-numeric entries.
    pub non_numeric: u64,
    /// Full operator name (as captured, overload included) → calls.
    pub by_name: BTreeMap<String, u64>,
}

/// One value of the concrete-dimension multiset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ConcreteDim {
    /// The size.
    pub value: i64,
    /// How many shape entries have it.
    pub count: u64,
}

/// What one capture says about its step axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StepAxisStatus {
    /// No step axis: a concrete capture (a control).
    Concrete,
    /// The axis is a symbol carried by shape entries and nothing solves it. Whether it
    /// is *free* is a two-width question; see [`crate::WidthComparison`].
    Symbolic,
    /// A replacement solves the axis (or a symbol unified with it) to a number, or a
    /// guard equates it with one: the width was specialised.
    Specialised,
    /// The axis is a symbol that no shape entry carries: lost, or never reached.
    AbsentFromShapes,
}

/// The step axis as declared and as the capture's own evidence reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct StepAxisReport {
    /// The declared symbol, `null` for a concrete capture.
    pub declared: Option<String>,
    /// The step width traced.
    pub hint: u64,
    /// The reading.
    pub status: StepAxisStatus,
    /// Symbols unified with the axis (by replacements or `Eq` guards), the axis included.
    pub unified: Vec<String>,
    /// Shape entries that mention the axis or a symbol unified with it.
    pub entries: u64,
    /// The number a replacement or guard solved the axis to, if any.
    pub solved_to: Option<i64>,
    /// The reading in a sentence.
    pub note: String,
}

/// The census of one capture.
///
/// Serialised field names are stable: `format` (always [`CENSUS_FORMAT`]), `label`,
/// `step_axis`, `digest`, `families`, `totals`, `unclassified`, `concrete_dims`,
/// `host_resolutions_by_line`, `distinct_ops`.
///
/// The `digest` is SHA-256 over operator names and shapes with symbol names set
/// aside (symbols renamed by first appearance, linear expressions put in one
/// order), so two captures have equal digests exactly when their operator sequences
/// and shapes are equal up to a renaming of symbols. It does **not** cover scalar
/// arguments, dtypes, strides, guards, replacements or host resolutions; a
/// value-level difference (say `lift_fresh` where the other capture has
/// `scalar_tensor`) is found by comparing `distinct_ops`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Census {
    /// [`CENSUS_FORMAT`].
    pub format: &'static str,
    /// The capture's label.
    pub label: String,
    /// The step axis.
    pub step_axis: StepAxisReport,
    /// Lower-case hex SHA-256 of the name-free structure.
    pub digest: String,
    /// One row per family of the table, in table order, zero rows included.
    pub families: Vec<FamilyRow>,
    /// Totals over all calls.
    pub totals: Totals,
    /// Calls no family names.
    pub unclassified: Unclassified,
    /// The concrete-dimension multiset, ascending by value.
    pub concrete_dims: Vec<ConcreteDim>,
    /// Host resolutions keyed by innermost frame (`file:line in function`) → count.
    pub host_resolutions_by_line: BTreeMap<String, u64>,
    /// Full operator name → calls.
    pub distinct_ops: BTreeMap<String, u64>,
}

impl Census {
    /// Compute the census of `capture` under `table`.
    pub fn compute(capture: &Capture, table: &FamilyTable) -> Census {
        let s = analysis::analyse(capture);
        Self::from_structure(capture, table, &s)
    }

    pub(crate) fn from_structure(capture: &Capture, table: &FamilyTable, s: &Structure) -> Census {
        let names = capture.interned_names();
        let mut families: Vec<FamilyRow> = table
            .families()
            .map(|(name, _)| FamilyRow {
                family: name.to_string(),
                ops: 0,
                shape_entries: 0,
                non_numeric: 0,
            })
            .collect();
        let mut unclassified = Unclassified {
            ops: 0,
            shape_entries: 0,
            non_numeric: 0,
            by_name: BTreeMap::new(),
        };
        let mut distinct_ops = BTreeMap::new();
        for (name, st) in names.iter().zip(&s.per_name) {
            if st.calls == 0 {
                continue;
            }
            distinct_ops.insert(name.to_string(), st.calls);
            match table.family_index(name) {
                Some(i) => {
                    let row = &mut families[i];
                    row.ops += st.calls;
                    row.shape_entries += st.entries;
                    row.non_numeric += st.non_numeric;
                }
                None => {
                    unclassified.ops += st.calls;
                    unclassified.shape_entries += st.entries;
                    unclassified.non_numeric += st.non_numeric;
                    unclassified.by_name.insert(name.to_string(), st.calls);
                }
            }
        }

        Census {
            format: CENSUS_FORMAT,
            label: capture.label().to_string(),
            step_axis: step_axis_report(capture, s),
            digest: s.digest.clone(),
            families,
            totals: Totals {
                ops: capture.op_count() as u64,
                shape_entries: s.entries,
                non_numeric: s.non_numeric,
                unknown: s.unknown,
            },
            unclassified,
            concrete_dims: s
                .concrete
                .iter()
                .map(|(&value, &count)| ConcreteDim { value, count })
                .collect(),
            host_resolutions_by_line: host_resolutions_by_line(capture),
            distinct_ops,
        }
    }

    /// The row of one family, if the table has it.
    pub fn family(&self, name: &str) -> Option<&FamilyRow> {
        self.families.iter().find(|r| r.family == name)
    }

    /// Demand that every operator call be classified: `Err` with code
    /// `unclassified_operators` naming each unclassified operator and its count.
    pub fn require_classified(&self) -> Result<(), Error> {
        if self.unclassified.ops == 0 {
            return Ok(());
        }
        Err(ErrorKind::UnclassifiedOperators {
            label: self.label.clone(),
            count: self.unclassified.ops,
            names: self
                .unclassified
                .by_name
                .iter()
                .map(|(n, c)| format!("{n} ×{c}"))
                .collect::<Vec<_>>()
                .join(", "),
        }
        .into())
    }

    /// Compare the host-resolution log to a declared set.
    pub fn host_resolution_diff(&self, declared: &DeclaredHostResolutions) -> HostResolutionDiff {
        HostResolutionDiff::between(&self.host_resolutions_by_line, declared)
    }

    /// Demand the host-resolution log equal the declared set, as a multiset: `Err`
    /// with code `host_resolutions_differ` naming extra, missing and changed lines.
    pub fn require_host_resolutions(
        &self,
        declared: &DeclaredHostResolutions,
    ) -> Result<(), Error> {
        let diff = self.host_resolution_diff(declared);
        if diff.matches {
            return Ok(());
        }
        Err(ErrorKind::HostResolutionsDiffer {
            label: self.label.clone(),
            summary: diff.summary(),
        }
        .into())
    }

    /// Concrete dimensions as a map (value → count).
    pub fn concrete_dims_map(&self) -> BTreeMap<i64, u64> {
        self.concrete_dims
            .iter()
            .map(|d| (d.value, d.count))
            .collect()
    }
}

/// The host-resolution multiset of a capture: innermost frame → conversions.
pub fn host_resolutions_by_line(capture: &Capture) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for h in capture.host_resolutions() {
        let key = h.innermost(capture.frames_order()).unwrap_or(NO_FRAME);
        *out.entry(key.to_string()).or_insert(0) += 1;
    }
    out
}

fn step_axis_report(capture: &Capture, s: &Structure) -> StepAxisReport {
    let st = &s.step;
    let mut unified: Vec<String> = st.class.iter().cloned().collect();
    unified.sort();
    let solved_to = st
        .solved
        .first()
        .map(|(_, n)| *n)
        .or_else(|| st.pinned.first().map(|(_, n)| *n));
    let (status, note) = match capture.step_axis() {
        None if s.non_numeric == 0 => (
            StepAxisStatus::Concrete,
            "no step axis: a concrete capture (a control); the width is an integer in every \
             shape"
                .to_string(),
        ),
        None => (
            StepAxisStatus::Concrete,
            format!(
                "no step axis declared, yet {} shape entries are not plain integers: as a \
                 control this capture is not concrete",
                s.non_numeric
            ),
        ),
        Some(axis)
            if !st.solved.is_empty() || !st.pinned.is_empty() || !st.admits_nothing.is_empty() =>
        {
            let mut why: Vec<String> = st
                .solved
                .iter()
                .map(|(k, n)| format!("replacement {k} → {n}"))
                .collect();
            why.extend(
                st.pinned
                    .iter()
                    .map(|(g, n)| format!("guard {g} (admits only {n})")),
            );
            why.extend(
                st.admits_nothing
                    .iter()
                    .map(|g| format!("guard {g} (admits no value at all)")),
            );
            (
                StepAxisStatus::Specialised,
                format!(
                    "step axis {axis} is specialised: {}; the capture is about one width only",
                    why.join(", ")
                ),
            )
        }
        Some(axis) if st.shape_ids.is_empty() => (
            StepAxisStatus::AbsentFromShapes,
            format!(
                "step axis {axis} is carried by no shape entry: the symbol was lost (or never \
                 reached a tensor), and every shape is about one width"
            ),
        ),
        Some(axis) => (
            StepAxisStatus::Symbolic,
            format!(
                "step axis {axis} is carried by {} shape entries and nothing solves it; whether \
                 it is free is shown by a two-width comparison, not by one capture",
                st.entries
            ),
        ),
    };
    StepAxisReport {
        declared: capture.step_axis().map(str::to_string),
        hint: capture.step_hint(),
        status,
        unified: if capture.step_axis().is_some() {
            unified
        } else {
            Vec::new()
        },
        entries: st.entries,
        solved_to,
        note,
    }
}
