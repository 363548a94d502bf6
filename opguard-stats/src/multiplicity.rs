//! Multiple testing: the Benjamini–Hochberg adjustment, which controls the
//! false discovery rate over a family of tests.

/// Benjamini–Hochberg adjusted p-values, in the order given: `p_(i) * m / i`
/// over the ascending order, made monotone from the largest down, capped
/// at 1 (as `scipy.stats.false_discovery_control(ps, method="bh")`).
/// p-values belong in `[0, 1]`; a NaN stays NaN and adjusts nothing else.
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
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
    fn no_p_values_adjust_to_none() {
        assert!(benjamini_hochberg(&[]).is_empty());
        let adjusted = benjamini_hochberg(&[0.01, f64::NAN]);
        assert!(adjusted[1].is_nan());
        assert_eq!(adjusted[0], 0.02);
    }
}
