//! `opguard-census`: not built yet.
//!
//! This crate is a placeholder in the opguard workspace; it exposes no API
//! and claims no capability until its contract lands. See the workspace
//! `DESIGN` notes in the repository README.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
