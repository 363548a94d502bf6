//! Integration tests of opguard-nsys: every shared export against the SQL
//! referee, the join keys and the duplicate rule on exports derived from
//! real ones, and every refusal.

mod errors;
mod joins;
mod model;
mod real_exports;
mod region;
mod support;
