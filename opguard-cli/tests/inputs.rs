//! Issue 15's remaining input paths through the real binary: `-` (stdin)
//! for export, align and select verdict (at most once), `--provider` on
//! trace info, export, scaling and select verdict, and the reader's
//! warnings from export. Inputs are the committed producer traces and the
//! real traces of `../shared/data`; a cut trace is a committed one cut.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{opguard, run, run_bytes, Run};

fn producer(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/producers/traces")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// SHA-256 by the system's `sha256sum` (not ours).
fn sha256sum(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

fn json(r: &Run) -> Value {
    assert_eq!(r.status, 0, "{}", r.stderr);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 1, "{}", r.stdout);
    lines[0].clone()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A committed producer trace, decompressed and cut after `keep` of its
/// bytes (a process killed while writing).
fn cut(name: &str, keep: f64) -> Vec<u8> {
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(producer(name)).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    text.truncate((text.len() as f64 * keep) as usize);
    text
}

#[test]
fn export_reads_one_profile_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        producer("torch_cpu.json.gz"),
        producer("torch_inductor.json.gz"),
    );
    let from_files = json(&run(&[
        "export",
        "--json",
        "--from-profile",
        s(&a),
        "--from-profile",
        s(&b),
        "--out",
        s(&dir.path().join("files.json")),
    ]));
    let out = dir.path().join("stdin.json");
    let r = run_bytes(
        opguard(&[
            "export",
            "--json",
            "--from-profile",
            "-",
            "--from-profile",
            s(&b),
            "--out",
            s(&out),
        ]),
        &std::fs::read(&a).unwrap(),
    );
    let from_stdin = json(&r);
    assert_eq!(from_stdin["runs"][0], "stdin");
    // The piped bytes are the file's: the same digest in the sources, the
    // same operations and pairs.
    assert_eq!(from_stdin["sources"][0]["sha256"], sha256sum(&a));
    assert_eq!(from_stdin["sources"][1], from_files["sources"][1]);
    for key in ["operations", "pairs", "statuses"] {
        assert_eq!(from_stdin[key], from_files[key], "{key}");
    }
    assert_eq!(from_stdin["output_sha256"], sha256sum(&out));
    // Two `-` are refused before anything is read or written.
    let twice = dir.path().join("twice.json");
    let r = run_bytes(
        opguard(&[
            "export",
            "--from-profile",
            "-",
            "--from-profile",
            "-",
            "--out",
            s(&twice),
        ]),
        &std::fs::read(&a).unwrap(),
    );
    assert_eq!(r.status, 64, "{}", r.stderr);
    assert!(r.stderr.contains("more than once"), "{}", r.stderr);
    assert!(!twice.exists());
}

#[test]
fn export_reports_what_salvage_kept_and_refuses_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let cut_trace = dir.path().join("cut.json");
    std::fs::write(&cut_trace, cut("torch_cpu.json.gz", 0.7)).unwrap();
    let other = producer("torch_inductor.json.gz");
    let out = dir.path().join("view.json");
    let args = |salvage: bool| {
        let mut a = vec![
            "export",
            "--json",
            "--from-profile",
            s(&cut_trace),
            "--from-profile",
            s(&other),
            "--out",
            s(&out),
        ];
        if salvage {
            a.push("--salvage");
        }
        a
    };
    let r = run(&args(false));
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "json_truncated", "{}", r.stderr);
    assert_eq!(listing(dir.path()), ["cut.json"]);
    let r = run(&args(true));
    let summary = json(&r);
    let warnings: Vec<Value> = r
        .stderr
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["warning"].clone())
        .collect();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert_eq!(warnings[0]["code"], "truncated");
    assert_eq!(warnings[0]["input"], s(&cut_trace));
    assert_eq!(summary["warnings"][0], warnings[0]);
    // What was kept is every complete event, no more: trace info counts
    // the same.
    let info = json(&run(&[
        "trace",
        "info",
        "--json",
        "--salvage",
        s(&cut_trace),
    ]));
    assert_eq!(warnings[0]["complete_events"], info["events"]);
    // The human form names the input under the warning.
    let out2 = dir.path().join("view2.json");
    let r = run(&[
        "export",
        "--from-profile",
        s(&cut_trace),
        "--from-profile",
        s(&other),
        "--out",
        s(&out2),
        "--salvage",
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stderr.contains("warning[truncated]"), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("--> {}", s(&cut_trace))));
}

#[test]
fn align_reads_the_artifact_from_stdin_as_from_its_file() {
    let Some(base) = opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz")
    else {
        return;
    };
    let test = opguard_testdata::shared_file("traces/hta/trace_compare__test__test.json.gz")
        .expect("beside base");
    let dir = tempfile::tempdir().unwrap();
    let view = dir.path().join("view.json");
    let summary = json(&run(&[
        "export",
        "--json",
        "--from-profile",
        s(&base),
        "--from-profile",
        s(&test),
        "--out",
        s(&view),
    ]));
    // An empty review of this artifact: a valid map that changes nothing.
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        serde_json::json!({
            "version": 1,
            "artifact_sha256": summary["output_sha256"],
            "reviews": [],
        })
        .to_string(),
    )
    .unwrap();
    let by_file = dir.path().join("by_file.json");
    let a = json(&run(&[
        "align",
        "--json",
        "--artifact",
        s(&view),
        "--alignment-map",
        s(&map),
        "--out",
        s(&by_file),
    ]));
    let by_stdin = dir.path().join("by_stdin.json");
    let r = run_bytes(
        opguard(&[
            "align",
            "--json",
            "--artifact",
            "-",
            "--alignment-map",
            s(&map),
            "--out",
            s(&by_stdin),
        ]),
        &std::fs::read(&view).unwrap(),
    );
    let b = json(&r);
    assert_eq!(a["artifact_sha256"], b["artifact_sha256"]);
    assert_eq!(sha256sum(&by_file), sha256sum(&by_stdin));
    // Artifact and map both from stdin: refused, nothing written.
    let none = dir.path().join("none.json");
    let r = run(&[
        "align",
        "--artifact",
        "-",
        "--alignment-map",
        "-",
        "--out",
        s(&none),
    ]);
    assert_eq!(r.status, 64, "{}", r.stderr);
    assert!(!none.exists());
    // Whatever the path, the stdin copy is gone: only our files remain.
    assert_eq!(
        listing(dir.path()),
        ["by_file.json", "by_stdin.json", "map.json", "view.json"]
    );
}

#[test]
fn trace_info_and_export_take_the_provider_given() {
    let viz = producer("viztracer.json.gz");
    let detected = json(&run(&["trace", "info", "--json", s(&viz)]));
    assert_eq!(detected["provider"], "viztracer");
    assert!(detected.get("provider_detected").is_none());
    let given = json(&run(&[
        "trace",
        "info",
        "--json",
        "--provider",
        "kineto_other",
        s(&viz),
    ]));
    assert_eq!(given["provider"], "kineto_other");
    assert_eq!(given["provider_detected"], "viztracer");
    // Export names why the trace yields no operation by its provider.
    let dir = tempfile::tempdir().unwrap();
    let torch = producer("torch_cpu.json.gz");
    let export = |provider: Option<&str>| {
        let mut args = vec![
            "export",
            "--json",
            "--from-profile",
            s(&viz),
            "--from-profile",
            s(&torch),
        ];
        let out = dir.path().join("view.json");
        let out = out.to_str().unwrap().to_owned();
        args.extend(["--out", &out]);
        if let Some(p) = provider {
            args.extend(["--provider", p]);
        }
        let r = run(&args);
        assert_eq!(r.status, 2, "{}", r.stderr);
        r.json_error()
    };
    let e = export(None);
    assert_eq!(e["code"], "no_operations");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("not a PyTorch profiler trace (provider viztracer)"),
        "{e}"
    );
    let e = export(Some("kineto_other"));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("a PyTorch profiler trace (kineto_other) without cpu_op events"),
        "{e}"
    );
    assert_eq!(listing(dir.path()), Vec::<String>::new());
}

#[test]
fn scaling_frames_carry_the_provider_given() {
    let trials =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scaling/seed003/trials.json");
    let ids = |provider: Option<&str>| -> Vec<String> {
        let mut args = vec!["scaling", "--json", "--trials", s(&trials)];
        if let Some(p) = provider {
            args.extend(["--provider", p]);
        }
        let report = json(&run(&args));
        let mut ids: Vec<String> = report["hotspots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["semantic_frame_id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    let detected = ids(None);
    assert!(!detected.is_empty());
    // The provider's family is part of every frame's identity: declaring
    // another gives other ids for the same frames.
    let given = ids(Some("viztracer"));
    assert_eq!(given.len(), detected.len());
    assert!(given.iter().all(|id| !detected.contains(id)), "{given:?}");
}

/// The generated default input (two CUDA ranks and a seam request).
fn seam_input(dir: &Path) -> Value {
    for f in opguard_examples::default_input::generate().unwrap() {
        std::fs::write(dir.join(f.name), &f.bytes).unwrap();
    }
    let mut request = opguard_examples::default_input::seam_request();
    request["target"] = "demo.kernels:paged_attention".into();
    request["capture_target"] = "demo.kernels:paged_attention".into();
    request
}

#[test]
fn select_verdict_reads_a_process_trace_from_stdin_and_takes_the_provider() {
    let dir = tempfile::tempdir().unwrap();
    let request = seam_input(dir.path());
    let req = dir.path().join("seam-request.json");
    std::fs::write(&req, request.to_string()).unwrap();
    let verdict = |extra: &[&str]| {
        let mut args = vec!["select", "verdict", "--json", "--seam-request", s(&req)];
        args.extend(extra);
        let r = run(&args);
        assert!(r.status == 0 || r.status == 1, "{}", r.stderr);
        r.json_lines()[0].clone()
    };
    let from_files = verdict(&[]);
    assert_eq!(from_files["ok"], true, "{from_files}");
    // The first process's trace piped in as `-`.
    let first = request["processes"][0]["trace"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut piped = request.clone();
    piped["processes"][0]["trace"] = "-".into();
    let piped_req = dir.path().join("piped-request.json");
    std::fs::write(&piped_req, piped.to_string()).unwrap();
    let r = run_bytes(
        opguard(&[
            "select",
            "verdict",
            "--json",
            "--seam-request",
            s(&piped_req),
        ]),
        &std::fs::read(dir.path().join(&first)).unwrap(),
    );
    let from_stdin = json(&r);
    for key in [
        "ok",
        "failed",
        "matched_kernel_calls",
        "deepest_verified",
        "target",
    ] {
        assert_eq!(from_stdin[key], from_files[key], "{key}");
    }
    // An unknown provider proves no launch: the verdict cannot certify.
    let unknown = verdict(&["--provider", "unknown"]);
    assert_eq!(unknown["ok"], false, "{unknown}");
    assert_ne!(
        unknown["matched_kernel_calls"],
        from_files["matched_kernel_calls"]
    );
}

#[test]
fn every_command_reading_several_traces_refuses_stdin_twice() {
    let trace = std::fs::read(producer("torch_cpu.json.gz")).unwrap();
    for args in [
        &["trace", "info", "-", "-"][..],
        &["trace", "launches", "-", "-"],
        &["inspect", "-", "-"],
    ] {
        let r = run_bytes(opguard(args), &trace);
        assert_eq!(r.status, 64, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("more than once"),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(r.stdout, "", "{args:?}");
    }
}
