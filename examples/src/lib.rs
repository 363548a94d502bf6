//! Runnable examples for the opguard crates (run one with
//! `cargo run -p opguard-examples --example <name>`), and the generator of
//! the default input `opguard inspect` ships with.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod default_input;
