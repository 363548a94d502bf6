//! Different build ids or source states never match accidentally.

use opguard_testdata::kineto_writer::KinetoTrace;
use serde_json::json;

use crate::support::Experiment;

fn trace(i: i64, cost: i64, metadata: &[(&str, &str)]) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    for (k, v) in metadata {
        t.set_metadata(k, &json!(v));
    }
    let th = (50 + i, 50 + i);
    t.cpu_op(th, "reverse_scan", 1_000 * i, cost, None);
    t
}

fn names_and_builds(report: &opguard_scaling::ScalingReport) -> Vec<(Option<String>, usize)> {
    let mut v: Vec<_> = report
        .insufficient
        .iter()
        .map(|i| (i.series.build_id.clone(), i.independent_trial_count))
        .collect();
    v.sort();
    v
}

#[test]
fn the_same_build_id_in_every_trace_matches_and_is_reported() {
    let mut x = Experiment::new();
    for (i, cost) in [10, 20, 30].into_iter().enumerate() {
        x.trial(
            &format!("b{i}"),
            (i + 1) as f64,
            "base",
            &trace(i as i64, cost, &[("build_id", "A")]),
        );
    }
    let report = x.run(None).expect("run");
    assert_eq!(report.hotspots.len(), 1);
    assert_eq!(report.hotspots[0].series.build_id.as_deref(), Some("A"));
    assert_eq!(report.hotspots[0].spearman_rho, 1.0);
}

#[test]
fn different_build_ids_carried_by_traces_never_match() {
    let mut x = Experiment::new();
    x.trial("b0", 1.0, "base", &trace(0, 10, &[("build_id", "A")]));
    x.trial("b1", 2.0, "base", &trace(1, 20, &[("build_id", "A")]));
    x.trial("b2", 3.0, "base", &trace(2, 30, &[("build_id", "B")]));
    let report = x.run(None).expect("run");
    assert!(report.hotspots.is_empty(), "{report:#?}");
    assert_eq!(
        names_and_builds(&report),
        vec![(Some("A".into()), 2), (Some("B".into()), 1)]
    );
}

#[test]
fn a_stated_build_id_never_matches_an_unstated_one() {
    let mut x = Experiment::new();
    x.trial("b0", 1.0, "base", &trace(0, 10, &[("build_id", "A")]));
    x.trial("b1", 2.0, "base", &trace(1, 20, &[("build_id", "A")]));
    x.trial("b2", 3.0, "base", &trace(2, 30, &[]));
    let report = x.run(None).expect("run");
    assert!(report.hotspots.is_empty());
    assert_eq!(
        names_and_builds(&report),
        vec![(None, 1), (Some("A".into()), 2)]
    );
}

#[test]
fn source_states_declared_in_the_document_split_series() {
    let mut x = Experiment::new();
    x.trial("s0", 1.0, "base", &trace(0, 10, &[]))
        .with("source_state", json!("git:aaaa"));
    x.trial("s1", 2.0, "base", &trace(1, 20, &[]))
        .with("source_state", json!("git:aaaa"));
    x.trial("s2", 3.0, "base", &trace(2, 30, &[]))
        .with("source_state", json!("git:bbbb"));
    let report = x.run(None).expect("run");
    assert!(report.hotspots.is_empty());
    let mut states: Vec<_> = report
        .insufficient
        .iter()
        .map(|i| (i.series.source_state.clone(), i.independent_trial_count))
        .collect();
    states.sort();
    assert_eq!(
        states,
        vec![(Some("git:aaaa".into()), 2), (Some("git:bbbb".into()), 1)]
    );
}

#[test]
fn a_trace_contradicting_its_trial_is_an_error() {
    let mut x = Experiment::new();
    x.trial(
        "c0",
        1.0,
        "base",
        &trace(0, 10, &[("source_state", "git:bbbb")]),
    )
    .with("source_state", json!("git:aaaa"));
    let err = x.run(None).expect_err("conflict");
    assert_eq!(err.code(), "source_state_conflict");
    let text = err.to_string();
    assert!(
        text.contains("git:aaaa") && text.contains("git:bbbb"),
        "{text}"
    );
}

#[test]
fn two_traces_of_one_trial_with_different_build_ids_are_an_error() {
    let x = Experiment::new();
    crate::support::write_gzip(&x.path("a.json.gz"), &trace(0, 10, &[("build_id", "A")]));
    crate::support::write_gzip(&x.path("b.json.gz"), &trace(1, 10, &[("build_id", "B")]));
    let mut x = x;
    x.raw_trial(
        json!({"id": "two", "input": 1, "variant": "v", "traces": ["a.json.gz", "b.json.gz"]}),
    );
    assert_eq!(
        x.run(None).expect_err("conflict").code(),
        "source_state_conflict"
    );
}
