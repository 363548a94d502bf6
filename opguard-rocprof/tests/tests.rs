//! opguard-rocprof's integration tests, compiled once.

mod common;
mod csv_capture;
mod detection;
mod json_document;
mod model;
mod rocpd_database;
