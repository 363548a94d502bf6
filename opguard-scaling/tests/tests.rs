//! Integration tests for opguard-scaling: one binary. Every test writes real
//! trace files and runs the real reader → semantic identity → correlation
//! path; none injects a shared frame id.

mod support;

mod suite {
    mod checkouts;
    mod compatibility;
    mod errors;
    mod fixtures;
    mod metrics;
    mod real_traces;
    mod seed003;
    mod unmatched;
}
