//! The two-width comparison: is the step axis a free symbol, and on what evidence.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::admitted::SIZE_SYMBOL_MIN;
use crate::analysis::{self, SetKey, Structure};
use crate::capture::Capture;
use crate::census::Census;
use crate::error::{Error, ErrorKind};
use crate::expr::{self, Linear, RelOp, Tok};
use crate::families::FamilyTable;

/// The format tag written into every serialised [`WidthComparison`].
pub const COMPARISON_FORMAT: &str = "opguard.census/width-comparison-v1";

/// One capture as the comparison saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CaptureSummary {
    /// Label.
    pub label: String,
    /// Declared step axis (`null` for the control).
    pub step_axis: Option<String>,
    /// Step width traced.
    pub step_hint: u64,
    /// Name-free structure digest (see [`crate::Census`]).
    pub digest: String,
    /// Operator calls.
    pub ops: u64,
    /// Shape entries.
    pub shape_entries: u64,
    /// Non-numeric shape entries.
    pub non_numeric: u64,
    /// Unknown (`null`) shape entries.
    pub unknown: u64,
}

/// One piece of evidence: whether it held, what it proves when it holds, and what
/// was measured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Check {
    /// Whether the check held.
    pub held: bool,
    /// Whether the verdict rests on this check above the others (the digest).
    pub load_bearing: bool,
    /// What the check proves when it holds, and what it cannot see.
    pub proves: String,
    /// What was measured, with the numbers.
    pub observed: String,
}

/// Every piece of evidence, by name. `free_symbol` is the conjunction of all of them
/// (the control's two only when a control was given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Evidence {
    /// The name-free structure digests are equal. The load-bearing check.
    pub same_digest: Check,
    /// Both widths trace the same number of operator calls.
    pub same_op_count: Check,
    /// The concrete-dimension multisets are equal.
    pub same_concrete_dims: Check,
    /// The second width is not a concrete dimension of either capture.
    pub second_width_absent: Check,
    /// The first width is not a concrete dimension, or is one exactly as often at the
    /// second width (an engine constant of that value).
    pub first_width_absent_or_engine_constant: Check,
    /// The step symbol is carried by shapes at both widths, in the same position.
    pub step_axis_in_shapes: Check,
    /// No replacement solves the step axis, or a symbol unified with it, to a number.
    pub no_replacement_solves_step_axis: Check,
    /// No guard equates the step axis (or a symbol unified with it) with a number.
    pub no_guard_pins_step_axis: Check,
    /// The guard sets agree, up to guards that depend on the hint.
    pub guards_match_modulo_hint: Check,
    /// No shape entry is unknown.
    pub no_unknown_entries: Check,
    /// Every operator call of every compared capture belongs to a family of the
    /// table (seed 004: "unclassified must be empty"); when not, the operators are
    /// named with the fix.
    pub every_operator_classified: Check,
    /// The control has no non-numeric entries (`null` without a control).
    pub control_fully_concrete: Option<Check>,
    /// The control was traced at one of the compared widths (`null` without a control).
    pub control_same_width: Option<Check>,
}

impl Evidence {
    /// Every check present, by its field name, in report order.
    pub fn checks(&self) -> Vec<(&'static str, &Check)> {
        let mut v = vec![
            ("same_digest", &self.same_digest),
            ("same_op_count", &self.same_op_count),
            ("same_concrete_dims", &self.same_concrete_dims),
            ("second_width_absent", &self.second_width_absent),
            (
                "first_width_absent_or_engine_constant",
                &self.first_width_absent_or_engine_constant,
            ),
            ("step_axis_in_shapes", &self.step_axis_in_shapes),
            (
                "no_replacement_solves_step_axis",
                &self.no_replacement_solves_step_axis,
            ),
            ("no_guard_pins_step_axis", &self.no_guard_pins_step_axis),
            ("guards_match_modulo_hint", &self.guards_match_modulo_hint),
            ("no_unknown_entries", &self.no_unknown_entries),
            ("every_operator_classified", &self.every_operator_classified),
        ];
        if let Some(c) = &self.control_fully_concrete {
            v.push(("control_fully_concrete", c));
        }
        if let Some(c) = &self.control_same_width {
            v.push(("control_same_width", c));
        }
        v
    }
}

/// How a guard of one capture relates to the other capture's guards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GuardRelation {
    /// The same guard at both widths, symbol names set aside.
    Identical,
    /// The same guard at both widths once each width's own hint is read as `$HINT`
    /// (`s0 + 1 > 3` at width 3, `s0 + 1 > 8` at width 8).
    SameRelativeToHint,
    /// The same guard at both widths once each width's own hint is read as
    /// `$HINT`, and at one width at least it (with the other guards) admits only
    /// the hint for its symbol (`Eq(s52, 2)` at width 2, `Eq(s52, 8)` at width 8;
    /// `s0 <= 2` at width 2 beside `s0 <= 8` at width 8): the width was
    /// specialised. Reported as evidence by `no_guard_pins_step_axis`; not counted
    /// again as a structural difference.
    PinnedToHint,
    /// Present at one width only, mentions that width's hint, and is vacuous at the
    /// other width for a size symbol (range `[2, ∞)`): hint-dependent, not structure.
    HintDependent,
    /// Present at one width only and not explained by the hint: a difference.
    Differs,
}

/// One guard in the comparison.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct GuardRow {
    /// The guard as the first capture printed it, if it has one.
    pub first: Option<String>,
    /// The guard as the second capture printed it, if it has one.
    pub second: Option<String>,
    /// Canonical form: `$STEP` for the step axis and symbols unified with it, `#n` for
    /// other shape symbols (digest numbering), `#gn` for symbols only guards mention.
    pub canonical: String,
    /// How the two captures relate on this guard.
    pub relation: GuardRelation,
    /// A sentence.
    pub note: String,
}

/// A symbol solved to a number, in either capture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Specialisation {
    /// Label of the capture it was found in.
    pub capture: String,
    /// The symbol as that capture names it.
    pub symbol: String,
    /// The number.
    pub value: i64,
    /// `"replacement"` or `"guard"`.
    pub via: &'static str,
    /// `"step_axis"` (the axis or a symbol unified with it) or `"equals_hint"` (another
    /// symbol solved to the capture's own step width).
    pub reason: &'static str,
    /// The replacement (`s52 → 2`) or guard (`Eq(s52, 2)`) as written.
    pub text: String,
}

/// An operator whose call count differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OpCountDiff {
    /// Full operator name.
    pub op: String,
    /// Calls in the first capture (or the control, for control differences).
    pub first: u64,
    /// Calls in the second capture (or the same-width symbolic capture).
    pub second: u64,
}

/// Captures of one step at two widths (and optionally a concrete control), compared.
///
/// Serialised field names are stable: `format` ([`COMPARISON_FORMAT`]), `first`,
/// `second`, `control`, `free_symbol`, `verdict`, `evidence` (one named
/// [`Check`] per piece of evidence), `guards`, `specialisations`,
/// `distinct_ops_differences`, `control_distinct_ops_differences`.
///
/// Nothing here depends on what a symbol is called or numbered: torch 2.15 derives
/// symbol names from a hash of their source, so names are compared only inside one
/// capture and everything across captures goes through canonical forms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct WidthComparison {
    /// [`COMPARISON_FORMAT`].
    pub format: &'static str,
    /// The first capture.
    pub first: CaptureSummary,
    /// The second capture.
    pub second: CaptureSummary,
    /// The control, if one was given.
    pub control: Option<CaptureSummary>,
    /// Whether every check held: the step axis is a free symbol across the two
    /// widths, on the named evidence.
    pub free_symbol: bool,
    /// The verdict in a sentence, naming the checks that failed.
    pub verdict: String,
    /// The evidence, one named check each.
    pub evidence: Evidence,
    /// Every guard of both captures and how they relate.
    pub guards: Vec<GuardRow>,
    /// Symbols solved to numbers that bear on the step axis.
    pub specialisations: Vec<Specialisation>,
    /// Operators whose call counts differ between the two widths.
    pub distinct_ops_differences: Vec<OpCountDiff>,
    /// Operators whose call counts differ between the control (`first`) and the
    /// symbolic capture at the control's width (`second`): value-level differences
    /// the digest does not see.
    pub control_distinct_ops_differences: Vec<OpCountDiff>,
}

impl WidthComparison {
    /// Compare `first` and `second`, two symbolic captures of one step at two
    /// different widths, with an optional concrete `control`.
    ///
    /// Refused (errors, not verdicts): a capture without a step axis offered as
    /// `first` or `second` (`step_axis_not_symbolic`), two captures at the same width
    /// (`same_width`), a control that declares a step axis (`control_not_concrete`).
    ///
    /// Operators are classified by the bundled family table
    /// ([`FamilyTable::default_table`]); see [`WidthComparison::compare_with_families`].
    pub fn compare(
        first: &Capture,
        second: &Capture,
        control: Option<&Capture>,
    ) -> Result<WidthComparison, Error> {
        static DEFAULT: std::sync::OnceLock<FamilyTable> = std::sync::OnceLock::new();
        Self::compare_with_families(
            first,
            second,
            control,
            DEFAULT.get_or_init(FamilyTable::default_table),
        )
    }

    /// [`WidthComparison::compare`] with the family table the census uses: an
    /// operator no family claims makes the comparison not free
    /// (`every_operator_classified`), whatever the other checks say, because the
    /// census the proof rests on would not account for it.
    pub fn compare_with_families(
        first: &Capture,
        second: &Capture,
        control: Option<&Capture>,
        families: &FamilyTable,
    ) -> Result<WidthComparison, Error> {
        for c in [first, second] {
            if c.step_axis().is_none() {
                return Err(ErrorKind::StepAxisNotSymbolic {
                    label: c.label().to_string(),
                    step_axis: "null".into(),
                    step_hint: c.step_hint(),
                    reason: format!(
                        "it was offered as one side of a two-width comparison but has no step \
                         axis (step_axis is null): it is a concrete capture, and at width {} \
                         the width is an integer in every shape; pass it as the control",
                        c.step_hint()
                    ),
                }
                .into());
            }
        }
        if first.step_hint() == second.step_hint() {
            return Err(ErrorKind::SameWidth {
                first: first.label().to_string(),
                second: second.label().to_string(),
                hint: first.step_hint(),
            }
            .into());
        }
        if let Some(c) = control {
            if let Some(axis) = c.step_axis() {
                return Err(ErrorKind::ControlNotConcrete {
                    label: c.label().to_string(),
                    step_axis: axis.to_string(),
                }
                .into());
            }
        }
        let a = analysis::analyse(first);
        let b = analysis::analyse(second);
        let ctl = control.map(|c| (c, analysis::analyse(c)));
        Ok(build(
            first,
            &a,
            second,
            &b,
            ctl.as_ref().map(|(c, s)| (*c, s)),
            families,
        ))
    }
}

fn summary(c: &Capture, s: &Structure) -> CaptureSummary {
    CaptureSummary {
        label: c.label().to_string(),
        step_axis: c.step_axis().map(str::to_string),
        step_hint: c.step_hint(),
        digest: s.digest.clone(),
        ops: c.op_count() as u64,
        shape_entries: s.entries,
        non_numeric: s.non_numeric,
        unknown: s.unknown,
    }
}

fn check(held: bool, proves: &str, observed: String) -> Check {
    Check {
        held,
        load_bearing: false,
        proves: proves.to_string(),
        observed,
    }
}

fn short(d: &str) -> &str {
    &d[..d.len().min(16)]
}

fn hint_i64(h: u64) -> i64 {
    i64::try_from(h).unwrap_or(i64::MAX)
}

const PROVES_DIGEST: &str = "The operator sequence and every shape, with symbol names set aside, \
are identical at both widths. A dimension that had quietly taken the hint would be one number at \
one width and another at the other, and a symbol lost rather than solved (code reading its hint \
and building a tensor of that size) records no replacement but changes shapes; both show here. \
This is the load-bearing evidence that the step width reached no shape as a number. It covers \
operator names and tensor shapes only, not scalar arguments, dtypes or strides: compare \
distinct_ops for value-level differences.";
const PROVES_OP_COUNT: &str = "No width-dependent branch added or removed an operator call. \
Implied by an equal digest; stated on its own so that a count difference is named.";
const PROVES_CONCRETE: &str = "Every dimension that stayed a number is the same number, the same \
number of times, at both widths, so none of them is a width in disguise.";
const PROVES_SECOND_ABSENT: &str = "The second width never appears as a concrete dimension. A \
dimension that took the hint at the second width would show it: this is the direction that can \
fail. (Choose a second width that equals no engine constant.)";
const PROVES_FIRST_ABSENT: &str = "The first width does not appear as a concrete dimension, or \
appears exactly as often at the second width too, where it cannot be the step's width: an engine \
constant of the same value (a group width, a layer count), not the step.";
const PROVES_IN_SHAPES: &str =
    "The step symbol is carried by shape entries at both widths, as the \
same canonical symbol. A capture whose axis reaches no shape says nothing about the width.";
const PROVES_REPLACEMENTS: &str =
    "No replacement solves the step axis, or a symbol unified with it \
(symbol-to-symbol replacements such as {\"s52\": \"s0\"} are unifications, not specialisations), \
to a number, and no other symbol is solved to the step's own width at both widths. Weak evidence \
on its own (seed 004 finding 10): an empty replacements map cannot see a symbol lost rather than \
solved, nor a host conversion that was logged or substituted instead of recorded. The two-width \
digest is the load-bearing evidence.";
const PROVES_PINS: &str = "The guards written in the step axis alone (or symbols unified with \
it) admit more than one value of a size symbol's range [2, ∞), and no guards admit only the \
step's own width for another symbol at both widths. Decided by the values the guards admit, \
whatever their spelling (`Eq(s0, 2)`, `s0 == 2`, `s0 <= 2`, `s0 < 3`, `2 >= s0`, `Ne` beside a \
bound). Like the replacements check, this sees only what torch recorded; the digest is the \
load-bearing evidence.";
const PROVES_GUARDS: &str = "The guard sets agree once symbol names are set aside, except for \
guards that mention the hint itself (such as `s0 + 1 > 8` at width 8, vacuous at width 2 because \
a size symbol's range is [2, ∞)); those are reported as hint-dependent, not as a difference in \
structure. The traced graph's applicability is the guard set at each width, lower bounds \
included, not the set at one width.";
const PROVES_UNKNOWN: &str = "No shape entry is unknown (null). An unknown entry could be the \
width in disguise and no other check can see inside it.";
const PROVES_CONTROL_CONCRETE: &str = "The same step traced with the width left an integer has no \
non-numeric shape entries: the census reports zero where there is no symbol, so the non-numeric \
entries of the symbolic captures come from the step symbol, not from the capture tooling.";
const PROVES_CONTROL_WIDTH: &str =
    "The control was traced at one of the compared widths, so it is \
the same step and its operator list can be set beside that capture's.";

const PROVES_CLASSIFIED: &str = "Every operator call is counted in a family, so the \
census the comparison rests on accounts for every call (seed 004: unclassified must be \
empty). An operator no family claims could carry the step width unseen by any family row.";

fn build(
    c1: &Capture,
    s1: &Structure,
    c2: &Capture,
    s2: &Structure,
    control: Option<(&Capture, &Structure)>,
    families: &FamilyTable,
) -> WidthComparison {
    let pair = Widths::new(c1, s1, c2, s2);
    let guards = compare_guards(c1, s1, c2, s2);
    let mut specialisations = Vec::new();
    collect_specialisations(c1, s1, &mut specialisations);
    collect_specialisations(c2, s2, &mut specialisations);
    let (control_fully_concrete, control_same_width, control_summary, control_diffs) =
        match control.map(|(cc, cs)| ControlChecks::new(&pair, cc, cs)) {
            Some(c) => (
                Some(c.fully_concrete),
                Some(c.same_width),
                Some(c.summary),
                c.op_count_diffs,
            ),
            None => (None, None, None, Vec::new()),
        };
    let evidence = Evidence {
        same_digest: same_digest(&pair),
        same_op_count: same_op_count(&pair),
        same_concrete_dims: same_concrete_dims(&pair),
        second_width_absent: second_width_absent(&pair),
        first_width_absent_or_engine_constant: first_width_absent_or_engine_constant(&pair),
        step_axis_in_shapes: step_axis_in_shapes(&pair),
        no_replacement_solves_step_axis: no_replacement_solves_step_axis(&pair),
        no_guard_pins_step_axis: no_guard_pins_step_axis(&pair),
        guards_match_modulo_hint: guards_match_modulo_hint(&pair, &guards),
        no_unknown_entries: no_unknown_entries(&pair),
        every_operator_classified: classified_check(
            [(c1, s1), (c2, s2)].into_iter().chain(control),
            families,
        ),
        control_fully_concrete,
        control_same_width,
    };
    let free_symbol = evidence.checks().iter().all(|(_, c)| c.held);
    let verdict = verdict_text(&pair, &evidence, control.is_some());
    WidthComparison {
        format: COMPARISON_FORMAT,
        first: summary(c1, s1),
        second: summary(c2, s2),
        control: control_summary,
        free_symbol,
        verdict,
        evidence,
        guards,
        specialisations,
        distinct_ops_differences: op_count_diffs(c1, c2),
        control_distinct_ops_differences: control_diffs,
    }
}

/// The two compared captures, their structures and their widths as `i64`.
struct Widths<'c> {
    c1: &'c Capture,
    s1: &'c Structure,
    c2: &'c Capture,
    s2: &'c Structure,
    h1: i64,
    h2: i64,
}

impl<'c> Widths<'c> {
    fn new(c1: &'c Capture, s1: &'c Structure, c2: &'c Capture, s2: &'c Structure) -> Self {
        let (h1, h2) = (hint_i64(c1.step_hint()), hint_i64(c2.step_hint()));
        Widths {
            c1,
            s1,
            c2,
            s2,
            h1,
            h2,
        }
    }

    /// The declared step axes (`?` when absent, which `compare` refuses).
    fn axes(&self) -> (&'c str, &'c str) {
        (
            self.c1.step_axis().unwrap_or("?"),
            self.c2.step_axis().unwrap_or("?"),
        )
    }
}

/// `same_digest`: the load-bearing check.
fn same_digest(p: &Widths) -> Check {
    let (h1, h2, l1, l2) = (p.h1, p.h2, p.c1.label(), p.c2.label());
    let equal = p.s1.digest == p.s2.digest;
    let mut c = check(
        equal,
        PROVES_DIGEST,
        format!(
            "digest {}… at width {h1} ({l1}), {}… at width {h2} ({l2}){}",
            short(&p.s1.digest),
            short(&p.s2.digest),
            if equal { ": equal" } else { ": different" }
        ),
    );
    c.load_bearing = true;
    c
}

fn same_op_count(p: &Widths) -> Check {
    check(
        p.c1.op_count() == p.c2.op_count(),
        PROVES_OP_COUNT,
        format!(
            "{} operator calls at width {}, {} at width {}",
            p.c1.op_count(),
            p.h1,
            p.c2.op_count(),
            p.h2
        ),
    )
}

fn same_concrete_dims(p: &Widths) -> Check {
    let (h1, h2) = (p.h1, p.h2);
    let dims_equal = p.s1.concrete == p.s2.concrete;
    let dims_diff = concrete_difference(&p.s1.concrete, &p.s2.concrete);
    check(
        dims_equal,
        PROVES_CONCRETE,
        if dims_equal {
            format!(
                "{} distinct concrete values over {} entries, identical at both widths",
                p.s1.concrete.len(),
                p.s1.concrete.values().sum::<u64>()
            )
        } else {
            format!("concrete dimensions differ (value: width {h1} → width {h2}): {dims_diff}")
        },
    )
}

/// How often `value` is a concrete dimension in `s`.
fn concrete_count(s: &Structure, value: i64) -> u64 {
    s.concrete.get(&value).copied().unwrap_or(0)
}

fn second_width_absent(p: &Widths) -> Check {
    let (h1, h2) = (p.h1, p.h2);
    let (w2_in_1, w2_in_2) = (concrete_count(p.s1, h2), concrete_count(p.s2, h2));
    check(
        w2_in_1 == 0 && w2_in_2 == 0,
        PROVES_SECOND_ABSENT,
        format!(
            "the value {h2} appears {w2_in_2} time(s) as a concrete dimension at width {h2} and \
             {w2_in_1} time(s) at width {h1}"
        ),
    )
}

fn first_width_absent_or_engine_constant(p: &Widths) -> Check {
    let (h1, h2) = (p.h1, p.h2);
    let (w1_in_1, w1_in_2) = (concrete_count(p.s1, h1), concrete_count(p.s2, h1));
    let first_ok = w1_in_1 == 0 || w1_in_1 == w1_in_2;
    check(
        first_ok,
        PROVES_FIRST_ABSENT,
        if w1_in_1 == 0 {
            format!("the value {h1} is not a concrete dimension at width {h1}")
        } else if first_ok {
            format!(
                "the value {h1} appears {w1_in_1} time(s) at width {h1} and {w1_in_2} time(s) at \
                 width {h2}: present at both widths alike, an engine constant of that value, not \
                 the step"
            )
        } else {
            format!(
                "the value {h1} appears {w1_in_1} time(s) at width {h1} but {w1_in_2} time(s) at \
                 width {h2}: some of them follow the width"
            )
        },
    )
}

fn step_axis_in_shapes(p: &Widths) -> Check {
    let (h1, h2) = (p.h1, p.h2);
    let (axis1, axis2) = p.axes();
    let pos = |s: &Structure| s.step.shape_ids.first().copied();
    let in_shapes = pos(p.s1).is_some() && pos(p.s1) == pos(p.s2);
    let describe_pos = |s: &Structure| match pos(s) {
        Some(at) => format!("{} entries, as canonical symbol #{at}", s.step.entries),
        None => "no entry".to_string(),
    };
    check(
        in_shapes,
        PROVES_IN_SHAPES,
        format!(
            "step axis {axis1} at width {h1}: {}; step axis {axis2} at width {h2}: {}",
            describe_pos(p.s1),
            describe_pos(p.s2)
        ),
    )
}

fn no_replacement_solves_step_axis(p: &Widths) -> Check {
    let (s1, s2) = (p.s1, p.s2);
    let both_hint_solved = !s1.step.solved_to_hint.is_empty() && !s2.step.solved_to_hint.is_empty();
    let held = s1.step.solved.is_empty() && s2.step.solved.is_empty() && !both_hint_solved;
    check(
        held,
        PROVES_REPLACEMENTS,
        format!(
            "width {}: {}; width {}: {}",
            p.h1,
            describe_replacements(p.c1, s1),
            p.h2,
            describe_replacements(p.c2, s2)
        ),
    )
}

fn no_guard_pins_step_axis(p: &Widths) -> Check {
    let (s1, s2) = (p.s1, p.s2);
    let both_hint_pinned = !s1.step.pinned_to_hint.is_empty() && !s2.step.pinned_to_hint.is_empty();
    let held = [s1, s2]
        .iter()
        .all(|s| s.step.pinned.is_empty() && s.step.admits_nothing.is_empty())
        && !both_hint_pinned;
    check(
        held,
        PROVES_PINS,
        format!(
            "width {}: {}; width {}: {}",
            p.h1,
            describe_pins(s1),
            p.h2,
            describe_pins(s2)
        ),
    )
}

fn guards_match_modulo_hint(p: &Widths, guards: &[GuardRow]) -> Check {
    let (h1, h2) = (p.h1, p.h2);
    let differing = guards
        .iter()
        .filter(|g| g.relation == GuardRelation::Differs)
        .count();
    let hint_dependent = guards
        .iter()
        .filter(|g| {
            matches!(
                g.relation,
                GuardRelation::HintDependent
                    | GuardRelation::SameRelativeToHint
                    | GuardRelation::PinnedToHint
            )
        })
        .count();
    let identical = guards
        .iter()
        .filter(|g| g.relation == GuardRelation::Identical)
        .count();
    let mut observed = format!(
        "{} guard(s) at width {h1}, {} at width {h2}: {identical} identical, \
             {hint_dependent} mentioning the hint",
        p.c1.guards().len(),
        p.c2.guards().len()
    );
    for g in guards
        .iter()
        .filter(|g| g.relation != GuardRelation::Identical)
    {
        observed.push_str("; ");
        observed.push_str(&g.note);
    }
    check(differing == 0, PROVES_GUARDS, observed)
}

fn no_unknown_entries(p: &Widths) -> Check {
    check(
        p.s1.unknown == 0 && p.s2.unknown == 0,
        PROVES_UNKNOWN,
        format!(
            "{} unknown entries at width {}, {} at width {}",
            p.s1.unknown, p.h1, p.s2.unknown, p.h2
        ),
    )
}

/// What the concrete control adds: its two checks, its summary and its
/// operator-count differences from the capture at its width.
struct ControlChecks {
    fully_concrete: Check,
    same_width: Check,
    summary: CaptureSummary,
    op_count_diffs: Vec<OpCountDiff>,
}

impl ControlChecks {
    fn new(p: &Widths, cc: &Capture, cs: &Structure) -> Self {
        let (h1, h2) = (p.h1, p.h2);
        let hc = hint_i64(cc.step_hint());
        let fully_concrete = check(
            cs.non_numeric == 0,
            PROVES_CONTROL_CONCRETE,
            format!(
                "control {} at width {hc}: {} non-numeric of {} shape entries over {} \
                     operator calls",
                cc.label(),
                cs.non_numeric,
                cs.entries,
                cc.op_count()
            ),
        );
        let same_width = check(
            hc == h1 || hc == h2,
            PROVES_CONTROL_WIDTH,
            format!("control traced at width {hc}; compared widths {h1} and {h2}"),
        );
        let peer = if hc == h2 { p.c2 } else { p.c1 };
        ControlChecks {
            fully_concrete,
            same_width,
            summary: summary(cc, cs),
            op_count_diffs: op_count_diffs(cc, peer),
        }
    }
}

/// The verdict sentence: free (with what it rests on) or the failed checks
/// by name.
fn verdict_text(p: &Widths, evidence: &Evidence, with_control: bool) -> String {
    let (h1, h2) = (p.h1, p.h2);
    let (axis1, axis2) = p.axes();
    let checks = evidence.checks();
    let failed: Vec<&str> = checks
        .iter()
        .filter(|(_, c)| !c.held)
        .map(|(n, _)| *n)
        .collect();
    if failed.is_empty() {
        return format!(
            "free symbol: step axis {axis1} (width {h1}) / {axis2} (width {h2}) is free across the \
             two widths. Load-bearing: the two-width digest is equal; backed by {} further checks \
             that all held{}",
            checks.len() - 1,
            if with_control {
                ", the concrete control included"
            } else {
                " (no concrete control given)"
            }
        );
    }
    let mut v = format!(
        "not free: {} of {} checks failed: {}",
        failed.len(),
        checks.len(),
        failed.join(", ")
    );
    // The one failure a user fixes in their own table: say which operators.
    if !evidence.every_operator_classified.held {
        v.push_str(" (");
        v.push_str(&evidence.every_operator_classified.observed);
        v.push(')');
    }
    v
}

/// `every_operator_classified` over the compared captures.
fn classified_check<'c>(
    captures: impl Iterator<Item = (&'c Capture, &'c Structure)>,
    families: &FamilyTable,
) -> Check {
    let mut named: Vec<String> = Vec::new();
    for (c, s) in captures {
        let unclassified = Census::from_structure(c, families, s).unclassified;
        if !unclassified.by_name.is_empty() {
            let ops: Vec<String> = unclassified
                .by_name
                .iter()
                .map(|(n, k)| format!("{n} ×{k}"))
                .collect();
            named.push(format!("{}: {}", c.label(), ops.join(", ")));
        }
    }
    let observed = if named.is_empty() {
        "every operator call belongs to a family".to_string()
    } else {
        format!(
            "unclassified operators in {}; classify it in the family table (a family's \
             `operators`, or --families FILE)",
            named.join("; ")
        )
    };
    check(named.is_empty(), PROVES_CLASSIFIED, observed)
}

fn concrete_difference(a: &BTreeMap<i64, u64>, b: &BTreeMap<i64, u64>) -> String {
    let keys: std::collections::BTreeSet<i64> = a.keys().chain(b.keys()).copied().collect();
    let diffs: Vec<String> = keys
        .into_iter()
        .filter_map(|k| {
            let (x, y) = (
                a.get(&k).copied().unwrap_or(0),
                b.get(&k).copied().unwrap_or(0),
            );
            (x != y).then(|| format!("{k}: {x} → {y}"))
        })
        .collect();
    let n = diffs.len();
    let mut shown: Vec<String> = diffs.into_iter().take(12).collect();
    if n > 12 {
        shown.push(format!("and {} more values", n - 12));
    }
    shown.join(", ")
}

fn op_count_diffs(a: &Capture, b: &Capture) -> Vec<OpCountDiff> {
    fn count(c: &Capture) -> BTreeMap<&str, u64> {
        let mut m: BTreeMap<&str, u64> = BTreeMap::new();
        for op in c.ops() {
            *m.entry(op.name()).or_insert(0) += 1;
        }
        m
    }
    let (ma, mb) = (count(a), count(b));
    let keys: std::collections::BTreeSet<&str> = ma.keys().chain(mb.keys()).copied().collect();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (
                ma.get(k).copied().unwrap_or(0),
                mb.get(k).copied().unwrap_or(0),
            );
            (x != y).then(|| OpCountDiff {
                op: k.to_string(),
                first: x,
                second: y,
            })
        })
        .collect()
}

fn collect_specialisations(c: &Capture, s: &Structure, out: &mut Vec<Specialisation>) {
    for (sym, n) in &s.step.solved {
        out.push(Specialisation {
            capture: c.label().to_string(),
            symbol: sym.clone(),
            value: *n,
            via: "replacement",
            reason: "step_axis",
            text: format!("{sym} → {n}"),
        });
    }
    for (sym, n) in &s.step.solved_to_hint {
        if !s.step.class.contains(sym) {
            out.push(Specialisation {
                capture: c.label().to_string(),
                symbol: sym.clone(),
                value: *n,
                via: "replacement",
                reason: "equals_hint",
                text: format!("{sym} → {n}"),
            });
        }
    }
    let mut toks = Vec::new();
    for (g, n) in &s.step.pinned {
        out.push(Specialisation {
            capture: c.label().to_string(),
            symbol: pinned_symbol(g, &mut toks),
            value: *n,
            via: "guard",
            reason: "step_axis",
            text: g.clone(),
        });
    }
    for g in &s.step.pinned_to_hint {
        if s.step.pinned.iter().any(|(p, _)| p == g) {
            continue;
        }
        out.push(Specialisation {
            capture: c.label().to_string(),
            symbol: pinned_symbol(g, &mut toks),
            value: hint_i64(c.step_hint()),
            via: "guard",
            reason: "equals_hint",
            text: g.clone(),
        });
    }
}

fn pinned_symbol<'a>(g: &'a str, toks: &mut Vec<Tok<'a>>) -> String {
    if expr::tokenize(g, toks).is_ok() {
        for i in 0..toks.len() {
            if expr::is_symbol(toks, i) {
                if let Tok::Ident(s) = toks[i] {
                    return s.to_string();
                }
            }
        }
    }
    String::new()
}

fn describe_replacements(c: &Capture, s: &Structure) -> String {
    let total = c.replacements().len();
    let unifications = c
        .replacements()
        .iter()
        .filter(|(_, r)| matches!(r, crate::Replacement::Expr(e) if expr::bare_symbol(e).is_some()))
        .count();
    let mut out =
        format!("{total} replacement(s), {unifications} of them symbol-to-symbol unifications");
    if !s.step.solved.is_empty() {
        let v: Vec<String> = s
            .step
            .solved
            .iter()
            .map(|(k, n)| format!("{k} → {n}"))
            .collect();
        out.push_str(&format!("; the step axis is solved: {}", v.join(", ")));
    }
    let others: Vec<String> = s
        .step
        .solved_to_hint
        .iter()
        .filter(|(k, _)| !s.step.class.contains(k))
        .map(|(k, n)| format!("{k} → {n}"))
        .collect();
    if !others.is_empty() {
        out.push_str(&format!(
            "; solved to the step's own width {}: {}",
            c.step_hint(),
            others.join(", ")
        ));
    }
    out
}

fn describe_pins(s: &Structure) -> String {
    let mut parts = Vec::new();
    if let Some((_, value)) = s.step.pinned.first() {
        let v: Vec<&str> = s.step.pinned.iter().map(|(g, _)| g.as_str()).collect();
        parts.push(format!(
            "guards admitting only {value} for the step axis over a size symbol's range \
             [2, ∞): {}",
            v.join(", ")
        ));
    }
    if !s.step.admits_nothing.is_empty() {
        parts.push(format!(
            "guards admitting no value of the step axis at all: {}",
            s.step.admits_nothing.join(", ")
        ));
    }
    let others: Vec<&str> = s
        .step
        .pinned_to_hint
        .iter()
        .filter(|g| !s.step.pinned.iter().any(|(p, _)| p == *g))
        .map(String::as_str)
        .collect();
    if !others.is_empty() {
        parts.push(format!(
            "guards admitting only the step's width for another symbol: {}",
            others.join(", ")
        ));
    }
    if parts.is_empty() {
        "the guards admit more than one value of every symbol".to_string()
    } else {
        parts.join("; ")
    }
}

// ---------------------------------------------------------------- guards

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum CSym {
    Step,
    Shape(u32),
    Guard(u32),
}

fn push_csym(s: &CSym, out: &mut String) {
    match s {
        CSym::Step => out.push_str("$STEP"),
        CSym::Shape(i) => {
            out.push('#');
            expr::push_int(out, i64::from(*i));
        }
        CSym::Guard(i) => {
            out.push_str("#g");
            expr::push_int(out, i64::from(*i));
        }
    }
}

struct CanonGuard {
    original: String,
    literal: String,
    relative: String,
    /// `lhs - rhs` for a linear relation in the step symbol alone: (coefficient,
    /// constant) with every literal kept, so the hint can be swapped later.
    step_only: Option<(RelOp, Linear<CSym>, Linear<CSym>)>,
    /// `symbol == hint`: one bare symbol equated with the capture's own hint.
    pins_to_hint: bool,
}

struct Namer<'s> {
    s: &'s Structure,
    guard_sets: HashMap<SetKey, u32>,
}

impl Namer<'_> {
    fn name(&mut self, sym: &str) -> CSym {
        if self.s.step.class.contains(sym) {
            return CSym::Step;
        }
        let members: HashSet<String> = self.s.unification.members(sym);
        if let Some(id) = members
            .iter()
            .filter_map(|m| self.s.symbol_ids.get(m).copied())
            .min()
        {
            return CSym::Shape(id);
        }
        let key = self.s.unification.set_of(sym);
        let next = self.guard_sets.len() as u32;
        CSym::Guard(*self.guard_sets.entry(key).or_insert(next))
    }
}

fn render_linear(l: &Linear<CSym>, hint: Option<i64>, out: &mut String) {
    l.render(out, push_csym, |v, out| {
        if Some(v) == hint {
            out.push_str("$HINT");
        } else {
            expr::push_int(out, v);
        }
    });
}

fn canon_guards(c: &Capture, s: &Structure) -> Vec<CanonGuard> {
    let hint = hint_i64(c.step_hint());
    let mut namer = Namer {
        s,
        guard_sets: HashMap::new(),
    };
    let mut toks = Vec::new();
    let mut out = Vec::new();
    for g in c.guards() {
        if expr::tokenize(g, &mut toks).is_err() {
            out.push(CanonGuard {
                original: g.clone(),
                literal: g.clone(),
                relative: g.clone(),
                step_only: None,
                pins_to_hint: false,
            });
            continue;
        }
        // Name symbols in textual order so guard-only numbering is by first appearance.
        let mut names: HashMap<&str, CSym> = HashMap::new();
        for i in 0..toks.len() {
            if expr::is_symbol(&toks, i) {
                if let Tok::Ident(sym) = toks[i] {
                    if !names.contains_key(sym) {
                        let n = namer.name(sym);
                        names.insert(sym, n);
                    }
                }
            }
        }
        let relation = expr::split_relation(&toks).and_then(|(l, op, r)| {
            let map = |lin: Linear<&str>| {
                Linear {
                    terms: lin
                        .terms
                        .into_iter()
                        .map(|(s, c)| (names[s].clone(), c))
                        .collect(),
                    constant: lin.constant,
                }
                .normalise()
            };
            Some((
                map(expr::parse_linear(l)?)?,
                op,
                map(expr::parse_linear(r)?)?,
            ))
        });
        let pins_to_hint = s.step.pinned_to_hint.contains(g);
        let (literal, relative, step_only) = match relation {
            Some((mut l, op, mut r)) => {
                let mut lt = String::new();
                let mut rt = String::new();
                render_linear(&l, None, &mut lt);
                render_linear(&r, None, &mut rt);
                if matches!(op, RelOp::Eq | RelOp::Ne) && lt > rt {
                    std::mem::swap(&mut l, &mut r);
                    std::mem::swap(&mut lt, &mut rt);
                }
                let literal = format!("{lt} {} {rt}", op.as_str());
                let (mut lr, mut rr) = (String::new(), String::new());
                render_linear(&l, Some(hint), &mut lr);
                render_linear(&r, Some(hint), &mut rr);
                let relative = format!("{lr} {} {rr}", op.as_str());
                let step_only = l
                    .terms
                    .iter()
                    .chain(r.terms.iter())
                    .all(|(k, _)| *k == CSym::Step)
                    .then_some((op, l, r));
                (literal, relative, step_only)
            }
            None => {
                let mut literal = String::new();
                expr::render_tokens(
                    &toks,
                    &mut literal,
                    |s, o| push_csym(&names[s], o),
                    |v, o| o.push_str(v),
                );
                let mut relative = String::new();
                expr::render_tokens(
                    &toks,
                    &mut relative,
                    |s, o| push_csym(&names[s], o),
                    |v, o| {
                        if v.parse::<i64>().ok() == Some(hint) {
                            o.push_str("$HINT");
                        } else {
                            o.push_str(v);
                        }
                    },
                );
                (literal, relative, None)
            }
        };
        out.push(CanonGuard {
            original: g.clone(),
            literal,
            relative,
            step_only,
            pins_to_hint,
        });
    }
    out
}

/// Whether a step-only relation, with the literal `own` read as `other`, holds for
/// every size-symbol value `x >= 2`.
fn vacuous_at(rel: &(RelOp, Linear<CSym>, Linear<CSym>), own: i64, other: i64) -> bool {
    // i128 throughout: the literals come from the input and must not overflow.
    let sub = |v: i64| i128::from(if v == own { other } else { v });
    let (op, l, r) = rel;
    let coef = |lin: &Linear<CSym>| lin.terms.iter().map(|(_, c)| sub(*c)).sum::<i128>();
    // f(x) = a*x + b, the relation is f(x) op 0 (lhs - rhs).
    let a = coef(l) - coef(r);
    let b = sub(l.constant) - sub(r.constant);
    let min = i128::from(SIZE_SYMBOL_MIN);
    let at_min = a * min + b;
    match op {
        RelOp::Lt => a <= 0 && at_min < 0,
        RelOp::Le => a <= 0 && at_min <= 0,
        RelOp::Eq => a == 0 && b == 0,
        RelOp::Ne => {
            if a == 0 {
                b != 0
            } else {
                (-b) % a != 0 || (-b) / a < min
            }
        }
    }
}

fn compare_guards(c1: &Capture, s1: &Structure, c2: &Capture, s2: &Structure) -> Vec<GuardRow> {
    let (h1, h2) = (hint_i64(c1.step_hint()), hint_i64(c2.step_hint()));
    let g1 = canon_guards(c1, s1);
    let g2 = canon_guards(c2, s2);
    let mut used2 = vec![false; g2.len()];
    let mut rows: Vec<(usize, GuardRow)> = Vec::new();
    let mut left1 = Vec::new();

    for (i, a) in g1.iter().enumerate() {
        if let Some(j) = (0..g2.len()).find(|&j| !used2[j] && g2[j].literal == a.literal) {
            used2[j] = true;
            rows.push((
                i,
                GuardRow {
                    first: Some(a.original.clone()),
                    second: Some(g2[j].original.clone()),
                    canonical: a.literal.clone(),
                    relation: GuardRelation::Identical,
                    note: format!("{} at both widths", a.literal),
                },
            ));
        } else {
            left1.push(i);
        }
    }
    let mut left1b = Vec::new();
    for i in left1 {
        let a = &g1[i];
        let found = a
            .relative
            .contains("$HINT")
            .then(|| (0..g2.len()).find(|&j| !used2[j] && g2[j].relative == a.relative));
        if let Some(Some(j)) = found {
            used2[j] = true;
            let (relation, note) = if a.pins_to_hint || g2[j].pins_to_hint {
                (
                    GuardRelation::PinnedToHint,
                    format!(
                        "{} at both widths ({} at width {h1}, {} at width {h2}): with the other \
                         guards it admits only its width's own hint, so the width was specialised",
                        a.relative, a.original, g2[j].original
                    ),
                )
            } else {
                (
                    GuardRelation::SameRelativeToHint,
                    format!(
                        "{} at both widths with each width's own hint ({} at width {h1}, {} at \
                         width {h2}): hint-dependent, not a difference in structure",
                        a.relative, a.original, g2[j].original
                    ),
                )
            };
            rows.push((
                i,
                GuardRow {
                    first: Some(a.original.clone()),
                    second: Some(g2[j].original.clone()),
                    canonical: a.relative.clone(),
                    relation,
                    note,
                },
            ));
        } else {
            left1b.push(i);
        }
    }
    let one_sided = |g: &CanonGuard, own: i64, other: i64, first: bool| -> GuardRow {
        let hint_dep = g.relative.contains("$HINT")
            && g.step_only
                .as_ref()
                .is_some_and(|rel| vacuous_at(rel, own, other));
        let (relation, note) = if hint_dep {
            (
                GuardRelation::HintDependent,
                format!(
                    "{} ({}) at width {own} only: it depends on the hint and is vacuous at width \
                     {other} for a size symbol (range [2, ∞)), so its absence there is not a \
                     difference in structure",
                    g.original, g.relative
                ),
            )
        } else {
            (
                GuardRelation::Differs,
                format!(
                    "{} ({}) at width {own} has no counterpart at width {other}",
                    g.original, g.literal
                ),
            )
        };
        GuardRow {
            first: first.then(|| g.original.clone()),
            second: (!first).then(|| g.original.clone()),
            canonical: g.literal.clone(),
            relation,
            note,
        }
    };
    for i in left1b {
        rows.push((i, one_sided(&g1[i], h1, h2, true)));
    }
    rows.sort_by_key(|(i, _)| *i);
    let mut out: Vec<GuardRow> = rows.into_iter().map(|(_, r)| r).collect();
    for (j, b) in g2.iter().enumerate() {
        if !used2[j] {
            out.push(one_sided(b, h2, h1, false));
        }
    }
    out
}
