//! Every JSON entry point through its C symbol: requests refused the same
//! way everywhere, and answers identical to the library crates' own.

use std::ffi::c_char;

use opguard_capi::ffi::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::suite::support::{call, call_raw, crate_dir, err, fixtures, kernel_fixture, ok, Entry};

/// Every JSON entry point by symbol. Kept equal to the library's own list,
/// so a new entry point cannot skip these tests.
const ENTRIES: &[(&str, Entry)] = &[
    ("opguard_kernel_canonicalize", opguard_kernel_canonicalize),
    (
        "opguard_kernel_canonicalize_batch",
        opguard_kernel_canonicalize_batch,
    ),
    ("opguard_kernel_short_name", opguard_kernel_short_name),
    ("opguard_kernel_match_json", opguard_kernel_match_json),
    ("opguard_kernel_match_batch", opguard_kernel_match_batch),
    ("opguard_trace_info", opguard_trace_info),
    ("opguard_trace_launch_regions", opguard_trace_launch_regions),
    ("opguard_census", opguard_census),
    (
        "opguard_census_compare_widths",
        opguard_census_compare_widths,
    ),
    ("opguard_profile_top_n", opguard_profile_top_n),
    ("opguard_seam_verdict", opguard_seam_verdict),
    ("opguard_export_build", opguard_export_build),
    ("opguard_alignment_map_apply", opguard_alignment_map_apply),
    ("opguard_scaling_correlate", opguard_scaling_correlate),
    ("opguard_job_summary", opguard_job_summary),
    ("opguard_job_merge", opguard_job_merge),
    ("opguard_compare", opguard_compare),
];

#[test]
fn the_test_table_lists_every_json_entry_point() {
    let mine: Vec<&str> = ENTRIES.iter().map(|(n, _)| *n).collect();
    let library: Vec<&str> = opguard_capi::json_entry_points().collect();
    assert_eq!(mine, library);
}

#[test]
fn null_request_is_an_error_envelope_everywhere() {
    for (name, entry) in ENTRIES {
        let v = call_raw(*entry, std::ptr::null());
        assert_eq!(v["ok"], false, "{name}");
        assert_eq!(v["error"]["code"], "capi.null_argument", "{name}");
        assert_eq!(v["error"]["argument"], "request", "{name}");
    }
}

#[test]
fn invalid_utf8_is_an_error_envelope_everywhere() {
    let bytes: &[u8] = b"{\"symbol\": \"ab\xffcd\"}\0";
    for (name, entry) in ENTRIES {
        let v = call_raw(*entry, bytes.as_ptr().cast::<c_char>());
        assert_eq!(v["error"]["code"], "capi.invalid_utf8", "{name}");
        assert_eq!(v["error"]["byte_offset"], 14, "{name}");
    }
}

#[test]
fn malformed_requests_are_refused_with_stable_codes_everywhere() {
    for (name, entry) in ENTRIES {
        for (request, code) in [
            ("", "document.json_syntax"),
            ("{", "document.json_syntax"),
            ("{,}", "document.json_syntax"),
            ("nul", "document.json_syntax"),
            ("[]", "document.wrong_type"),
            ("[\"not\", \"an\", \"object\"]", "document.wrong_type"),
            (" 5", "document.wrong_type"),
            ("null", "document.wrong_type"),
            ("[1,", "document.json_syntax"),
            ("\"x\"", "document.wrong_type"),
            // With the apply protocol's version, so that the apply request
            // too is refused for the field rather than for a missing version.
            (
                "{\"no_such_field\": 1, \"protocol_version\": 1}",
                "document.unknown_field",
            ),
        ] {
            let e = err(*entry, request);
            assert_eq!(e["code"], code, "{name} {request:?}: {e}");
        }
    }
}

#[test]
fn a_request_is_an_object_never_fields_by_position() {
    // serde fills a struct from an array by position; a request that happens
    // to fit must still be refused, not read as `{"symbol": "x"}`.
    for (entry, request) in [
        (opguard_kernel_short_name as Entry, r#"["x"]"#),
        (opguard_kernel_canonicalize, r#"["x"]"#),
        (opguard_kernel_match_json, r#"["a", "a"]"#),
        (opguard_kernel_match_batch, r#"[[["a", "a"]]]"#),
    ] {
        let e = err(entry, request);
        assert_eq!(e["code"], "document.wrong_type", "{request}: {e}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("found an array, expected struct"),
            "{e}"
        );
    }
}

#[test]
fn a_nested_request_is_an_object_too() {
    // Each array fits its struct by position, so serde alone would read it
    // (`[1024, null, null, null, null]` as `{"max_encoded_bytes": 1024}`).
    let trace = r#"{"traceEvents": []}"#;
    let limits = json!([1024, null, null, null, null]);
    for (entry, request, path) in [
        (
            opguard_trace_info as Entry,
            json!({ "text": trace, "reader": limits }),
            "reader",
        ),
        (
            opguard_trace_launch_regions,
            json!({ "artifacts": [[null, trace]] }),
            "artifacts[0]",
        ),
        (
            opguard_trace_launch_regions,
            json!({ "artifacts": [{ "text": trace }], "reader": limits }),
            "reader",
        ),
        (
            opguard_scaling_correlate,
            json!({ "trials_path": "t.json", "reader": limits }),
            "reader",
        ),
    ] {
        let e = err(entry, &request.to_string());
        assert_eq!(e["code"], "document.wrong_type", "{request}: {e}");
        assert_eq!(e["json_path"], path, "{request}: {e}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("found an array, expected struct"),
            "{e}"
        );
    }
    // The same requests written as objects are read.
    let v = ok(
        opguard_trace_info,
        &json!({ "text": trace, "reader": { "max_encoded_bytes": 1024 } }).to_string(),
    );
    assert_eq!(v["events"], 0);
    let v = ok(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [{ "text": trace }] }).to_string(),
    );
    assert_eq!(v["regions"].as_array().unwrap().len(), 1);
}

#[test]
fn repeated_request_fields_are_refused() {
    let e = err(
        opguard_kernel_canonicalize,
        r#"{"symbol": "a", "symbol": "b"}"#,
    );
    assert_eq!(e["code"], "document.duplicate_key");
    assert!(
        e["message"].as_str().unwrap().contains("duplicate key"),
        "{e}"
    );
    // At every depth, also inside a field serde would have read whole.
    let e = err(
        opguard_trace_info,
        r#"{"text": "{}", "reader": {"max_depth": 4, "max_depth": 5}}"#,
    );
    assert_eq!(e["code"], "document.duplicate_key", "{e}");
    assert_eq!(e["json_path"], "reader.max_depth", "{e}");
}

// ---- kernel names ---------------------------------------------------------

/// Every symbol of the kernel-name parity fixture.
fn fixture_symbols() -> Vec<String> {
    kernel_fixture()["symbol_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["symbol"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn canonicalize_is_the_library_answer_for_every_fixture_symbol() {
    let symbols = fixture_symbols();
    for s in &symbols {
        let got = ok(
            opguard_kernel_canonicalize,
            &json!({ "symbol": s }).to_string(),
        );
        let want = serde_json::to_value(opguard_kernel_name::canonicalize(s)).unwrap();
        assert_eq!(got, want, "{s}");
        let short = ok(
            opguard_kernel_short_name,
            &json!({ "symbol": s }).to_string(),
        );
        assert_eq!(
            short,
            json!({ "short_name": opguard_kernel_name::short_name(s) })
        );
    }
    let batch = ok(
        opguard_kernel_canonicalize_batch,
        &json!({ "symbols": symbols }).to_string(),
    );
    let batch = batch.as_array().unwrap();
    assert_eq!(batch.len(), symbols.len());
    for (s, got) in symbols.iter().zip(batch) {
        assert_eq!(
            got,
            &serde_json::to_value(opguard_kernel_name::canonicalize(s)).unwrap()
        );
    }
}

/// Every field of a canonical form, in serialization order.
const ALL_FIELDS: &[&str] = &[
    "symbol",
    "base",
    "qualification",
    "short_name",
    "template",
    "annotation",
    "truncated",
    "degenerate",
    "memory_op",
    "mangling",
    "demangled",
    "identity",
    "identity_scheme",
];

#[test]
fn a_projection_onto_every_field_is_the_whole_canonical_form_byte_for_byte() {
    let symbols = fixture_symbols();
    for s in &symbols {
        let whole = opguard_capi::call(
            "opguard_kernel_canonicalize",
            &json!({ "symbol": s }).to_string(),
        )
        .unwrap();
        let projected = opguard_capi::call(
            "opguard_kernel_canonicalize",
            &json!({ "symbol": s, "fields": ALL_FIELDS }).to_string(),
        )
        .unwrap();
        assert_eq!(projected, whole, "{s}");
    }
    let whole = opguard_capi::call(
        "opguard_kernel_canonicalize_batch",
        &json!({ "symbols": symbols }).to_string(),
    )
    .unwrap();
    let projected = opguard_capi::call(
        "opguard_kernel_canonicalize_batch",
        &json!({ "symbols": symbols, "fields": ALL_FIELDS }).to_string(),
    )
    .unwrap();
    assert_eq!(projected, whole);
}

#[test]
fn a_projection_keeps_only_the_named_fields_in_request_order() {
    let s = "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)";
    let v = ok(
        opguard_kernel_canonicalize_batch,
        &json!({ "symbols": [s, "main_kernel[prefill]"], "fields": ["short_name", "identity"] })
            .to_string(),
    );
    assert_eq!(
        v,
        json!([
            { "short_name": "clamp_position_kernel", "identity": "clamp_position_kernel<long>" },
            { "short_name": "main_kernel", "identity": "main_kernel" },
        ])
    );
    let one = opguard_capi::call(
        "opguard_kernel_canonicalize",
        &json!({ "symbol": s, "fields": ["short_name", "identity"] }).to_string(),
    )
    .unwrap();
    assert_eq!(
        one,
        r#"{"ok":true,"value":{"short_name":"clamp_position_kernel","identity":"clamp_position_kernel<long>"}}"#
    );
    assert_eq!(
        ok(
            opguard_kernel_canonicalize,
            &json!({ "symbol": s, "fields": [] }).to_string()
        ),
        json!({})
    );
    for (fields, code) in [
        // Names the list does not have, or has twice, are the entry point's
        // own refusal; a list that is not one is the document's.
        (json!(["identity", "nope"]), "capi.invalid_request"),
        (json!(["base", "base"]), "capi.invalid_request"),
        (json!("base"), "document.wrong_type"),
    ] {
        let e = err(
            opguard_kernel_canonicalize_batch,
            &json!({ "symbols": [s], "fields": fields }).to_string(),
        );
        assert_eq!(e["code"], code, "{fields}: {e}");
    }
}

#[test]
fn verdicts_agree_across_direct_json_and_batch_calls() {
    let fixture = kernel_fixture();
    let cases = fixture["verdict_cases"].as_array().unwrap();
    let pairs: Vec<(String, String)> = cases
        .iter()
        .map(|c| {
            (
                c["want"].as_str().unwrap().to_owned(),
                c["got"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let batch = ok(
        opguard_kernel_match_batch,
        &json!({ "pairs": pairs }).to_string(),
    );
    for (i, case) in cases.iter().enumerate() {
        let (want, got) = &pairs[i];
        let single = ok(
            opguard_kernel_match_json,
            &json!({ "want": want, "got": got }).to_string(),
        );
        let library = serde_json::to_value(opguard_kernel_name::matches(want, got)).unwrap();
        assert_eq!(single, library, "{}", case["id"]);
        assert_eq!(batch[i], library, "{}", case["id"]);
        let w = std::ffi::CString::new(want.as_str()).unwrap();
        let g = std::ffi::CString::new(got.as_str()).unwrap();
        // SAFETY: two NUL-terminated strings.
        let direct = unsafe { opguard_kernel_match(w.as_ptr(), g.as_ptr()) };
        assert_eq!(
            direct,
            i32::from(library["is_match"] == true),
            "{}",
            case["id"]
        );
    }
}

#[test]
fn direct_match_reports_bad_arguments_as_negative_statuses() {
    let ok_arg = c"clamp_position_kernel".as_ptr();
    let bad: &[u8] = b"clamp\xc3\0";
    // SAFETY: NULL or NUL-terminated strings.
    unsafe {
        assert_eq!(opguard_kernel_match(std::ptr::null(), ok_arg), -1);
        assert_eq!(opguard_kernel_match(ok_arg, std::ptr::null()), -1);
        assert_eq!(opguard_kernel_match(ok_arg, bad.as_ptr().cast()), -2);
        assert_eq!(opguard_kernel_match(ok_arg, ok_arg), 1);
        assert_eq!(opguard_kernel_match(c"void".as_ptr(), c"void".as_ptr()), 0);
        for (status, code) in [
            (-1, "capi.null_argument"),
            (-2, "capi.invalid_utf8"),
            (-3, "capi.internal_panic"),
        ] {
            let name = std::ffi::CStr::from_ptr(opguard_status_name(status));
            assert_eq!(name.to_str().unwrap(), code);
        }
        assert!(opguard_status_name(0).is_null());
        assert!(opguard_status_name(1).is_null());
        assert!(opguard_status_name(-4).is_null());
    }
}

#[test]
fn string_free_accepts_null() {
    // SAFETY: NULL is documented as accepted.
    unsafe { opguard_string_free(std::ptr::null_mut()) };
}

#[test]
fn batch_requests_keep_order_and_accept_empty_lists() {
    assert_eq!(
        ok(opguard_kernel_canonicalize_batch, r#"{"symbols": []}"#),
        json!([])
    );
    assert_eq!(
        ok(opguard_kernel_match_batch, r#"{"pairs": []}"#),
        json!([])
    );
    let e = err(opguard_kernel_match_batch, r#"{"pairs": [["only one"]]}"#);
    assert_eq!(e["code"], "document.invalid_value");
    let v = ok(
        opguard_kernel_match_batch,
        r#"{"pairs": [["void", "void"], ["gemm_kernel", "void gemm_kernel<float>(float*)"]]}"#,
    );
    assert_eq!(v[0]["reason"], "degenerate_token");
    assert_eq!(v[1]["basis"], "base_only");
}

// ---- traces ---------------------------------------------------------------

/// A small Kineto-shaped trace (two launched kernels) and its event count.
fn kineto_trace_counted() -> (Vec<u8>, usize) {
    use opguard_testdata::kineto_writer::KinetoTrace;
    let mut t = KinetoTrace::new();
    let host = (100, 100);
    t.cpu_op(host, "aten::mm", 1_000, 9_000, Some(7));
    t.launch(host, "cudaLaunchKernel", 2_000, 1_000, 42, Some(7))
        .kernel(0, 7, "void gemm_kernel<128>(float*)", 4_000, 3_000);
    t.launch(host, "cudaLaunchKernel", 5_000, 1_000, 43, Some(7))
        .kernel(0, 7, "void gemm_kernel<128>(float*)", 9_000, 2_000);
    (t.to_bytes().unwrap(), t.len())
}

fn kineto_trace() -> Vec<u8> {
    kineto_trace_counted().0
}

#[test]
fn trace_info_reports_the_readers_summary() {
    let (bytes, events) = kineto_trace_counted();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let v = ok(opguard_trace_info, &json!({ "text": text }).to_string());
    assert_eq!(v["sha256"], format!("{:x}", Sha256::digest(&bytes)));
    assert_eq!(v["encoded_bytes"], bytes.len());
    assert_eq!(v["events"], events, "{v}");
    assert!(events >= 5);
    assert_eq!(v["compression"], "none");
    assert_eq!(v["form"], "object");
    assert_eq!(v["provider"], "kineto_cuda");
    // Field for field the library's own facts.
    let library = opguard_trace::trace_info(
        opguard_trace::TraceReader::new(&bytes[..]).unwrap(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(v["format"], "chrome_json");
    assert_eq!(
        v,
        serde_json::to_value(opguard_formats::Info::ChromeJson(library)).unwrap()
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    std::fs::write(&path, &bytes).unwrap();
    let by_path = ok(opguard_trace_info, &json!({ "path": path }).to_string());
    assert_eq!(by_path, v);
}

#[test]
fn trace_info_on_real_traces_matches_an_independent_hash() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for path in traces.iter().take(4) {
        let bytes = std::fs::read(path).unwrap();
        let v = ok(opguard_trace_info, &json!({ "path": path }).to_string());
        assert_eq!(
            v["sha256"],
            format!("{:x}", Sha256::digest(&bytes)),
            "{}",
            path.display()
        );
        assert_eq!(v["encoded_bytes"], bytes.len());
        let mut reader = opguard_trace::TraceReader::open(path).unwrap();
        let mut n = 0u64;
        while reader.next_event().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(v["events"], n);
        assert!(v["counts"].is_array() && v["metadata_keys"].is_array());
    }
}

/// An XSpace by path: its facts by format (planes and lines), its
/// launches proven by `correlation_id`, and a cut copy refused with the
/// XSpace reader's code, byte and message path.
#[test]
fn an_xspace_is_read_by_path() {
    let path = opguard_testdata::producer_trace("jax_tensorboard.xplane.pb");
    let bytes = std::fs::read(&path).unwrap();
    let v = ok(opguard_trace_info, &json!({ "path": path }).to_string());
    assert_eq!(v["format"], "xspace");
    assert_eq!(v["provider"], "xla");
    assert_eq!(v["producer"], "jax 0.10.2");
    assert_eq!(v["sha256"], format!("{:x}", Sha256::digest(&bytes)));
    assert_eq!(v["events"], 72);
    let planes: Vec<&str> = v["planes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(planes, ["/host:metadata", "/host:CPU", "Task Environment"]);

    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.xplane.pb");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let requests = [
        (opguard_trace_info as Entry, json!({ "path": cut })),
        (
            opguard_trace_launch_regions,
            json!({ "artifacts": [{ "path": cut }] }),
        ),
    ];
    for (entry, request) in requests {
        let e = err(entry, &request.to_string());
        assert_eq!(e["code"], "trace.protobuf_truncated", "{e}");
        assert_eq!(e["byte_offset"], 0, "{e}");
        assert_eq!(e["json_path"], "XSpace", "{e}");
    }

    let Some(gpu) =
        opguard_testdata::shared_file("xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb")
    else {
        return;
    };
    let v = ok(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [{ "path": gpu }] }).to_string(),
    );
    let region = &v["regions"][0];
    assert_eq!(region["provider"], "xla");
    assert_eq!(region["kernel_count"], 235);
    assert_eq!(region["correlated_kernel_count"], 235);
}

#[test]
fn trace_errors_keep_the_readers_code_and_position() {
    let e = err(
        opguard_trace_info,
        r#"{"path": "/nonexistent/opguard/t.json"}"#,
    );
    assert_eq!(e["code"], "trace.io");
    assert_eq!(e["input"], "/nonexistent/opguard/t.json");
    let e = err(
        opguard_trace_info,
        r#"{"text": "{\"traceEvents\": [{\"ph\": \"X\""}"#,
    );
    assert_eq!(e["code"], "trace.json_truncated", "{e}");
    assert!(e["byte_offset"].is_u64(), "{e}");
    let e = err(
        opguard_trace_info,
        r#"{"text": "{\"traceEvents\": [{\"ts\": NaN}]}"}"#,
    );
    assert_eq!(e["code"], "trace.non_finite_number", "{e}");
    let big = String::from_utf8(kineto_trace()).unwrap();
    let e = err(
        opguard_trace_info,
        &json!({ "text": big, "reader": { "max_decoded_bytes": 100 } }).to_string(),
    );
    assert_eq!(e["code"], "trace.limit_exceeded", "{e}");
    let e = err(opguard_trace_info, r#"{"text": "[]", "path": "x"}"#);
    assert_eq!(e["code"], "capi.invalid_request");
    let e = err(opguard_trace_info, r#"{}"#);
    assert_eq!(e["code"], "capi.invalid_request");
    let e = err(
        opguard_trace_info,
        r#"{"text": "[]", "reader": {"max_bytes": 1}}"#,
    );
    assert_eq!(e["code"], "document.unknown_field");
}

#[test]
fn launch_regions_are_the_library_answer() {
    use opguard_model::analysis::{aggregate, launch_region};
    use opguard_model::{ArtifactSpec, ModelOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    std::fs::write(&path, kineto_trace()).unwrap();
    let v = ok(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [{ "path": path, "stage": "decode", "role": "inference_profile" }],
                 "top": 3 })
        .to_string(),
    );
    let model = opguard_formats::read(
        &path,
        ArtifactSpec::new()
            .stage("decode")
            .role("inference_profile"),
        &opguard_formats::ReadOptions::new(ModelOptions::launches_only()),
    )
    .unwrap();
    let region = launch_region(&model, 3);
    assert_eq!(v["regions"][0], serde_json::to_value(&region).unwrap());
    assert_eq!(
        v["aggregate"],
        serde_json::to_value(aggregate(&[region]).unwrap()).unwrap()
    );
    let r = &v["regions"][0];
    assert_eq!(r["kernel_count"], 2);
    assert_eq!(r["correlated_kernel_count"], 2);
    assert_eq!(r["direct_launch_count"], 2);
    assert_eq!(r["stage"], "decode");
}

#[test]
fn launch_regions_keep_artifacts_apart_and_honour_the_provider() {
    let text = String::from_utf8(kineto_trace()).unwrap();
    // Another capture with the same events (its bytes differ).
    let other = format!("{text}\n");
    let v = ok(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [
            { "text": text, "stage": "prefill" },
            { "text": other, "stage": "decode", "provider": "unknown" },
        ] })
        .to_string(),
    );
    let regions = v["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 2);
    assert_eq!(regions[0]["correlated_kernel_count"], 2);
    // An unknown provider has no correlation namespace: ids are present, nothing is proven.
    assert_eq!(regions[1]["correlated_kernel_count"], 0);
    assert_eq!(regions[1]["coverage"]["correlation_ids_present"], true);
    assert_eq!(
        regions[1]["coverage"]["host_to_device_correlation_proven"],
        false
    );
    assert_eq!(v["aggregate"]["region_count"], 2);
    assert_eq!(v["aggregate"]["kernel_count"], 4);
    assert!(v["aggregate"].get("region_start_ns").is_none());
    // One capture given twice would count its kernels twice: refused.
    let e = err(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [{ "text": text }, { "text": text, "stage": "decode" }] })
            .to_string(),
    );
    assert_eq!(e["code"], "trace.artifact_reused", "{e}");

    let e = err(
        opguard_trace_launch_regions,
        r#"{"artifacts": [{"text": "[]", "provider": "nvidia"}]}"#,
    );
    assert_eq!(e["code"], "capi.invalid_request");
    assert!(
        e["message"].as_str().unwrap().contains("kineto_cuda"),
        "{e}"
    );
    let e = err(opguard_trace_launch_regions, r#"{"artifacts": []}"#);
    assert_eq!(e["code"], "capi.invalid_request");
    let e = err(
        opguard_trace_launch_regions,
        r#"{"artifacts": [{"text": "[]"}, {"text": "{"}]}"#,
    );
    assert_eq!(e["input"], "artifacts[1]", "{e}");
    assert!(e["code"].as_str().unwrap().starts_with("trace."), "{e}");
}

// ---- census ---------------------------------------------------------------

fn census_file(name: &str) -> String {
    fixtures().join("census").join(name).display().to_string()
}

fn census_text(name: &str) -> String {
    std::fs::read_to_string(census_file(name)).unwrap()
}

#[test]
fn census_inline_and_by_path_agree_with_the_library() {
    use opguard_census::{Capture, Census, DeclaredHostResolutions, FamilyTable};
    let name = "prefix_traps.capture.json";
    let families = "seed004_families.json";
    let by_path = ok(
        opguard_census,
        &json!({ "capture_path": census_file(name), "families_path": census_file(families),
                 "require_classified": false })
        .to_string(),
    );
    let inline = ok(
        opguard_census,
        &format!(
            r#"{{"capture": {}, "families": {}, "require_classified": false}}"#,
            census_text(name),
            census_text(families)
        ),
    );
    assert_eq!(by_path, inline);
    let capture = Capture::from_path(census_file(name)).unwrap();
    let table = FamilyTable::from_path(census_file(families)).unwrap();
    let census = Census::compute(&capture, &table);
    assert_eq!(by_path["census"], serde_json::to_value(&census).unwrap());
    assert_eq!(by_path["host_resolution_diff"], Value::Null);
    // The fixture's own expectation: the four prefix traps are unclassified.
    assert_eq!(
        by_path["census"]["unclassified"]["ops"], 4,
        "{}",
        by_path["census"]["unclassified"]
    );

    // Seed 004: an incomplete census is not a pass, unless asked for by name.
    for request in [
        json!({ "capture_path": census_file(name), "families_path": census_file(families),
                "require_classified": true }),
        json!({ "capture_path": census_file(name), "families_path": census_file(families) }),
        json!({ "capture_path": census_file(name), "families_path": census_file(families),
                "declared_host_resolutions_path": census_file("seed004_host_resolutions.declared.json") }),
    ] {
        let e = err(opguard_census, &request.to_string());
        assert_eq!(e["code"], "census.unclassified_operators", "{request}");
        assert_eq!(e["input"], "capture");
    }

    let declared =
        DeclaredHostResolutions::from_path(census_file("seed004_host_resolutions.declared.json"))
            .unwrap();
    let with_declared = ok(
        opguard_census,
        &json!({ "capture_path": census_file(name), "require_classified": false,
                 "declared_host_resolutions_path": census_file("seed004_host_resolutions.declared.json") })
        .to_string(),
    );
    let diff = census.host_resolution_diff(&declared);
    assert_eq!(
        with_declared["host_resolution_diff"],
        serde_json::to_value(&diff).unwrap()
    );
    assert_eq!(with_declared["host_resolution_diff"]["matches"], false);
    let e = err(
        opguard_census,
        &json!({ "capture_path": census_file(name), "require_classified": false,
                 "declared_host_resolutions_path": census_file("seed004_host_resolutions.declared.json"),
                 "require_host_resolutions": true })
        .to_string(),
    );
    assert_eq!(e["code"], "census.host_resolutions_differ");
}

#[test]
fn census_refusals_pass_through_with_their_codes() {
    for name in [
        "width1_claims_symbol.capture.json",
        "width1_numeric_axis.capture.json",
    ] {
        let e = err(
            opguard_census,
            &json!({ "capture_path": census_file(name) }).to_string(),
        );
        assert_eq!(e["code"], "census.step_axis_not_symbolic", "{name}: {e}");
        let e = err(
            opguard_census,
            &format!(r#"{{"capture": {}}}"#, census_text(name)),
        );
        assert_eq!(e["code"], "census.step_axis_not_symbolic", "{name}: {e}");
    }
    // The inline capture reaches the census parser byte for byte: its
    // duplicate key is seen, not silently collapsed by the request parser.
    let dup = r#"{"capture": {"format": "opguard.census/capture-v1", "label": "a", "label": "b",
        "step_axis": "s0", "step_hint": 2, "ops": [], "guards": [], "replacements": {},
        "host_resolutions": []}}"#;
    let e = err(opguard_census, dup);
    assert_eq!(e["code"], "document.duplicate_key", "{e}");
    assert_eq!(e["json_path"], "label", "{e}");
    // The message names the input once, however many layers report it.
    let e = err(
        opguard_census,
        r#"{"capture": {"format": "opguard.census/capture-v1"}}"#,
    );
    assert_eq!(e["code"], "document.missing_field", "{e}");
    assert_eq!(e["input"], "capture", "{e}");
    assert_eq!(e["json_path"], "label", "{e}");
    assert_eq!(
        e["message"], "capture: missing field `label` at label",
        "{e}"
    );
    let e = err(opguard_census, r#"{"capture": {}, "capture_path": "x"}"#);
    assert_eq!(e["code"], "capi.invalid_request");
    let e = err(opguard_census, r#"{"capture_path": "/nonexistent/c.json"}"#);
    assert_eq!(e["code"], "document.io");
    let e = err(
        opguard_census,
        r#"{"capture": {"format": "x"}, "require_host_resolutions": true}"#,
    );
    assert_eq!(e["code"], "capi.invalid_request");
}

#[test]
fn width_comparison_is_the_library_answer() {
    use opguard_census::{Capture, WidthComparison};
    let (w2, w8) = ("hint_guard_w2.capture.json", "hint_guard_w8.capture.json");
    let v = ok(
        opguard_census_compare_widths,
        &json!({ "first_path": census_file(w2), "second_path": census_file(w8) }).to_string(),
    );
    let first = Capture::from_path(census_file(w2)).unwrap();
    let second = Capture::from_path(census_file(w8)).unwrap();
    let cmp = WidthComparison::compare(&first, &second, None).unwrap();
    assert_eq!(v, serde_json::to_value(&cmp).unwrap());
    assert_eq!(v["free_symbol"], true);
    let inline = ok(
        opguard_census_compare_widths,
        &format!(
            r#"{{"first": {}, "second": {}}}"#,
            census_text(w2),
            census_text(w8)
        ),
    );
    assert_eq!(inline, v);
    let e = err(
        opguard_census_compare_widths,
        &json!({ "first_path": census_file(w2), "second_path": census_file(w2) }).to_string(),
    );
    assert_eq!(e["code"], "census.same_width");
    let e = err(
        opguard_census_compare_widths,
        &json!({ "first_path": census_file(w2) }).to_string(),
    );
    assert_eq!(e["code"], "capi.invalid_request");
    assert!(e["message"].as_str().unwrap().contains("second"), "{e}");
}

#[test]
fn width_comparison_uses_the_family_table_it_is_given() {
    use opguard_census::{Capture, FamilyTable, WidthComparison};
    // Seed 004's table claims none of these captures' operators, so the
    // comparison that was free with the default table is not free with it.
    let (w2, w8, families) = (
        "hint_guard_w2.capture.json",
        "hint_guard_w8.capture.json",
        "seed004_families.json",
    );
    let v = ok(
        opguard_census_compare_widths,
        &json!({
            "first_path": census_file(w2),
            "second_path": census_file(w8),
            "families_path": census_file(families),
        })
        .to_string(),
    );
    let table = FamilyTable::from_path(census_file(families)).unwrap();
    let first = Capture::from_path(census_file(w2)).unwrap();
    let second = Capture::from_path(census_file(w8)).unwrap();
    let cmp = WidthComparison::compare_with_families(&first, &second, None, &table).unwrap();
    assert_eq!(v, serde_json::to_value(&cmp).unwrap());
    assert_eq!(v["free_symbol"], false, "{v}");
    let inline = ok(
        opguard_census_compare_widths,
        &format!(
            r#"{{"first_path": {}, "second_path": {}, "families": {}}}"#,
            json!(census_file(w2)),
            json!(census_file(w8)),
            census_text(families)
        ),
    );
    assert_eq!(inline, v);
    let e = err(
        opguard_census_compare_widths,
        &json!({
            "first_path": census_file(w2),
            "second_path": census_file(w8),
            "families": {},
            "families_path": census_file(families),
        })
        .to_string(),
    );
    assert_eq!(e["code"], "capi.invalid_request", "{e}");
}

#[test]
fn every_error_envelope_has_exactly_code_message_and_details() {
    let v = call(opguard_kernel_canonicalize, "{");
    let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["error", "ok"]);
    let e = v["error"].as_object().unwrap();
    assert!(e.contains_key("code") && e.contains_key("message"));
    assert_eq!(e["line"], 1);
}

// ---- alignment ------------------------------------------------------------

fn records() -> String {
    fixtures()
        .join("align/two_runs.records.jsonl")
        .display()
        .to_string()
}

#[test]
fn export_and_apply_are_the_library_answers() {
    let dir = tempfile::tempdir().unwrap();
    let view = dir.path().join("view.json");
    let request = json!({ "records": records(), "output": view }).to_string();
    let summary = ok(opguard_export_build, &request);
    let library_view = dir.path().join("library-view.json");
    let library = opguard_align::export_records(records().as_ref(), &library_view).unwrap();
    let mut library = serde_json::to_value(&library).unwrap();
    library["output"] = json!(view);
    assert_eq!(summary, library);
    assert_eq!(summary["pairs"], 4);
    assert_eq!(summary["verdict"], "not_evaluated");
    assert_eq!(
        std::fs::read(&view).unwrap(),
        std::fs::read(&library_view).unwrap()
    );

    // Outputs are never overwritten.
    let e = err(opguard_export_build, &request);
    assert_eq!(e["code"], "align.output_exists", "{e}");

    let sha = summary["output_sha256"].as_str().unwrap();
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        json!({ "version": 1, "artifact_sha256": sha, "reviews": [] }).to_string(),
    )
    .unwrap();
    let reviewed = dir.path().join("reviewed.json");
    let response = ok(
        opguard_alignment_map_apply,
        &json!({ "protocol_version": 1, "artifact": view, "alignment_map": map,
                 "output": reviewed })
        .to_string(),
    );
    let library_out = dir.path().join("library-reviewed.json");
    let library = opguard_align::apply(&view, &map, &library_out).unwrap();
    let mut library = serde_json::to_value(&library).unwrap();
    library["output"] = json!(reviewed);
    assert_eq!(response, library);
    assert_eq!(response["verdict"], "not_evaluated");
    assert_eq!(
        std::fs::read(&reviewed).unwrap(),
        std::fs::read(&library_out).unwrap()
    );
}

#[test]
fn alignment_refusals_keep_their_codes_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let view = dir.path().join("view.json");
    ok(
        opguard_export_build,
        &json!({ "records": records(), "output": view }).to_string(),
    );
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        json!({ "version": 1, "artifact_sha256": "0".repeat(64), "reviews": [] }).to_string(),
    )
    .unwrap();
    let out = dir.path().join("out.json");
    let apply = |extra: Value| {
        let mut r = json!({ "protocol_version": 1, "artifact": view, "alignment_map": map,
                            "output": out });
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        err(opguard_alignment_map_apply, &r.to_string())
    };
    assert_eq!(apply(json!({}))["code"], "align.stale_artifact_hash");
    assert_eq!(
        apply(json!({ "protocol_version": 2 }))["code"],
        "align.unsupported_protocol_version"
    );
    assert_eq!(
        apply(json!({ "extra": 1 }))["code"],
        "document.unknown_field"
    );
    assert!(!out.exists(), "a refused apply wrote its output");
    let e = err(opguard_alignment_map_apply, r#"{"artifact": "a"}"#);
    assert_eq!(e["code"], "document.missing_field", "{e}");

    let e = err(
        opguard_export_build,
        &json!({ "from_profile": [{ "path": "/nonexistent/a.json" }, { "path": "/nonexistent/b.json" }],
                 "output": dir.path().join("v2.json") })
        .to_string(),
    );
    assert!(
        e["code"] == "trace.io" || e["code"] == "align.io",
        "a missing trace is an I/O error: {e}"
    );
    let e = err(
        opguard_export_build,
        r#"{"output": "x.json", "record": "r"}"#,
    );
    assert_eq!(e["code"], "document.unknown_field");
}

// ---- scaling --------------------------------------------------------------

fn seed003(name: &str) -> std::path::PathBuf {
    fixtures().join("scaling/seed003").join(name)
}

#[test]
fn scaling_runs_the_fixture_cases() {
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("scaling/cases.json")).unwrap(),
    )
    .unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let mut request = json!({
            "trials_path": fixtures().join("scaling").join(case["trials"].as_str().unwrap())
        });
        if let Some(metric) = case["metric"].as_str() {
            request["metric"] = json!(metric);
        }
        let reply = call(opguard_scaling_correlate, &request.to_string());
        if let Some(code) = case["expect"]["error"].as_str() {
            // A refused trials document is the document reader's code.
            let origin = if opguard_document::ERROR_CODES
                .iter()
                .any(|(c, _)| *c == code)
            {
                "document"
            } else {
                "scaling"
            };
            assert_eq!(
                reply["error"]["code"],
                format!("{origin}.{code}"),
                "{id}: {reply}"
            );
        } else {
            let path = fixtures()
                .join("scaling")
                .join(case["expect"]["report"].as_str().unwrap());
            let want: Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            assert_eq!(reply["ok"], true, "{id}: {reply}");
            assert_eq!(reply["value"], want, "{id}");
        }
    }
}

#[test]
fn scaling_inline_documents_resolve_traces_against_base() {
    let text = std::fs::read_to_string(seed003("trials.json")).unwrap();
    let by_path = ok(
        opguard_scaling_correlate,
        &json!({ "trials_path": seed003("trials.json") }).to_string(),
    );
    let inline = ok(
        opguard_scaling_correlate,
        &format!(
            r#"{{"trials": {text}, "base": {}}}"#,
            json!(seed003("").display().to_string())
        ),
    );
    assert_eq!(inline, by_path);
    assert_eq!(by_path["hotspots"][0]["name"], "reverse_scan");
    let e = err(
        opguard_scaling_correlate,
        &format!(r#"{{"trials": {text}, "metric": "wall_ns"}}"#),
    );
    assert_eq!(e["code"], "scaling.unknown_metric");
    let e = err(
        opguard_scaling_correlate,
        &json!({ "trials_path": seed003("trials.json"), "base": "/" }).to_string(),
    );
    assert_eq!(e["code"], "capi.invalid_request");
    // Without `base`, relative trace paths resolve against the working directory.
    let e = err(
        opguard_scaling_correlate,
        &format!(r#"{{"trials": {text}}}"#),
    );
    assert_eq!(e["code"], "scaling.trace_unreadable", "{e}");
    assert_eq!(e["trace_code"], "io");
}

// ---- selection ------------------------------------------------------------

fn select_file(name: &str) -> std::path::PathBuf {
    fixtures().join("select").join(name)
}

#[test]
fn seam_verdicts_run_the_fixture_cases() {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(select_file("cases.json")).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let path = select_file(case["request"].as_str().unwrap());
        let reply = call(
            opguard_seam_verdict,
            &json!({ "request_path": path }).to_string(),
        );
        // The same request inline, its traces resolved against `base`.
        let inline = call(
            opguard_seam_verdict,
            &format!(
                r#"{{"request": {}, "base": {}}}"#,
                std::fs::read_to_string(&path).unwrap(),
                json!(select_file(""))
            ),
        );
        assert_eq!(inline, reply, "{id}");
        let expect = case["expect"].as_object().unwrap();
        if let Some(code) = expect.get("error") {
            assert_eq!(
                reply["error"]["code"],
                format!("select.{}", code.as_str().unwrap()),
                "{id}"
            );
            continue;
        }
        assert_eq!(reply["ok"], true, "{id}: {reply}");
        let path_verdict =
            serde_json::to_value(opguard_select::verdict_from_request_file(&path).unwrap())
                .unwrap();
        assert_eq!(reply["value"], path_verdict, "{id}");
        for (key, want) in expect {
            assert_eq!(&reply["value"][key], want, "{id}: {key}");
        }
    }
}

#[test]
fn seam_verdict_refusals() {
    let e = err(
        opguard_seam_verdict,
        r#"{"request": {"protocol_version": 1}}"#,
    );
    assert_eq!(e["code"], "document.missing_field", "{e}");
    assert_eq!(e["input"], "request", "{e}");
    let e = err(
        opguard_seam_verdict,
        r#"{"request": {"protocol_version": 2, "target": "a:b", "processes": []}}"#,
    );
    assert_eq!(e["code"], "select.unsupported_protocol_version", "{e}");
    let e = err(
        opguard_seam_verdict,
        r#"{"request_path": "/nonexistent/r.json"}"#,
    );
    assert_eq!(e["code"], "document.io", "{e}");
    let e = err(
        opguard_seam_verdict,
        &json!({ "request_path": select_file("0720_inner_launcher.request.json"), "base": "/" })
            .to_string(),
    );
    assert_eq!(e["code"], "capi.invalid_request");
}

#[test]
fn profile_top_n_is_the_library_answer() {
    let trace = select_file("attention.pid-4242.json.gz");
    let v = ok(
        opguard_profile_top_n,
        &json!({ "path": trace, "top": 5 }).to_string(),
    );
    let library = opguard_select::profile(&trace, 5).unwrap();
    assert_eq!(v, serde_json::to_value(&library).unwrap());
    assert_eq!(v["top"], 5);
    assert!(!v["rows"].as_array().unwrap().is_empty());
    for row in v["rows"].as_array().unwrap() {
        assert!(row["entity_kind"].is_string(), "{row}");
    }
    let e = err(opguard_profile_top_n, &json!({ "path": trace }).to_string());
    assert_eq!(e["code"], "document.missing_field");
    let e = err(
        opguard_profile_top_n,
        r#"{"path": "/nonexistent/t.json", "top": 3}"#,
    );
    assert_eq!(e["code"], "select.trace_unreadable", "{e}");
    assert_eq!(e["trace_code"], "io");
}

// ---- whole jobs -------------------------------------------------------------

#[test]
fn job_summary_and_merge_are_the_library_answers() {
    let names = [
        "trace_filter__sampled_rank-0.json.gz",
        "trace_filter__sampled_rank-1.json.gz",
    ];
    let Some(paths) = names
        .iter()
        .map(|n| opguard_testdata::shared_file(&format!("traces/hta/{n}")))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let mut summaries = Vec::new();
    for p in &paths {
        let got = ok(
            opguard_job_summary,
            &json!({ "path": p, "top": 3 }).to_string(),
        );
        let want = opguard_job::summarize(p, &opguard_job::SummaryOptions::new().top(3));
        assert_eq!(got, serde_json::to_value(&want).unwrap());
        summaries.push(got);
    }
    let missing = ok(
        opguard_job_summary,
        &json!({ "path": "/nonexistent/rank.json.gz" }).to_string(),
    );
    assert_eq!(missing["rank"]["error"]["code"], "trace.io");
    summaries.push(missing);

    let merged = ok(
        opguard_job_merge,
        &json!({ "summaries": summaries }).to_string(),
    );
    assert_eq!(merged["format"], "opguard.job/v1");
    assert_eq!(merged["ranks"].as_array().unwrap().len(), 3);
    // Reversed, and as a merge of a partial job with the rest: the same.
    let mut reversed = summaries.clone();
    reversed.reverse();
    assert_eq!(
        ok(
            opguard_job_merge,
            &json!({ "summaries": reversed }).to_string()
        ),
        merged
    );
    let partial = ok(
        opguard_job_merge,
        &json!({ "summaries": [summaries[2], summaries[0]] }).to_string(),
    );
    assert_eq!(
        ok(
            opguard_job_merge,
            &json!({ "summaries": [summaries[1], partial] }).to_string()
        ),
        merged
    );
}

#[test]
fn job_merge_refuses_what_is_not_a_summary() {
    let e = err(
        opguard_job_merge,
        r#"{"summaries": [{"format": "opguard.job/v1", "ranks": [], "frames": []}, {"format": "x"}]}"#,
    );
    assert_eq!(e["code"], "job.wrong_format", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("summaries[1]"),
        "{e}"
    );
    let e = err(
        opguard_job_merge,
        r#"{"summaries": [{"format": "opguard.job/v1", "ranks": [], "frames": [], "extra": 1}]}"#,
    );
    assert_eq!(e["code"], "document.unknown_field", "{e}");
    assert_eq!(e["json_path"], "extra", "{e}");
    let empty = ok(opguard_job_merge, r#"{"summaries": []}"#);
    assert_eq!(
        empty,
        json!({"format": "opguard.job/v1", "ranks": [], "frames": []})
    );
}

// ---- comparing runs ------------------------------------------------------------

#[test]
fn compare_is_the_library_answer() {
    let (Some(base), Some(test)) = (
        opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz"),
        opguard_testdata::shared_file("traces/hta/trace_compare__test__test.json.gz"),
    ) else {
        return;
    };
    let got = ok(
        opguard_compare,
        &json!({ "baseline": [base], "candidate": [test], "fdr": 0.1 }).to_string(),
    );
    let want = opguard_compare::compare_paths(
        std::slice::from_ref(&base),
        std::slice::from_ref(&test),
        &opguard_compare::CompareOptions::new().fdr(0.1),
    )
    .unwrap();
    assert_eq!(got, serde_json::to_value(&want).unwrap());
    assert_eq!(got["format"], "opguard.compare/v1");
    assert_eq!(got["settings"]["fdr"], 0.1);
    assert_eq!(got["gate"]["status"], "undecided");

    // A trace that cannot be read keeps the reader's code beside its own.
    let e = err(
        opguard_compare,
        &json!({ "baseline": [base], "candidate": ["/nonexistent/t.json.gz"] }).to_string(),
    );
    assert_eq!(e["code"], "compare.trace_unreadable", "{e}");
    assert_eq!(e["trace_code"], "io", "{e}");
    let e = err(
        opguard_compare,
        &json!({ "baseline": [base], "candidate": [test], "step": "train_step" }).to_string(),
    );
    assert_eq!(e["code"], "compare.step_not_found", "{e}");
    let e = err(
        opguard_compare,
        &json!({ "baseline": [base], "candidate": [test], "fdr": 2 }).to_string(),
    );
    assert_eq!(e["code"], "compare.invalid_option", "{e}");
    let e = err(opguard_compare, r#"{"baseline": [], "candidate": []}"#);
    assert_eq!(e["code"], "compare.no_runs", "{e}");
    let e = err(
        opguard_compare,
        r#"{"baseline": ["a"], "candidate": ["b"], "gate": 1}"#,
    );
    assert_eq!(e["code"], "document.unknown_field", "{e}");
}

/// Two job documents that give one frame id different categories (the
/// fuzzer's case: `cpu_op` spelt `cpu_ot` in one of them) are refused in
/// either order, with the same error, instead of the first one winning.
#[test]
fn job_merge_refuses_documents_that_disagree_on_a_frame_in_either_order() {
    let job = |file: &str, category: &str| {
        json!({"format": "opguard.job/v1",
            "ranks": [{"rank": null, "file": file, "artifact": null, "error": null, "provider": null,
                "frame_basis": null, "launch": null, "device_time_ns": 0, "top": [],
                "collectives": [], "unmatched_frames": []}],
            "frames": [{"id": "sf2:00000000000000000000000000000001", "category": category,
                "name": "aten::mm", "kernel_identity": null,
                "per_rank": [{"rank": null, "file": file, "cost_ns": 5, "count": 1}],
                "max_ns": 5, "median_ns": 5, "slowest_rank": null, "slowest_file": file,
                "missing": []}]})
    };
    let (a, b) = (job("a.json", "cpu_op"), job("b.json", "cpu_ot"));
    let ab = err(
        opguard_job_merge,
        &json!({ "summaries": [a, b] }).to_string(),
    );
    let ba = err(
        opguard_job_merge,
        &json!({ "summaries": [b, a] }).to_string(),
    );
    assert_eq!(ab["code"], "job.frame_conflict", "{ab}");
    assert_eq!(ab, ba);
    let message = ab["message"].as_str().unwrap();
    assert!(
        message.contains("sf2:00000000000000000000000000000001")
            && message.contains(r#""cpu_op" on a.json but "cpu_ot" on b.json"#),
        "{message}"
    );
    // Each alone is a job.
    ok(opguard_job_merge, &json!({ "summaries": [a] }).to_string());
}

/// A committed real producer trace, decompressed, cut after `keep` of its
/// bytes (a process killed while writing).
fn cut_producer_trace(name: &str, keep: f64) -> (String, String) {
    use std::io::Read;
    let path = crate_dir().join("../fixtures/producers/traces").join(name);
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut cut = (text.len() as f64 * keep) as usize;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    (text[..cut].to_owned(), text)
}

#[test]
fn launch_regions_carry_the_readers_warnings_per_artifact() {
    let (cut, whole) = cut_producer_trace("torch_cpu.json.gz", 0.6);
    // The whole trace's events, counted with serde_json.
    let doc: Value = serde_json::from_str(&whole).unwrap();
    let total = doc["traceEvents"].as_array().unwrap().len() as u64;
    let request = |salvage: bool| {
        json!({
            "artifacts": [{ "text": whole }, { "text": cut }],
            "reader": { "salvage": salvage },
        })
        .to_string()
    };
    let e = err(opguard_trace_launch_regions, &request(false));
    assert_eq!(e["code"], "trace.json_truncated", "{e}");
    assert_eq!(e["input"], "artifacts[1]", "{e}");
    let v = ok(opguard_trace_launch_regions, &request(true));
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v}");
    let w = &warnings[0];
    assert_eq!(w["input"], "artifacts[1]", "{w}");
    assert_eq!(w["code"], "truncated", "{w}");
    let complete = w["complete_events"].as_u64().unwrap();
    assert!(complete > 0 && complete < total, "{complete} of {total}");
    // The cut trace's complete events are exactly what trace info counts.
    let info = ok(
        opguard_trace_info,
        &json!({ "text": cut, "reader": { "salvage": true } }).to_string(),
    );
    assert_eq!(info["events"].as_u64().unwrap(), complete, "{info}");
    // The whole trace alone: an empty list, not an absent one.
    let v = ok(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [{ "text": whole }] }).to_string(),
    );
    assert_eq!(v["warnings"], json!([]));
}

/// An Nsight Systems export by path: its own facts, its launch regions, and
/// its reader's errors as `trace.<code>` with the table they are in.
#[test]
fn an_nsight_systems_export_is_read_by_path() {
    let (Some(export), Some(report)) = (
        opguard_testdata::shared_file("nsys/pipit_perlmutter-cloverleaf-cuda.sqlite"),
        opguard_testdata::shared_file("nsys/test-cuda_report1.nsys-rep"),
    ) else {
        return;
    };
    let path = export.to_str().unwrap();
    let v = ok(opguard_trace_info, &json!({ "path": path }).to_string());
    assert_eq!(v["format"], "nsys_sqlite");
    assert_eq!(v["meta"]["schema"], "3.13.2");
    let regions = ok(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [{ "path": path }] }).to_string(),
    );
    // sqlite3: 1,312 kernels, each with one runtime call of its process.
    assert_eq!(regions["regions"][0]["kernel_count"], 1312);
    assert_eq!(regions["regions"][0]["correlated_kernel_count"], 1312);
    let e = err(
        opguard_trace_info,
        &json!({ "path": report.to_str().unwrap() }).to_string(),
    );
    assert_eq!(e["code"], "trace.nsight_report");
    // A value of the wrong type in a row: the table, row and column.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sqlite");
    std::fs::copy(&export, &bad).unwrap();
    let db = rusqlite::Connection::open(&bad).unwrap();
    db.execute(
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid = 7",
        [],
    )
    .unwrap();
    drop(db);
    let e = err(
        opguard_trace_launch_regions,
        &json!({ "artifacts": [{ "path": bad.to_str().unwrap() }] }).to_string(),
    );
    assert_eq!(e["code"], "trace.bad_value", "{e}");
    assert_eq!(e["table"], "CUPTI_ACTIVITY_KIND_KERNEL");
    assert_eq!(e["rowid"], 7);
    assert_eq!(e["column"], "start");
    assert_eq!(e["input"], "artifacts[0]");
}
