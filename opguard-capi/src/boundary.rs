//! The boundary: envelopes, argument checks, owned strings and the panic
//! guard. Ownership and panics are decided here once, not per entry point.

use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::Serialize;

use crate::error::Error;

/// `{"ok":true,"value":<value>}`.
pub(crate) fn ok<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(br#"{"ok":true,"value":"#);
    match serde_json::to_writer(&mut out, value) {
        Ok(()) => {
            out.push(b'}');
            // serde_json writes UTF-8; the check is a cheap proof, not a hope.
            String::from_utf8(out).unwrap_or_else(|e| {
                error(&Error::new(
                    "capi.internal_error",
                    format!(
                        "result is not UTF-8 at byte {}",
                        e.utf8_error().valid_up_to()
                    ),
                ))
            })
        }
        Err(e) => error(&Error::new(
            "capi.internal_error",
            format!("result cannot be encoded as JSON: {e}"),
        )),
    }
}

/// `{"ok":true,"value":<value>}` where `write` appends the value's JSON
/// text (already JSON, e.g. answers kept by the kernel-name memo, which
/// `serde_json` rendered); saves re-serializing what is already text.
pub(crate) fn ok_text(write: impl FnOnce(&mut String)) -> String {
    let mut out = String::with_capacity(256);
    out.push_str(r#"{"ok":true,"value":"#);
    write(&mut out);
    out.push('}');
    out
}

/// `{"ok":false,"error":{"code":…,"message":…,<details>…}}`.
pub(crate) fn error(e: &Error) -> String {
    let mut body = serde_json::Map::new();
    body.insert("code".into(), e.code().into());
    body.insert("message".into(), e.message().into());
    for (k, v) in e.details() {
        if k != "code" && k != "message" {
            body.insert(k.clone(), v.clone());
        }
    }
    let envelope = serde_json::json!({ "ok": false, "error": body });
    // A map of strings and numbers always encodes.
    serde_json::to_string(&envelope).unwrap_or_else(|_| {
        r#"{"ok":false,"error":{"code":"capi.internal_error","message":"error envelope could not be encoded"}}"#
            .to_owned()
    })
}

/// Borrows a C string argument as UTF-8, refusing NULL and invalid bytes.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that stays valid and
/// unmodified for `'a`.
pub(crate) unsafe fn arg<'a>(p: *const c_char, name: &str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(Error::null_argument(name));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    std::str::from_utf8(bytes).map_err(|e| Error::invalid_utf8(name, e.valid_up_to()))
}

/// Hands a string to C. The caller owns it and releases it with
/// `opguard_string_free`.
pub(crate) fn into_c(text: String) -> *mut c_char {
    match CString::new(text) {
        Ok(c) => c.into_raw(),
        // JSON escapes U+0000, so an envelope never holds a NUL byte.
        Err(_) => CString::new(error(&Error::new(
            "capi.internal_error",
            "result holds a NUL byte",
        )))
        .map_or(std::ptr::null_mut(), CString::into_raw),
    }
}

/// Runs `f` behind the panic guard; a panic becomes an error.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let e = Error::panic(&*payload);
            // Dropping a payload can run arbitrary code; keep that inside a guard too.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            Err(e)
        }
    }
}

/// A JSON entry point's logic: request text to an ok envelope, or an error.
pub(crate) type Handler = fn(&str) -> Result<String, Error>;

/// The shape of every JSON entry point: check the request argument, run the
/// handler behind the panic guard, return an owned envelope (never NULL).
///
/// # Safety
/// As [`arg`] for `request`.
pub(crate) unsafe fn json_entry(request: *const c_char, handler: Handler) -> *mut c_char {
    let text = guarded(|| {
        // SAFETY: forwarded from the caller.
        let request = unsafe { arg(request, "request") }?;
        handler(request)
    })
    .unwrap_or_else(|e| error(&e));
    into_c(text)
}

/// The shape of a direct call returning a status: errors become the
/// negative status of their `capi.*` code.
pub(crate) fn status_entry(f: impl FnOnce() -> Result<c_int, Error>) -> c_int {
    match guarded(f) {
        Ok(v) => v,
        Err(e) => e.status().unwrap_or(STATUS_INTERNAL_PANIC),
    }
}

/// `OPGUARD_STATUS_INTERNAL_PANIC`.
pub(crate) const STATUS_INTERNAL_PANIC: c_int = -3;
