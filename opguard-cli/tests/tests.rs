//! Integration tests: each spawns the built `opguard` binary and checks its
//! exit status, stdout and stderr.

mod census;
mod common;
mod framework;
mod inspect;
mod kernel_name;
mod scaling;
mod select;
mod trace_info;
mod trace_launches;
