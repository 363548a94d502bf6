//! `opguard trace launches`: regions per artifact, JSON checked against the
//! library, errors reported per file.

use std::process::Command;

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions};

fn opguard() -> Command {
    Command::new(env!("CARGO_BIN_EXE_opguard"))
}

#[test]
fn json_regions_are_the_library_regions_with_required_keys() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    let files: Vec<_> = traces
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("triton") || n.starts_with("amd") || n.starts_with("trace_file_list")
        })
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    let out = opguard()
        .args(["trace", "launches", "--json", "--stage", "decode"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let regions = doc["regions"].as_array().unwrap();
    assert_eq!(regions.len(), files.len());
    for (r, path) in regions.iter().zip(&files) {
        for key in [
            "artifact",
            "provider",
            "role",
            "stage",
            "clock_domain",
            "kernel_count",
            "correlated_kernel_count",
            "direct_launch_count",
            "graph_launch_count",
            "idle_gap_total_ns",
            "region_duration_ns",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
        assert!(r["coverage"]["correlation_ids_present"].is_boolean());
        assert!(r["coverage"]["host_to_device_correlation_proven"].is_boolean());
        assert_eq!(r["stage"], "decode");
        let model = opguard_formats::read(
            path,
            ArtifactSpec::new(),
            &opguard_formats::ReadOptions::new(ModelOptions::launches_only()),
        )
        .unwrap();
        let lib = launch_region(&model, 10);
        assert_eq!(r["artifact"], lib.artifact.to_hex());
        assert_eq!(r["kernel_count"], lib.kernel_count);
        assert_eq!(r["correlated_kernel_count"], lib.correlated_kernel_count);
        assert_eq!(r["provider"], lib.provider.as_str());
    }
    // The aggregate sums counts and carries no absolute time.
    let total: u64 = regions
        .iter()
        .map(|r| r["kernel_count"].as_u64().unwrap())
        .sum();
    assert_eq!(doc["aggregate"]["kernel_count"], total);
    assert!(doc["aggregate"].get("region_start_ns").is_none());
}

#[test]
fn a_bad_file_is_reported_and_the_others_still_counted() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    let mut t = opguard_testdata::kineto_writer::KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 0, 10, 7, None)
        .kernel(0, 7, "projection_kernel", 20, 5);
    std::fs::write(&good, t.to_bytes().unwrap()).unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, br#"{"traceEvents":[{"ph":"X","ts":NaN}]}"#).unwrap();
    let out = opguard()
        .args(["trace", "launches", "--json"])
        .arg(&bad)
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stderr).lines().next().unwrap()).unwrap();
    assert_eq!(err["error"]["code"], "non_finite_number");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["regions"].as_array().unwrap().len(), 1);
    assert_eq!(doc["regions"][0]["correlated_kernel_count"], 1);
}

#[test]
fn an_unknown_provider_name_is_a_usage_error_and_unknown_claims_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    let mut t = opguard_testdata::kineto_writer::KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 0, 10, 7, None)
        .kernel(0, 7, "projection_kernel", 20, 5);
    std::fs::write(&good, t.to_bytes().unwrap()).unwrap();
    let out = opguard()
        .args(["trace", "launches", "--provider", "nsys"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let out = opguard()
        .args(["trace", "launches", "--json", "--provider", "unknown"])
        .arg(&good)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["regions"][0]["correlated_kernel_count"], 0);
    assert_eq!(
        doc["regions"][0]["coverage"]["correlation_ids_present"],
        true
    );
}

#[test]
fn a_capture_without_device_activity_says_why_it_counts_zero() {
    let trace = opguard_testdata::producer_trace("viztracer.json.gz");
    let out = opguard()
        .args(["trace", "launches", "--json"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let region = &doc["regions"][0];
    assert_eq!(region["provider"], "viztracer");
    assert_eq!(region["kernel_count"], 0);
    assert!(region["note"]
        .as_str()
        .is_some_and(|n| n.starts_with("no device activity")));
    let text = opguard()
        .args(["trace", "launches"])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("no device activity"));
    // A trace with kernels gets no such note.
    let Some(cuda) = opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz")
    else {
        return;
    };
    let out = opguard()
        .args(["trace", "launches", "--json"])
        .arg(&cuda)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["regions"][0].get("note").is_none());
}

/// `--stage FILE=STAGE` gives one file its own stage (as the C ABI's per-artifact
/// `stage` does); a plain `--stage` covers the rest; two stages for one file are
/// a usage error.
#[test]
fn stage_can_be_given_per_file() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    let files: Vec<String> = traces
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("trace_compare__")
        })
        .map(|p| p.to_str().unwrap().to_owned())
        .collect();
    let [base, test] = files.as_slice() else {
        panic!("two trace_compare traces: {files:?}");
    };
    let stages = |stages: &[String]| {
        let mut args = vec!["trace", "launches", "--json"];
        for s in stages {
            args.extend(["--stage", s]);
        }
        args.extend([base.as_str(), test]);
        let r = crate::common::run(&args);
        let stages: Vec<serde_json::Value> = match r.json_lines().first() {
            Some(doc) => doc["regions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["stage"].clone())
                .collect(),
            None => Vec::new(),
        };
        (r.status, stages, r.stderr)
    };
    let (status, got, _) = stages(&[format!("{test}=decode"), "prefill".into()]);
    assert_eq!((status, got), (0, vec!["prefill".into(), "decode".into()]));
    let (status, got, _) = stages(&[format!("{base}=prefill")]);
    assert_eq!(
        (status, got),
        (0, vec!["prefill".into(), serde_json::Value::Null])
    );
    let (status, got, stderr) = stages(&[format!("{base}=prefill"), format!("{base}=decode")]);
    assert_eq!(
        (status, got),
        (64, vec![]),
        "a usage error, nothing printed"
    );
    assert!(stderr.contains("one stage"), "{stderr}");
}
