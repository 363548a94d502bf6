//! Ranks and order statistics: average ranks with ties, the median and
//! linearly interpolated quantiles.

/// Ranks starting at 1; tied values share the average of their ranks.
/// Values are ordered with [`f64::total_cmp`], except that `-0.0` and `0.0`
/// are one value (they tie), as they are one number.
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    ranks_by(values, |a, b| (a + 0.0).total_cmp(&(b + 0.0)))
}

/// [`average_ranks`] of integers, compared as integers: through `f64`,
/// costs beyond 2^53 that differ by less than a unit in the last place
/// would tie.
pub fn integer_ranks(values: &[i64]) -> Vec<f64> {
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

/// The median of `values` (the mean of the two middle values of an even
/// count), or `None` when there are none or one is NaN.
pub fn median(values: &[f64]) -> Option<f64> {
    quantile(values, 0.5)
}

/// The `q` quantile of `values` by linear interpolation between order
/// statistics (`numpy.quantile`'s default, Hyndman and Fan's type 7): the
/// value at position `q·(n - 1)` of the sorted values. `None` when there are
/// no values, one is NaN, or `q` is outside `[0, 1]`.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(quantile_of_sorted(&sorted, q))
}

/// [`quantile`] of values already sorted ascending (non-empty, no NaN).
pub(crate) fn quantile_of_sorted(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let (lo, hi) = (sorted[below], sorted[above]);
    if below == above || lo == hi {
        lo
    } else {
        lo + (hi - lo) * (position - below as f64)
    }
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
    fn medians_and_quantiles_interpolate() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1.0, f64::NAN]), None);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), Some(2.0));
        assert_eq!(quantile(&[10.0, 20.0], 0.75), Some(17.5));
        assert_eq!(quantile(&[1.0], 1.5), None);
    }
}
