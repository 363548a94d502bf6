//! The memo answers exactly what `canonicalize` and `matches` answer, over
//! every symbol of the parity fixture, every real HTA trace name and the
//! TraceLens names; it never demangles a kept symbol again and never holds
//! more than its budget.

use opguard_kernel_name::{canonicalize, matches, Memo};
use proptest::prelude::*;

use super::common::{hta_dir, trace_names};

/// Fixture symbols, real trace names and TraceLens names (the whole corpus).
fn corpus() -> Vec<String> {
    let fixture = super::fixture::load();
    let mut names: Vec<String> = fixture["symbol_cases"]
        .as_array()
        .expect("symbol_cases")
        .iter()
        .map(|c| c["symbol"].as_str().expect("symbol").to_owned())
        .collect();
    let tracelens = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/kernel-name/real-names/tracelens.json");
    let list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tracelens).expect("read the real-name list"))
            .expect("parse the real-name list");
    names.extend(
        list["names"]
            .as_array()
            .expect("names")
            .iter()
            .map(|n| n["name"].as_str().expect("name").to_owned()),
    );
    if let Some(dir) = hta_dir() {
        names.extend(trace_names(&dir).into_iter().map(|(name, _)| name));
    }
    names
}

fn json_of(c: &opguard_kernel_name::Canonical<'_>) -> String {
    serde_json::to_string(c).expect("a canonical form serializes")
}

/// Every corpus symbol, three times over, through memos of several budgets
/// (0: keeps nothing; tiny: evicts constantly; a few MB: rotates; default): the same JSON,
/// identities and short names as without a memo.
#[test]
fn memo_answers_equal_direct_answers_over_the_whole_corpus() {
    let names = corpus();
    let mangled = names.iter().filter(|n| n.trim().starts_with("_Z")).count();
    assert!(mangled >= 20, "{mangled} mangled names in the corpus");
    let direct: Vec<String> = names.iter().map(|n| json_of(&canonicalize(n))).collect();
    for budget in [0, 600, 60_000, 3_000_000, Memo::DEFAULT_BUDGET] {
        let mut memo = Memo::with_budget(budget);
        for round in 0..3 {
            for (name, want) in names.iter().zip(&direct) {
                let got = memo.canonicalize(name);
                assert_eq!(
                    &json_of(&got),
                    want,
                    "budget {budget}, round {round}: {name}"
                );
                assert_eq!(got.short_name(), canonicalize(name).short_name());
                assert_eq!(
                    got.qualified_identity(),
                    canonicalize(name).qualified_identity()
                );
                assert!(
                    memo.bytes() <= budget,
                    "budget {budget}: holds {}",
                    memo.bytes()
                );
            }
        }
        let stats = memo.stats();
        assert_eq!(
            stats.hits + stats.misses,
            3 * names.len() as u64,
            "budget {budget}"
        );
        if budget == Memo::DEFAULT_BUDGET {
            // Repeated symbols, plain or mangled, are never canonicalized
            // (or demangled) again.
            let distinct: std::collections::HashSet<&String> = names.iter().collect();
            assert_eq!(stats.misses, distinct.len() as u64);
            assert_eq!(stats.evicted, 0);
        }
        if budget == 0 {
            assert_eq!(stats.hits, 0);
            assert!(memo.is_empty());
        }
        if budget == 60_000 {
            // Long cuDNN symbols fit one at a time: the generations rotate.
            assert!(stats.evicted > 0, "{stats:?}");
        }
        if budget == 3_000_000 {
            // Half the corpus fits a generation: a symbol seen in the
            // previous pass is found in the old generation and moved on.
            assert!(stats.evicted > 0 && stats.hits > 0, "{stats:?}");
        }
    }
}

/// Verdicts through the memo equal `matches` for every corpus symbol against
/// its neighbours and itself, with a budget small enough to rotate often.
#[test]
fn memo_verdicts_equal_direct_verdicts() {
    let names = corpus();
    let n = names.len();
    for budget in [3_000, Memo::DEFAULT_BUDGET] {
        let mut memo = Memo::with_budget(budget);
        for i in 0..n {
            for j in [i, (i + 1) % n, (i * 7 + 3) % n] {
                let (want, got) = (&names[i], &names[j]);
                assert_eq!(
                    memo.matches(want, got),
                    matches(want, got),
                    "budget {budget}: {want} vs {got}"
                );
            }
        }
    }
}

/// A kept symbol is not canonicalized again until it is evicted; eviction
/// drops the generation not used since the last rotation. Plain symbols are
/// kept like mangled ones.
#[test]
fn memo_keeps_recent_symbols_and_drops_stale_ones() {
    let sym = |i: usize| format!("_ZN2at6native{}kernel_{i:04}ILi4EEEvi", 13);
    let mut memo = Memo::with_budget(12 * (Memo::ENTRY_OVERHEAD + 200));
    let hot = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_";
    for i in 0..50 {
        let _ = memo.canonicalize(hot);
        let _ = memo.canonicalize(&sym(i));
        assert!(memo.bytes() <= memo.budget());
    }
    let stats = memo.stats();
    assert_eq!(
        stats.misses, 51,
        "the hot symbol was demangled once: {stats:?}"
    );
    assert_eq!(stats.hits, 49);
    assert!(stats.evicted > 0, "{stats:?}");
    let before = memo.stats().misses;
    let _ = memo.canonicalize(&sym(0));
    assert_eq!(
        memo.stats().misses,
        before + 1,
        "a stale symbol was evicted"
    );
    let plain = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int, at::native::FillFunctor<float>)";
    let before = memo.stats();
    for _ in 0..3 {
        assert_eq!(
            memo.canonicalize(plain).identity(),
            canonicalize(plain).identity()
        );
    }
    assert_eq!(
        (memo.stats().misses, memo.stats().hits),
        (before.misses + 1, before.hits + 2)
    );
    memo.clear();
    assert!(memo.is_empty());
    assert_eq!(memo.stats(), Default::default());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Any sequence of symbols (mangled-looking or not, repeated or not)
    /// through a small memo gives the direct answers and stays in budget.
    #[test]
    fn memo_is_transparent_for_any_sequence(
        picks in prop::collection::vec((0usize..12, "[_ZNIEvi0-9a-z ]{0,24}"), 1..60),
        budget in 0usize..4000,
    ) {
        let pool = [
            "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
            "_Z10add_kernelPfS_",
            "  _Z10add_kernelPfS_",
            "_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i",
            "_Znot_mangled",
            "void k<4>(float*)",
            "Memcpy HtoD (Host -> Device)",
        ];
        let mut memo = Memo::with_budget(budget);
        for (i, free) in &picks {
            let symbol = match pool.get(*i) {
                Some(s) => (*s).to_owned(),
                None => format!("_Z{free}"),
            };
            let got = json_of(&memo.canonicalize(&symbol));
            prop_assert_eq!(got, json_of(&canonicalize(&symbol)));
            prop_assert!(memo.bytes() <= budget);
        }
    }
}

/// The memoized JSON answers equal `serde_json` over the direct canonical
/// form, for the whole corpus, several projections and budgets.
#[test]
fn memo_json_answers_equal_direct_serialization() {
    use opguard_kernel_name::Field;
    let names = corpus();
    let projections: [&[Field]; 3] = [&Field::COMPACT, &Field::ALL, &[Field::Identity]];
    for budget in [0, 4_000, Memo::DEFAULT_BUDGET] {
        let mut memo = Memo::with_budget(budget);
        for fields in projections {
            for round in 0..2 {
                for name in &names {
                    let want = serde_json::to_string(&canonicalize(name).project(fields)).unwrap();
                    let mut got = String::from("prefix|");
                    memo.write_json(name, fields, &mut got);
                    assert_eq!(
                        got,
                        format!("prefix|{want}"),
                        "budget {budget}, round {round}: {name}"
                    );
                    let mut from_bytes = String::new();
                    memo.write_json_bytes(name.as_bytes(), fields, &mut from_bytes)
                        .expect("a str is UTF-8");
                    assert_eq!(from_bytes, want, "bytes, budget {budget}: {name}");
                    assert!(memo.bytes() <= budget);
                }
            }
        }
        let stats = memo.stats();
        assert_eq!(
            stats.answer_hits + stats.answer_misses,
            12 * names.len() as u64
        );
        if budget == Memo::DEFAULT_BUDGET {
            let distinct: std::collections::HashSet<&String> = names.iter().collect();
            assert_eq!(
                stats.answer_misses,
                3 * distinct.len() as u64,
                "rendered once per projection"
            );
        }
        if budget == 0 {
            assert_eq!(stats.answer_hits, 0);
        }
    }
}

/// A line that is not UTF-8 is refused with the position of the first bad
/// byte and nothing written, also when a kept symbol is its valid prefix.
#[test]
fn memo_json_from_bytes_checks_utf8_of_symbols_it_does_not_hold() {
    use opguard_kernel_name::Field;
    let mut memo = Memo::new();
    let kept = "void k<4>(float*)";
    let mut out = String::new();
    memo.write_json_bytes(kept.as_bytes(), &Field::COMPACT, &mut out)
        .expect("UTF-8");
    let mut bad = kept.as_bytes().to_vec();
    bad.push(0xff);
    out.clear();
    let err = memo
        .write_json_bytes(&bad, &Field::COMPACT, &mut out)
        .expect_err("not UTF-8");
    assert_eq!(err.valid_up_to(), kept.len());
    assert!(out.is_empty(), "{out}");
    memo.write_json_bytes(kept.as_bytes(), &Field::COMPACT, &mut out)
        .expect("UTF-8");
    assert_eq!(memo.stats().answer_hits, 1);
}
