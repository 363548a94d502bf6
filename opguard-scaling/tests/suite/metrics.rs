//! `inclusive_ns`, `self_ns` and `count` on the same traces, and kernels
//! matched by canonical kernel identity.

use opguard_scaling::{Metric, Unit};
use opguard_testdata::kineto_writer::KinetoTrace;

use crate::support::{cuda_trace, Experiment};

/// `outer` wraps `inner`; `inner` grows with the input, `outer`'s own time
/// (100 ns) does not. `tick` runs once per unit of input, 30 ns in total.
fn nested(i: i64) -> KinetoTrace {
    let epoch = 50_000 * i;
    let th = (10 + i, 10 + i);
    let inner = 10 * (i + 1);
    let mut t = KinetoTrace::new();
    t.cpu_op(th, "outer", epoch, 100 + inner, None);
    t.cpu_op(th, "inner", epoch + 50, inner, None);
    for k in 0..=i {
        t.cpu_op(th, "tick", epoch + 10_000 + 100 * k, 30 / (i + 1), None);
    }
    // On another thread, overlapping `outer` in time: never its child.
    t.cpu_op((10 + i, 99), "other_thread_op", epoch + 10, 7, None);
    t
}

fn experiment() -> Experiment {
    let mut x = Experiment::new();
    for i in 0..3 {
        x.trial(&format!("n{i}"), (i + 1) as f64, "base", &nested(i));
    }
    x
}

fn hot_names(report: &opguard_scaling::ScalingReport) -> Vec<String> {
    let mut v: Vec<String> = report
        .hotspots
        .iter()
        .map(|h| h.series.name.clone())
        .collect();
    v.sort();
    v
}

fn constant_names(report: &opguard_scaling::ScalingReport) -> Vec<String> {
    let mut v: Vec<String> = report
        .not_correlatable
        .iter()
        .map(|h| h.series.name.clone())
        .collect();
    v.sort();
    v
}

#[test]
fn inclusive_time_sees_outer_grow_with_its_child() {
    let report = experiment().run(Some(Metric::InclusiveNs)).expect("run");
    assert_eq!(hot_names(&report), ["inner", "outer"]);
    assert_eq!(constant_names(&report), ["other_thread_op", "tick"]);
    assert!(report
        .hotspots
        .iter()
        .all(|h| h.spearman_rho == 1.0 && h.tested_hypothesis_count == 2));
}

#[test]
fn self_time_subtracts_the_nested_child_so_outer_is_constant() {
    let report = experiment().run(Some(Metric::SelfNs)).expect("run");
    assert_eq!(hot_names(&report), ["inner"]);
    assert_eq!(
        constant_names(&report),
        ["other_thread_op", "outer", "tick"]
    );
    let hot = &report.hotspots[0];
    assert_eq!(
        (hot.series.metric, hot.series.unit),
        (Metric::SelfNs, Unit::Ns)
    );
}

#[test]
fn count_sees_the_operator_that_runs_more_often() {
    let report = experiment().run(Some(Metric::Count)).expect("run");
    assert_eq!(hot_names(&report), ["tick"]);
    let hot = &report.hotspots[0];
    assert_eq!(
        (hot.series.metric, hot.series.unit),
        (Metric::Count, Unit::Count)
    );
    assert_eq!(hot.spearman_rho, 1.0);
}

#[test]
fn the_document_metric_applies_unless_the_caller_overrides_it() {
    let x = experiment();
    let doc = x.document(serde_json::json!({"metric": "count"}));
    let report = opguard_scaling::run_trials_file(&doc, None).expect("run");
    assert_eq!(hot_names(&report), ["tick"]);
    let report = opguard_scaling::run_trials_file(&doc, Some(Metric::SelfNs)).expect("run");
    assert_eq!(hot_names(&report), ["inner"]);
}

/// A kernel launched once per trial with the given name and duration.
fn kernel_trial(i: i64, name: &str, dur: i64) -> KinetoTrace {
    let pid = 300 + i;
    let epoch = 7_000_000 * (i + 1);
    let mut t = cuda_trace(pid, epoch);
    t.launch(
        (pid, pid),
        "cudaLaunchKernel",
        epoch + 20_000,
        3_000,
        epoch + 2,
        Some(epoch + 2),
    )
    .kernel(0, 7, name, epoch + 25_000, dur);
    t
}

#[test]
fn kernels_match_by_canonical_identity_across_traces() {
    let mut x = Experiment::new();
    let name = "void reverse_scan_kernel<float, 128>(float const*, float*, int)";
    for (i, dur) in [10, 20, 30].into_iter().enumerate() {
        x.trial(
            &format!("k{i}"),
            (i + 1) as f64,
            "base",
            &kernel_trial(i as i64, name, dur),
        );
    }
    let report = x.run(None).expect("run");
    assert_eq!(report.hotspots.len(), 1, "{report:#?}");
    assert_eq!(report.hotspots[0].series.category, "kernel");
    assert_eq!(report.hotspots[0].series.name, name);
    assert_eq!(report.hotspots[0].spearman_rho, 1.0);
}

#[test]
fn different_complete_template_arguments_never_match() {
    let mut x = Experiment::new();
    let float = "void reverse_scan_kernel<float, 128>(float const*, float*, int)";
    let double = "void reverse_scan_kernel<double, 128>(double const*, double*, int)";
    x.trial("k0", 1.0, "base", &kernel_trial(0, float, 10));
    x.trial("k1", 2.0, "base", &kernel_trial(1, float, 20));
    x.trial("k2", 3.0, "base", &kernel_trial(2, double, 30));
    let report = x.run(None).expect("run");
    assert!(report.hotspots.is_empty(), "{report:#?}");
    let kernels: Vec<(&str, usize)> = report
        .insufficient
        .iter()
        .filter(|i| i.series.category == "kernel")
        .map(|i| (i.series.name.as_str(), i.independent_trial_count))
        .collect();
    assert_eq!(kernels.len(), 2);
    assert!(kernels.contains(&(float, 2)) && kernels.contains(&(double, 1)));
}
