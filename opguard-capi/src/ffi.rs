//! The exported C functions. Each is a one-line call into the crate's boundary module,
//! which owns argument checks, the panic guard and string ownership.
//!
//! Every JSON entry point takes `const char *request` (NUL-terminated UTF-8
//! JSON, read only, not kept) and returns a `char *` envelope that the caller
//! owns and releases with [`opguard_string_free`]. It never returns NULL.

use std::ffi::{c_char, c_int, CString};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;

use crate::boundary::{self, arg, json_entry, status_entry};
use crate::error::{Error, CAPI_CODES};
use crate::{align, census, compare, job, kernel, scaling, select, table, trace};

/// The ABI version: bumped whenever a symbol is removed or changes meaning or
/// signature; adding a symbol or an optional request field does not bump it.
pub const ABI_VERSION: u32 = 1;

const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// The library version (`Cargo.toml`'s), as a static NUL-terminated string.
/// Do not free it.
#[no_mangle]
pub extern "C" fn opguard_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

/// The ABI version, [`ABI_VERSION`].
#[no_mangle]
pub extern "C" fn opguard_abi_version() -> u32 {
    ABI_VERSION
}

/// Releases a string returned by any `opguard_*` JSON entry point. NULL is
/// accepted and ignored; releasing a string twice, or one this library did
/// not return, is undefined behaviour.
///
/// # Safety
/// `s` is NULL or a pointer returned by this library and not yet released.
#[no_mangle]
pub unsafe extern "C" fn opguard_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    let _ = boundary::guarded(|| {
        // SAFETY: `s` came from `CString::into_raw` in `boundary::into_c`.
        drop(unsafe { CString::from_raw(s) });
        Ok(())
    });
}

/// The stable code string (`"capi.null_argument"`, …) of a negative status
/// returned by a direct call; NULL for any other value. Static: do not free.
#[no_mangle]
pub extern "C" fn opguard_status_name(status: c_int) -> *const c_char {
    const NAMES: &[(c_int, &str)] = &[
        (-1, "capi.null_argument\0"),
        (-2, "capi.invalid_utf8\0"),
        (-3, "capi.internal_panic\0"),
    ];
    debug_assert!(NAMES.iter().all(|(status, name)| CAPI_CODES
        .iter()
        .any(|c| c.status == Some(*status) && name.trim_end_matches('\0') == c.code)));
    NAMES
        .iter()
        .find(|(s, _)| *s == status)
        .map_or(std::ptr::null(), |(_, name)| name.as_ptr().cast())
}

/// Whether `want` and `got` name the same kernel: 1 yes, 0 no, or a negative
/// status (`-1` NULL argument, `-2` invalid UTF-8, `-3` internal panic).
///
/// # Safety
/// Each argument is NULL or a NUL-terminated string valid for the call.
#[no_mangle]
pub unsafe extern "C" fn opguard_kernel_match(want: *const c_char, got: *const c_char) -> c_int {
    status_entry(|| {
        // SAFETY: forwarded from the caller.
        let want = unsafe { arg(want, "want") }?;
        // SAFETY: forwarded from the caller.
        let got = unsafe { arg(got, "got") }?;
        Ok(c_int::from(opguard_kernel_name::is_match(want, got)))
    })
}

/// Reads one table of a capture (any format opguard reads) and hands it
/// out as an Arrow C stream: `{"path", "table": "device"|"host"|"launches"|
/// "metadata", "batch_rows"?, "provider"?, "reader"?}` → the envelope
/// `{"table", "rows", "batches", "artifact", "format", "provider",
/// "warnings"}`, and `*out` a stream the caller owns and ends with its
/// `release` (arrow-rs's own `FFI_ArrowArrayStream`: the batches move out
/// without a copy, and releasing the stream early frees the batches not
/// taken). On an error `*out` is written with `release == NULL`.
///
/// # Safety
/// `request` is NULL or a NUL-terminated string valid for the call; `out`
/// is NULL or points to memory for one `struct ArrowArrayStream`, which is
/// overwritten without releasing what it held.
#[no_mangle]
pub unsafe extern "C" fn opguard_table_stream(
    request: *const c_char,
    out: *mut FFI_ArrowArrayStream,
) -> *mut c_char {
    let result = boundary::guarded(|| {
        if out.is_null() {
            return Err(Error::null_argument("out"));
        }
        // SAFETY: forwarded from the caller.
        let request = unsafe { arg(request, "request") }?;
        let (reader, envelope) = table::stream(request)?;
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // SAFETY: `out` is non-NULL and writable for one stream (the
        // caller's contract); what it held is not dropped.
        unsafe { std::ptr::write(out, stream) };
        Ok(envelope)
    });
    let text = result.unwrap_or_else(|e| {
        if !out.is_null() {
            // SAFETY: as above; an empty stream has no release to call.
            unsafe { std::ptr::write(out, FFI_ArrowArrayStream::empty()) };
        }
        boundary::error(&e)
    });
    boundary::into_c(text)
}

/// Several tables of one capture from one read, each as an Arrow C stream:
/// `{"path", "tables": [name, …], "batch_rows"?, "provider"?, "reader"?}`
/// and `out`, an array of `count` streams (one per table named, in order)
/// → the envelope of [`opguard_table_stream`] for the first table, with
/// `"tables": [{"table", "rows", "batches"}, …]`. On an error every one of
/// the `count` streams is written with `release == NULL`.
///
/// # Safety
/// `request` is NULL or a NUL-terminated string valid for the call; `out`
/// is NULL or points to memory for `count` streams, overwritten without
/// releasing what they held.
#[no_mangle]
pub unsafe extern "C" fn opguard_table_streams(
    request: *const c_char,
    out: *mut FFI_ArrowArrayStream,
    count: usize,
) -> *mut c_char {
    let result = boundary::guarded(|| {
        if out.is_null() {
            return Err(Error::null_argument("out"));
        }
        // SAFETY: forwarded from the caller.
        let request = unsafe { arg(request, "request") }?;
        let (readers, envelope) = table::streams_of(request, count)?;
        for (i, reader) in readers.into_iter().enumerate() {
            // SAFETY: `out` holds `count` streams (the caller's contract)
            // and `streams_of` gives exactly `count` readers.
            unsafe { std::ptr::write(out.add(i), FFI_ArrowArrayStream::new(Box::new(reader))) };
        }
        Ok(envelope)
    });
    let text = result.unwrap_or_else(|e| {
        if !out.is_null() {
            for i in 0..count {
                // SAFETY: as above; an empty stream has no release to call.
                unsafe { std::ptr::write(out.add(i), FFI_ArrowArrayStream::empty()) };
            }
        }
        boundary::error(&e)
    });
    boundary::into_c(text)
}

macro_rules! json_entries {
    ($( $(#[$doc:meta])* $name:ident => $handler:path; )*) => {
        $(
            $(#[$doc])*
            ///
            /// # Safety
            /// `request` is NULL or a NUL-terminated string valid for the call.
            #[no_mangle]
            pub unsafe extern "C" fn $name(request: *const c_char) -> *mut c_char {
                // SAFETY: forwarded from the caller.
                unsafe { json_entry(request, $handler) }
            }
        )*

        /// Every JSON entry point: its C symbol and its logic.
        pub(crate) const JSON_ENTRIES: &[(&str, boundary::Handler)] = &[
            $( (stringify!($name), $handler), )*
        ];
    };
}

json_entries! {
    /// `{"symbol": s}` → the canonical form of a kernel symbol.
    opguard_kernel_canonicalize => kernel::canonicalize_one;
    /// `{"symbols": [s, …]}` → `[canonical form, …]`, in order.
    opguard_kernel_canonicalize_batch => kernel::canonicalize_batch;
    /// `{"symbol": s}` → `{"short_name": …}`.
    opguard_kernel_short_name => kernel::short_name_one;
    /// `{"want": a, "got": b}` → `{"is_match", "reason", "basis"}`.
    opguard_kernel_match_json => kernel::verdict_one;
    /// `{"pairs": [[want, got], …]}` → `[verdict, …]`, in order.
    opguard_kernel_match_batch => kernel::verdict_batch;
    /// `{"path"|"text", "reader"?}` → what the reader established about a
    /// capture, by format (`"format"`: `chrome_json`, `xspace`).
    opguard_trace_info => trace::info;
    /// `{"artifacts": [{"path"|"text", "role"?, "stage"?, "provider"?}], "top"?, "reader"?}`
    /// → `{"regions": […], "aggregate": …}`.
    opguard_trace_launch_regions => trace::launch_regions;
    /// `{"capture"|"capture_path", "families"?, "declared_host_resolutions"?,
    /// "require_classified"? (default true), …}` → `{"census": …,
    /// "host_resolution_diff": …}`.
    opguard_census => census::census;
    /// `{"first"|"first_path", "second"|"second_path", "control"|"control_path"?}`
    /// → the two-width comparison.
    opguard_census_compare_widths => census::compare_widths;
    /// `{"path": trace, "top": n}` → the Top-N profile with entity kinds.
    opguard_profile_top_n => select::profile_top_n;
    /// `{"request": {…} | "request_path": file, "base"?}` → the seam verdict.
    opguard_seam_verdict => select::seam_verdict;
    /// `{"records": file | "from_profile": [{"path", "run"?, "rank"?}, …], "output": file}`
    /// → the export summary (`opguard.export/v1` view written to `output`).
    opguard_export_build => align::export_build;
    /// `{"protocol_version": 1, "artifact": file, "alignment_map": file, "output": file}`
    /// → the apply response (`verdict: not_evaluated`).
    opguard_alignment_map_apply => align::map_apply;
    /// `{"trials": {…} | "trials_path": file, "base"?, "metric"?, "reader"?}`
    /// → the scaling report.
    opguard_scaling_correlate => scaling::correlate;
    /// `{"path": trace, "file"?, "top"?, "reader"?}` → one rank's summary
    /// (`opguard.job.rank/v1`); an unreadable trace is a summary carrying its error.
    opguard_job_summary => job::summary;
    /// `{"summaries": [rank summary | job, …]}` → the merged `opguard.job/v1` job;
    /// any order and grouping gives the same document.
    opguard_job_merge => job::merge;
    /// `{"baseline": [trace | dir, …], "candidate": [trace | dir, …], "fail_above"?,
    /// "fdr"?, "confidence"?, "step"?, "python_frames"?, "reader"?}` → the
    /// `opguard.compare/v1` comparison with its gate.
    opguard_compare => compare::compare;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    /// A test-only entry point built exactly like the exported ones, whose
    /// logic panics after parsing its request.
    unsafe extern "C" fn opguard_test_force_panic(request: *const c_char) -> *mut c_char {
        // SAFETY: forwarded from the caller.
        unsafe {
            json_entry(request, |r| {
                let _ = r.len();
                panic!("forced panic for the boundary test")
            })
        }
    }

    fn take(p: *mut c_char) -> serde_json::Value {
        assert!(!p.is_null());
        // SAFETY: `p` is an envelope this library returned.
        let text = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
        // SAFETY: released once.
        unsafe { opguard_string_free(p) };
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn forced_panic_comes_back_as_an_error_envelope() {
        // SAFETY: a literal C string.
        let v = take(unsafe { opguard_test_force_panic(c"{}".as_ptr()) });
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["code"], "capi.internal_panic");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("forced panic for the boundary test"),
            "{message}"
        );
        // The library still answers afterwards.
        // SAFETY: a literal C string.
        let v = take(unsafe {
            opguard_kernel_short_name(c"{\"symbol\":\"void k<int>(int)\"}".as_ptr())
        });
        assert_eq!(v["ok"], true);
    }

    #[test]
    fn forced_panic_in_a_direct_call_is_a_status() {
        let status = status_entry(|| -> Result<c_int, crate::Error> {
            panic!("forced panic in a direct call")
        });
        assert_eq!(status, -3);
        // SAFETY: static string.
        let name = unsafe { CStr::from_ptr(opguard_status_name(status)) };
        assert_eq!(name.to_str().unwrap(), "capi.internal_panic");
    }

    #[test]
    fn a_panic_with_a_string_payload_keeps_its_text() {
        let e = boundary::guarded(|| -> Result<(), crate::Error> {
            std::panic::panic_any(format!("payload {}", 42))
        })
        .unwrap_err();
        assert_eq!(e.code(), "capi.internal_panic");
        assert!(e.message().contains("payload 42"));
    }
}
