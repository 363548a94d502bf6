//! The language-neutral fixtures in `fixtures/scaling/`: the traces are what
//! the generator below writes (byte for byte), and every case of
//! `cases.json` gives its expected report or error code.
//!
//! To regenerate after an intended change: `OPGUARD_BLESS=1 cargo test -p
//! opguard-scaling --test integration fixtures`, then review the diff.

use std::path::PathBuf;

use opguard_scaling::{run_trials_file, Metric};
use opguard_testdata::fixture::read_json;
use opguard_testdata::kineto_writer::KinetoTrace;
use opguard_testdata::{fixtures_dir, load_fixture};
use serde_json::Value;

fn dir() -> PathBuf {
    fixtures_dir().join("scaling")
}

fn bless() -> bool {
    std::env::var("OPGUARD_BLESS").as_deref() == Ok("1")
}

/// Trial `i` of the seed-003 fixture: `reverse_scan` at 10/20/30 ns, a
/// constant `aten::copy_`, `aten::cumsum` only in trials 1 and 2, and a
/// kernel whose template arguments are elided (unmatched coverage).
fn fixture_trace(i: i64) -> KinetoTrace {
    let pid = 4100 + i;
    let host = (pid, pid);
    let epoch = 1_000_000 * (i + 1);
    let mut t = KinetoTrace::new();
    t.process_name(pid, "python");
    t.cpu_op(host, "reverse_scan", epoch, 10 * (i + 1), Some(1));
    t.cpu_op(host, "aten::copy_", epoch + 1_000, 400, Some(2));
    if i < 2 {
        t.cpu_op(host, "aten::cumsum", epoch + 2_000, 50 * (i + 1), Some(3));
    }
    t.launch(
        host,
        "cudaLaunchKernel",
        epoch + 3_000,
        2_000,
        epoch + 4,
        Some(4),
    )
    .kernel(
        0,
        7,
        "void segmented_scan<128, ...>(float*)",
        epoch + 6_000,
        100 * (i + 1),
    );
    t
}

fn generated() -> Vec<(PathBuf, Vec<u8>)> {
    (0..3)
        .map(|i| {
            let path = dir().join(format!("seed003/t{}.json.gz", i + 1));
            (path, fixture_trace(i).to_gzip().expect("gzip"))
        })
        .collect()
}

fn bless_traces() {
    if bless() {
        // Both tests bless; write only what changed, atomically, so the
        // other never reads a half-written file.
        for (path, bytes) in generated() {
            if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
                let tmp = path.with_extension(format!("tmp{}", std::process::id()));
                std::fs::write(&tmp, &bytes).expect("bless trace");
                std::fs::rename(&tmp, &path).expect("bless trace");
            }
        }
    }
}

#[test]
fn fixture_traces_are_what_the_generator_writes() {
    bless_traces();
    for (path, bytes) in generated() {
        let on_disk = std::fs::read(&path).expect("fixture trace");
        assert!(
            on_disk == bytes,
            "{} differs from the generator",
            path.display()
        );
    }
}

#[test]
fn every_fixture_case_gives_its_expected_result() {
    bless_traces();
    let cases = load_fixture("scaling/cases.json", "opguard.scaling.fixture", 2);
    for case in cases["cases"].as_array().expect("cases array") {
        let id = case["id"].as_str().expect("id");
        assert!(
            case["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{id}"
        );
        let metric = case["metric"]
            .as_str()
            .map(|m| m.parse::<Metric>().expect("metric"));
        let result = run_trials_file(dir().join(case["trials"].as_str().expect("trials")), metric);
        match (&case["expect"]["report"], &case["expect"]["error"]) {
            (Value::String(file), Value::Null) => {
                let report = result.unwrap_or_else(|e| panic!("{id}: {e}"));
                let got = serde_json::to_value(&report).expect("json");
                let path = dir().join(file);
                if bless() {
                    let mut text = serde_json::to_string_pretty(&got).expect("json");
                    text.push('\n');
                    std::fs::write(&path, text).expect("bless report");
                }
                let want = read_json(&path);
                assert_eq!(got, want, "{id}");
            }
            (Value::Null, Value::String(code)) => {
                let err = result
                    .err()
                    .unwrap_or_else(|| panic!("{id}: expected {code}"));
                assert_eq!(err.code(), code, "{id}: {err}");
            }
            other => panic!("{id}: expect needs a report or an error, got {other:?}"),
        }
    }
}
