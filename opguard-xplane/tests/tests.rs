//! Integration tests, one binary.

mod faults;
mod producer;
mod real_data;
mod support;
