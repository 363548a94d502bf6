//! Stable error codes: mixing units or metrics is an error, not a pooled
//! result; unreadable inputs and reused traces are refused.

use opguard_scaling::{correlate, run_trials_file, trial_costs, Metric, TrialSpec};
use opguard_testdata::kineto_writer::KinetoTrace;
use serde_json::json;

use crate::support::{write_gzip, Experiment};

fn small(i: i64) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    t.cpu_op((i, i), "reverse_scan", 100 * i, 10 * (i + 1), None);
    t
}

fn three() -> Experiment {
    let mut x = Experiment::new();
    for i in 0..3 {
        x.trial(&format!("t{i}"), (i + 1) as f64, "base", &small(i));
    }
    x
}

#[test]
fn a_trial_declaring_another_unit_is_mixed_units() {
    let mut x = three();
    x.with("unit", json!("count"));
    let err = x.run(None).expect_err("mixed");
    assert_eq!(err.code(), "mixed_units");
    assert!(err.to_string().contains("trials[2].unit"), "{err}");
}

#[test]
fn a_document_unit_that_is_not_the_metric_unit_is_mixed_units() {
    let x = three();
    let doc = x.document(json!({"metric": "self_ns", "unit": "count"}));
    assert_eq!(
        run_trials_file(&doc, None).expect_err("mixed").code(),
        "mixed_units"
    );
}

#[test]
fn a_trial_declaring_another_metric_is_mixed_metrics() {
    let mut x = three();
    x.with("metric", json!("count"));
    assert_eq!(
        x.run(Some(Metric::InclusiveNs)).expect_err("mixed").code(),
        "mixed_metrics"
    );
}

#[test]
fn costs_of_different_metrics_are_never_pooled() {
    let x = three();
    let spec = |i: usize| {
        TrialSpec::new(
            format!("t{i}"),
            (i + 1) as f64,
            "base",
            vec![x.path(&format!("t{i}.json.gz"))],
        )
    };
    let opts = opguard_formats::ReadOptions::default();
    let costs = vec![
        trial_costs(&spec(0), Metric::InclusiveNs, &opts).expect("costs"),
        trial_costs(&spec(1), Metric::InclusiveNs, &opts).expect("costs"),
        trial_costs(&spec(2), Metric::Count, &opts).expect("costs"),
    ];
    assert_eq!(
        correlate(&costs).expect_err("mixed").code(),
        "mixed_metrics"
    );
    let same: Vec<_> = costs.into_iter().take(2).collect();
    assert!(correlate(&same).is_ok());
}

#[test]
fn a_missing_or_corrupt_trace_is_trace_unreadable() {
    let mut x = three();
    x.raw_trial(
        json!({"id": "gone", "input": 4, "variant": "base", "traces": ["missing.json.gz"]}),
    );
    let err = x.run(None).expect_err("missing");
    assert_eq!(err.code(), "trace_unreadable");
    assert!(err.to_string().contains("missing.json.gz"), "{err}");

    let mut x = three();
    let mut bytes = small(9).to_gzip().expect("gzip");
    bytes.truncate(bytes.len() / 2);
    std::fs::write(x.path("cut.json.gz"), bytes).expect("write");
    x.raw_trial(json!({"id": "cut", "input": 4, "variant": "base", "traces": ["cut.json.gz"]}));
    assert_eq!(
        x.run(None).expect_err("truncated").code(),
        "trace_unreadable"
    );
}

#[test]
fn one_trace_in_two_trials_is_not_two_independent_trials() {
    let mut x = three();
    x.raw_trial(json!({"id": "copy", "input": 4, "variant": "base", "traces": ["t0.json.gz"]}));
    let err = x.run(None).expect_err("reused");
    assert_eq!(err.code(), "artifact_reused");
    assert!(
        err.to_string().contains("\"t0\"") && err.to_string().contains("\"copy\""),
        "{err}"
    );

    // The same bytes under another name are the same artifact.
    let mut x = three();
    write_gzip(&x.path("renamed.json.gz"), &small(0));
    x.raw_trial(
        json!({"id": "copy", "input": 4, "variant": "base", "traces": ["renamed.json.gz"]}),
    );
    assert_eq!(x.run(None).expect_err("reused").code(), "artifact_reused");

    // Twice inside one trial would double its cost.
    let mut x = Experiment::new();
    write_gzip(&x.path("a.json.gz"), &small(0));
    x.raw_trial(
        json!({"id": "twice", "input": 1, "variant": "base", "traces": ["a.json.gz", "a.json.gz"]}),
    );
    assert_eq!(x.run(None).expect_err("reused").code(), "artifact_reused");
}

#[test]
fn unreadable_and_invalid_documents_have_their_codes() {
    let x = Experiment::new();
    let err = run_trials_file(x.path("absent.json"), None).expect_err("absent");
    assert_eq!(err.code(), "io");
    std::fs::write(
        x.path("bad.json"),
        br#"{"trials": [{"id": "a", "input": 1}]}"#,
    )
    .expect("write");
    let err = run_trials_file(x.path("bad.json"), None).expect_err("invalid");
    assert_eq!(err.code(), "missing_field");
    assert!(err.to_string().contains("trials[0].variant"), "{err}");
}
