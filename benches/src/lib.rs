//! Shared helpers for the opguard benchmarks (inputs, generated traces).
