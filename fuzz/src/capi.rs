//! The C ABI's JSON entry points, through the real `extern "C"` symbols.

use crate::sandbox::{is_confined, scratch};

type JsonEntry = unsafe extern "C" fn(*const std::ffi::c_char) -> *mut std::ffi::c_char;

/// The C ABI JSON entry points fuzzed here: every one that can be answered
/// from inline text or from traces confined to a scratch directory (see
/// [`prepare`]). The two that only take paths of their own
/// (`opguard_profile_top_n`, `opguard_job_summary`) and the two that write
/// files (`opguard_export_build`, `opguard_alignment_map_apply`) are left
/// out. The seeds index this array by position: append new entries at the
/// end.
pub const CAPI_ENTRIES: [(&str, JsonEntry); 12] = [
    (
        "opguard_kernel_canonicalize",
        opguard_capi::ffi::opguard_kernel_canonicalize,
    ),
    (
        "opguard_kernel_canonicalize_batch",
        opguard_capi::ffi::opguard_kernel_canonicalize_batch,
    ),
    (
        "opguard_kernel_short_name",
        opguard_capi::ffi::opguard_kernel_short_name,
    ),
    (
        "opguard_kernel_match_json",
        opguard_capi::ffi::opguard_kernel_match_json,
    ),
    (
        "opguard_kernel_match_batch",
        opguard_capi::ffi::opguard_kernel_match_batch,
    ),
    ("opguard_trace_info", opguard_capi::ffi::opguard_trace_info),
    ("opguard_census", opguard_capi::ffi::opguard_census),
    (
        "opguard_census_compare_widths",
        opguard_capi::ffi::opguard_census_compare_widths,
    ),
    (
        "opguard_trace_launch_regions",
        opguard_capi::ffi::opguard_trace_launch_regions,
    ),
    ("opguard_job_merge", opguard_capi::ffi::opguard_job_merge),
    (
        "opguard_seam_verdict",
        opguard_capi::ffi::opguard_seam_verdict,
    ),
    (
        "opguard_scaling_correlate",
        opguard_capi::ffi::opguard_scaling_correlate,
    ),
];

/// Keys whose value is a file the library would read or write as given:
/// `path` anywhere (`artifacts[i].path`, `from_profile[i].path`), and at the
/// top level `*_path` and the align requests' files. (Nested `artifact` or
/// `json_path` keys are a job document's data, not files.)
fn names_a_file(key: &str, top_level: bool) -> bool {
    let key = key.to_ascii_lowercase();
    key == "path"
        || (top_level
            && (key.ends_with("path")
                || [
                    "output",
                    "records",
                    "from_profile",
                    "artifact",
                    "alignment_map",
                ]
                .contains(&key.as_str())))
}

/// Keys of an inline seam request or trials document whose values are
/// trace (or meta) files, resolved against the request's `base`.
const TRACE_KEYS: [&str; 3] = ["trace", "traces", "meta"];

/// The placeholder a request writes as its `base`, replaced by the scratch
/// directory [`sandbox_dir`] before the call.
const SANDBOX: &str = "$SANDBOX";

/// The directory inline seam requests and trials documents read their
/// traces from: seed 003's captures and the seam fixture capture.
fn sandbox_dir() -> std::path::PathBuf {
    scratch(
        "capi",
        &[
            "select/attention.pid-4242.json.gz",
            "scaling/seed003/t1.json.gz",
            "scaling/seed003/t2.json.gz",
            "scaling/seed003/t3.json.gz",
        ],
    )
}

/// The request to send, or `None` when it could make the library touch a
/// file outside the scratch directory: a key naming a file anywhere; a
/// trace path that is absolute, climbs with `..`, or is `-` (standard
/// input); trace paths without `"base": "$SANDBOX"` beside them. `base` is
/// then replaced by the scratch directory. A body `serde_json` cannot read
/// is sent only when it spells none of those keys, even escaped.
fn prepare(body: &[u8]) -> Option<Vec<u8>> {
    fn walk(v: &serde_json::Value, top_level: bool, traces: &mut bool) -> bool {
        match v {
            serde_json::Value::Object(m) => m.iter().all(|(k, v)| {
                if names_a_file(k, top_level) {
                    return false;
                }
                if k == "base" && v.as_str() != Some(SANDBOX) {
                    return false;
                }
                if TRACE_KEYS.contains(&k.as_str()) {
                    *traces = true;
                    let confined = |s: &serde_json::Value| {
                        s.as_str()
                            .is_none_or(|p| p != "-" && is_confined(p.as_ref()))
                    };
                    let ok = match v {
                        serde_json::Value::Array(items) => items.iter().all(confined),
                        other => confined(other),
                    };
                    if !ok {
                        return false;
                    }
                }
                walk(v, false, traces)
            }),
            serde_json::Value::Array(a) => a.iter().all(|v| walk(v, false, traces)),
            _ => true,
        }
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(v) => {
            let mut traces = false;
            if !walk(&v, true, &mut traces) {
                return None;
            }
            let sandboxed = v.get("base").and_then(|b| b.as_str()) == Some(SANDBOX);
            if traces && !sandboxed {
                return None;
            }
            let text = std::str::from_utf8(body).ok()?;
            let dir = serde_json::to_string(&sandbox_dir()).expect("a path as JSON");
            Some(text.replace(&format!("\"{SANDBOX}\""), &dir).into_bytes())
        }
        Err(_) => {
            let risky = [
                "path", "output", "record", "profile", "artifact", "map", "trace", "meta", "base",
                "\\",
            ];
            let lower = body.to_ascii_lowercase();
            let spelled = risky
                .iter()
                .any(|w| lower.windows(w.len()).any(|x| x == w.as_bytes()));
            (!spelled).then(|| body.to_vec())
        }
    }
}

/// One call through the real `extern "C"` symbol: the envelope's text.
fn call_entry(name: &str, entry: JsonEntry, request: &std::ffi::CStr) -> String {
    // SAFETY: `request` is a NUL-terminated string alive for the call.
    let out = unsafe { entry(request.as_ptr()) };
    assert!(!out.is_null(), "{name} returned NULL");
    // SAFETY: the library returns a NUL-terminated string it owns.
    let text = unsafe { std::ffi::CStr::from_ptr(out) }
        .to_str()
        .expect("the envelope is UTF-8")
        .to_owned();
    // SAFETY: returned by the library, freed once.
    unsafe { opguard_capi::ffi::opguard_string_free(out) };
    text
}

/// One C ABI call: the first byte picks the entry point, the rest is the
/// request. Through the real `extern "C"` symbols: a non-NULL UTF-8 JSON
/// envelope comes back, is freed by `opguard_string_free`, never reports
/// an internal panic, and equals what the Rust dispatcher `call` returns.
/// `opguard_job_merge` answers the same for the summaries in reverse order
/// (the merge is commutative, refusals included); `opguard_kernel_match`
/// agrees with the JSON matcher.
pub fn capi_json(data: &[u8]) {
    use std::ffi::CString;
    let Some((&selector, body)) = data.split_first() else {
        // NULL is reported, never dereferenced.
        let out = unsafe { opguard_capi::ffi::opguard_kernel_canonicalize(std::ptr::null()) };
        assert!(!out.is_null());
        unsafe { opguard_capi::ffi::opguard_string_free(out) };
        return;
    };
    let Some(body) = prepare(body) else {
        return;
    };
    let (name, entry) = CAPI_ENTRIES[selector as usize % CAPI_ENTRIES.len()];
    let Ok(request) = CString::new(body.clone()) else {
        return;
    };
    let text = call_entry(name, entry, &request);
    let envelope: serde_json::Value = serde_json::from_str(&text).expect("the envelope is JSON");
    assert!(envelope.is_object(), "{name}: {text}");
    // The envelope's code, not its text: an error message may echo the
    // request, and a request can spell anything.
    assert_ne!(
        envelope["error"]["code"].as_str(),
        Some("capi.internal_panic"),
        "{name}: a panic reached the boundary: {text}"
    );
    if let Ok(s) = std::str::from_utf8(&body) {
        assert_eq!(
            opguard_capi::call(name, s).as_deref(),
            Some(text.as_str()),
            "{name}"
        );
    }
    if name == "opguard_job_merge" {
        merge_both_ways(entry, &body);
    }
    // The direct matcher agrees with the JSON one on the same two strings.
    if name == "opguard_kernel_match_json" {
        if let Some((w, g)) = envelope_pair(&body) {
            let (cw, cg) = (CString::new(w.clone()), CString::new(g.clone()));
            if let (Ok(cw), Ok(cg)) = (cw, cg) {
                // SAFETY: both NUL-terminated and alive for the call.
                let direct =
                    unsafe { opguard_capi::ffi::opguard_kernel_match(cw.as_ptr(), cg.as_ptr()) };
                assert_eq!(direct, i32::from(opguard_kernel_name::is_match(&w, &g)));
            }
        }
    }
}

/// `opguard_job_merge` on the summaries as given and reversed (both as
/// `serde_json` writes them back, so both see the same numbers): the same
/// merged job, or refusals in both orders (`frame_conflict` in both or in
/// neither).
fn merge_both_ways(entry: JsonEntry, body: &[u8]) {
    let Ok(mut request) = serde_json::from_slice::<serde_json::Value>(body) else {
        return;
    };
    let forward = request.to_string();
    let Some(summaries) = request.get_mut("summaries").and_then(|s| s.as_array_mut()) else {
        return;
    };
    summaries.reverse();
    let backward = request.to_string();
    let answer = |text: String| -> Result<serde_json::Value, String> {
        let c = std::ffi::CString::new(text).expect("no NUL in serde_json's output");
        let envelope: serde_json::Value =
            serde_json::from_str(&call_entry("opguard_job_merge", entry, &c)).expect("JSON");
        match envelope.get("error") {
            Some(e) => Err(e["code"].as_str().unwrap_or_default().to_owned()),
            None => Ok(envelope),
        }
    };
    match (answer(forward), answer(backward)) {
        (Ok(f), Ok(b)) => assert_eq!(f, b, "opguard_job_merge depends on the order"),
        // Documents are read in order and the first bad one is reported, so
        // with two bad ones the code may differ; a conflict between good
        // ones is found after all are read, in either order.
        (Err(f), Err(b)) => assert_eq!(
            f == "job.frame_conflict",
            b == "job.frame_conflict",
            "opguard_job_merge: {f} one way, {b} the other"
        ),
        (f, b) => panic!("opguard_job_merge accepted one order only: {f:?} against {b:?}"),
    }
}

fn envelope_pair(body: &[u8]) -> Option<(String, String)> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    Some((
        v.get("want")?.as_str()?.to_owned(),
        v.get("got")?.as_str()?.to_owned(),
    ))
}
