//! Integration tests (one binary): the parity fixture, every real trace
//! name, properties and the public API surface. Allocation counting lives in
//! its own binary, `allocations.rs`, because its global allocator must not
//! see other tests' threads.

mod hostile;
mod mutation_kills;
mod suite;
