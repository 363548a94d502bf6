//! Nsight Systems exports through every command, held against the SQL
//! referee of opguard-nsys (Python's sqlite3 over the same file).

use std::path::{Path, PathBuf};

use opguard_testdata::{derive_nsys_export as derive, nsys_referee as referee, shared_file};
use serde_json::Value;

use crate::common::run;

/// The shared exports (../shared/data/nsys, README there).
const EXPORTS: [&str; 3] = [
    "nsys/nsys-ai_mock.sqlite",
    "nsys/pipit_perlmutter-cloverleaf-cuda.sqlite",
    "nsys/test-cuda_report1.sqlite",
];

fn exports() -> Option<Vec<PathBuf>> {
    EXPORTS.iter().map(|e| shared_file(e)).collect()
}

fn text(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

fn i(v: &Value) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("{v} is not an integer"))
}

#[test]
fn trace_info_gives_each_exports_versions_and_table_rows() {
    let Some(exports) = exports() else {
        return;
    };
    for path in &exports {
        let r = run(&["trace", "info", "--json", text(path)]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        let info = &r.json_lines()[0];
        let answer = referee(path);
        assert_eq!(info["format"], "nsys_sqlite");
        assert_eq!(info["provider"], "nsight_systems");
        assert_eq!(info["file"], text(path));
        assert_eq!(info["meta"]["product_version"], answer["product_version"]);
        assert_eq!(info["meta"]["schema"], answer["schema"]);
        let rows = |table: &str| {
            info["tables"]
                .as_array()
                .expect("tables")
                .iter()
                .find(|t| t["table"] == table)
                .map_or(0, |t| n(&t["rows"]))
        };
        assert_eq!(rows("CUPTI_ACTIVITY_KIND_KERNEL"), n(&answer["kernels"][0]));
        assert_eq!(
            rows("CUPTI_ACTIVITY_KIND_RUNTIME"),
            n(&answer["runtime_rows"])
        );
        assert_eq!(rows("CUPTI_ACTIVITY_KIND_MEMCPY"), n(&answer["memcpy"][0]));
        assert_eq!(rows("TARGET_INFO_GPU"), n(&answer["gpus"]));
    }
    // The human form names the product and the schema.
    let r = run(&["trace", "info", text(&exports[2])]);
    assert!(
        r.stdout.contains("NVIDIA Nsight Systems 2026.1.1.204"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("3.24.14 (META_DATA_EXPORT, verified)"),
        "{}",
        r.stdout
    );
}

/// Counts, durations and proven joins of `trace launches` against the
/// referee's SQL.
fn launches_agree(path: &Path) -> Value {
    let r = run(&["trace", "launches", "--json", text(path)]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = &r.json_lines()[0];
    let region = &doc["regions"][0];
    let answer = referee(path);
    let file = path.display();
    assert_eq!(region["provider"], "nsight_systems", "{file}");
    assert_eq!(
        n(&region["kernel_count"]),
        n(&answer["kernels"][0]),
        "{file}"
    );
    assert_eq!(
        i(&region["kernel_duration_ns"]),
        i(&answer["kernels"][1]),
        "{file}"
    );
    assert_eq!(
        n(&region["correlated_kernel_count"]),
        n(&answer["proven_kernels"]),
        "{file}"
    );
    assert_eq!(
        n(&region["coverage"]["ambiguous_correlation_kernel_count"]),
        n(&answer["ambiguous_kernels"]),
        "{file}"
    );
    assert_eq!(
        n(&region["direct_launch_count"]),
        n(&answer["launches"]["direct"]),
        "{file}"
    );
    assert_eq!(
        i(&region["direct_launch_duration_ns"]),
        i(&answer["launches"]["direct_ns"]),
        "{file}"
    );
    assert_eq!(
        n(&region["graph_launch_count"]),
        n(&answer["launches"]["graph"]),
        "{file}"
    );
    assert_eq!(
        n(&region["memory_op_count"]),
        n(&answer["memcpy"][0]) + n(&answer["memset"][0]),
        "{file}"
    );
    assert!(region["coverage"]["disagreement"].is_null(), "{region}");
    answer
}

#[test]
fn trace_launches_counts_and_proves_what_the_sql_referee_does() {
    let Some(exports) = exports() else {
        return;
    };
    for path in &exports {
        launches_agree(path);
    }
}

/// Two processes reusing one another's correlation ids (derived from the
/// real cloverleaf export, as real multi-process exports have them): every
/// kernel proven inside its own process, where a join on correlationId
/// alone gives every kernel two launches.
#[test]
fn trace_launches_proves_a_launch_only_within_its_process() {
    let Some(src) = shared_file("nsys/pipit_perlmutter-cloverleaf-cuda.sqlite") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let two = dir.path().join("two_processes.sqlite");
    derive(&src, &two, &["--processes", "2"]);
    let answer = launches_agree(&two);
    assert_eq!(answer["proven_kernels"], 2 * 1312);
    assert_eq!(answer["naive_join_rows"], 4 * 1312);
    let graph = dir.path().join("graph.sqlite");
    derive(&src, &graph, &["--graph-launch", "10"]);
    let answer = launches_agree(&graph);
    assert_eq!(answer["launches"]["graph"], 1);
}

#[test]
fn select_profile_adds_up_the_exports_device_time() {
    let Some(exports) = exports() else {
        return;
    };
    for path in &exports {
        let r = run(&["select", "profile", "--json", text(path)]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        let profile = &r.json_lines()[0];
        let answer = referee(path);
        let rows = n(&answer["kernels"][0]) + n(&answer["memcpy"][0]) + n(&answer["memset"][0]);
        let ns = i(&answer["kernels"][1]) + i(&answer["memcpy"][1]) + i(&answer["memset"][1]);
        assert_eq!(n(&profile["device_rows"]), rows, "{}", path.display());
        assert_eq!(i(&profile["device_time_ns"]), ns, "{}", path.display());
        assert_eq!(profile["trace"]["provider"], "nsight_systems");
    }
}

#[test]
fn inspect_and_report_read_an_export() {
    let Some(exports) = exports() else {
        return;
    };
    let r = run(&["inspect", text(&exports[1])]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("1312 direct + 0 graph launches, 1312 kernels (1312 with a proven launch)"),
        "{}",
        r.stdout
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    let r = run(&["report", text(&exports[2]), "--out", text(&out)]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("nsight_systems"));
    assert!(html.contains("add_parallel"));
}

#[test]
fn export_says_an_nsight_export_has_no_framework_operators() {
    let Some(exports) = exports() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("view.json");
    let r = run(&[
        "export",
        "--json",
        "--from-profile",
        text(&exports[2]),
        "--from-profile",
        text(&exports[0]),
        "--out",
        text(&out),
    ]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let e = r.json_error();
    assert_eq!(e["code"], "no_operations");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("an Nsight Systems export"), "{message}");
    assert!(message.contains("not framework operators"), "{message}");
    assert!(!out.exists());
}

#[test]
fn a_report_file_and_a_cut_export_are_refused_with_their_codes() {
    let (Some(report), Some(export)) = (
        shared_file("nsys/test-cuda_report1.nsys-rep"),
        shared_file("nsys/test-cuda_report1.sqlite"),
    ) else {
        return;
    };
    for command in [&["trace", "info"][..], &["trace", "launches"]] {
        let mut args = command.to_vec();
        args.extend(["--json", text(&report)]);
        let r = run(&args);
        assert_eq!(r.status, 2, "{command:?}: {}", r.stderr);
        let e = r.json_error();
        assert_eq!(e["code"], "nsight_report", "{command:?}");
        assert!(e["message"]
            .as_str()
            .unwrap()
            .contains("nsys export --type sqlite"));
    }
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.sqlite");
    let bytes = std::fs::read(&export).unwrap();
    std::fs::write(&cut, &bytes[..65_536]).unwrap();
    let r = run(&["trace", "launches", "--json", text(&cut)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "sqlite_corrupt");
    // A limit says which flag raises it.
    let r = run(&[
        "trace",
        "info",
        "--max-encoded-bytes",
        "1KiB",
        text(&export),
    ]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("error[limit_exceeded]"), "{}", r.stderr);
    assert!(r.stderr.contains("--max-encoded-bytes"), "{}", r.stderr);
}

/// A newer schema is refused with the flag that reads it anyway, and read
/// with it.
#[test]
fn unverified_schema_is_a_flag_away() {
    let Some(src) = shared_file("nsys/test-cuda_report1.sqlite") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let newer = dir.path().join("newer.sqlite");
    derive(
        &src,
        &newer,
        &["--set-meta", "EXPORT_SCHEMA_VERSION=3.99.0"],
    );
    let r = run(&["trace", "launches", text(&newer)]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("error[schema_unverified]"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--unverified-schema"), "{}", r.stderr);
    let r = run(&["trace", "launches", "--unverified-schema", text(&newer)]);
    assert_eq!(r.status, 0, "{}", r.stderr);
}
