//! Spearman's rank correlation and its p-value.
//!
//! The p-value is the one `scipy.stats.spearmanr` reports: with `n` pairs,
//! `t = rho * sqrt((n - 2) / (1 - rho²))` follows Student's t with `n - 2`
//! degrees of freedom, two-sided; `rho = ±1` gives `p = 0`. A constant series
//! has no rho at all ([`Spearman::ConstantSeries`]), never a rho of 0.

use crate::rank::average_ranks;
use crate::special::student_t_two_sided_p;

/// The outcome of [`spearman`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Spearman {
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

/// Spearman's rank correlation of `x` and `y` with its two-sided p-value.
pub fn spearman(x: &[f64], y: &[f64]) -> Spearman {
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
pub fn spearman_p_value(rho: f64, n: usize) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(spearman_p_value(0.5, 2).is_nan());
    }
}
