//! Runnable examples for the opguard crates; run one with
//! `cargo run -p opguard-examples --example <name>`.
