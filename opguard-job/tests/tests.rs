//! opguard-job's integration tests, on real traces from `../shared/data`.

mod merge_props;
mod nsys;
mod real;
