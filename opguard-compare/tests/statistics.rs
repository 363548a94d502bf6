//! The statistics under simulation: runs drawn from a known noise model,
//! compared as the gate compares them.

use opguard_compare::{compare, CompareOptions, GateStatus, Verdict};

use crate::support::{simulated_run, workload, Rng};

/// A/A: both sides drawn from one noise model (20 kernels, 8 steps a side,
/// ±5% uniform noise per kernel per step), 2,000 times. With the ratio
/// threshold at 0 the gate is the statistics alone: it fails exactly when
/// Benjamini–Hochberg at FDR 0.05 finds a regression, which under the
/// global null happens in at most 5% of draws (and since only regressions
/// fail it, about half of that). 2,000 draws tell 5% from 10%: the
/// standard error at 5% is 0.49 points, so the bound of 6.5% is three
/// standard errors above 5% and seven below 10%.
#[test]
fn a_against_a_fails_the_gate_at_most_at_the_fdr() {
    const DRAWS: usize = 2_000;
    let kernels = workload(20);
    let options = CompareOptions::new().fail_above(0.0).fdr(0.05);
    let mut rng = Rng::new(0x5eed_a0a0);
    let (mut failed, mut false_regressions, mut undecided) = (0, 0, 0);
    for _ in 0..DRAWS {
        let base = simulated_run(&mut rng, "a.json", &kernels, 8, 0.05, None);
        let cand = simulated_run(&mut rng, "b.json", &kernels, 8, 0.05, None);
        let c = compare(&[base], &[cand], &options).expect("comparable");
        assert_eq!(c.tested, 20);
        match c.gate.status {
            GateStatus::Failed => failed += 1,
            GateStatus::Undecided => undecided += 1,
            GateStatus::Passed => {}
        }
        false_regressions += c
            .entities
            .iter()
            .filter(|e| e.verdict == Verdict::Regressed)
            .count();
    }
    let rate = failed as f64 / DRAWS as f64;
    eprintln!(
        "A/A: {failed} of {DRAWS} gates failed ({:.2}%), {false_regressions} false regressions \
         among {} entity tests",
        rate * 100.0,
        DRAWS * 20
    );
    assert_eq!(undecided, 0, "8 against 8 steps can always be tested");
    assert!(
        rate <= 0.065,
        "A/A gates failed in {:.2}% of draws, above the FDR 5%",
        rate * 100.0
    );
    // And the gate is not simply shut: with the default threshold of 5%
    // the same draws pass, and with noise this small the test has power
    // (the next test), so a rate near 0 here is not a gate that never
    // fails.
}

/// One kernel of twenty 20% slower over 8 steps of ±5% noise: found,
/// named, first among the failures, in every one of 500 draws; anything
/// else flagged (a false discovery, which BH at 5% allows) stays within
/// the FDR's share of discoveries. The 95% ratio interval always excludes 1 and
/// holds the true 1.2 about 95% of the time.
#[test]
fn a_twenty_percent_slowdown_is_found_and_nothing_else() {
    let kernels = workload(20);
    let options = CompareOptions::new();
    const DRAWS: usize = 500;
    let mut rng = Rng::new(0x5eed_0020);
    let (mut other_discoveries, mut other_gates, mut covered) = (0, 0, 0);
    let mut false_discovery_proportion = 0.0;
    for draw in 0..DRAWS {
        let base = simulated_run(&mut rng, "base.json", &kernels, 8, 0.05, None);
        let cand = simulated_run(&mut rng, "test.json", &kernels, 8, 0.05, Some((7, 1.2)));
        let c = compare(&[base], &[cand], &options).expect("comparable");
        assert_eq!(c.gate.status, GateStatus::Failed, "draw {draw}");
        assert_eq!(c.gate.failing[0], "kernel_07<float>", "draw {draw}");
        if c.gate.failing.len() > 1 {
            other_gates += 1;
        }
        let slow = &c.entities[0];
        assert_eq!(slow.name, "kernel_07<float>", "regressions come first");
        assert_eq!(slow.verdict, Verdict::Regressed);
        let interval = slow.ratio_interval.as_ref().expect("8 against 8, all > 0");
        assert!(
            interval.low > 1.0,
            "draw {draw}: the interval excludes 1: {interval:?}"
        );
        if interval.low <= 1.2 && 1.2 <= interval.high {
            covered += 1;
        }
        let others = c.entities[1..]
            .iter()
            .filter(|e| e.verdict != Verdict::Unchanged)
            .count();
        other_discoveries += others;
        false_discovery_proportion += others as f64 / (others + 1) as f64;
    }
    let fdr = false_discovery_proportion / DRAWS as f64;
    eprintln!(
        "known slowdown: found in all {DRAWS} draws; {other_discoveries} other discoveries \
         (false discovery rate {:.2}%), {other_gates} draws where another entity also failed \
         the gate; the 95% interval held the true ratio 1.2 in {covered}",
        fdr * 100.0
    );
    // The realized false discovery rate (mean of false / all discoveries)
    // is what BH controls at 5%; 0.065 is about five standard errors of
    // 500 draws above what it is.
    assert!(fdr <= 0.065, "false discovery rate {:.2}%", fdr * 100.0);
    assert!(
        other_gates <= DRAWS / 20,
        "in {other_gates} of {DRAWS} draws something other than the slowed kernel failed the gate"
    );
    // A 95% interval misses in 25 of 500 draws on average (standard
    // deviation about 5): 450 is far below what a correct interval gives.
    assert!(
        covered >= 450,
        "the 95% interval held 1.2 in only {covered} of {DRAWS} draws"
    );
}

/// One run per side is one sample per side: never a regression, whatever
/// the numbers; two steps a side cannot reach 5% either (the smallest
/// two-sided p of 2 against 2 is 1/3). The gate is undecided and says why.
#[test]
fn too_few_samples_are_insufficient_not_regressions() {
    let kernels = workload(3);
    let mut rng = Rng::new(1);
    for steps in [1, 2, 3] {
        let base = simulated_run(&mut rng, "base.json", &kernels, steps, 0.05, None);
        let cand = simulated_run(
            &mut rng,
            "test.json",
            &kernels,
            steps,
            0.05,
            Some((0, 10.0)),
        );
        let c = compare(&[base], &[cand], &CompareOptions::new()).expect("comparable");
        assert_eq!(c.gate.status, GateStatus::Undecided, "{steps} steps");
        assert_eq!(c.tested, 0);
        for e in c.all() {
            assert_eq!(
                e.verdict,
                Verdict::Insufficient,
                "{steps} steps: {}",
                e.name
            );
            assert!(e.p_value.is_none());
        }
        let why = c.entities[0].why.as_deref().unwrap_or_default();
        let expected = match steps {
            1 => "one sample on a side is never evidence",
            2 => "the smallest p-value the test can give is 0.3333",
            _ => "the smallest p-value the test can give is 0.1,",
        };
        assert!(why.contains(expected), "{steps} steps: {why}");
    }
    // 4 against 4: 2/70 = 0.029 can reach 0.05, so it is tested.
    let base = simulated_run(&mut rng, "base.json", &kernels, 4, 0.05, None);
    let cand = simulated_run(&mut rng, "test.json", &kernels, 4, 0.05, Some((0, 10.0)));
    let c = compare(&[base], &[cand], &CompareOptions::new()).expect("comparable");
    assert_eq!(c.tested, 3);
}

/// Three kernels, 8 steps a side, every figure held to scipy 1.17.1: the
/// two-sided Mann–Whitney p (exact; with ties, scipy's exact permutation
/// distribution), Benjamini–Hochberg (`false_discovery_control`), the
/// ratio of medians, and the Hodges–Lehmann ratio with its 95% Moses
/// interval (scipy has none: the referee takes order statistics of the 64
/// log ratios at the quantile of U's null distribution found by
/// enumerating all C(16, 8) splits). The referee, run in a throwaway venv
/// with scipy 1.17.1 and numpy 2.4.6:
///
/// ```python
/// import itertools, math
/// import numpy as np
/// from scipy import stats
/// entities = [
///     ("gemm", [1000, 1013, 987, 1021, 995, 1008, 979, 1004], [1190, 1215, 1201, 1176, 1232, 1188, 1209, 1197]),
///     ("relu", [500, 510, 490, 505, 495, 500, 515, 485], [505, 498, 512, 490, 500, 507, 493, 502]),
///     ("copy", [300, 320, 310, 290, 305, 315, 295, 300], [330, 335, 318, 340, 325, 322, 338, 331]),
/// ]
/// counts = {}
/// for c in itertools.combinations(range(1, 17), 8):
///     u = sum(c) - 36
///     counts[u] = counts.get(u, 0) + 1
/// cdf = lambda k: sum(v for u, v in counts.items() if u <= k) / math.comb(16, 8)
/// ps = []
/// for name, x, y in entities:
///     ties = len(set(x + y)) < len(x + y)
///     r = stats.mannwhitneyu(x, y, method=stats.PermutationMethod(n_resamples=np.inf) if ties else "exact")
///     ps.append(float(r.pvalue))
///     logs = sorted(math.log(b) - math.log(a) for b in y for a in x)
///     k = max(k for k in range(1, 65) if cdf(k - 1) <= 0.025)
///     print(name, float(r.pvalue), np.median(y) / np.median(x), math.exp(np.median(logs)),
///           math.exp(logs[k - 1]), math.exp(logs[64 - k]), 1 - 2 * cdf(k - 1))
/// print([float(v) for v in stats.false_discovery_control(ps)])
/// ```
#[test]
fn the_figures_of_one_comparison_are_scipys() {
    use opguard_compare::{Cost, EntityKey, EntityKind, RunSamples};
    type Steps = (&'static str, [i64; 8], [i64; 8]);
    let entities: [Steps; 3] = [
        (
            "gemm",
            [1000, 1013, 987, 1021, 995, 1008, 979, 1004],
            [1190, 1215, 1201, 1176, 1232, 1188, 1209, 1197],
        ),
        (
            "relu",
            [500, 510, 490, 505, 495, 500, 515, 485],
            [505, 498, 512, 490, 500, 507, 493, 502],
        ),
        (
            "copy",
            [300, 320, 310, 290, 305, 315, 295, 300],
            [330, 335, 318, 340, 325, 322, 338, 331],
        ),
    ];
    let side = |file: &str, pick: fn(&Steps) -> [i64; 8]| {
        let mut run = RunSamples::new(file);
        for step in 0..8 {
            run.push_step(
                format!("ProfilerStep#{step}"),
                entities.iter().map(|e| {
                    let key = EntityKey::new(EntityKind::Kernel, e.0);
                    (
                        key,
                        e.0.to_owned(),
                        Cost {
                            ns: pick(e)[step],
                            calls: 1,
                        },
                    )
                }),
            );
        }
        run
    };
    let c = compare(
        &[side("a", |e| e.1)],
        &[side("b", |e| e.2)],
        &CompareOptions::new(),
    )
    .unwrap();
    // name, p, q, ratio of medians, HL ratio, low, high (scipy's, above).
    let scipy = [
        (
            "gemm",
            0.0001554001554001554,
            0.0004662004662004662,
            1.1966067864271457,
            1.1994062309021227,
            1.1816386969397825,
            1.216818642350557,
        ),
        (
            "copy",
            0.0003108003108003108,
            0.0004662004662004662,
            1.0925619834710745,
            1.0833333333333333,
            1.048387096774193,
            1.1206896551724137,
        ),
        (
            "relu",
            0.8587412587412587,
            0.8587412587412587,
            1.002,
            1.0019588657362393,
            0.9805825242718448,
            1.0240000000000002,
        ),
    ];
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    assert_eq!(c.entities.len(), 3);
    for (e, (name, p, q, ratio, hl, low, high)) in c.entities.iter().zip(scipy) {
        assert_eq!(e.name, name, "regressions first, the larger ratio first");
        assert!(
            close(e.p_value.unwrap(), p),
            "{name} p {:?} != {p}",
            e.p_value
        );
        assert!(
            close(e.q_value.unwrap(), q),
            "{name} q {:?} != {q}",
            e.q_value
        );
        assert!(close(e.ratio.unwrap(), ratio), "{name} ratio {:?}", e.ratio);
        let i = e.ratio_interval.as_ref().unwrap();
        assert!(close(i.estimate, hl), "{name} HL {} != {hl}", i.estimate);
        assert!(
            close(i.low, low) && close(i.high, high),
            "{name} {i:?} != {low}..{high}"
        );
        assert!(
            close(i.confidence, 0.9501165501165502),
            "{name} {}",
            i.confidence
        );
    }
    let verdicts: Vec<_> = c
        .entities
        .iter()
        .map(|e| (e.verdict, e.fails_gate))
        .collect();
    assert_eq!(
        verdicts,
        [
            (Verdict::Regressed, true),
            (Verdict::Regressed, true),
            (Verdict::Unchanged, false)
        ]
    );
    assert_eq!(c.gate.failing, ["gemm", "copy"]);
    // With the threshold at 10% the 9% slower copy is a regression within
    // it: reported, not failing.
    let c = compare(
        &[side("a", |e| e.1)],
        &[side("b", |e| e.2)],
        &CompareOptions::new().fail_above(0.10),
    )
    .unwrap();
    assert_eq!(c.gate.failing, ["gemm"]);
    assert_eq!(c.gate.regressed_within_threshold, 1);
}

/// Steps of one run share its machine: with one run a side the gate says
/// so, and when most entities move one way at once (a whole run slower,
/// as a loaded machine makes it) it says that too — without changing the
/// status.
#[test]
fn a_whole_run_slower_is_called_a_broad_shift() {
    let kernels = workload(10);
    let mut rng = Rng::new(3);
    let slower: Vec<_> = kernels
        .iter()
        .map(|k| crate::support::Kernel {
            name: k.name.clone(),
            ns: k.ns * 13 / 10,
        })
        .collect();
    let base = simulated_run(&mut rng, "base.json", &kernels, 8, 0.05, None);
    let cand = simulated_run(&mut rng, "test.json", &slower, 8, 0.05, None);
    let c = compare(&[base], &[cand], &CompareOptions::new()).unwrap();
    assert_eq!(c.gate.status, GateStatus::Failed);
    let codes: Vec<&str> = c
        .gate
        .caveats
        .iter()
        .map(|c| c.split(':').next().unwrap())
        .collect();
    assert_eq!(codes, ["single_run", "broad_shift"], "{:?}", c.gate.caveats);
    assert!(c.gate.caveats[1]
        .starts_with("broad_shift: 10 of 10 tested entities are significantly slower"));

    // Two runs a side, one kernel slower: neither caveat.
    let runs = |rng: &mut Rng, slow| {
        vec![
            simulated_run(rng, "a.json", &kernels, 8, 0.05, slow),
            simulated_run(rng, "b.json", &kernels, 8, 0.05, slow),
        ]
    };
    let (base, cand) = (runs(&mut rng, None), runs(&mut rng, Some((4, 1.3))));
    let c = compare(&base, &cand, &CompareOptions::new()).unwrap();
    assert_eq!(c.gate.failing, ["kernel_04<float>"]);
    assert!(c.gate.caveats.is_empty(), "{:?}", c.gate.caveats);
}

/// Nothing tested, nothing to qualify: an undecided gate has no caveats.
#[test]
fn an_undecided_gate_has_no_caveats() {
    let kernels = workload(3);
    let mut rng = Rng::new(4);
    let base = simulated_run(&mut rng, "base.json", &kernels, 2, 0.05, None);
    let cand = simulated_run(&mut rng, "test.json", &kernels, 2, 0.05, None);
    let c = compare(&[base], &[cand], &CompareOptions::new()).unwrap();
    assert_eq!(c.gate.status, GateStatus::Undecided);
    assert!(c.gate.caveats.is_empty(), "{:?}", c.gate.caveats);
}
