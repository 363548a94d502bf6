//! Allocation counts, measured with a counting global allocator.
//!
//! A binary of its own with a single test: the allocator counts every thread,
//! so no other test may run while it measures.

use std::hint::black_box;

use opguard_kernel_name::{canonicalize, matches, short_name, Mangling, TemplateKind};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

#[allow(dead_code)]
#[path = "suite/common.rs"]
mod common;

fn allocations_of(f: impl FnOnce()) -> usize {
    let region = Region::new(GLOBAL);
    f();
    let change = region.change();
    change.allocations + change.reallocations
}

/// Names without template arguments canonicalize, match and shorten with
/// zero heap allocations (the design goal); names with arguments are counted
/// and reported (the borrowed design makes them zero too, except `_Z` symbols,
/// whose demangled text is owned).
#[test]
fn canonicalization_allocates_nothing_without_template_arguments() {
    let mut names: Vec<String> = vec![
        "main_kernel[prefill]".into(),
        "Memcpy HtoD (Host -> Device)".into(),
        "at::cuda::(anonymous namespace)::spin_kernel(long)".into(),
        "void".into(),
        String::new(),
    ];
    if let Some(dir) = common::hta_dir() {
        names.extend(common::trace_names(&dir).into_iter().map(|(n, _)| n));
    }
    // Sanity: the allocator really counts (so a zero below is not vacuous).
    assert!(
        allocations_of(|| drop(black_box(vec![1u8; 16]))) > 0,
        "counting allocator inactive"
    );

    let (mut plain, mut plain_allocs) = (0usize, 0usize);
    let (mut templated, mut templated_allocs) = (0usize, 0usize);
    let (mut mangled, mut mangled_allocs) = (0usize, 0usize);
    for name in &names {
        let probe = canonicalize(name);
        let kind = probe.template().kind();
        let is_mangled = probe.mangling() != Mangling::None;
        drop(probe);
        let count = allocations_of(|| {
            let c = canonicalize(black_box(name));
            black_box((
                c.base().len(),
                c.template().args().count(),
                c.is_degenerate(),
            ));
            black_box(c.matches(&c));
            black_box(short_name(name).len());
            black_box(matches(name, name));
        });
        if is_mangled {
            mangled += 1;
            mangled_allocs += count;
        } else if kind == TemplateKind::None {
            plain += 1;
            plain_allocs += count;
        } else {
            templated += 1;
            templated_allocs += count;
        }
    }
    println!(
        "allocations: {plain_allocs} over {plain} names without template arguments, \
         {templated_allocs} over {templated} with, {mangled_allocs} over {mangled} mangled"
    );
    assert_eq!(
        plain_allocs, 0,
        "names without template arguments must not allocate"
    );
}
