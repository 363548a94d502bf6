//! Integration tests of opguard-report.
mod render;
