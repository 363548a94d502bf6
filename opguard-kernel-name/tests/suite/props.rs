//! Properties over arbitrary strings: totality, idempotence, symmetry.

use opguard_kernel_name::{
    canonicalize, matches, short_name, Mangling, TemplateKind, SHORT_NAME_LIMIT,
};
use proptest::prelude::*;

/// Arbitrary UTF-8, plus strings dense in the characters the rules care about.
fn symbol() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z_:<>()\\[\\], .]{0,48}",
        "(void |_Z|Memcpy |Memset |std::enable_if<!\\(false\\), void>::type )?[a-zA-Z0-9_:<>()\\[\\], .\t{}#*&é-]{0,64}",
        "[a-zA-Z_]{1,12}(::[a-zA-Z_]{1,12}){0,2}(<[a-z0-9, ]{0,16}(>|\\.\\.\\.>)?)?(\\([a-z*, ]{0,12}\\))?( \\[[a-z]{0,8}\\])?",
        // Name tokens joined by `-`/`.` (MTIA's `aten::mul.out-dtype_Float`),
        // long enough for the 60-character display cut to land on a joiner.
        "([a-z]{1,6}::)?([a-zA-Z0-9_]{1,20}[-.]){0,5}[a-zA-Z0-9_]{0,30}[-.]{0,2}(<[a-z, ]{0,8}>)?(\\([a-z]{0,4}\\))?",
        // C++ operator names.
        "(void )?([A-Za-z]{1,6}(<[a-z]{1,4}>)?::)?operator(->\\*|->|\\(\\)|\\[\\]|<<=|<=>|<<|<=|<|>|-|--|\\.|,|=|!| new)?(<[a-z]{1,4}>)?(\\([a-z]{0,4}\\))?( const)?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every string gets an answer: nothing panics, and the JSON form exists.
    #[test]
    fn canonicalize_is_total(s in symbol()) {
        let c = canonicalize(&s);
        let _ = c.identity();
        let _ = c.qualified_identity();
        let _ = c.strict_identity();
        let _ = c.clone().into_owned();
        let json = serde_json::to_value(&c);
        prop_assert!(json.is_ok());
        prop_assert!(c.short_name().chars().count() <= SHORT_NAME_LIMIT);
    }

    /// The short name is a fixed point, and a non-degenerate name certifies itself.
    #[test]
    fn short_name_is_idempotent_and_self_match_holds(s in symbol()) {
        let short = short_name(&s).into_owned();
        let again = short_name(&short).into_owned();
        prop_assert_eq!(again, short);
        let c = canonicalize(&s);
        prop_assert_eq!(c.matches(&c).is_match, !c.is_degenerate());
    }

    /// A name's identity canonicalizes to the same identity (complete or
    /// absent arguments, a base that is not itself a memory or `_Z` word).
    #[test]
    fn identity_is_a_fixed_point(s in symbol()) {
        let c = canonicalize(&s);
        let plain = c.memory_op().is_none()
            && c.mangling() != Mangling::Opaque
            && !c.base().is_empty()
            && !c.base().starts_with("_Z")
            && c.base() != "Memcpy"
            && c.base() != "Memset"
            && c.template().kind() != TemplateKind::Elided;
        if plain {
            let identity = c.identity();
            let again = canonicalize(&identity);
            prop_assert_eq!(again.identity(), identity);
            prop_assert!(matches(&s, &c.identity()).is_match || c.is_degenerate());
        }
    }

    /// The short name of a plain, non-degenerate name certifies the name.
    #[test]
    fn short_name_certifies_its_name(s in symbol()) {
        let c = canonicalize(&s);
        let plain = c.memory_op().is_none()
            && c.mangling() != Mangling::Opaque
            && !c.is_degenerate()
            && !c.base().starts_with("_Z")
            && c.base() != "Memcpy"
            && c.base() != "Memset";
        if plain {
            let v = matches(&c.short_name(), &s);
            prop_assert!(v.is_match, "{:?}", v);
        }
    }

    /// `matches(a, b) == matches(b, a)`, reasons and bases included.
    #[test]
    fn matches_is_symmetric(a in symbol(), b in symbol()) {
        prop_assert_eq!(matches(&a, &b), matches(&b, &a));
    }

    /// Symmetry where matches are likely: a name against variants of itself.
    #[test]
    fn matches_is_symmetric_on_near_pairs(a in symbol(), cut in 0usize..64, suffix in "[a-z0-9_<>(), .]{0,6}") {
        let end = a.char_indices().nth(cut).map_or(a.len(), |(i, _)| i);
        let b = format!("{}{}", &a[..end], suffix);
        prop_assert_eq!(matches(&a, &b), matches(&b, &a));
        let short = short_name(&a).into_owned();
        prop_assert_eq!(matches(&a, &short), matches(&short, &a));
    }
}
