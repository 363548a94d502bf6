//! Ranks and order statistics: average ranks with ties, the median and
//! linearly interpolated quantiles.

/// Ranks starting at 1; tied values share the average of their ranks.
/// Values are ordered with [`f64::total_cmp`].
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]].total_cmp(&values[order[start]]).is_eq() {
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
