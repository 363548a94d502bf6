//! rocprofv3 captures through every command that takes a trace: the shared
//! real CSV capture, and the JSON document and rocpd database made from its
//! rows by opguard-rocprof/tests/data/make_captures.py.

use std::path::{Path, PathBuf};

use crate::common::run;

fn shared_capture() -> Option<PathBuf> {
    opguard_testdata::shared_file("rocprof/prefill_kernel_trace.csv")
}

/// The JSON document and rocpd database of the shared capture.
fn made(kernels: &Path) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../opguard-rocprof/tests/data/make_captures.py");
    opguard_testdata::python3([
        script.as_os_str(),
        kernels.as_os_str(),
        dir.path().as_os_str(),
    ]);
    let json = dir.path().join("results.json");
    let db = dir.path().join("results.db");
    (dir, json, db)
}

#[test]
fn trace_info_reads_each_format_and_the_directory() {
    let Some(kernels) = shared_capture() else {
        return;
    };
    let (_dir, json, db) = made(&kernels);
    let dir = kernels.parent().unwrap().to_path_buf();
    for (path, format) in [
        (&kernels, "rocprofv3_csv"),
        (&dir, "rocprofv3_csv"),
        (&json, "rocprofv3_json"),
        (&db, "rocpd_sqlite"),
    ] {
        let r = run(&["trace", "info", "--json", path.to_str().unwrap()]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        let info: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
        assert_eq!(info["format"], format);
        assert_eq!(info["provider"], "rocprofv3");
        assert_eq!(info["records"]["dispatches"], 1128);
        assert_eq!(info["records"]["api_calls"], 5);
        assert_eq!(info["time_span"]["records"], 1133);
    }
}

#[test]
fn trace_launches_proves_the_graph_launch_in_each_format() {
    let Some(kernels) = shared_capture() else {
        return;
    };
    let (_dir, json, db) = made(&kernels);
    let r = run(&[
        "trace",
        "launches",
        "--json",
        kernels.to_str().unwrap(),
        json.to_str().unwrap(),
        db.to_str().unwrap(),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let regions = doc["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 3);
    for region in regions {
        assert_eq!(region["provider"], "rocprofv3");
        assert_eq!(region["kernel_count"], 1128);
        assert_eq!(region["correlated_kernel_count"], 1124);
        assert_eq!(region["graph_launch_count"], 3);
        assert_eq!(
            region["coverage"]["host_to_device_correlation_proven"],
            true
        );
    }
}

#[test]
fn inspect_select_report_and_job_take_a_rocprofv3_capture() {
    let Some(kernels) = shared_capture() else {
        return;
    };
    let (dir, json, db) = made(&kernels);
    let k = kernels.to_str().unwrap();
    let r = run(&["inspect", "--json", k]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.contains("mul_mat_q"), "{}", r.stdout);
    let r = run(&["select", "profile", "--json", k]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.contains("gpu_kernel"), "{}", r.stdout);
    let html = dir.path().join("report.html");
    let r = run(&["report", "--out", html.to_str().unwrap(), k]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(html.is_file());
    let r = run(&[
        "job",
        "--json",
        json.to_str().unwrap(),
        db.to_str().unwrap(),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
}

#[test]
fn a_foreign_csv_header_is_refused_naming_the_column_not_as_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("prefill_kernel_trace.csv");
    std::fs::write(
        &csv,
        "\"Start (ns)\",\"Duration (ns)\",\"Name\"\n\"1\",\"2\",\"gemm\"\n",
    )
    .unwrap();
    for command in [
        &["trace", "info"][..],
        &["trace", "launches"][..],
        &["inspect"][..],
    ] {
        let mut args = command.to_vec();
        args.push(csv.to_str().unwrap());
        let r = run(&args);
        assert_eq!(r.status, 2, "{command:?}: {}", r.stdout);
        assert!(
            r.stderr.contains("error[foreign_csv_header]"),
            "{command:?}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("Start (ns)"), "{}", r.stderr);
    }
}
