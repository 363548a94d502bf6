//! Integration tests for opguard-census: one binary.

mod bad_catalogue;
mod mutation_kills;
mod support;

mod suite {
    mod comparison;
    mod digest;
    mod host_resolutions;
    mod hostile;
    mod reader;
    mod real_captures;
    mod seed_census;
    mod traps;
}
