//! Integration tests, one binary.

mod faults;
mod model;
mod producer;
mod real_data;
mod support;
