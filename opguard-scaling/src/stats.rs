//! Statistics: Spearman's rank correlation with its p-value, the Student-t
//! distribution through the regularized incomplete beta function, and the
//! Benjamini–Hochberg adjustment.
//!
//! The p-value is the one `scipy.stats.spearmanr` reports: with `n` pairs,
//! `t = rho * sqrt((n - 2) / (1 - rho²))` follows Student's t with `n - 2`
//! degrees of freedom, two-sided; `rho = ±1` gives `p = 0`. A constant series
//! has no rho at all ([`Spearman::ConstantSeries`]), never a rho of 0.
//!
//!
//! Crate-internal: the report carries rho, p and the adjusted p; the values
//! are checked against scipy in `stats_scipy.rs`.

/// The outcome of [`spearman`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Spearman {
    /// The coefficient and its two-sided p-value.
    Rho {
        /// Spearman's rho, in `[-1, 1]`.
        rho: f64,
        /// Two-sided p-value (t-distribution, `n - 2` degrees of freedom).
        p_value: f64,
    },
    /// One series is constant: the ranks have no variance and rho is
    /// undefined.
    ConstantSeries,
    /// Fewer than three pairs, series of different lengths, or a value that
    /// is not finite.
    Undefined,
}

/// Ranks starting at 1; tied values share the average of their ranks.
/// Values are ordered with [`f64::total_cmp`], except that `-0.0` and `0.0`
/// are one value (they tie), as they are one number.
pub(crate) fn average_ranks(values: &[f64]) -> Vec<f64> {
    ranks_by(values, |a, b| (a + 0.0).total_cmp(&(b + 0.0)))
}

/// [`average_ranks`] of integers, compared as integers: through `f64`,
/// costs beyond 2^53 that differ by less than a unit in the last place
/// would tie.
pub(crate) fn integer_ranks(values: &[i64]) -> Vec<f64> {
    ranks_by(values, i64::cmp)
}

fn ranks_by<T>(values: &[T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| cmp(&values[a], &values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && cmp(&values[order[end]], &values[order[start]]).is_eq() {
            end += 1;
        }
        // Positions start..end hold ranks start+1 ..= end.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// Spearman's rank correlation of `x` and `y` with its two-sided p-value.
pub(crate) fn spearman(x: &[f64], y: &[f64]) -> Spearman {
    let n = x.len();
    if n != y.len() || n < 3 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return Spearman::Undefined;
    }
    let (rx, ry) = (average_ranks(x), average_ranks(y));
    let mean = (n as f64 + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        let (dx, dy) = (a - mean, b - mean);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return Spearman::ConstantSeries;
    }
    let rho = (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0);
    Spearman::Rho {
        rho,
        p_value: spearman_p_value(rho, n),
    }
}

/// The two-sided p-value of a Spearman coefficient over `n` pairs, as scipy
/// computes it (`n < 3` has no p-value: NaN).
pub(crate) fn spearman_p_value(rho: f64, n: usize) -> f64 {
    if n < 3 || !rho.is_finite() {
        return f64::NAN;
    }
    let dof = (n - 2) as f64;
    let denominator = (rho + 1.0) * (1.0 - rho);
    if denominator <= 0.0 {
        return 0.0;
    }
    let t = rho * (dof / denominator).sqrt();
    student_t_two_sided_p(t, dof)
}

/// `P(|T| >= |t|)` for Student's t with `dof` degrees of freedom:
/// `I_{dof/(dof+t²)}(dof/2, 1/2)`.
pub(crate) fn student_t_two_sided_p(t: f64, dof: f64) -> f64 {
    if t.is_nan() || dof.is_nan() || dof <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    let x = dof / (dof + t * t);
    regularized_incomplete_beta(dof / 2.0, 0.5, x)
}

/// The regularized incomplete beta function `I_x(a, b)` for `a, b > 0` and
/// `x` in `[0, 1]` (NaN outside), by its continued fraction (modified Lentz),
/// evaluated on the side where it converges fast.
pub(crate) fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if !(a > 0.0 && b > 0.0 && (0.0..=1.0).contains(&x)) {
        return f64::NAN;
    }
    if x == 0.0 || x == 1.0 {
        return x;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (-x).ln_1p();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const EPS: f64 = 1e-16;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / away_from_zero(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=10_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        // Even and odd terms of the fraction, each one modified-Lentz step.
        h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let step = lentz_step(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= step;
        if (step - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// Keeps a Lentz denominator off zero.
fn away_from_zero(v: f64) -> f64 {
    const TINY: f64 = 1e-300;
    if v.abs() < TINY {
        TINY
    } else {
        v
    }
}

/// One modified-Lentz update with coefficient `aa`; returns the factor the
/// convergent is multiplied by.
fn lentz_step(aa: f64, c: &mut f64, d: &mut f64) -> f64 {
    *d = 1.0 / away_from_zero(1.0 + aa * *d);
    *c = away_from_zero(1.0 + aa / *c);
    *d * *c
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 terms; reflection below 0.5).
pub(crate) fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Γ(x)Γ(1-x) = π / sin(πx)
        let s = (std::f64::consts::PI * x).sin();
        return (std::f64::consts::PI / s.abs()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// Benjamini–Hochberg adjusted p-values, in the order given: `p_(i) * m / i`
/// over the ascending order, made monotone from the largest down, capped
/// at 1 (as `scipy.stats.false_discovery_control(ps, method="bh")`).
/// p-values belong in `[0, 1]`; a NaN stays NaN and adjusts nothing else.
pub(crate) fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]).then(a.cmp(&b)));
    let mut adjusted = vec![0.0; m];
    let mut running = f64::INFINITY;
    for (position, &i) in order.iter().enumerate().rev() {
        let scaled = p_values[i] * m as f64 / (position + 1) as f64;
        if scaled.is_nan() {
            adjusted[i] = f64::NAN;
            continue;
        }
        running = running.min(scaled);
        adjusted[i] = running.min(1.0);
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_average_ties() {
        assert_eq!(average_ranks(&[10.0, 30.0, 20.0]), vec![1.0, 3.0, 2.0]);
        assert_eq!(
            average_ranks(&[5.0, 5.0, 1.0, 5.0]),
            vec![3.0, 3.0, 1.0, 3.0]
        );
        assert_eq!(average_ranks(&[]), Vec::<f64>::new());
        // One number, two signs: a tie (found by the scaling_correlation
        // fuzz target's referee).
        assert_eq!(average_ranks(&[0.0, -0.0, -1.0]), vec![2.5, 2.5, 1.0]);
    }

    #[test]
    fn integer_costs_rank_as_integers() {
        // 32 ns apart near 2^61 ns: one f64 (found by the
        // scaling_correlation fuzz target's referee).
        let (a, b) = (
            -2_025_524_839_466_146_877_i64,
            -2_025_524_839_466_146_845_i64,
        );
        assert_eq!(a as f64, b as f64);
        assert_eq!(integer_ranks(&[b, a, i64::MIN]), vec![3.0, 2.0, 1.0]);
        assert_eq!(integer_ranks(&[7, 7, 1]), vec![2.5, 2.5, 1.0]);
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        for (n, fact) in [(1.0, 1.0_f64), (2.0, 1.0), (5.0, 24.0), (11.0, 3_628_800.0)] {
            assert!((ln_gamma(n) - fact.ln()).abs() < 1e-12, "Γ({n})");
        }
        // Γ(1/2) = √π
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-13);
    }

    #[test]
    fn undefined_inputs_give_no_rho() {
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), Spearman::Undefined);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[1.0, 2.0]), Spearman::Undefined);
        assert_eq!(
            spearman(&[1.0, 2.0, f64::NAN], &[1.0, 2.0, 3.0]),
            Spearman::Undefined
        );
        assert_eq!(
            spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]),
            Spearman::ConstantSeries
        );
        assert!(regularized_incomplete_beta(1.0, 1.0, 1.5).is_nan());
        assert!(student_t_two_sided_p(1.0, 0.0).is_nan());
        assert!(benjamini_hochberg(&[]).is_empty());
    }
}

// The values scipy computes for the same series.
#[cfg(test)]
#[path = "stats_scipy.rs"]
mod scipy;
