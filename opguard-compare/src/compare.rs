//! Analysis, across runs: two sides' samples → per entity the two
//! distributions, a two-sided Mann–Whitney test, the Hodges–Lehmann ratio
//! with its interval, Benjamini–Hochberg over everything tested, a
//! verdict; then the gate.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use opguard_stats::{
    benjamini_hochberg, hodges_lehmann, hodges_lehmann_ratio, mann_whitney_min_p, mann_whitney_u,
    median,
};

use crate::entity::{Cost, EntityKey};
use crate::error::{Error, ErrorKind};
use crate::options::CompareOptions;
use crate::report::{
    Comparison, Distribution, EntityComparison, Gate, GateStatus, RatioInterval, SampleUnit,
    Settings, Side, Verdict, COMPARE_FORMAT,
};
use crate::samples::{RunSamples, Sample};

/// Compares the runs of `baseline` with those of `candidate`.
///
/// Samples are steps when every run marks steps (or
/// [`CompareOptions::step`] names them), else whole runs. Each entity's
/// time per sample (0 where it did not run) is tested two-sided with
/// Mann–Whitney U, exactly for small samples; p-values are adjusted with
/// Benjamini–Hochberg over every entity and total tested. An entity is
/// `regressed` or `improved` when its adjusted p-value is at most the FDR,
/// by the direction of its medians; `insufficient` when the samples could
/// never reach the FDR (one per side, or so few that the smallest p-value
/// the test can give is above it — then nothing is tested, and the gate is
/// `undecided`). The gate fails when something regressed with a ratio of
/// medians above `1 + fail_above`.
///
/// Errors: a side without runs, a setting out of range, one artifact given
/// twice on one side (its samples would count twice).
pub fn compare(
    baseline: &[RunSamples],
    candidate: &[RunSamples],
    options: &CompareOptions,
) -> Result<Comparison, Error> {
    options.check()?;
    for (side, runs) in [("baseline", baseline), ("candidate", candidate)] {
        if runs.is_empty() {
            return Err(ErrorKind::NoRuns { side }.into());
        }
        let mut seen = BTreeSet::new();
        for r in runs {
            if !r.run.artifact.is_empty() && !seen.insert(&r.run.artifact) {
                return Err(ErrorKind::ArtifactReused {
                    side,
                    file: r.run.file.clone(),
                    artifact: r.run.artifact.clone(),
                }
                .into());
            }
        }
    }
    let (unit, unit_reason) = sample_unit(baseline, candidate, options);
    let base = side_samples(baseline, unit);
    let cand = side_samples(candidate, unit);
    let mut names: BTreeMap<&EntityKey, &str> = BTreeMap::new();
    for run in baseline.iter().chain(candidate) {
        for (key, name) in &run.names {
            names.entry(key).or_insert(name);
        }
    }
    let keys: BTreeSet<&EntityKey> = base
        .iter()
        .chain(&cand)
        .flat_map(|s| s.costs.keys())
        .collect();
    let sizes = (base.len(), cand.len());
    let insufficient = insufficiency(sizes, unit, options.fdr);
    let shown = display_names(&keys, &names);
    let mut all: Vec<EntityComparison> = keys
        .into_iter()
        .zip(shown)
        .map(|(key, name)| entity(key, name, &base, &cand, insufficient.as_deref(), options))
        .collect();
    // Benjamini–Hochberg over everything tested.
    let tested: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].p_value.is_some())
        .collect();
    let p_values: Vec<f64> = tested.iter().filter_map(|&i| all[i].p_value).collect();
    for (&i, q) in tested.iter().zip(benjamini_hochberg(&p_values)) {
        decide(&mut all[i], q, &base, &cand, options);
    }
    let (mut totals, mut entities): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|e| e.kind.is_total());
    totals.sort_by(|a, b| (a.kind, &a.key).cmp(&(b.kind, &b.key)));
    entities.sort_by(order);
    let mut gate = gate(
        &totals,
        &entities,
        tested.len(),
        options,
        insufficient.as_deref(),
    );
    // Caveats qualify verdicts: with nothing tested there are none.
    if !tested.is_empty() {
        gate.caveats = caveats(unit, (baseline.len(), candidate.len()), &entities);
    }
    if gate.status == GateStatus::Passed {
        if let Some(low_power) = low_power(sizes, tested.len(), options.fdr) {
            gate.caveats.push(low_power);
        }
    }
    let unmatched = baseline
        .iter()
        .map(|r| ("baseline", r))
        .chain(candidate.iter().map(|r| ("candidate", r)))
        .flat_map(|(side, r)| {
            r.unmatched.iter().map(move |u| {
                let mut u = u.clone();
                u.side = side.to_owned();
                u
            })
        })
        .collect();
    Ok(Comparison {
        format: COMPARE_FORMAT.to_owned(),
        settings: Settings {
            fail_above: options.fail_above,
            fdr: options.fdr,
            confidence: options.confidence,
            step: options.step.clone(),
            python_frames: options.python_frames,
            test: "mann_whitney_u".into(),
            interval: "hodges_lehmann_ratio".into(),
        },
        sample_unit: unit,
        sample_unit_reason: unit_reason,
        baseline: side(baseline, &base),
        candidate: side(candidate, &cand),
        tested: tested.len(),
        gate,
        totals,
        entities,
        unmatched,
    })
}

/// Each key's display name, in order: its short name, or its key when two
/// entities of one kind would show the same name (two instantiations of
/// one kernel template are both `gemm` by short name).
fn display_names(keys: &BTreeSet<&EntityKey>, names: &BTreeMap<&EntityKey, &str>) -> Vec<String> {
    fn name<'a>(names: &BTreeMap<&EntityKey, &'a str>, key: &'a EntityKey) -> &'a str {
        names.get(key).copied().unwrap_or(&key.key)
    }
    let mut uses: BTreeMap<(crate::entity::EntityKind, &str), usize> = BTreeMap::new();
    for key in keys {
        *uses.entry((key.kind, name(names, key))).or_default() += 1;
    }
    keys.iter()
        .map(|key| {
            let shown = name(names, key);
            if uses[&(key.kind, shown)] > 1 && key.kind.is_device() {
                key.key.clone()
            } else {
                shown.to_owned()
            }
        })
        .collect()
}

/// Steps when every run marks them, else runs (with the reason).
fn sample_unit(
    baseline: &[RunSamples],
    candidate: &[RunSamples],
    options: &CompareOptions,
) -> (SampleUnit, String) {
    let runs = || baseline.iter().chain(candidate);
    if let Some(step) = &options.step {
        return (
            SampleUnit::Step,
            format!("every trace marks the step range {step:?}"),
        );
    }
    match runs().find(|r| r.steps.is_empty()) {
        Some(r) => (
            SampleUnit::Run,
            format!(
                "{} marks no steps (no ProfilerStep#N and no range named step; --step NAME \
                 names another range): each run is one sample",
                r.run.file
            ),
        ),
        None => (
            SampleUnit::Step,
            "every trace marks steps: each step is one sample".to_owned(),
        ),
    }
}

fn side_samples(runs: &[RunSamples], unit: SampleUnit) -> Vec<&Sample> {
    runs.iter()
        .flat_map(|r| match unit {
            SampleUnit::Step => r.steps.iter().collect::<Vec<_>>(),
            SampleUnit::Run => vec![&r.whole],
        })
        .collect()
}

fn side(runs: &[RunSamples], samples: &[&Sample]) -> Side {
    let sorted = |f: fn(&RunSamples) -> &str| -> Vec<String> {
        let set: BTreeSet<&str> = runs.iter().map(f).collect();
        set.into_iter().map(str::to_owned).collect()
    };
    Side {
        runs: runs.iter().map(|r| r.run.clone()).collect(),
        providers: sorted(|r| &r.run.provider),
        formats: sorted(|r| &r.run.format),
        samples: samples.iter().map(|s| s.label.clone()).collect(),
    }
}

/// Why nothing can be tested with these sample counts, if so.
fn insufficiency((n_b, n_c): (usize, usize), unit: SampleUnit, fdr: f64) -> Option<String> {
    let unit = match unit {
        SampleUnit::Step => "step",
        SampleUnit::Run => "run",
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let counts = format!(
        "{n_b} baseline {unit}{} and {n_c} candidate {unit}{}",
        plural(n_b),
        plural(n_c)
    );
    if n_b < 2 || n_c < 2 {
        return Some(format!(
            "{counts}: one sample on a side is never evidence of a change; a test needs at \
             least 2 on each side"
        ));
    }
    let min_p = mann_whitney_min_p(n_b, n_c);
    (min_p > fdr).then(|| {
        format!(
            "{counts}: the smallest p-value the test can give is {}, above the FDR {fdr}; \
             more steps or runs are needed",
            short(min_p)
        )
    })
}

fn short(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn values(samples: &[&Sample], key: &EntityKey) -> (Vec<i64>, u64, bool) {
    let mut present = false;
    let mut calls = 0;
    let ns = samples
        .iter()
        .map(|s| match s.costs.get(key) {
            Some(Cost { ns, calls: c }) => {
                present = true;
                calls += c;
                *ns
            }
            None => 0,
        })
        .collect();
    (ns, calls, present)
}

fn floats(v: &[i64]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

fn distribution(ns: Vec<i64>, calls: u64) -> Distribution {
    Distribution {
        median_ns: median(&floats(&ns)),
        samples_ns: ns,
        calls,
    }
}

/// One entity before Benjamini–Hochberg: its distributions, ratio,
/// interval and p-value, or a verdict that needs no test.
fn entity(
    key: &EntityKey,
    name: String,
    base: &[&Sample],
    cand: &[&Sample],
    insufficient: Option<&str>,
    options: &CompareOptions,
) -> EntityComparison {
    let (b, b_calls, in_base) = values(base, key);
    let (c, c_calls, in_cand) = values(cand, key);
    let (bf, cf) = (floats(&b), floats(&c));
    let (baseline, candidate) = (distribution(b, b_calls), distribution(c, c_calls));
    let ratio = match (baseline.median_ns, candidate.median_ns) {
        (Some(mb), Some(mc)) if mb > 0.0 => Some(mc / mb),
        _ => None,
    };
    let mut out = EntityComparison {
        kind: key.kind,
        key: key.key.clone(),
        name,
        verdict: Verdict::Unchanged,
        why: None,
        baseline,
        candidate,
        ratio,
        ratio_interval: None,
        interval_note: None,
        p_value: None,
        q_value: None,
        test: None,
        fails_gate: false,
    };
    match (in_base, in_cand) {
        // A ratio to or of no time is no ratio.
        (true, false) => {
            out.ratio = None;
            out.verdict = Verdict::OnlyInBaseline;
            out.why = Some("not in any candidate sample".into());
            return out;
        }
        (false, true) => {
            out.ratio = None;
            out.verdict = Verdict::OnlyInCandidate;
            out.why = Some("not in any baseline sample".into());
            return out;
        }
        _ => {}
    }
    if let Some(why) = insufficient {
        out.verdict = Verdict::Insufficient;
        out.why = Some(why.to_owned());
        return out;
    }
    if let Some(test) = mann_whitney_u(&bf, &cf, None) {
        out.p_value = Some(test.p_value);
        out.test = Some(test.method);
    }
    match hodges_lehmann_ratio(&bf, &cf, options.confidence) {
        Some(shift) => match (shift.interval, shift.achieved_confidence) {
            (Some((low, high)), Some(confidence)) => {
                out.ratio_interval = Some(RatioInterval {
                    estimate: shift.estimate,
                    low,
                    high,
                    confidence,
                })
            }
            _ => {
                out.interval_note = Some(format!(
                    "{} against {} samples cannot reach {} confidence",
                    bf.len(),
                    cf.len(),
                    options.confidence
                ))
            }
        },
        None => {
            out.interval_note = Some(
                "a sample is 0 ns (it did not run in every sample): a ratio to no time has \
                 no interval"
                    .into(),
            )
        }
    }
    out
}

/// The verdict of a tested entity from its adjusted p-value `q`.
fn decide(
    e: &mut EntityComparison,
    q: f64,
    base: &[&Sample],
    cand: &[&Sample],
    options: &CompareOptions,
) {
    e.q_value = Some(q);
    if q > options.fdr {
        e.verdict = Verdict::Unchanged;
        return;
    }
    let direction = match (e.baseline.median_ns, e.candidate.median_ns) {
        (Some(b), Some(c)) if b != c => b.partial_cmp(&c),
        // Equal medians, yet the distributions differ: the direction of
        // the shift of every pair.
        _ => {
            let key = EntityKey::new(e.kind, e.key.clone());
            let (b, _, _) = values(base, &key);
            let (c, _, _) = values(cand, &key);
            hodges_lehmann(&floats(&b), &floats(&c), options.confidence)
                .and_then(|s| 0.0_f64.partial_cmp(&s.estimate))
        }
    };
    e.verdict = match direction {
        Some(Ordering::Less) => Verdict::Regressed,
        Some(Ordering::Greater) => Verdict::Improved,
        _ => Verdict::Unchanged,
    };
    if e.verdict == Verdict::Regressed {
        e.fails_gate = match e.ratio {
            Some(r) => r > 1.0 + options.fail_above,
            // A baseline median of 0: no finite ratio, any time is beyond.
            None => e.candidate.median_ns.is_some_and(|c| c > 0.0),
        };
    }
}

/// Regressions first (those failing the gate first, the largest ratio
/// first), then by verdict, then the larger median first.
fn order(a: &EntityComparison, b: &EntityComparison) -> Ordering {
    let size = |e: &EntityComparison| {
        e.baseline
            .median_ns
            .unwrap_or(0.0)
            .max(e.candidate.median_ns.unwrap_or(0.0))
    };
    a.verdict
        .cmp(&b.verdict)
        .then(b.fails_gate.cmp(&a.fails_gate))
        .then_with(|| match a.verdict {
            Verdict::Regressed | Verdict::Improved => {
                let r = |e: &EntityComparison| e.ratio.unwrap_or(f64::INFINITY);
                let by = r(b).total_cmp(&r(a));
                if a.verdict == Verdict::Improved {
                    by.reverse()
                } else {
                    by
                }
            }
            _ => Ordering::Equal,
        })
        .then_with(|| size(b).total_cmp(&size(a)))
        .then_with(|| (a.kind, &a.key).cmp(&(b.kind, &b.key)))
}

fn gate(
    totals: &[EntityComparison],
    entities: &[EntityComparison],
    tested: usize,
    options: &CompareOptions,
    insufficient_why: Option<&str>,
) -> Gate {
    let all = || totals.iter().chain(entities);
    let count = |v: Verdict| all().filter(|e| e.verdict == v).count();
    // What regressed first (the kernels and operations, worst first), then
    // the totals that moved with them: the totals say how much the job
    // lost, the entities say where.
    let mut failing: Vec<&EntityComparison> = entities.iter().filter(|e| e.fails_gate).collect();
    failing.sort_by(|a, b| order(a, b));
    let mut failing_totals: Vec<&EntityComparison> =
        totals.iter().filter(|e| e.fails_gate).collect();
    failing_totals.sort_by(|a, b| order(a, b));
    failing.extend(failing_totals);
    let regressed_within_threshold = all()
        .filter(|e| e.verdict == Verdict::Regressed && !e.fails_gate)
        .count();
    let (improved, insufficient) = (count(Verdict::Improved), count(Verdict::Insufficient));
    let (only_b, only_c) = (
        count(Verdict::OnlyInBaseline),
        count(Verdict::OnlyInCandidate),
    );
    let threshold = format!(
        "beyond {}% at FDR {}",
        short(options.fail_above * 100.0),
        options.fdr
    );
    let status = if !failing.is_empty() {
        GateStatus::Failed
    } else if tested == 0 {
        GateStatus::Undecided
    } else {
        GateStatus::Passed
    };
    let mut extras = Vec::new();
    if regressed_within_threshold > 0 {
        extras.push(format!(
            "{regressed_within_threshold} regressed within the threshold"
        ));
    }
    if improved > 0 {
        extras.push(format!("{improved} improved"));
    }
    if insufficient > 0 {
        extras.push(format!("{insufficient} insufficient"));
    }
    if only_b > 0 {
        extras.push(format!("{only_b} only in the baseline"));
    }
    if only_c > 0 {
        extras.push(format!("{only_c} only in the candidate"));
    }
    let extras = if extras.is_empty() {
        String::new()
    } else {
        format!(" ({})", extras.join(", "))
    };
    let message = match status {
        GateStatus::Failed => {
            let worst: Vec<String> = failing
                .iter()
                .take(3)
                .map(|e| {
                    let ratio = e
                        .ratio
                        .map_or_else(|| "new time".to_owned(), |r| format!("{r:.3}x"));
                    format!("{} {ratio}", e.name)
                })
                .collect();
            format!(
                "failed: {} regressed {threshold}: {}{}{extras}",
                failing.len(),
                worst.join(", "),
                if failing.len() > 3 { ", ..." } else { "" }
            )
        }
        GateStatus::Passed => {
            format!("passed: {tested} tested, none regressed {threshold}{extras}")
        }
        GateStatus::Undecided => format!(
            "undecided: nothing could be tested ({}); the gate does not guess{extras}",
            insufficient_why.unwrap_or("no entity on both sides")
        ),
    };
    Gate {
        status,
        failing: failing.iter().map(|e| e.name.clone()).collect(),
        regressed_within_threshold,
        improved,
        insufficient,
        only_in_baseline: only_b,
        only_in_candidate: only_c,
        message,
        caveats: Vec::new(),
    }
}

/// When one regression alone could never be found: Benjamini–Hochberg
/// adjusts the smallest p-value the samples can give by the number of
/// hypotheses, and above the FDR a lone change passes unseen (several
/// changing together still can be found).
fn low_power((n_b, n_c): (usize, usize), tested: usize, fdr: f64) -> Option<String> {
    if tested == 0 {
        return None;
    }
    let min_p = mann_whitney_min_p(n_b, n_c);
    let lone = min_p * tested as f64;
    (lone > fdr).then(|| {
        format!(
            "low_power: with {n_b} against {n_c} samples the smallest p-value is {}, and over \
             {tested} tested a lone regression's adjusted p-value is at least {} (above the FDR \
             {fdr}): a pass is weak evidence; more steps or runs find one",
            short(min_p),
            short(lone.min(1.0))
        )
    })
}

/// Entities tested at or above which a shift of most of them in one
/// direction is called out.
const BROAD_SHIFT_MIN_TESTED: usize = 5;

/// What the verdicts cannot tell apart, said next to them: steps of one
/// run share that run's machine (load, clock, caches), so with one run a
/// side a drift of the whole run is indistinguishable from a change; and
/// most entities moving one way at once looks like such a drift.
fn caveats(
    unit: SampleUnit,
    (base_runs, cand_runs): (usize, usize),
    entities: &[EntityComparison],
) -> Vec<String> {
    let mut out = Vec::new();
    if unit == SampleUnit::Step && (base_runs == 1 || cand_runs == 1) {
        out.push(format!(
            "single_run: {} one run, and the steps of a run share its machine's state (load, \
             clock, caches): a drift of the whole run reads as a change of everything it ran; \
             several runs a side tell a change from a drift",
            if base_runs == 1 && cand_runs == 1 {
                "each side is"
            } else if base_runs == 1 {
                "the baseline is"
            } else {
                "the candidate is"
            }
        ));
    }
    let tested = entities.iter().filter(|e| e.q_value.is_some()).count();
    let regressed = entities
        .iter()
        .filter(|e| e.verdict == Verdict::Regressed)
        .count();
    let improved = entities
        .iter()
        .filter(|e| e.verdict == Verdict::Improved)
        .count();
    for (moved, way) in [(regressed, "slower"), (improved, "faster")] {
        if tested >= BROAD_SHIFT_MIN_TESTED && 2 * moved > tested {
            out.push(format!(
                "broad_shift: {moved} of {tested} tested entities are significantly {way}: a \
                 change rarely touches most of a program at once, a machine slower or faster \
                 for the whole run does"
            ));
        }
    }
    out
}
