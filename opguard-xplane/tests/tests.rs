//! Integration tests, one binary.

mod faults;
mod real_data;
mod support;
