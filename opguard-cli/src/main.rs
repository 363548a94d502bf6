//! The `opguard` command.
fn main() {}
