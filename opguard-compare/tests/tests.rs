//! Integration tests: the statistics under simulation (A/A, a known
//! slowdown), written traces through the real reader (steps as samples,
//! renamed kernels, different instantiations), real traces.

mod support;

mod real;
mod statistics;
mod traces;
