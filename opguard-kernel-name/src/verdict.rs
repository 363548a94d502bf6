//! The strict matcher.

use crate::canonical::{canonicalize, Canonical, Mangling, Template, TemplateKind};

/// Why two symbols do not match. The `code()` strings are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// One side is a memory operation and the other is not, or kind/direction differ.
    MemoryOpDiffers,
    /// One side is an undemangleable `_Z...` symbol and the other is not the same string.
    OpaqueSymbolDiffers,
    /// A base identifier is shorter than [`crate::MIN_TOKEN_LEN`], or is the
    /// bare keyword `operator` (equal or not).
    DegenerateToken,
    /// The base identifiers differ (and no display-truncation prefix applies).
    BaseDiffers,
    /// Same base, both sides qualified, different qualifications
    /// (`cask_cudnn::` vs `cask_cudnn_infer::`).
    QualificationDiffers,
    /// Same base, but the template arguments disagree.
    TemplateArgsDiffer,
}

impl Reason {
    /// The stable reason code (`degenerate_token`, `base_differs`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Reason::MemoryOpDiffers => "memory_op_differs",
            Reason::OpaqueSymbolDiffers => "opaque_symbol_differs",
            Reason::DegenerateToken => "degenerate_token",
            Reason::BaseDiffers => "base_differs",
            Reason::QualificationDiffers => "qualification_differs",
            Reason::TemplateArgsDiffer => "template_args_differ",
        }
    }
}

/// On what a match rests. The `code()` strings are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Basis {
    /// Same base and the same template arguments (or neither side has any).
    Exact,
    /// Same base; one side has no template arguments, so it may stand for
    /// several instantiations (a caller should check for ambiguity).
    BaseOnly,
    /// Same base; elided arguments agree over their visible prefix.
    ElidedPrefix,
    /// One base is exactly [`crate::SHORT_NAME_LIMIT`] characters and the other extends it.
    DisplayTruncation,
    /// Same memory-operation kind and direction.
    MemoryOp,
    /// The same undemangleable `_Z...` symbol.
    OpaqueSymbol,
}

impl Basis {
    /// The stable basis code.
    pub fn code(self) -> &'static str {
        match self {
            Basis::Exact => "exact",
            Basis::BaseOnly => "base_only",
            Basis::ElidedPrefix => "elided_prefix",
            Basis::DisplayTruncation => "display_truncation",
            Basis::MemoryOp => "memory_op",
            Basis::OpaqueSymbol => "opaque_symbol",
        }
    }
}

/// The answer of [`matches()`]: a match with its basis, or no match with its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Verdict {
    /// Whether the two symbols name the same kernel.
    pub is_match: bool,
    /// Why not, when `is_match` is false.
    pub reason: Option<Reason>,
    /// On what the match rests, when `is_match` is true.
    pub basis: Option<Basis>,
}

impl Verdict {
    fn yes(basis: Basis) -> Self {
        Verdict {
            is_match: true,
            reason: None,
            basis: Some(basis),
        }
    }

    fn no(reason: Reason) -> Self {
        Verdict {
            is_match: false,
            reason: Some(reason),
            basis: None,
        }
    }
}

/// Whether `want` and `got` name the same kernel, with the reason when not.
///
/// Symmetric: `matches(a, b) == matches(b, a)`.
pub fn matches(want: &str, got: &str) -> Verdict {
    canonicalize(want).matches(&canonicalize(got))
}

/// [`matches()`] as a plain `bool`.
pub fn is_match(want: &str, got: &str) -> bool {
    matches(want, got).is_match
}

impl Canonical<'_> {
    /// Compares two canonical forms; see [`matches()`].
    pub fn matches(&self, other: &Canonical<'_>) -> Verdict {
        match (self.memory_op(), other.memory_op()) {
            (None, None) => {}
            (Some(a), Some(b)) if a == b => return Verdict::yes(Basis::MemoryOp),
            _ => return Verdict::no(Reason::MemoryOpDiffers),
        }
        let opaque = |c: &Canonical<'_>| c.mangling() == Mangling::Opaque;
        if opaque(self) || opaque(other) {
            return if opaque(self) && opaque(other) && self.base() == other.base() {
                Verdict::yes(Basis::OpaqueSymbol)
            } else {
                Verdict::no(Reason::OpaqueSymbolDiffers)
            };
        }
        if self.is_degenerate() || other.is_degenerate() {
            return Verdict::no(Reason::DegenerateToken);
        }
        let truncation = if self.base() == other.base() {
            false
        } else if (self.is_truncated() && other.base().starts_with(self.base()))
            || (other.is_truncated() && self.base().starts_with(other.base()))
        {
            true
        } else {
            return Verdict::no(Reason::BaseDiffers);
        };
        if let (Some(a), Some(b)) = (self.qualification(), other.qualification()) {
            if a != b {
                return Verdict::no(Reason::QualificationDiffers);
            }
        }
        match templates_agree(self.template(), other.template()) {
            None => Verdict::no(Reason::TemplateArgsDiffer),
            Some(_) if truncation => Verdict::yes(Basis::DisplayTruncation),
            Some(basis) => Verdict::yes(basis),
        }
    }
}

fn templates_agree(a: &Template<'_>, b: &Template<'_>) -> Option<Basis> {
    use TemplateKind::{Complete, Elided, None as Absent};
    match (a.kind(), b.kind()) {
        (Absent, Absent) => Some(Basis::Exact),
        (Absent, _) | (_, Absent) => Some(Basis::BaseOnly),
        (Complete, Complete) => {
            // Identical raw text is equal in normal form: skip the split.
            let same = a.raw() == b.raw() || (a.len() == b.len() && a.args().eq(b.args()));
            same.then_some(Basis::Exact)
        }
        (Elided, Complete) => elided_vs_complete(a, b).then_some(Basis::ElidedPrefix),
        (Complete, Elided) => elided_vs_complete(b, a).then_some(Basis::ElidedPrefix),
        (Elided, Elided) => {
            let agree = if a.len() <= b.len() {
                elided_vs_elided(a, b)
            } else {
                elided_vs_elided(b, a)
            };
            agree.then_some(Basis::ElidedPrefix)
        }
    }
}

/// The complete list extends the visible prefix, and its next argument starts
/// with the cut argument's visible start.
fn elided_vs_complete(elided: &Template<'_>, complete: &Template<'_>) -> bool {
    let k = elided.len();
    if complete.len() < k {
        return false;
    }
    let mut all = complete.args();
    if !elided
        .args()
        .all(|arg| all.next().is_some_and(|other| other == arg))
    {
        return false;
    }
    match elided.partial() {
        None => true,
        Some(partial) => all.next().is_some_and(|next| next.starts_with(partial)),
    }
}

/// Two elided lists (`short` has no more visible arguments than `long`)
/// agree over the shorter visible prefix and the cut arguments' visible starts.
fn elided_vs_elided(short: &Template<'_>, long: &Template<'_>) -> bool {
    let mut rest = long.args();
    if !short
        .args()
        .all(|arg| rest.next().is_some_and(|other| other == arg))
    {
        return false;
    }
    match rest.next() {
        Some(next) => short.partial().is_none_or(|p| next.starts_with(p)),
        None => match (short.partial(), long.partial()) {
            (Some(p), Some(q)) => p.starts_with(q) || q.starts_with(p),
            _ => true,
        },
    }
}
