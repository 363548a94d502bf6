//! Properties of the order-aware alignment: every result is a common
//! subsequence of equal signatures, as long as the longest one (checked
//! against a dynamic-programming oracle).

use proptest::prelude::*;

use opguard_align::align_sequences;

use crate::lcs_len;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn alignment_is_a_longest_common_subsequence(
        a in proptest::collection::vec(0u8..6, 0..60),
        b in proptest::collection::vec(0u8..6, 0..60),
    ) {
        let al = align_sequences(&a, &b, u64::MAX);
        prop_assert!(!al.budget_exhausted);
        for w in al.pairs.windows(2) {
            prop_assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1);
        }
        for &(i, j) in &al.pairs {
            prop_assert_eq!(a[i], b[j]);
        }
        prop_assert_eq!(al.pairs.len(), lcs_len(&a, &b));
    }

    #[test]
    fn insertions_never_shift_other_pairs(
        a in proptest::collection::vec(0u8..4, 1..80),
        at in 0usize..80,
    ) {
        // b = a with one new signature inserted: every element of a pairs
        // with its own copy.
        let at = at % (a.len() + 1);
        let mut b = a.clone();
        b.insert(at, 99);
        let al = align_sequences(&a, &b, u64::MAX);
        let expected: Vec<(usize, usize)> =
            (0..a.len()).map(|i| (i, if i < at { i } else { i + 1 })).collect();
        prop_assert_eq!(al.pairs, expected);
    }

    #[test]
    fn a_small_budget_still_pairs_only_equal_signatures_in_order(
        a in proptest::collection::vec(0u8..3, 0..200),
        b in proptest::collection::vec(0u8..3, 0..200),
        budget in 0u64..500,
    ) {
        let al = align_sequences(&a, &b, budget);
        for &(i, j) in &al.pairs {
            prop_assert_eq!(a[i], b[j]);
        }
        for w in al.pairs.windows(2) {
            prop_assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1);
        }
    }
}

/// The smallest budget with which `align_sequences(a, b, _)` completes.
fn enough(a: &[u8], b: &[u8], needed: u64) {
    let short = align_sequences(a, b, needed - 1);
    assert!(short.budget_exhausted, "{a:?} {b:?} with {}", needed - 1);
    let full = align_sequences(a, b, needed);
    assert!(!full.budget_exhausted, "{a:?} {b:?} with {needed}");
    assert_eq!(full.pairs.len(), lcs_len(a, b));
}

/// The budget counts work: round `d` of a middle-snake search visits
/// `d + 1` forward and `d + 1` backward diagonals, and its snakes' matched
/// steps; the round that finds the middle snake returns before it is
/// charged. The figures below follow that rule by hand.
#[test]
fn the_budget_counts_the_diagonals_each_round_visits() {
    // [0] vs [1]: round 0 visits 2 diagonals, round 1 finds the snake.
    enough(&[0], &[1], 2);
    // [0,0] vs [1,1]: rounds 0 and 1 cost 2 + 4, round 2 finds the snake.
    enough(&[0, 0], &[1, 1], 6);
    // [0,1,2] vs [3,1,4]: 2 + 4 before the split at (1,1); then [0] vs [3]
    // and (after the common prefix 1) [2] vs [4] cost 2 each.
    enough(&[0, 1, 2], &[3, 1, 4], 10);
    // Equal inputs, or an empty side, need no search at all.
    assert!(!align_sequences(&[1, 2, 3], &[1, 2, 3], 0).budget_exhausted);
    assert!(!align_sequences(&[1, 2, 3], &[], 0).budget_exhausted);
}

/// The default budget is far beyond what short sequences need: results
/// equal the dynamic-programming oracle.
#[test]
fn the_default_budget_is_exact_on_short_sequences() {
    let a: Vec<u8> = (0..300).map(|i| (i * 7 % 11) as u8).collect();
    let b: Vec<u8> = (0..280).map(|i| (i * 5 % 11) as u8).collect();
    let al = align_sequences(&a, &b, opguard_align::DEFAULT_ALIGNMENT_BUDGET);
    assert!(!al.budget_exhausted);
    assert_eq!(al.pairs.len(), lcs_len(&a, &b));
}
