//! The C ABI of opguard: the workspace's contracts as `opguard_*` functions
//! for profiler plugins (C/C++), Python (ctypes) and Node (koffi).
//!
//! - JSON entry points take one NUL-terminated UTF-8 JSON request and return
//!   an owned envelope, `{"ok":true,"value":…}` or
//!   `{"ok":false,"error":{"code":…,"message":…,…}}`, that the caller releases
//!   with `opguard_string_free`. They never return NULL.
//! - Direct calls skip JSON where it would dominate:
//!   `opguard_kernel_match(want, got)` returns 1, 0 or a negative status.
//! - `opguard_version()` (static string) and `opguard_abi_version()`.
//! - No panic crosses the boundary and nothing is global: every call is
//!   reentrant and thread-safe. Error codes are stable strings ([`CAPI_CODES`],
//!   [`LIBRARY_CODES`]).
//!
//! The header is `include/opguard.h`. From Rust, the same logic is reachable
//! without `unsafe` through [`call`]:
//!
//! ```
//! let reply = opguard_capi::call(
//!     "opguard_kernel_match_json",
//!     r#"{"want": "clamp_position_kernel",
//!         "got": "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)"}"#,
//! )
//! .ok_or("no such entry point")?;
//! let reply: serde_json::Value = serde_json::from_str(&reply)?;
//! assert_eq!(reply["ok"], true);
//! assert_eq!(reply["value"]["is_match"], true);
//! assert_eq!(reply["value"]["basis"], "base_only");
//!
//! let refused = opguard_capi::call("opguard_kernel_canonicalize", r#"{"sym": "x"}"#).unwrap();
//! let refused: serde_json::Value = serde_json::from_str(&refused)?;
//! assert_eq!(refused["error"]["code"], "document.unknown_field");
//! assert_eq!(refused["error"]["json_path"], "sym");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Data flow: a C call → the boundary (arguments, panic guard, owned
// strings) → the request document → one contract crate → a JSON envelope.

// The exported C functions, one line each into the boundary.
pub mod ffi;
// The boundary: envelopes, argument checks, owned strings, the panic guard.
mod boundary;
// Reader: request parsing shared by every JSON entry point.
mod request;
// One module per contract crate, in the workspace's data-flow order.
// Traces: what the reader established about a file; launch regions.
mod trace;
// Kernel names: canonical identity, short names, verdicts.
mod kernel;
// Selection: profile Top-N and the seam verdict.
mod select;
// Alignment: export views, apply alignment maps.
mod align;
// Census: one capture's census, the two-width comparison.
mod census;
// Scaling: cost against a numeric input across trials.
mod scaling;
// Jobs: one rank's summary (map), merging summaries (reduce).
mod compare;
mod job;
// Tables: one table of a capture as an Arrow C stream.
mod table;
// The crate's one error type and the stable error-code table.
mod error;

pub use error::{library_codes, CodeInfo, Error, LibraryCodes, CAPI_CODES, LIBRARY_CODES};
pub use ffi::ABI_VERSION;

/// The C symbols of every JSON entry point, in header order.
pub fn json_entry_points() -> impl ExactSizeIterator<Item = &'static str> {
    ffi::JSON_ENTRIES.iter().map(|(name, _)| *name)
}

/// Runs the JSON entry point named by its C symbol (`opguard_census`, …) on
/// `request`, behind the same panic guard as the C call, and returns the
/// envelope; `None` when no entry point has that name.
pub fn call(entry_point: &str, request: &str) -> Option<String> {
    let (_, handler) = ffi::JSON_ENTRIES
        .iter()
        .find(|(name, _)| *name == entry_point)?;
    Some(match boundary::guarded(|| handler(request)) {
        Ok(envelope) => envelope,
        Err(e) => boundary::error(&e),
    })
}

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
