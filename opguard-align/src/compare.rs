//! Comparison stage: recorded-field agreement of tensor summaries.
//!
//! Each comparison field of a summary (`shape`, `dtype`, `stride`,
//! `device`, `fingerprint`, `stats`) is reduced to a 64-bit digest of its
//! canonical value, so an export keeps only digests per operation, never
//! the summaries themselves. Two fields agree when their digests are
//! equal; a field recorded on one side only is listed under `not_compared`
//! instead of counting as a difference. Agreement is recorded-field
//! agreement: a digest or fingerprint collision would read as agreement,
//! and tensor equality is never established.

use std::hash::{Hash, Hasher};

use crate::record::{TensorKey, TensorSummary};

/// The comparison fields, in the order of [`FieldDigests`].
pub(crate) const FIELDS: [&str; 6] = ["shape", "dtype", "stride", "device", "fingerprint", "stats"];

/// Per-field digests of one summary; 0 means "not recorded".
pub(crate) type FieldDigests = [u64; 6];

fn digest(tag: u8, f: impl FnOnce(&mut std::hash::DefaultHasher)) -> u64 {
    // DefaultHasher::new() has fixed keys: equal values give equal digests
    // within one process, which is all the comparison needs.
    let mut h = std::hash::DefaultHasher::new();
    tag.hash(&mut h);
    f(&mut h);
    h.finish().max(1)
}

/// The field digests of one summary.
pub(crate) fn field_digests(s: &TensorSummary) -> FieldDigests {
    digests_of(
        &s.shape,
        &s.dtype,
        s.stride.as_deref(),
        s.device.as_deref(),
        s.fingerprint.as_deref(),
        s.stats
            .as_ref()
            .map(|m| (m.len(), m.iter().map(|(k, v)| (k.as_str(), *v)))),
    )
}

impl TensorKey<'_> {
    /// The same digests [`TensorSummary`] gives (comparison reads records;
    /// records never call into comparison).
    pub(crate) fn digests(&self) -> FieldDigests {
        digests_of(
            &self.shape,
            &self.dtype,
            self.stride.as_deref(),
            self.device.as_deref(),
            self.fingerprint.as_deref(),
            self.stats
                .as_ref()
                .map(|m| (m.len(), m.iter().map(|(k, v)| (k.as_ref(), *v)))),
        )
    }
}

/// The field digests of a summary given field by field (`stats` sorted by
/// name, with its length).
pub(crate) fn digests_of<'a>(
    shape: &[i64],
    dtype: &str,
    stride: Option<&[i64]>,
    device: Option<&str>,
    fingerprint: Option<&str>,
    stats: Option<(usize, impl Iterator<Item = (&'a str, f64)>)>,
) -> FieldDigests {
    [
        digest(0, |h| shape.hash(h)),
        digest(1, |h| dtype.hash(h)),
        stride.map_or(0, |v| digest(2, |h| v.hash(h))),
        device.map_or(0, |v| digest(3, |h| v.hash(h))),
        fingerprint.map_or(0, |v| digest(4, |h| v.hash(h))),
        stats.map_or(0, |(len, items)| {
            digest(5, |h| {
                len.hash(h);
                for (k, v) in items {
                    k.hash(h);
                    v.to_bits().hash(h);
                }
            })
        }),
    ]
}

/// What a comparison found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Comparison {
    /// Fields recorded on both sides that disagree, e.g. `inputs[0].dtype`.
    pub differences: Vec<String>,
    /// Fields recorded on one side only.
    pub not_compared: Vec<String>,
}

impl Comparison {
    pub(crate) fn agrees(&self) -> bool {
        self.differences.is_empty()
    }
}

fn compare_into(prefix: &str, a: &FieldDigests, b: &FieldDigests, out: &mut Comparison) {
    for (i, name) in FIELDS.iter().enumerate() {
        match (a[i], b[i]) {
            (0, 0) => {}
            (0, _) | (_, 0) => out.not_compared.push(format!("{prefix}{name}")),
            (x, y) if x != y => out.differences.push(format!("{prefix}{name}")),
            _ => {}
        }
    }
}

/// Compares two selected summaries (one slot each).
pub(crate) fn compare_slots(a: &FieldDigests, b: &FieldDigests) -> Comparison {
    let mut out = Comparison::default();
    compare_into("", a, b, &mut out);
    out
}

/// Compares two whole operations: input and output counts, then each
/// slot both have.
pub(crate) fn compare_events(
    a_in: &[FieldDigests],
    a_out: &[FieldDigests],
    b_in: &[FieldDigests],
    b_out: &[FieldDigests],
) -> Comparison {
    let mut out = Comparison::default();
    for (side, a, b) in [("inputs", a_in, b_in), ("outputs", a_out, b_out)] {
        if a.len() != b.len() {
            out.differences.push(format!("{side}.count"));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            compare_into(&format!("{side}[{i}]."), x, y, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[i64], dtype: &str) -> TensorSummary {
        TensorSummary {
            shape: shape.to_vec(),
            dtype: dtype.into(),
            ..TensorSummary::default()
        }
    }

    #[test]
    fn fields_recorded_on_one_side_are_not_compared() {
        let a = t(&[2, 3], "float");
        let mut b = a.clone();
        b.fingerprint = Some("sha256:00".into());
        let c = compare_slots(&field_digests(&a), &field_digests(&b));
        assert!(c.agrees());
        assert_eq!(c.not_compared, ["fingerprint"]);
        b.dtype = "c10::Half".into();
        let c = compare_slots(&field_digests(&a), &field_digests(&b));
        assert_eq!(c.differences, ["dtype"]);
    }

    #[test]
    fn event_comparison_names_slots_and_counts() {
        let x = field_digests(&t(&[4], "float"));
        let y = field_digests(&t(&[5], "float"));
        let c = compare_events(&[x, x], &[], &[x, y, x], &[x]);
        assert_eq!(
            c.differences,
            ["inputs.count", "inputs[1].shape", "outputs.count"]
        );
    }
}
