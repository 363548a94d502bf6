//! The statistics opguard's analyses share, each held to scipy.
//!
//! - [`mann_whitney_u`]: the two-sided Mann–Whitney U test, exact for small
//!   samples (with or without ties), with [`mann_whitney_min_p`], the
//!   smallest p-value two sample sizes can ever give.
//! - [`hodges_lehmann`] and [`hodges_lehmann_ratio`]: how far one sample is
//!   shifted from another (a difference, or on logarithms a ratio), with the
//!   distribution-free confidence interval that goes with the test.
//! - [`benjamini_hochberg`]: adjusted p-values that control the false
//!   discovery rate over a family of tests.
//! - [`spearman`]: rank correlation and its p-value.
//! - [`median`], [`quantile`], [`average_ranks`], [`integer_ranks`] and the special functions
//!   behind the distributions ([`normal_sf`], [`student_t_two_sided_p`], ...).
//!
//! # Why a crate of its own
//!
//! `opguard-scaling` (Spearman across trials) and `opguard-compare` (a
//! regression gate across runs) need the same rank machinery and the same
//! multiple-testing correction. Copying it would let two implementations
//! drift; making it a public module of `opguard-scaling` would make the
//! comparison depend on the scaling analysis and everything that reads its
//! trials (the trace reader, the formats). This crate depends on nothing of
//! opguard's, has no input to parse and nothing to fail on (functions
//! return `None` or NaN outside their domain), so any tool can use it alone.
//!
//! # Precision
//!
//! `tests/scipy.rs` holds every function to the values scipy 1.17.1
//! computes for the same input, printed by the script quoted there:
//! relative error at most 1e-12 (p-values, rho, the beta and t functions,
//! the normal tail), exact agreement for the order statistics the intervals
//! pick.
//!
//! ```
//! use opguard_stats::{benjamini_hochberg, hodges_lehmann_ratio, mann_whitney_u};
//!
//! // One kernel's time per step, eight steps before and after a change.
//! let before = [100.0, 104.0, 97.0, 101.0, 99.0, 103.0, 96.0, 100.5];
//! let after = [120.0, 123.0, 118.0, 121.0, 119.5, 124.0, 117.0, 120.5];
//! let test = mann_whitney_u(&before, &after, None).expect("two samples");
//! let ratio = hodges_lehmann_ratio(&before, &after, 0.95).expect("positive times");
//! assert!(test.p_value < 0.001);
//! assert!((ratio.estimate - 1.2).abs() < 0.01);
//!
//! // Three kernels tested at once: the adjusted p-values control the share
//! // of false discoveries among those called significant.
//! let adjusted = benjamini_hochberg(&[test.p_value, 0.04, 0.6]);
//! assert!(adjusted[0] < 0.05 && adjusted[1] > 0.05);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Special functions: ln Γ, incomplete beta and gamma, Student's t, normal.
mod special;
// Ranks, medians and quantiles.
mod rank;
// Spearman's rank correlation.
mod correlation;
// Benjamini–Hochberg.
mod multiplicity;
// The Mann–Whitney U test and the exact distribution of U.
mod mann_whitney;
// Hodges–Lehmann shifts and their intervals.
mod shift;

pub use correlation::{spearman, spearman_p_value, Spearman};
pub use mann_whitney::{
    mann_whitney_min_p, mann_whitney_u, MannWhitney, MannWhitneyMethod, UDistribution,
    EXACT_MAX_SAMPLES, EXACT_MAX_SAMPLES_WITH_TIES,
};
pub use multiplicity::benjamini_hochberg;
pub use rank::{average_ranks, integer_ranks, median, quantile};
pub use shift::{hodges_lehmann, hodges_lehmann_ratio, Shift};
pub use special::{
    ln_gamma, normal_quantile, normal_sf, regularized_gamma_q, regularized_incomplete_beta,
    student_t_two_sided_p,
};

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
