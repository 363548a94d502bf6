//! XLA's XSpace (`.xplane.pb`) through every command that takes a trace:
//! the same answers as the JSON the same JAX run wrote, where the JSON
//! carries them; the join the XSpace adds, held against the stdlib
//! referee of opguard-xplane.

use std::path::{Path, PathBuf};

use crate::common::run;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn jax_xspace() -> PathBuf {
    opguard_testdata::producer_trace("jax_tensorboard.xplane.pb")
}

fn jax_json() -> PathBuf {
    opguard_testdata::producer_trace("jax_tensorboard.trace.json.gz")
}

fn shared_xspace() -> Option<PathBuf> {
    opguard_testdata::shared_file("xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb")
}

/// What opguard-xplane's hand-decoding referee prints for `file`.
fn referee(file: &Path) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../opguard-xplane/tests/referee.py");
    let out = opguard_testdata::python3([script.as_os_str(), file.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

fn one_json(args: &[&str]) -> serde_json::Value {
    let r = run(args);
    assert_eq!(r.status, 0, "{args:?}: {}", r.stderr);
    let mut lines = r.json_lines();
    assert_eq!(lines.len(), 1, "{}", r.stdout);
    lines.remove(0)
}

/// The profile Top-N of the XSpace is the JSON's, row for row (names,
/// calls, self and total time, entity kinds and their evidence, HLO
/// module): only the provider, the digest and the file differ.
#[test]
fn the_xspace_gives_the_profile_of_the_json_its_run_wrote() {
    let mut from_xspace = one_json(&["select", "profile", "--json", s(&jax_xspace())]);
    let mut from_json = one_json(&["select", "profile", "--json", s(&jax_json())]);
    assert_eq!(from_xspace["trace"]["provider"], "xla");
    assert_eq!(from_json["trace"]["provider"], "jax");
    for doc in [&mut from_xspace, &mut from_json] {
        let trace = doc["trace"].as_object_mut().unwrap();
        for key in ["provider", "sha256", "source"] {
            assert!(trace.remove(key).is_some(), "{key}");
        }
    }
    assert_eq!(from_xspace, from_json);
    let rows = from_xspace["host"]["rows"].as_array().unwrap();
    let xla: Vec<_> = rows
        .iter()
        .filter(|r| r["evidence"]["basis"] == "xla_hlo_op")
        .map(|r| (r["name"].as_str().unwrap(), r["calls"].as_u64().unwrap()))
        .collect();
    assert_eq!(xla, [("ynn_fusion", 3), ("tanh_reduce_fusion", 3)]);
}

/// Where the XSpace knows more, the provenance says so: its launch region
/// names the namespace launches are proven in and the producer that
/// states its version; the JSON's names none.
#[test]
fn the_xspace_s_provenance_names_its_join_and_producer() {
    let x = one_json(&["trace", "launches", "--json", s(&jax_xspace())]);
    let j = one_json(&["trace", "launches", "--json", s(&jax_json())]);
    let (x, j) = (&x["regions"][0], &j["regions"][0]);
    assert_eq!(
        x["coverage"]["namespace"],
        "xla:(artifact, host process, correlation_id)"
    );
    assert_eq!(j["coverage"]["namespace"], "none");
    assert_eq!(x["provenance"][0]["format"], "xspace");
    assert_eq!(x["provenance"][0]["producer"], "jax 0.10.2");
    assert_eq!(j["provenance"][0]["format"], "chrome_json");
    assert!(j["provenance"][0]["producer"].is_null());
    // A CPU run: no device work in either file.
    for r in [x, j] {
        assert_eq!(r["kernel_count"], 0);
    }
}

/// `trace info` names every plane and line with its events, held against
/// the referee, and what opguard does not model.
#[test]
fn trace_info_lists_planes_and_lines() {
    let Some(path) = shared_xspace() else { return };
    let want = referee(&path);
    let info = one_json(&["trace", "info", "--json", s(&path)]);
    assert_eq!(info["format"], "xspace");
    assert_eq!(info["provider"], "xla");
    assert_eq!(info["events"], 3650);
    assert_eq!(info["events_not_modeled"], 0);
    let planes = info["planes"].as_array().unwrap();
    let want_planes = want["planes"].as_array().unwrap();
    assert_eq!(planes.len(), want_planes.len());
    for (p, w) in planes.iter().zip(want_planes) {
        assert_eq!(p["name"], w["name"]);
        assert_eq!(p["events"], w["events"]);
        let lines: Vec<_> = p["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["name"].clone(), l["events"].clone()))
            .collect();
        let want_lines: Vec<_> = w["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["name"].clone(), l["events"].clone()))
            .collect();
        assert_eq!(lines, want_lines);
    }
    let human = run(&["trace", "info", s(&path)]);
    assert_eq!(human.status, 0, "{}", human.stderr);
    assert!(
        human.stdout.contains("format         xspace"),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("Stream #16(Kernel)"),
        "{}",
        human.stdout
    );
    let calls = want["launches"].as_array().unwrap().len();
    assert!(
        human.stdout.contains(&format!("{calls} runtime_call")),
        "{}",
        human.stdout
    );
}

/// Launches, the profile, inspect and the report read the shared profile:
/// every kernel, its time and its proven launch as the referee joins them.
#[test]
fn launches_profile_inspect_and_report_read_an_xspace() {
    let Some(path) = shared_xspace() else { return };
    let want = referee(&path);
    let device = want["device"].as_array().unwrap();
    let proven = device.iter().filter(|d| d[9].as_bool().unwrap()).count();
    let device_ns: i64 = device.iter().map(|d| d[8].as_i64().unwrap()).sum();

    let launches = one_json(&["trace", "launches", "--json", s(&path)]);
    let region = &launches["regions"][0];
    assert_eq!(region["kernel_count"], device.len());
    assert_eq!(region["correlated_kernel_count"], proven);
    assert_eq!(region["kernel_duration_ns"], device_ns);
    assert!(region["coverage"]["disagreement"].is_null());

    let profile = one_json(&["select", "profile", "--json", s(&path)]);
    assert_eq!(profile["device_rows"], device.len());
    assert_eq!(profile["device_time_ns"], device_ns);
    assert_eq!(profile["rows"][0]["entity_kind"], "gpu_kernel");

    let inspect = run(&["inspect", s(&path)]);
    assert_eq!(inspect.status, 0, "{}", inspect.stderr);
    assert!(
        inspect
            .stdout
            .contains("235 kernels (235 with a proven launch)"),
        "{}",
        inspect.stdout
    );

    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let report = run(&["report", "--out", s(&page), s(&path)]);
    assert_eq!(report.status, 0, "{}", report.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("input_transpose_fusion.kd"));
}

/// A job over a directory of XSpace ranks, next to the JSON views JAX
/// wrote of one of them: the XSpaces are the ranks, the views named on
/// stderr and not read.
#[test]
fn a_job_reads_a_directory_of_xspace_ranks() {
    let Some(gpu) = shared_xspace() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&gpu, dir.path().join("tw003.xplane.pb")).unwrap();
    std::fs::copy(jax_xspace(), dir.path().join("vm.xplane.pb")).unwrap();
    std::fs::copy(jax_json(), dir.path().join("vm.trace.json.gz")).unwrap();
    let r = run(&["job", "--json", s(dir.path())]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let job = &r.json_lines()[0];
    let ranks = job["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    assert!(ranks
        .iter()
        .all(|r| r["provider"] == "xla" && r["error"].is_null()));
    let warning: serde_json::Value = serde_json::from_str(r.stderr.trim()).unwrap();
    assert_eq!(warning["warning"]["code"], "job_file_skipped");
    assert!(warning["warning"]["input"]
        .as_str()
        .unwrap()
        .ends_with("vm.trace.json.gz"));
}

/// Export pairs framework operators with their input shapes: an XSpace has
/// none, and the error says so in XLA's terms. A cut XSpace is refused with
/// the XSpace reader's code, byte and message path.
#[test]
fn export_says_what_an_xspace_lacks_and_a_cut_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("export.json");
    let r = run(&[
        "export",
        "--json",
        "--from-profile",
        s(&jax_xspace()),
        "--from-profile",
        s(&jax_xspace()),
        "--out",
        s(&out),
    ]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let e = r.json_error();
    assert_eq!(e["code"], "no_operations");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("XLA's profiler (provider xla)"),
        "{message}"
    );
    assert!(message.contains("record_shapes=True"), "{message}");
    assert!(!out.exists());

    let bytes = std::fs::read(jax_xspace()).unwrap();
    let cut = dir.path().join("cut.xplane.pb");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for command in [
        &["trace", "info"][..],
        &["trace", "launches"],
        &["select", "profile"],
    ] {
        let mut args = command.to_vec();
        args.extend(["--json", s(&cut)]);
        let r = run(&args);
        assert_eq!(r.status, 2, "{args:?}: {}", r.stderr);
        let e = r.json_error();
        assert_eq!(e["code"], "protobuf_truncated", "{args:?}");
        assert_eq!(e["offset"], 0, "{args:?}");
        assert_eq!(e["json_path"], "XSpace", "{args:?}");
    }
}
