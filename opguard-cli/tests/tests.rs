//! Integration tests: each spawns the built `opguard` binary and checks its
//! exit status, stdout and stderr.

mod align;
mod census;
mod common;
mod compare;
mod fixtures;
mod framework;
mod inputs;
mod inspect;
mod job;
mod kernel_name;
mod nsys;
mod one_code;
mod reader_flags;
mod report;
mod rocprof;
mod scaling;
mod select;
mod trace_export;
mod trace_info;
mod trace_launches;
mod walkthrough;
mod xplane;
