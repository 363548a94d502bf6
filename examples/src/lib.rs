//! Runnable examples for the opguard crates (run one with
//! `cargo run -p opguard-examples --example <name>`), and the generator of
//! the default input `opguard inspect` ships with.

pub mod default_input;
