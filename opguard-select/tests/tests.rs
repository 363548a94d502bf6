//! Integration tests for opguard-select: one binary, one module per concern.
mod admission;
mod agreement;
mod evidence;
mod fixtures;
mod producers;
mod profile;
mod profile_contract;
mod real_traces;
mod seed_cases;
mod support;
mod verdict_contract;
