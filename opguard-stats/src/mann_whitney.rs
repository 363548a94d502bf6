//! The Mann–Whitney U test (Wilcoxon rank-sum): do two independent samples
//! come from one distribution?
//!
//! It needs no assumption about the shape of the distribution (GPU kernel
//! times are skewed, with a long tail of slow repetitions) and is exact for
//! the small samples a regression gate sees: eight steps against eight.
//! [`MannWhitneyMethod::Exact`] computes the permutation distribution of U
//! given the observed ranks — the distribution `scipy.stats.mannwhitneyu`'s
//! `method="exact"` uses when there are no ties, and the one an exhaustive
//! permutation test (`method=PermutationMethod(n_resamples=inf)`) uses when
//! there are; [`MannWhitneyMethod::Asymptotic`] is scipy's normal
//! approximation with its tie and continuity corrections.

use crate::rank::average_ranks;
use crate::special::normal_sf;

/// Samples (both sides together) up to which [`mann_whitney_u`] computes
/// the exact distribution of U when no value is tied: the counts of a
/// 60-against-60 split still fit an `i128`.
pub const EXACT_MAX_SAMPLES: usize = 120;

/// Samples (both sides together) up to which [`mann_whitney_u`] computes
/// the exact distribution of U when values are tied (a table over rank
/// sums: its cost grows with the cube of the samples).
pub const EXACT_MAX_SAMPLES_WITH_TIES: usize = 40;

/// How a p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MannWhitneyMethod {
    /// The exact permutation distribution of U given the observed ranks.
    Exact,
    /// The normal approximation, corrected for ties and for continuity.
    Asymptotic,
}

impl MannWhitneyMethod {
    /// The name the JSON uses (`exact`, `asymptotic`).
    pub fn as_str(self) -> &'static str {
        match self {
            MannWhitneyMethod::Exact => "exact",
            MannWhitneyMethod::Asymptotic => "asymptotic",
        }
    }
}

/// The outcome of [`mann_whitney_u`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample: how many of its values exceed one of the
    /// second's, a tie counting one half (scipy's `statistic`).
    pub u: f64,
    /// The two-sided p-value: twice the smaller tail at U, at most 1.
    pub p_value: f64,
    /// How it was computed.
    pub method: MannWhitneyMethod,
    /// Whether any two values (of either sample) are equal.
    pub ties: bool,
}

/// The two-sided Mann–Whitney U test of `x` against `y`.
///
/// `method` `None` chooses: [`MannWhitneyMethod::Exact`] up to
/// [`EXACT_MAX_SAMPLES`] values without ties, or
/// [`EXACT_MAX_SAMPLES_WITH_TIES`] with ties, else asymptotic. Asking for
/// the exact method beyond those sizes gives the asymptotic one (the
/// outcome says which). `None` when a sample is empty or a value is not
/// finite.
///
/// ```
/// use opguard_stats::{mann_whitney_u, MannWhitneyMethod};
///
/// // Every value of one sample above every value of the other, 8 against 8:
/// // 2 of the C(16, 8) = 12,870 equally likely splits are this extreme.
/// let before = [10.0, 10.2, 9.9, 10.1, 9.8, 10.3, 10.0, 9.7];
/// let after = [12.0, 12.2, 11.9, 12.1, 11.8, 12.3, 12.0, 11.7];
/// let test = mann_whitney_u(&before, &after, None).expect("two samples");
/// assert_eq!(test.method, MannWhitneyMethod::Exact);
/// assert_eq!(test.u, 0.0);
/// assert!((test.p_value - 2.0 / 12_870.0).abs() < 1e-15);
/// ```
pub fn mann_whitney_u(
    x: &[f64],
    y: &[f64],
    method: Option<MannWhitneyMethod>,
) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    let ranks = average_ranks(&all);
    // Ranks are multiples of one half: doubled, they are integers.
    let doubled: Vec<u64> = ranks.iter().map(|r| (r * 2.0).round() as u64).collect();
    let rank_sum_doubled: u64 = doubled[..n1].iter().sum();
    let n1_u = n1 as u64;
    let u_doubled = rank_sum_doubled - n1_u * (n1_u + 1);
    let u = u_doubled as f64 / 2.0;
    let tie_sizes = tie_sizes(&all);
    let ties = tie_sizes.iter().any(|&t| t > 1);
    let n = n1 + n2;
    let exact_fits = if ties {
        n <= EXACT_MAX_SAMPLES_WITH_TIES
    } else {
        n <= EXACT_MAX_SAMPLES
    };
    let method = match method {
        Some(MannWhitneyMethod::Asymptotic) => MannWhitneyMethod::Asymptotic,
        _ if exact_fits => MannWhitneyMethod::Exact,
        _ => MannWhitneyMethod::Asymptotic,
    };
    let p_value = match method {
        MannWhitneyMethod::Exact if ties => {
            let (below, above) = tied_tails(&doubled, n1, rank_sum_doubled);
            (2.0 * below.min(above)).min(1.0)
        }
        MannWhitneyMethod::Exact => match UDistribution::new(n1, n2) {
            Some(dist) => {
                let u = u_doubled / 2;
                (2.0 * dist.cdf(u).min(dist.sf(u))).min(1.0)
            }
            None => asymptotic_p(u, n1, n2, &tie_sizes),
        },
        MannWhitneyMethod::Asymptotic => asymptotic_p(u, n1, n2, &tie_sizes),
    };
    Some(MannWhitney {
        u,
        p_value,
        method,
        ties,
    })
}

/// The smallest two-sided p-value the exact test can give `n1` values
/// against `n2`: both extreme splits out of `C(n1 + n2, n1)` (1 when a
/// sample is empty). Below it no evidence, however strong, can reach:
/// with 3 against 3 it is 0.1, so a test at 0.05 could never reject.
///
/// ```
/// use opguard_stats::mann_whitney_min_p;
/// assert!((mann_whitney_min_p(3, 3) - 0.1).abs() < 1e-15);
/// assert_eq!(mann_whitney_min_p(1, 1), 1.0);
/// ```
pub fn mann_whitney_min_p(n1: usize, n2: usize) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    (2.0 / binomial(n1 + n2, n1)).min(1.0)
}

/// `C(n, k)` as a float (exact while it fits 53 bits, then to f64
/// precision).
fn binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The sizes of the groups of equal values.
fn tie_sizes(values: &[f64]) -> Vec<usize> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut sizes = Vec::new();
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i] != sorted[start] {
            sizes.push(i - start);
            start = i;
        }
    }
    sizes
}

/// scipy's normal approximation: `U = max(U1, U2)`, `z = (U - n1·n2/2 -
/// 1/2) / σ` with σ corrected for ties, `p = 2·sf(z)` at most 1.
fn asymptotic_p(u1: f64, n1: usize, n2: usize, tie_sizes: &[usize]) -> f64 {
    let (n1, n2) = (n1 as f64, n2 as f64);
    let n = n1 + n2;
    let u = u1.max(n1 * n2 - u1);
    let tie_term: f64 = tie_sizes
        .iter()
        .map(|&t| {
            let t = t as f64;
            t * t * t - t
        })
        .sum();
    let sigma = (n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
    let z = (u - n1 * n2 / 2.0 - 0.5) / sigma;
    // σ = 0 (every value equal): z is -inf and the p-value 1.
    (2.0 * normal_sf(z)).clamp(0.0, 1.0)
}

/// `(P(S <= s), P(S >= s))` for the doubled rank sum `S` of `n1` values
/// drawn without replacement from the doubled ranks `doubled`: the
/// permutation distribution given the ties, counted over rank sums.
fn tied_tails(doubled: &[u64], n1: usize, s: u64) -> (f64, f64) {
    let total: u64 = doubled.iter().sum();
    let width = total as usize + 1;
    // counts[k * width + sum]: ways to pick k of the values seen so far
    // with that doubled rank sum. Floats: only sums of positive counts.
    let mut counts = vec![0.0_f64; (n1 + 1) * width];
    counts[0] = 1.0;
    for (seen, &r) in doubled.iter().enumerate() {
        let r = r as usize;
        for k in (1..=n1.min(seen + 1)).rev() {
            let (lower, upper) = counts.split_at_mut(k * width);
            let from = &lower[(k - 1) * width..];
            let to = &mut upper[..width];
            for sum in (0..width - r).rev() {
                let c = from[sum];
                if c != 0.0 {
                    to[sum + r] += c;
                }
            }
        }
    }
    let row = &counts[n1 * width..];
    let all: f64 = row.iter().sum();
    let s = s as usize;
    let below: f64 = row[..=s].iter().sum();
    let above: f64 = row[s..].iter().sum();
    (below / all, above / all)
}

/// The exact distribution of U for `n1` values against `n2`, without ties:
/// the counts of each U among the `C(n1 + n2, n1)` equally likely splits,
/// the coefficients of the Gaussian binomial `[n1 + n2 choose n1]_q =
/// Π_{i=1..n1} (1 - q^{n2+i}) / (1 - q^i)`.
#[derive(Debug, Clone, PartialEq)]
pub struct UDistribution {
    /// `cumulative[u]`: P(U <= u).
    cumulative: Vec<f64>,
}

impl UDistribution {
    /// The distribution for `n1` against `n2`; `None` when together they
    /// are more than [`EXACT_MAX_SAMPLES`].
    pub fn new(n1: usize, n2: usize) -> Option<UDistribution> {
        if n1 + n2 > EXACT_MAX_SAMPLES {
            return None;
        }
        let (m, n) = (n1.min(n2), n1.max(n2));
        let top = m * n;
        let mut poly = vec![0_i128; top + 1];
        poly[0] = 1;
        for i in 1..=m {
            // × (1 - q^{n+i}), highest power first so each term is read
            // before it is changed.
            let shift = n + i;
            for d in (shift..=top).rev() {
                poly[d] -= poly[d - shift];
            }
            // ÷ (1 - q^i): r_d = p_d + r_{d-i}, exact because it divides.
            for d in i..=top {
                poly[d] += poly[d - i];
            }
        }
        let total: i128 = poly.iter().sum();
        let mut running = 0_i128;
        let cumulative = poly
            .iter()
            .map(|&c| {
                running += c;
                running as f64 / total as f64
            })
            .collect();
        Some(UDistribution { cumulative })
    }

    /// `n1·n2`, the largest U.
    pub fn max_u(&self) -> u64 {
        (self.cumulative.len() - 1) as u64
    }

    /// P(U <= u).
    pub fn cdf(&self, u: u64) -> f64 {
        self.cumulative.get(u as usize).copied().unwrap_or(1.0)
    }

    /// P(U >= u): by symmetry, P(U <= max - u).
    pub fn sf(&self, u: u64) -> f64 {
        match self.max_u().checked_sub(u) {
            Some(mirror) => self.cdf(mirror),
            None => 0.0,
        }
    }

    /// The smallest `u` with P(U <= u) >= `p` (R's `qwilcox`).
    pub fn quantile(&self, p: f64) -> u64 {
        // A hair of tolerance: a cumulative share of exactly `p` computed
        // as 0.0249999… must count as reaching 0.025.
        let p = p * (1.0 - 64.0 * f64::EPSILON);
        self.cumulative.partition_point(|&c| c < p) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distribution by brute force: every split of 0..n1+n2.
    fn brute_force(n1: usize, n2: usize) -> Vec<u64> {
        let n = n1 + n2;
        let mut counts = vec![0_u64; n1 * n2 + 1];
        for mask in 0_u32..(1 << n) {
            if mask.count_ones() as usize != n1 {
                continue;
            }
            // U of the chosen: pairs (chosen, other) with chosen above.
            let mut u = 0;
            for a in 0..n {
                for b in 0..n {
                    if mask & (1 << a) != 0 && mask & (1 << b) == 0 && a > b {
                        u += 1;
                    }
                }
            }
            counts[u] += 1;
        }
        counts
    }

    #[test]
    fn the_gaussian_binomial_counts_every_split() {
        for (n1, n2) in [(1, 1), (2, 3), (3, 3), (4, 2), (5, 5), (3, 7)] {
            let counts = brute_force(n1, n2);
            let total: u64 = counts.iter().sum();
            let dist = UDistribution::new(n1, n2).unwrap();
            let mut running = 0;
            for (u, c) in counts.iter().enumerate() {
                running += c;
                let want = running as f64 / total as f64;
                assert!(
                    (dist.cdf(u as u64) - want).abs() < 1e-15,
                    "{n1}x{n2} at {u}"
                );
            }
        }
    }

    #[test]
    fn the_tied_table_without_ties_is_the_exact_distribution() {
        let x = [1.0, 5.0, 2.0, 8.0];
        let y = [3.0, 4.0, 9.0, 7.0, 6.0];
        let ranks: Vec<u64> = average_ranks(&[&x[..], &y[..]].concat())
            .iter()
            .map(|r| (r * 2.0) as u64)
            .collect();
        let s: u64 = ranks[..4].iter().sum();
        let (below, above) = tied_tails(&ranks, 4, s);
        let dist = UDistribution::new(4, 5).unwrap();
        let u = (s - 4 * 5) / 2;
        assert!((below - dist.cdf(u)).abs() < 1e-15);
        assert!((above - dist.sf(u)).abs() < 1e-15);
    }

    #[test]
    fn one_value_each_can_never_be_significant() {
        let t = mann_whitney_u(&[1.0], &[2.0], None).unwrap();
        assert_eq!(t.p_value, 1.0);
        assert_eq!(mann_whitney_min_p(1, 1), 1.0);
        assert!(mann_whitney_u(&[], &[2.0], None).is_none());
        assert!(mann_whitney_u(&[f64::NAN], &[2.0], None).is_none());
        // Every value equal: nothing to tell apart.
        let flat = mann_whitney_u(&[3.0; 4], &[3.0; 4], None).unwrap();
        assert_eq!((flat.p_value, flat.ties), (1.0, true));
        let flat = mann_whitney_u(&[3.0; 4], &[3.0; 4], Some(MannWhitneyMethod::Asymptotic));
        assert_eq!(flat.unwrap().p_value, 1.0);
    }

    #[test]
    fn quantiles_invert_the_cumulative_distribution() {
        let dist = UDistribution::new(8, 8).unwrap();
        for p in [0.001, 0.025, 0.05, 0.5] {
            let q = dist.quantile(p);
            assert!(dist.cdf(q) >= p * (1.0 - 1e-12));
            assert!(q == 0 || dist.cdf(q - 1) < p);
        }
    }
}
