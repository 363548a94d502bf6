//! Statistics checked against values computed independently with scipy
//! (and, for the Hodges–Lehmann intervals, which scipy does not compute,
//! against the exact distribution of U found by enumerating every split).
//!
//! The tables below were produced by this exact script, in a throwaway venv
//! (not committed):
//!
//! ```text
//! python3 -m venv /tmp/scipy-venv && /tmp/scipy-venv/bin/pip install scipy numpy   # scipy 1.17.1, numpy 2.4.6
//! /tmp/scipy-venv/bin/python reference.py
//! ```
//!
//! ```python
//! # reference.py
//! import itertools, math
//! import numpy as np
//! import scipy
//! from scipy import stats, special
//!
//! print("scipy", scipy.__version__, "numpy", np.__version__)
//! series = [
//!     ("seed003_perfect", [1, 2, 3], [10, 20, 30]),
//!     ("perfect_negative", [1, 2, 3], [30, 20, 10]),
//!     ("ties_in_cost", [1, 2, 3], [25000, 25000, 75000]),
//!     ("three_weak", [1, 2, 3], [1, 3, 2]),
//!     ("five", [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]),
//!     ("ties_in_input", [1, 1, 2, 2, 3, 3], [5, 7, 6, 9, 12, 10]),
//!     ("eight", [1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 5, 4, 8, 6, 7]),
//!     ("weak_powers", [1, 2, 4, 8, 16, 32, 64], [7, 3, 9, 1, 5, 2, 8]),
//!     ("ties_both_negative", [1, 2, 3, 4], [4, 4, 1, 1]),
//!     ("ten_ties", [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
//!                  [3.5, 1.0, 3.5, 6.0, 2.0, 9.0, 9.0, 7.5, 12.0, 11.0]),
//! ]
//! ps = []
//! for name, x, y in series:
//!     r = stats.spearmanr(x, y)
//!     ps.append(float(r.pvalue))
//!     print(f"{name}: rho={float(r.statistic)!r} p={float(r.pvalue)!r}")
//! print("bh(series p-values) =", [float(v) for v in stats.false_discovery_control(ps)])
//! extra = [0.01, 0.04, 0.03, 0.04, 0.5, 0.0, 1.0, 0.2]
//! print("bh(extra) =", [float(v) for v in stats.false_discovery_control(extra)])
//! for a, b, x in [(0.5, 0.5, 0.25), (2.0, 0.5, 0.7), (4.0, 0.5, 0.1), (15.0, 0.5, 0.95), (3.0, 7.0, 0.4)]:
//!     print(f"betainc({a}, {b}, {x}) = {float(special.betainc(a, b, x))!r}")
//! for df, t in [(1, 0.5), (3, 2.0), (8, -1.3), (30, 4.0)]:
//!     print(f"t.sf2({df}, {t}) = {float(2 * stats.t.sf(abs(t), df))!r}")
//!
//! # ---- added for opguard-compare ----
//! for a, x in [(0.5, 0.1), (0.5, 3.0), (2.5, 1.0), (10.0, 12.0), (0.5, 50.0), (3.0, 0.5)]:
//!     print(f"gammaincc({a}, {x}) = {float(special.gammaincc(a, x))!r}")
//! for z in [0.0, 0.5, 1.959963984540054, 3.0, 6.0, 8.0, 10.0, -2.0, -0.3]:
//!     print(f"norm.sf({z}) = {float(stats.norm.sf(z))!r}")
//! for p in [0.5, 0.975, 0.001, 1e-10, 0.9999, 0.3]:
//!     print(f"norm.ppf({p}) = {float(stats.norm.ppf(p))!r}")
//! for v, q in [([3, 1, 2], 0.5), ([4, 1, 3, 2], 0.5), ([1, 2, 3, 4, 5], 0.25), ([10, 20], 0.75), ([7.5, 1.25, 3.0, 9.0, 2.0, 6.5], 0.9)]:
//!     print(f"quantile({v}, {q}) = {float(np.quantile(v, q))!r}")
//!
//! rng = np.random.default_rng(31)
//! no_ties = [
//!     ("separated_8", [10.0, 10.2, 9.9, 10.1, 9.8, 10.3, 10.05, 9.7], [12.0, 12.2, 11.9, 12.1, 11.8, 12.3, 12.05, 11.7]),
//!     ("three_three", [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]),
//!     ("interleaved_5_7", [1.0, 4.0, 6.0, 9.0, 12.0], [2.0, 3.0, 5.0, 7.0, 8.0, 10.0, 11.0]),
//!     ("four_six", [3.1, 0.4, 2.2, 5.9], [1.1, 4.4, 6.6, 7.2, 8.5, 0.9]),
//!     ("random_8_8", [float(round(v, 6)) for v in rng.normal(100, 5, 8)], [float(round(v, 6)) for v in rng.normal(104, 5, 8)]),
//!     ("random_10_12", [float(round(v, 6)) for v in rng.normal(50, 3, 10)], [float(round(v, 6)) for v in rng.normal(52, 3, 12)]),
//!     ("random_30_30", [float(round(v, 6)) for v in rng.normal(0, 1, 30)], [float(round(v, 6)) for v in rng.normal(0.5, 1, 30)]),
//! ]
//! for name, x, y in no_ties:
//!     r = stats.mannwhitneyu(x, y, method="exact")
//!     a = stats.mannwhitneyu(x, y, method="asymptotic")
//!     print(f"mwu {name}: x={x} y={y} U={float(r.statistic)!r} exact={float(r.pvalue)!r} asymptotic={float(a.pvalue)!r}")
//! ties = [
//!     ("ties_4_4", [1.0, 2.0, 2.0, 3.0], [2.0, 3.0, 4.0, 4.0]),
//!     ("zeros_5_6", [0.0, 0.0, 3.0, 4.0, 5.0], [0.0, 6.0, 7.0, 8.0, 9.0, 10.0]),
//!     ("ties_8_8", [5.0, 6.0, 6.0, 7.0, 8.0, 8.0, 9.0, 10.0], [8.0, 9.0, 9.0, 10.0, 11.0, 12.0, 12.0, 13.0]),
//!     ("lopsided_3_9", [1.0, 1.0, 2.0], [1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0]),
//! ]
//! for name, x, y in ties:
//!     r = stats.mannwhitneyu(x, y, method=stats.PermutationMethod(n_resamples=np.inf))
//!     a = stats.mannwhitneyu(x, y, method="asymptotic")
//!     print(f"mwu_ties {name}: x={x} y={y} U={float(r.statistic)!r} exact={float(r.pvalue)!r} asymptotic={float(a.pvalue)!r}")
//!
//! # Hodges-Lehmann and its Moses interval, computed independently: the exact
//! # distribution of U by enumerating every split, R's qwilcox rule.
//! def exact_u_counts(n1, n2):
//!     counts = [0] * (n1 * n2 + 1)
//!     for chosen in itertools.combinations(range(n1 + n2), n1):
//!         s = set(chosen)
//!         u = sum(1 for a in chosen for b in range(n1 + n2) if b not in s and a > b)
//!         counts[u] += 1
//!     return counts
//!
//! def hl(x, y, conf):
//!     d = sorted(b - a for b in y for a in x)
//!     est = float(np.median(d))
//!     counts = exact_u_counts(len(x), len(y))
//!     total = sum(counts)
//!     cum = np.cumsum(counts) / total
//!     alpha = 1 - conf
//!     qu = next(u for u, c in enumerate(cum) if c >= alpha / 2 - 1e-12)
//!     if qu == 0:
//!         return est, None, None
//!     lo, hi = d[qu - 1], d[len(d) - qu]
//!     return est, (lo, hi), 1 - 2 * cum[qu - 1]
//!
//! for name, x, y, conf in [
//!     ("hl_8_8", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0], 0.95),
//!     ("hl_random_8_8", no_ties[4][1], no_ties[4][2], 0.95),
//!     ("hl_5_7", no_ties[2][1], no_ties[2][2], 0.9),
//!     ("hl_4_6", no_ties[3][1], no_ties[3][2], 0.8),
//!     ("hl_3_3", [1.0, 2.0, 3.0], [4.0, 5.0, 6.5], 0.95),
//! ]:
//!     est, ci, ach = hl(x, y, conf)
//!     print(f"{name}: conf={conf} estimate={est!r} interval={tuple(map(float, ci)) if ci else None!r} achieved={float(ach) if ach else None!r}")
//! logs = lambda v: [math.log(t) for t in v]
//! x = [100.0, 104.0, 97.0, 101.0, 99.0, 103.0, 96.0, 100.5]
//! y = [120.0, 123.0, 118.0, 121.0, 119.5, 124.0, 117.0, 130.5]
//! est, ci, ach = hl(logs(x), logs(y), 0.95)
//! print(f"hl_ratio: estimate={math.exp(est)!r} interval={(math.exp(ci[0]), math.exp(ci[1]))!r} achieved={float(ach)!r}")
//! print("min_p", {f"{a}x{b}": 2 / math.comb(a + b, a) for a, b in [(2, 2), (3, 3), (4, 4), (8, 8), (4, 2)]})
//! ```

use opguard_stats::{
    benjamini_hochberg, hodges_lehmann, hodges_lehmann_ratio, mann_whitney_min_p, mann_whitney_u,
    normal_quantile, normal_sf, quantile, regularized_gamma_q, regularized_incomplete_beta,
    spearman, student_t_two_sided_p, MannWhitneyMethod, Spearman,
};

fn approx(a: f64, b: f64, rel: f64) -> bool {
    a == b || (a - b).abs() <= rel * a.abs().max(b.abs())
}

/// Relative tolerance against scipy (both are IEEE doubles; the remaining
/// difference is summation order and the continued fraction's last bits).
const REL: f64 = 1e-12;

/// (name, x, y, rho, p) as scipy 1.17.1 printed them.
#[allow(clippy::type_complexity)]
const SPEARMAN: &[(&str, &[f64], &[f64], f64, f64)] = &[
    (
        "seed003_perfect",
        &[1.0, 2.0, 3.0],
        &[10.0, 20.0, 30.0],
        1.0,
        0.0,
    ),
    (
        "perfect_negative",
        &[1.0, 2.0, 3.0],
        &[30.0, 20.0, 10.0],
        -1.0,
        0.0,
    ),
    (
        "ties_in_cost",
        &[1.0, 2.0, 3.0],
        &[25000.0, 25000.0, 75000.0],
        0.8660254037844387,
        0.33333333333333326,
    ),
    (
        "three_weak",
        &[1.0, 2.0, 3.0],
        &[1.0, 3.0, 2.0],
        0.5,
        0.6666666666666666,
    ),
    (
        "five",
        &[1.0, 2.0, 3.0, 4.0, 5.0],
        &[2.0, 1.0, 4.0, 3.0, 5.0],
        0.7999999999999999,
        0.10408803866182788,
    ),
    (
        "ties_in_input",
        &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0],
        &[5.0, 7.0, 6.0, 9.0, 12.0, 10.0],
        0.8366600265340757,
        0.03784096948581303,
    ),
    (
        "eight",
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        &[1.0, 3.0, 2.0, 5.0, 4.0, 8.0, 6.0, 7.0],
        0.880952380952381,
        0.0038503204637324005,
    ),
    (
        "weak_powers",
        &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0],
        &[7.0, 3.0, 9.0, 1.0, 5.0, 2.0, 8.0],
        -0.07142857142857144,
        0.879048193148154,
    ),
    (
        "ties_both_negative",
        &[1.0, 2.0, 3.0, 4.0],
        &[4.0, 4.0, 1.0, 1.0],
        -0.8944271909999159,
        0.10557280900008414,
    ),
    (
        "ten_ties",
        &[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0],
        &[3.5, 1.0, 3.5, 6.0, 2.0, 9.0, 9.0, 7.5, 12.0, 11.0],
        0.8414790579803637,
        0.0022710431981311013,
    ),
];

/// `false_discovery_control` of the p-values above, in the same order.
const BH_OF_SPEARMAN: &[f64] = &[
    0.0,
    0.0,
    0.4166666666666666,
    0.7407407407407407,
    0.15081829857154877,
    0.07568193897162606,
    0.009625801159331001,
    0.879048193148154,
    0.15081829857154877,
    0.007570143993770338,
];

const BH_EXTRA_IN: &[f64] = &[0.01, 0.04, 0.03, 0.04, 0.5, 0.0, 1.0, 0.2];
const BH_EXTRA_OUT: &[f64] = &[
    0.04,
    0.064,
    0.064,
    0.064,
    0.5714285714285714,
    0.0,
    1.0,
    0.26666666666666666,
];

const BETAINC: &[(f64, f64, f64, f64)] = &[
    (0.5, 0.5, 0.25, 0.33333333333333337),
    (2.0, 0.5, 0.7, 0.2605745473680253),
    (4.0, 0.5, 0.1, 2.8511148630298118e-05),
    (15.0, 0.5, 0.95, 0.2186089966962345),
    (3.0, 7.0, 0.4, 0.768212992),
];

const T_TWO_SIDED: &[(f64, f64, f64)] = &[
    (1.0, 0.5, 0.7048327646991335),
    (3.0, 2.0, 0.13932596855884305),
    (8.0, -1.3, 0.2298036249185253),
    (30.0, 4.0, 0.0003818456360837564),
];

#[test]
fn spearman_matches_scipy_including_ties() {
    for &(name, x, y, rho, p) in SPEARMAN {
        match spearman(x, y) {
            Spearman::Rho { rho: r, p_value } => {
                assert!(approx(r, rho, REL), "{name}: rho {r} vs scipy {rho}");
                assert!(approx(p_value, p, REL), "{name}: p {p_value} vs scipy {p}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn benjamini_hochberg_matches_scipy() {
    let ps: Vec<f64> = SPEARMAN.iter().map(|s| s.4).collect();
    let ours = benjamini_hochberg(&ps);
    for (i, (a, b)) in ours.iter().zip(BH_OF_SPEARMAN).enumerate() {
        assert!(approx(*a, *b, REL), "series {i}: {a} vs scipy {b}");
    }
    let ours = benjamini_hochberg(BH_EXTRA_IN);
    for (i, (a, b)) in ours.iter().zip(BH_EXTRA_OUT).enumerate() {
        assert!(approx(*a, *b, REL), "extra {i}: {a} vs scipy {b}");
    }
    // Monotone in p and capped at 1.
    let mut pairs: Vec<(f64, f64)> = BH_EXTRA_IN.iter().copied().zip(ours).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(pairs.windows(2).all(|w| w[0].1 <= w[1].1));
    assert!(pairs.iter().all(|p| p.1 <= 1.0));
}

#[test]
fn incomplete_beta_and_student_t_match_scipy() {
    for &(a, b, x, want) in BETAINC {
        let got = regularized_incomplete_beta(a, b, x);
        assert!(
            approx(got, want, REL),
            "I_{x}({a}, {b}) = {got} vs scipy {want}"
        );
    }
    for &(dof, t, want) in T_TWO_SIDED {
        let got = student_t_two_sided_p(t, dof);
        assert!(
            approx(got, want, REL),
            "t={t}, dof={dof}: {got} vs scipy {want}"
        );
    }
}

#[test]
fn a_constant_series_has_no_rho() {
    assert_eq!(
        spearman(&[1.0, 2.0, 3.0], &[7.0, 7.0, 7.0]),
        Spearman::ConstantSeries
    );
    assert_eq!(
        spearman(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0]),
        Spearman::ConstantSeries
    );
}

/// `special.gammaincc(a, x)`: (a, x, Q).
const GAMMAINCC: &[(f64, f64, f64)] = &[
    (0.5, 0.1, 0.6547208460185768),
    (0.5, 3.0, 0.014305878435429641),
    (2.5, 1.0, 0.8491450360846096),
    (10.0, 12.0, 0.24239216167051245),
    (0.5, 50.0, 1.5239706048320995e-23),
    (3.0, 0.5, 0.9856123220330293),
];

/// `stats.norm.sf(z)`: (z, sf).
const NORM_SF: &[(f64, f64)] = &[
    (0.0, 0.5),
    (0.5, 0.3085375387259869),
    (1.959963984540054, 0.025),
    (3.0, 0.0013498980316300933),
    (6.0, 9.865876450376946e-10),
    (8.0, 6.22096057427174e-16),
    (10.0, 7.61985302416047e-24),
    (-2.0, 0.9772498680518208),
    (-0.3, 0.6179114221889526),
];

/// `stats.norm.ppf(p)`: (p, z).
const NORM_PPF: &[(f64, f64)] = &[
    (0.5, 0.0),
    (0.975, 1.959963984540054),
    (0.001, -3.090232306167813),
    (1e-10, -6.361340902404056),
    (0.9999, 3.719016485455709),
    (0.3, -0.5244005127080409),
];

/// `numpy.quantile(v, q)`: (v, q, quantile).
const QUANTILES: &[(&[f64], f64, f64)] = &[
    (&[3.0, 1.0, 2.0], 0.5, 2.0),
    (&[4.0, 1.0, 3.0, 2.0], 0.5, 2.5),
    (&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25, 2.0),
    (&[10.0, 20.0], 0.75, 17.5),
    (&[7.5, 1.25, 3.0, 9.0, 2.0, 6.5], 0.9, 8.25),
];

/// `stats.mannwhitneyu` without ties: (name, x, y, U, `method="exact"`,
/// `method="asymptotic"`).
#[allow(clippy::type_complexity)]
const MANN_WHITNEY: &[(&str, &[f64], &[f64], f64, f64, f64)] = &[
    (
        "separated_8",
        &[10.0, 10.2, 9.9, 10.1, 9.8, 10.3, 10.05, 9.7],
        &[12.0, 12.2, 11.9, 12.1, 11.8, 12.3, 12.05, 11.7],
        0.0,
        0.0001554001554001554,
        0.0009391056991171899,
    ),
    (
        "three_three",
        &[1.0, 2.0, 3.0],
        &[4.0, 5.0, 6.0],
        0.0,
        0.1,
        0.08085559837005224,
    ),
    (
        "interleaved_5_7",
        &[1.0, 4.0, 6.0, 9.0, 12.0],
        &[2.0, 3.0, 5.0, 7.0, 8.0, 10.0, 11.0],
        17.0,
        1.0,
        1.0,
    ),
    (
        "four_six",
        &[3.1, 0.4, 2.2, 5.9],
        &[1.1, 4.4, 6.6, 7.2, 8.5, 0.9],
        7.0,
        0.35238095238095235,
        0.3373556517763615,
    ),
    (
        "random_8_8",
        &[
            98.023494, 101.319574, 103.035641, 95.139201, 103.838321, 101.275291, 103.914899,
            101.362091,
        ],
        &[
            109.810041, 99.311218, 112.880499, 110.011949, 101.000211, 107.300832, 106.223837,
            95.271182,
        ],
        19.0,
        0.19487179487179485,
        0.18926296331502546,
    ),
    (
        "random_10_12",
        &[
            51.785649, 48.243803, 49.249959, 48.192841, 48.715748, 50.215204, 50.290157, 45.322544,
            49.193882, 45.965567,
        ],
        &[
            48.187666, 50.959139, 54.565901, 53.89257, 50.186026, 49.868738, 49.51777, 52.428221,
            54.80995, 52.05415, 54.0783, 52.946227,
        ],
        18.0,
        0.004429007524982757,
        0.006211000298815913,
    ),
    (
        "random_30_30",
        &[
            1.504186, -2.006691, -2.131034, -0.19844, 0.63654, -0.410549, 0.425781, -1.173545,
            -1.259383, -0.716576, 0.841323, 0.696358, -0.713253, 0.181119, -0.647571, 0.02006,
            -1.114296, -0.046554, -0.735754, -0.04436, -0.652043, -0.821741, 0.113431, -0.337795,
            0.021671, -0.419085, 0.613743, -0.815685, 0.768751, 1.331974,
        ],
        &[
            0.231112, 2.245243, 2.529698, 0.943075, -0.857605, -1.115694, 0.324221, 2.27593,
            1.07455, 1.258031, 0.249087, -0.244147, 0.871921, -0.608779, 0.303056, 1.011152,
            0.535934, 1.024564, 0.054023, 1.09818, 0.90465, -1.149706, -0.542263, -0.223476,
            1.155586, 0.80208, 0.782988, 0.672932, 1.136476, 1.445348,
        ],
        224.0,
        0.0006489338481298159,
        0.000856411554987191,
    ),
];

/// `stats.mannwhitneyu` with ties: (name, x, y, U, exhaustive permutation
/// `method=PermutationMethod(n_resamples=inf)`, `method="asymptotic"`).
#[allow(clippy::type_complexity)]
const MANN_WHITNEY_TIES: &[(&str, &[f64], &[f64], f64, f64, f64)] = &[
    (
        "ties_4_4",
        &[1.0, 2.0, 2.0, 3.0],
        &[2.0, 3.0, 4.0, 4.0],
        2.5,
        0.2,
        0.13416918012812584,
    ),
    (
        "zeros_5_6",
        &[0.0, 0.0, 3.0, 4.0, 5.0],
        &[0.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        4.0,
        0.05194805194805195,
        0.05302739120252687,
    ),
    (
        "ties_8_8",
        &[5.0, 6.0, 6.0, 7.0, 8.0, 8.0, 9.0, 10.0],
        &[8.0, 9.0, 9.0, 10.0, 11.0, 12.0, 12.0, 13.0],
        6.5,
        0.005905205905205905,
        0.008120402510637104,
    ),
    (
        "lopsided_3_9",
        &[1.0, 1.0, 2.0],
        &[1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0],
        3.0,
        0.09090909090909091,
        0.05980900023086612,
    ),
];

/// The Hodges–Lehmann estimate and Moses interval by enumeration: (case,
/// confidence, estimate, interval, achieved confidence).
#[allow(clippy::type_complexity)]
const HODGES_LEHMANN: &[(&str, f64, f64, Option<(f64, f64)>, Option<f64>)] = &[
    (
        "hl_8_8",
        0.95,
        10.0,
        Some((7.0, 13.0)),
        Some(0.9501165501165502),
    ),
    (
        "hl_random_8_8",
        0.95,
        5.404778,
        Some((-2.035430000000005, 9.042178000000007)),
        Some(0.9501165501165502),
    ),
    (
        "hl_5_7",
        0.9,
        1.0,
        Some((-4.0, 5.0)),
        Some(0.9267676767676768),
    ),
    (
        "hl_4_6",
        0.8,
        1.7500000000000002,
        Some((-1.3000000000000003, 5.0)),
        Some(0.8285714285714285),
    ),
    ("hl_3_3", 0.95, 3.0, None, None),
];

/// `hl_ratio`: (estimate, interval, achieved confidence).
const HODGES_LEHMANN_RATIO: (f64, (f64, f64), f64) = (
    1.2085344660188868,
    (1.1741293532338313, 1.252525252525253),
    0.9501165501165502,
);

#[test]
fn gamma_and_normal_functions_match_scipy() {
    for &(a, x, want) in GAMMAINCC {
        let got = regularized_gamma_q(a, x);
        assert!(
            approx(got, want, REL),
            "Q({a}, {x}) = {got} vs scipy {want}"
        );
    }
    for &(z, want) in NORM_SF {
        let got = normal_sf(z);
        assert!(approx(got, want, REL), "sf({z}) = {got} vs scipy {want}");
    }
    for &(p, want) in NORM_PPF {
        let got = normal_quantile(p);
        assert!(
            approx(got, want, REL) || (got - want).abs() < 1e-15,
            "ppf({p}) = {got} vs scipy {want}"
        );
    }
}

#[test]
fn quantiles_match_numpy() {
    for &(values, q, want) in QUANTILES {
        assert_eq!(quantile(values, q), Some(want), "{values:?} at {q}");
    }
}

#[test]
fn mann_whitney_without_ties_matches_scipy() {
    for &(name, x, y, u, exact, asymptotic) in MANN_WHITNEY {
        let e = mann_whitney_u(x, y, Some(MannWhitneyMethod::Exact)).unwrap();
        assert_eq!(
            (e.u, e.method, e.ties),
            (u, MannWhitneyMethod::Exact, false),
            "{name}"
        );
        assert!(
            approx(e.p_value, exact, REL),
            "{name}: exact {} vs scipy {exact}",
            e.p_value
        );
        let a = mann_whitney_u(x, y, Some(MannWhitneyMethod::Asymptotic)).unwrap();
        assert!(
            approx(a.p_value, asymptotic, REL),
            "{name}: asymptotic {} vs scipy {asymptotic}",
            a.p_value
        );
        // Without a method asked for, every case here is small enough to be
        // exact.
        assert_eq!(mann_whitney_u(x, y, None).unwrap(), e, "{name}");
    }
}

#[test]
fn mann_whitney_with_ties_matches_scipy_exhaustive_permutations() {
    for &(name, x, y, u, exact, asymptotic) in MANN_WHITNEY_TIES {
        let e = mann_whitney_u(x, y, None).unwrap();
        assert_eq!(
            (e.u, e.method, e.ties),
            (u, MannWhitneyMethod::Exact, true),
            "{name}"
        );
        assert!(
            approx(e.p_value, exact, REL),
            "{name}: exact {} vs scipy {exact}",
            e.p_value
        );
        let a = mann_whitney_u(x, y, Some(MannWhitneyMethod::Asymptotic)).unwrap();
        assert!(
            approx(a.p_value, asymptotic, REL),
            "{name}: asymptotic {} vs scipy {asymptotic}",
            a.p_value
        );
    }
}

#[test]
fn the_smallest_p_value_is_two_splits_of_all() {
    for (n1, n2, want) in [
        (2, 2, 0.3333333333333333),
        (3, 3, 0.1),
        (4, 4, 0.02857142857142857),
        (8, 8, 0.0001554001554001554),
        (4, 2, 0.13333333333333333),
    ] {
        assert!(approx(mann_whitney_min_p(n1, n2), want, REL), "{n1}x{n2}");
    }
    // The separated 8 against 8 of the table reaches it.
    let separated = MANN_WHITNEY[0];
    assert!(approx(mann_whitney_min_p(8, 8), separated.4, REL));
}

fn mann_whitney_case(name: &str) -> (&'static [f64], &'static [f64]) {
    let case = MANN_WHITNEY.iter().find(|c| c.0 == name).unwrap();
    (case.1, case.2)
}

#[test]
fn hodges_lehmann_intervals_match_enumeration() {
    let eight_apart: (&[f64], &[f64]) = (
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        &[11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0],
    );
    for &(name, confidence, estimate, interval, achieved) in HODGES_LEHMANN {
        let (x, y) = match name {
            "hl_8_8" => eight_apart,
            "hl_random_8_8" => mann_whitney_case("random_8_8"),
            "hl_5_7" => mann_whitney_case("interleaved_5_7"),
            "hl_4_6" => mann_whitney_case("four_six"),
            "hl_3_3" => (&[1.0, 2.0, 3.0][..], &[4.0, 5.0, 6.5][..]),
            other => panic!("no inputs for {other}"),
        };
        let shift = hodges_lehmann(x, y, confidence).unwrap();
        assert!(approx(shift.estimate, estimate, REL), "{name}: {shift:?}");
        // The interval's ends are differences of the inputs, picked by
        // rank: the same floats.
        assert_eq!(shift.interval, interval, "{name}");
        match (shift.achieved_confidence, achieved) {
            (Some(a), Some(b)) => assert!(approx(a, b, REL), "{name}: {a} vs {b}"),
            (a, b) => assert_eq!(a, b, "{name}"),
        }
    }
    let before = [100.0, 104.0, 97.0, 101.0, 99.0, 103.0, 96.0, 100.5];
    let after = [120.0, 123.0, 118.0, 121.0, 119.5, 124.0, 117.0, 130.5];
    let ratio = hodges_lehmann_ratio(&before, &after, 0.95).unwrap();
    let (estimate, (low, high), achieved) = HODGES_LEHMANN_RATIO;
    assert!(approx(ratio.estimate, estimate, REL), "{ratio:?}");
    let (l, h) = ratio.interval.unwrap();
    assert!(approx(l, low, REL) && approx(h, high, REL), "{ratio:?}");
    assert!(approx(ratio.achieved_confidence.unwrap(), achieved, REL));
}
