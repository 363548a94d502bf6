//! Statistics checked against values computed independently with scipy.
//!
//! The table below was produced by this exact script, in a throwaway venv
//! (not committed):
//!
//! ```text
//! python3 -m venv /tmp/scipy-venv && /tmp/scipy-venv/bin/pip install scipy   # scipy 1.17.1
//! /tmp/scipy-venv/bin/python reference.py
//! ```
//!
//! ```python
//! # reference.py
//! import scipy
//! from scipy import stats, special
//!
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
//! print("scipy", scipy.__version__)
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
//! ```

use super::{
    benjamini_hochberg, regularized_incomplete_beta, spearman, student_t_two_sided_p, Spearman,
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
