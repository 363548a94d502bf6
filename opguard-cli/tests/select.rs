//! `opguard select`: the verdict's exit status follows `ok`, the JSON is the
//! library's, and errors carry their codes.

use std::process::Command;

fn opguard() -> Command {
    Command::new(env!("CARGO_BIN_EXE_opguard"))
}

/// Writes the generated default input (two CUDA ranks and a seam request)
/// into a temp dir, with the request's target replaced.
fn default_input(target: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in opguard_examples::default_input::generate().unwrap() {
        std::fs::write(dir.path().join(f.name), &f.bytes).unwrap();
    }
    let mut request = opguard_examples::default_input::seam_request();
    request["target"] = target.into();
    request["capture_target"] = target.into();
    std::fs::write(dir.path().join("seam-request.json"), request.to_string()).unwrap();
    dir
}

#[test]
fn the_inner_launcher_is_certified_and_the_outer_wrapper_refused() {
    let dir = default_input("demo.kernels:paged_attention");
    let out = opguard()
        .args(["select", "verdict", "--json", "--seam-request"])
        .arg(dir.path().join("seam-request.json"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["ok"].as_bool(), v["deepest_verified"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(v["matched_kernel_calls"], 12);

    let dir = default_input("demo.attention:Attention.forward");
    let out = opguard()
        .args(["select", "verdict", "--json", "--seam-request"])
        .arg(dir.path().join("seam-request.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert!(
        v["failed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "deeper_live_candidate"),
        "{v}"
    );
    assert_eq!(
        v["deeper_live_candidates"][0],
        "demo.kernels:paged_attention"
    );
    // The human form says why.
    let out = opguard()
        .args(["select", "verdict", "--seam-request"])
        .arg(dir.path().join("seam-request.json"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("refused: "));
}

#[test]
fn a_malformed_request_and_an_unreadable_trace_exit_2_with_codes() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("r.json");
    std::fs::write(&req, "{\"protocol_version\": 1,").unwrap();
    let out = opguard()
        .args(["select", "verdict", "--json", "--seam-request"])
        .arg(&req)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(err["error"]["code"].is_string());
    let trace = dir.path().join("t.json.gz");
    std::fs::write(&trace, [0x1f, 0x8b, 8, 0, 0, 0]).unwrap();
    let out = opguard()
        .args(["select", "profile", "--json"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "gzip_truncated");
}

#[test]
fn profile_rows_declare_entity_kinds_and_short_names() {
    let dir = default_input("demo.kernels:paged_attention");
    let out = opguard()
        .args(["select", "profile", "--json", "--top", "3"])
        .arg(dir.path().join("decode.rank0.json.gz"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["entity_kind_contract"], "v1");
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["short_name"], "paged_attention_v2_kernel");
    assert_eq!(rows[0]["entity_kind"], "gpu_kernel");
}

fn producer_trace(name: &str) -> String {
    opguard_testdata::producer_trace(name).display().to_string()
}

#[test]
fn a_cpu_only_capture_says_so_and_lists_its_host_operations() {
    let trace = producer_trace("torch_cpu.json.gz");
    let out = opguard()
        .args(["select", "profile", "--top", "5", &trace])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("the capture has no device activity"),
        "{text}"
    );
    assert!(text.contains("self ns"), "{text}");
    assert!(text.contains("ProfilerStep#2"), "{text}");

    let out = opguard()
        .args(["select", "profile", "--json", "--top", "500", &trace])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["device_activity"], false);
    let rows = doc["host"]["rows"].as_array().unwrap();
    let addmm = rows.iter().find(|r| r["name"] == "aten::addmm").unwrap();
    assert_eq!(addmm["entity_kind"], "dispatcher_op");
    assert!(!addmm["evidence"]["input_shapes"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn the_provider_flag_changes_what_host_slices_are() {
    let trace = producer_trace("jax_perfetto_trace.json.gz");
    let kinds = |provider: Option<&str>| {
        let mut cmd = opguard();
        cmd.args(["select", "profile", "--json", "--top", "500"]);
        if let Some(p) = provider {
            cmd.args(["--provider", p]);
        }
        let out = cmd.arg(&trace).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["trace"]["provider"], provider.unwrap_or("jax"));
        doc["host"]["markers"].as_u64().unwrap()
    };
    // Detected as JAX, its `end: X` markers are left out; declared unknown,
    // nothing says they are markers.
    assert!(kinds(None) > 0);
    assert_eq!(kinds(Some("unknown")), 0);
    let out = opguard()
        .args(["select", "profile", "--provider", "nsys", &trace])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
}

/// One name for the seam request on every command that takes one; the
/// former `--request` of `report` and `select verdict` still works, unlisted.
#[test]
fn the_seam_request_flag_has_one_name_on_every_command() {
    for command in [&["inspect"][..], &["report"], &["select", "verdict"]] {
        let mut args = command.to_vec();
        args.push("--help");
        let help = crate::common::run(&args).stdout;
        assert!(
            help.contains("--seam-request <FILE>"),
            "{command:?}: {help}"
        );
        assert!(!help.contains("--request"), "{command:?}: {help}");
    }
    let request = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/default-input/seam-request.json");
    let request = request.to_str().unwrap();
    for flag in ["--seam-request", "--request"] {
        let r = crate::common::run(&["select", "verdict", "--json", flag, request]);
        assert_eq!(r.status, 0, "{flag}: {}", r.stderr);
        assert_eq!(r.json_lines()[0]["ok"], true);
    }
}
