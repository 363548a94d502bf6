//! Integration tests of the C ABI: one binary.

mod suite;
