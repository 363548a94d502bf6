//! Scaling (seed 003): trials documents and the correlation across trials.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use opguard_formats::ReadOptions;
use opguard_model::ModelOptions;
use opguard_scaling::{correlate, ScalingReport, TrialCosts, TrialsDocument};

use crate::sandbox::{is_below, scratch, write_traces};
use crate::trace::fuzz_options;

/// A trials document and up to three traces, split at `0xFF` bytes. The
/// document is read with `TrialsDocument::from_json` against a scratch
/// directory holding the traces (`t0.json`, ...) and seed 003's three
/// captures (`t1.json.gz`, ...); when every trace path stays inside it, the
/// trials run. A report is checked as [`scaling_correlation`] checks one
/// (ranges, Benjamini–Hochberg, one place per series).
pub fn scaling_trials(data: &[u8]) {
    let mut parts = data.split(|&b| b == 0xFF);
    let doc_bytes = parts.next().unwrap_or_default();
    let traces: Vec<&[u8]> = parts.take(3).collect();
    let dir = scratch(
        "scaling",
        &[
            "scaling/seed003/t1.json.gz",
            "scaling/seed003/t2.json.gz",
            "scaling/seed003/t3.json.gz",
        ],
    );
    let Ok(doc) = TrialsDocument::from_json(doc_bytes, &dir, "trials") else {
        return;
    };
    if !doc
        .trials
        .iter()
        .flat_map(|t| &t.traces)
        .all(|p| is_below(p, &dir))
    {
        return;
    }
    write_traces(&dir, &traces, 3);
    let options = ReadOptions::new(ModelOptions::new()).reader(fuzz_options());
    if let Ok(report) = opguard_scaling::run_trials(&doc, None, &options) {
        check_report_shape(&report);
    }
}

/// One generated trial: which of four frames it has and their costs.
#[derive(Debug, Arbitrary)]
struct GenTrial {
    id: u8,
    variant: bool,
    input: GenInput,
    build: Option<bool>,
    frames: [Option<GenCost>; 4],
}

#[derive(Debug, Arbitrary)]
enum GenInput {
    Small(i8),
    Float(f64),
    Half(i16),
}

#[derive(Debug, Arbitrary)]
enum GenCost {
    Small(u8),
    Any(i64),
}

/// Frame ids 0 and 1 share a description (the same operator, two ids: an
/// identity split); 2 and 3 are their own.
const FRAMES: [(&str, &str); 4] = [
    ("sf2:aaaa", "aten::mm"),
    ("sf2:bbbb", "aten::mm"),
    ("sf2:cccc", "aten::add"),
    ("sf2:dddd", "reverse_scan"),
];

/// Generated per-trial costs through `correlate`, against a referee written
/// here: every series (variant, frame, build) is in exactly one place —
/// `insufficient` (fewer than 3 trials, or fewer than 2 distinct inputs),
/// `not_correlatable` (constant cost), a hotspot, or, when short because
/// another id carries the same operator, `unmatched`; a hotspot's rho is
/// Spearman's (average ranks) within 1e-9, its p-value in [0, 1], its
/// adjusted p-value Benjamini–Hochberg's over every tested series; supported
/// ranges and trial lists follow the inputs; and the report does not depend
/// on the order of the trials.
pub fn scaling_correlation(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(trials) = u.arbitrary::<Vec<GenTrial>>() else {
        return;
    };
    let costs: Vec<TrialCosts> = trials.iter().take(12).filter_map(trial_costs).collect();
    let report = correlate(&costs);
    let mut reversed = costs.clone();
    reversed.reverse();
    let again = correlate(&reversed);
    let Ok(report) = report else {
        assert!(again.is_err(), "refused in one order only");
        return;
    };
    let again = again.expect("accepted in one order only");
    check_report_shape(&report);
    check_against_referee(&costs, &report);
    assert_eq!(
        series_numbers(&report),
        series_numbers(&again),
        "the report depends on the order of the trials"
    );
}

fn trial_costs(t: &GenTrial) -> Option<TrialCosts> {
    let input = match t.input {
        GenInput::Small(v) => f64::from(v),
        GenInput::Float(v) if v.is_finite() => v,
        GenInput::Float(_) => return None,
        GenInput::Half(v) => f64::from(v) / 2.0,
    };
    let frames: Vec<serde_json::Value> = t
        .frames
        .iter()
        .zip(FRAMES)
        .filter_map(|(cost, (id, name))| {
            let value = match cost.as_ref()? {
                GenCost::Small(v) => i64::from(*v % 4),
                GenCost::Any(v) => *v,
            };
            Some(serde_json::json!({
                "semantic_frame_id": id, "name": name, "category": "cpu_op",
                "file": null, "line": null, "value": value, "occurrences": 1,
                "first_occurrence": "x:0",
            }))
        })
        .collect();
    let trial = serde_json::json!({
        "trial_id": format!("t{}", t.id % 16),
        "variant": if t.variant { "a" } else { "b" },
        "input": input,
        "metric": "inclusive_ns",
        "unit": "ns",
        "build_id": t.build.map(|b| if b { "b1" } else { "b2" }),
        "source_state": null,
        "artifacts": [],
        "frames": frames,
        "unmatched": [],
    });
    Some(serde_json::from_value(trial).expect("a generated trial reads"))
}

type SeriesKey = (String, String, Option<String>);

fn key_of(s: &opguard_scaling::SeriesInfo) -> SeriesKey {
    (
        s.variant.clone(),
        s.semantic_frame_id.clone(),
        s.build_id.clone(),
    )
}

/// Per series: its place and its numbers, bit for bit.
fn series_numbers(r: &ScalingReport) -> BTreeMap<SeriesKey, String> {
    let mut out = BTreeMap::new();
    for h in &r.hotspots {
        let numbers = format!(
            "hotspot {:?} {:?} {:?} {} {} {:?} {:?}",
            h.spearman_rho.to_bits(),
            h.p_value.to_bits(),
            h.adjusted_p_value.to_bits(),
            h.tested_hypothesis_count,
            h.independent_trial_count,
            h.supported_min.to_bits(),
            h.supported_max.to_bits()
        );
        out.insert(key_of(&h.series), numbers);
    }
    for i in &r.insufficient {
        out.insert(
            key_of(&i.series),
            format!("insufficient {:?} {:?}", i.reason, i.trial_ids),
        );
    }
    for n in &r.not_correlatable {
        out.insert(key_of(&n.series), format!("constant {:?}", n.trial_ids));
    }
    let mut unmatched: Vec<String> = r.unmatched.iter().map(|u| format!("{u:?}")).collect();
    unmatched.sort();
    out.insert(("".into(), "unmatched".into(), None), unmatched.join("\n"));
    out
}

/// What holds of any report: ranges, the adjustment, one place per series.
fn check_report_shape(r: &ScalingReport) {
    let m = r.hotspots.len();
    let mut by_p: Vec<(f64, f64)> = r
        .hotspots
        .iter()
        .map(|h| (h.p_value, h.adjusted_p_value))
        .collect();
    for h in &r.hotspots {
        assert!(
            (-1.0..=1.0).contains(&h.spearman_rho),
            "rho {}",
            h.spearman_rho
        );
        assert!((0.0..=1.0).contains(&h.p_value), "p {}", h.p_value);
        // `p * m / m` may round an ulp below `p` (scipy's
        // `false_discovery_control` computes the same way).
        assert!(
            h.adjusted_p_value >= h.p_value * (1.0 - 1e-12) && h.adjusted_p_value <= 1.0,
            "adjusted {} for p {}",
            h.adjusted_p_value,
            h.p_value
        );
        assert_eq!(h.tested_hypothesis_count, m);
        assert!(h.independent_trial_count >= opguard_scaling::MIN_SAMPLES);
        assert!(
            h.supported_min < h.supported_max,
            "a hotspot over one input"
        );
    }
    // Benjamini–Hochberg: adjusted(i) = min over j at or after i (by p) of
    // p(j) * m / rank(j), capped at 1.
    by_p.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut running = f64::INFINITY;
    for (rank, &(p, adjusted)) in by_p.iter().enumerate().rev() {
        running = running.min(p * m as f64 / (rank + 1) as f64);
        let want = running.min(1.0);
        assert!(
            (adjusted - want).abs() <= 1e-12 * want.max(1e-300),
            "BH: p {p} adjusted to {adjusted}, want {want}"
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    let keys = r
        .hotspots
        .iter()
        .map(|h| &h.series)
        .chain(r.insufficient.iter().map(|i| &i.series))
        .chain(r.not_correlatable.iter().map(|n| &n.series));
    for s in keys {
        assert!(seen.insert(s.clone()), "series {s:?} in two places");
    }
}

/// Average ranks (ties share the mean of their positions), 1-based.
fn average_ranks<T: PartialOrd + Copy>(values: &[T]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].partial_cmp(&values[b]).expect("ordered"));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = rank;
        }
        i = j + 1;
    }
    ranks
}

fn referee_rho(xs: &[f64], ys: &[i64]) -> Option<f64> {
    let (rx, ry) = (average_ranks(xs), average_ranks(ys));
    let n = rx.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mean) * (b - mean);
        sxx += (a - mean) * (a - mean);
        syy += (b - mean) * (b - mean);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

fn check_against_referee(trials: &[TrialCosts], r: &ScalingReport) {
    // (variant, id, build) -> [(input, trial id, value)]
    let mut series: BTreeMap<SeriesKey, Vec<(f64, String, i64)>> = BTreeMap::new();
    for t in trials {
        for f in &t.frames {
            series
                .entry((
                    t.variant.clone(),
                    f.semantic_frame_id.clone(),
                    t.build_id.clone(),
                ))
                .or_default()
                .push((t.input, t.trial_id.clone(), f.value));
        }
    }
    let placed = series_numbers(r);
    let name = |id: &str| FRAMES.iter().find(|f| f.0 == id).map(|f| f.1);
    for (key, mut samples) in series {
        samples.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let n = samples.len();
        let mut distinct: Vec<f64> = samples.iter().map(|s| s.0).collect();
        distinct.dedup();
        let ids: Vec<String> = samples.iter().map(|s| s.1.clone()).collect();
        let place = placed.get(&key);
        if n < opguard_scaling::MIN_SAMPLES {
            // Short, and another id of the same operator has a series: an
            // identity split, reported per sample as unmatched.
            let split = trials.iter().any(|t| {
                t.variant == key.0
                    && t.build_id == key.2
                    && t.frames.iter().any(|f| {
                        f.semantic_frame_id != key.1 && name(&f.semantic_frame_id) == name(&key.1)
                    })
            });
            if split {
                assert!(place.is_none(), "split series {key:?} placed: {place:?}");
            } else {
                assert_eq!(
                    place.map(String::as_str),
                    Some(format!("insufficient FewerThan3Samples {ids:?}").as_str()),
                    "{key:?}"
                );
            }
            continue;
        }
        if distinct.len() < opguard_scaling::MIN_DISTINCT_INPUTS {
            assert_eq!(
                place.map(String::as_str),
                Some(format!("insufficient FewerThan2DistinctInputs {ids:?}").as_str()),
                "{key:?}"
            );
            continue;
        }
        let xs: Vec<f64> = samples.iter().map(|s| s.0).collect();
        let ys: Vec<i64> = samples.iter().map(|s| s.2).collect();
        match referee_rho(&xs, &ys) {
            None => assert_eq!(
                place.map(String::as_str),
                Some(format!("constant {ids:?}").as_str()),
                "{key:?}"
            ),
            Some(rho) => {
                let h = r
                    .hotspots
                    .iter()
                    .find(|h| key_of(&h.series) == key)
                    .unwrap_or_else(|| panic!("series {key:?} (rho {rho}) not tested: {place:?}"));
                assert!(
                    (h.spearman_rho - rho).abs() <= 1e-9,
                    "{key:?}: rho {} against the referee's {rho}",
                    h.spearman_rho
                );
                assert_eq!(h.independent_trial_count, n);
                assert_eq!((h.supported_min, h.supported_max), (xs[0], xs[n - 1]));
            }
        }
    }
}
