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
