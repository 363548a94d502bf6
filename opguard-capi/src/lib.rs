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
//! assert_eq!(refused["error"]["code"], "capi.invalid_request");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
// The one crate of the workspace allowed `unsafe`: every use is in
// `boundary` and `ffi` and carries a SAFETY comment.
#![deny(unsafe_op_in_unsafe_fn)]

mod align;
mod boundary;
mod census;
mod error;
pub mod ffi;
mod job;
mod kernel;
mod request;
mod scaling;
mod select;
mod trace;

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
