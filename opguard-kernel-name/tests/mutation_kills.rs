//! Tests written to kill mutants that `cargo mutants` found surviving (see
//! `fuzz/README.md`, "Mutation testing"). Each pins one rule through the
//! public API on inputs the parity fixture does not contain.

use opguard_kernel_name::canonicalize;

/// (base, qualification, identity, template arguments) of a symbol.
fn parts(s: &str) -> (String, Option<String>, String, Vec<String>) {
    let c = canonicalize(s);
    (
        c.base().to_owned(),
        c.qualification().map(|q| q.raw().to_owned()),
        c.identity(),
        c.template().args().map(|a| a.raw().to_owned()).collect(),
    )
}

#[test]
fn template_arguments_report_their_exact_count() {
    let c = canonicalize("void k_kernel<int, float, double>(int)");
    let args = c.template().args();
    assert_eq!(args.size_hint(), (3, Some(3)));
    assert_eq!(args.len(), 3);
    let mut args = c.template().args();
    args.next();
    assert_eq!(args.len(), 2, "the count follows iteration");
}

#[test]
fn template_arguments_are_trimmed_on_both_sides() {
    let (_, _, identity, args) = parts("k_kernel< int , float >(x)");
    assert_eq!(args, ["int", "float"]);
    assert_eq!(identity, "k_kernel<int, float>");
}

#[test]
fn a_lone_colon_or_a_symbol_before_a_scope_is_an_ordinary_separator() {
    // Rule 8: a character outside [A-Za-z0-9_] separates; only `::` after a
    // name qualifies it.
    let cases: [(&str, &str, Option<&str>, &str); 10] = [
        // A doubled scope (`::::`) breaks the chain: no qualification.
        (
            "outer_ns::::kernel_name(int)",
            "kernel_name",
            None,
            "kernel_name",
        ),
        ("outer_ns::::", "outer_ns", None, "outer_ns"),
        (
            "ns:kernel_name<int>(int)",
            "kernel_name",
            None,
            "kernel_name<int>",
        ),
        (
            "alpha*::beta_kernel(int)",
            "beta_kernel",
            None,
            "beta_kernel",
        ),
        (
            "void *::gamma_kernel(int)",
            "gamma_kernel",
            None,
            "gamma_kernel",
        ),
        (
            "::global_kernel(int)",
            "global_kernel",
            None,
            "global_kernel",
        ),
        (
            "void ::lead_kernel<int>(float)",
            "lead_kernel",
            None,
            "lead_kernel<int>",
        ),
        ("a>::b_kernel_x(int)", "b_kernel_x", None, "b_kernel_x"),
        (
            "x_kernel_name :: y_kernel_name(int)",
            "y_kernel_name",
            None,
            "y_kernel_name",
        ),
        (
            "::(anonymous namespace)::anon_kernel(int)",
            "anon_kernel",
            Some("(anonymous namespace)"),
            "anon_kernel",
        ),
    ];
    for (symbol, base, qual, identity) in cases {
        let (b, q, id, _) = parts(symbol);
        assert_eq!(
            (b.as_str(), q.as_deref(), id.as_str()),
            (base, qual, identity),
            "{symbol}"
        );
    }
}

#[test]
fn an_elided_list_matches_a_complete_list_of_exactly_its_visible_prefix() {
    // `...` stands for zero or more further arguments.
    let v = opguard_kernel_name::matches("k_kernel<int, ...>", "void k_kernel<int>(int)");
    assert!(v.is_match, "{v:?}");
    let v = opguard_kernel_name::matches("k_kernel<...>", "void k_kernel<>(int)");
    assert!(v.is_match, "{v:?}");
    // One more visible argument than the complete list has is a mismatch.
    let v = opguard_kernel_name::matches("k_kernel<int, float, ...>", "void k_kernel<int>(int)");
    assert!(!v.is_match, "{v:?}");
}
