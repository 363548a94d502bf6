//! Test modules of the single integration-test binary.

mod api;
mod common;
mod fixture;
mod memo;
mod props;
mod traces;
