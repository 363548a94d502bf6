//! How far one sample is shifted from another: the Hodges–Lehmann estimate
//! and its distribution-free confidence interval (Moses), the estimate and
//! interval that go with the Mann–Whitney test.
//!
//! The estimate is the median of every difference `y_j - x_i`; the interval
//! runs between two order statistics of those differences, chosen from the
//! distribution of U ([`UDistribution`]) so that, without ties, it excludes
//! 0 exactly when the exact two-sided test rejects at `1 - confidence`.
//! On logarithms, the shift is a ratio: [`hodges_lehmann_ratio`].

use crate::mann_whitney::UDistribution;
use crate::rank::quantile_of_sorted;
use crate::special::{normal_quantile, normal_sf};

/// A shift estimate and its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// The Hodges–Lehmann estimate: the median of the pairwise
    /// differences (for [`hodges_lehmann_ratio`], of the ratios).
    pub estimate: f64,
    /// The interval, when the samples can reach the confidence asked for
    /// (two against two never reach 95%: the widest interval, from the
    /// smallest to the largest difference, covers 1 - 2/6 = 67%).
    pub interval: Option<(f64, f64)>,
    /// The confidence the interval actually has: with exact order
    /// statistics, at least the one asked for (the next attainable one).
    pub achieved_confidence: Option<f64>,
}

/// The Hodges–Lehmann shift of `y` from `x` (the median of `y_j - x_i`)
/// with its two-sided interval at `confidence` (e.g. 0.95): from the exact
/// distribution of U up to [`EXACT_MAX_SAMPLES`](crate::EXACT_MAX_SAMPLES) values, else its normal
/// approximation. `None` when a sample is empty, a value is not finite or
/// `confidence` is not strictly between 0 and 1.
///
/// ```
/// use opguard_stats::hodges_lehmann;
///
/// let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
/// let y = [11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0];
/// let shift = hodges_lehmann(&x, &y, 0.95).expect("two samples");
/// assert_eq!(shift.estimate, 10.0);
/// let (low, high) = shift.interval.expect("8 against 8 reach 95%");
/// assert!(low > 0.0 && low < 10.0 && high > 10.0);
/// ```
pub fn hodges_lehmann(x: &[f64], y: &[f64], confidence: f64) -> Option<Shift> {
    if x.is_empty()
        || y.is_empty()
        || x.iter().chain(y).any(|v| !v.is_finite())
        || !(confidence > 0.0 && confidence < 1.0)
    {
        return None;
    }
    let mut differences: Vec<f64> = y
        .iter()
        .flat_map(|b| x.iter().map(move |a| b - a))
        .collect();
    differences.sort_by(f64::total_cmp);
    let estimate = quantile_of_sorted(&differences, 0.5);
    let (n1, n2) = (x.len(), y.len());
    let alpha = 1.0 - confidence;
    let pairs = differences.len();
    let (lower_rank, achieved) = match UDistribution::new(n1, n2) {
        Some(dist) => {
            let rank = dist.quantile(alpha / 2.0);
            let achieved = (rank >= 1).then(|| 1.0 - 2.0 * dist.cdf(rank - 1));
            (rank as usize, achieved)
        }
        None => {
            let (a, b) = (n1 as f64, n2 as f64);
            let mean = a * b / 2.0;
            let sigma = (a * b * (a + b + 1.0) / 12.0).sqrt();
            let z = normal_quantile(1.0 - alpha / 2.0);
            let rank = (mean - 0.5 - sigma * z).ceil().max(0.0);
            // P(U <= rank - 1) by the same approximation, continuity
            // corrected.
            let achieved =
                (rank >= 1.0).then(|| 1.0 - 2.0 * normal_sf((mean - (rank - 0.5)) / sigma));
            (rank as usize, achieved)
        }
    };
    // 1-based order statistics lower_rank and pairs + 1 - lower_rank.
    let interval = (lower_rank >= 1 && lower_rank <= pairs)
        .then(|| (differences[lower_rank - 1], differences[pairs - lower_rank]));
    Some(Shift {
        estimate,
        interval,
        achieved_confidence: interval.and(achieved),
    })
}

/// [`hodges_lehmann`] on logarithms, returned as ratios: the median of
/// every `y_j / x_i` (the geometric mean of the two middle ones for an
/// even count) and its interval. `None` also when a value is not positive
/// (a ratio to or of zero time has no logarithm).
///
/// ```
/// use opguard_stats::hodges_lehmann_ratio;
///
/// let before = [100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 97.0, 100.0];
/// let after: Vec<f64> = before.iter().map(|v| v * 1.2).collect();
/// let ratio = hodges_lehmann_ratio(&before, &after, 0.95).expect("positive times");
/// assert!((ratio.estimate - 1.2).abs() < 1e-12);
/// let (low, high) = ratio.interval.expect("8 against 8");
/// assert!(low > 1.0 && high > 1.2);
/// assert!(hodges_lehmann_ratio(&[0.0, 1.0], &[1.0, 2.0], 0.95).is_none());
/// ```
pub fn hodges_lehmann_ratio(x: &[f64], y: &[f64], confidence: f64) -> Option<Shift> {
    if x.iter().chain(y).any(|v| *v <= 0.0) {
        return None;
    }
    let logs = |v: &[f64]| -> Vec<f64> { v.iter().map(|v| v.ln()).collect() };
    let shift = hodges_lehmann(&logs(x), &logs(y), confidence)?;
    Some(Shift {
        estimate: shift.estimate.exp(),
        interval: shift.interval.map(|(lo, hi)| (lo.exp(), hi.exp())),
        achieved_confidence: shift.achieved_confidence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_against_two_cannot_reach_95_percent() {
        let shift = hodges_lehmann(&[1.0, 2.0], &[3.0, 4.0], 0.95).unwrap();
        assert_eq!(shift.estimate, 2.0);
        assert_eq!((shift.interval, shift.achieved_confidence), (None, None));
        // At 60% the widest interval (1 - 2/6 = 66.7%) is enough.
        let shift = hodges_lehmann(&[1.0, 2.0], &[3.0, 4.0], 0.6).unwrap();
        assert_eq!(shift.interval, Some((1.0, 3.0)));
        assert!((shift.achieved_confidence.unwrap() - 2.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn bad_input_has_no_shift() {
        assert!(hodges_lehmann(&[], &[1.0], 0.95).is_none());
        assert!(hodges_lehmann(&[1.0], &[1.0], 1.0).is_none());
        assert!(hodges_lehmann(&[f64::INFINITY], &[1.0], 0.9).is_none());
    }
}
