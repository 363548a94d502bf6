//! End to end on real PyTorch profiler traces: HTA's `trace_compare` base
//! and test runs as trials 1 and 2, and a third trial generated here that
//! mimics their operators at a larger input.

use std::path::{Path, PathBuf};

use opguard_scaling::{run_trials_file, trial_costs, InsufficientReason, Metric, TrialSpec};
use opguard_testdata::kineto_writer::KinetoTrace;
use opguard_trace::TraceReader;
use serde_json::json;

use crate::support::{approx, write_gzip};

const FILL: &str = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
const ELIDED: &str = "void at::native::reduce_kernel<512, 1, ...>(float*)";

/// The generated third trial: the same host process layout as the HTA
/// traces, `aten::zeros` at 75 µs, the FillFunctor kernel at 1 ms, a
/// `ProfilerStep#1011` of 300 ms, and a kernel whose name is elided.
fn third_trial() -> KinetoTrace {
    let host = (2_600_000, 2_600_000);
    let t0 = 1_700_000_000_000_000_000;
    let mut t = KinetoTrace::new();
    t.set_metadata("distributedInfo", &json!({"rank": 1}));
    t.user_annotation(host, "ProfilerStep#1011", t0, 300_000_000, Some(5));
    t.cpu_op(host, "aten::zeros", t0 + 1_000, 75_000, Some(6));
    t.launch(host, "cudaLaunchKernel", t0 + 100_000, 5_000, 77, Some(78))
        .kernel(1, 7, FILL, t0 + 120_000, 1_000_000);
    t.launch(
        host,
        "cudaLaunchKernel",
        t0 + 2_000_000,
        5_000,
        79,
        Some(80),
    )
    .kernel(1, 7, ELIDED, t0 + 2_100_000, 40_000);
    t
}

/// Sum of `dur` (ns) over events with this name and category, read with the
/// bare event reader: an independent check of the per-trial totals.
fn raw_total(path: &Path, name_prefix: &str, cat: &str) -> i64 {
    let mut reader = TraceReader::open(path).expect("open");
    let mut total = 0;
    while let Some(e) = reader.next_event().expect("event") {
        let name = e
            .name()
            .map(|n| n.as_cow().into_owned())
            .unwrap_or_default();
        let category = e.cat().map(|c| c.as_cow().into_owned()).unwrap_or_default();
        if e.ph().is_some_and(|p| p == "X") && name.starts_with(name_prefix) && category == cat {
            total += e.dur_ns().expect("dur").unwrap_or(0);
        }
    }
    total
}

struct Setup {
    _dir: tempfile::TempDir,
    trials: PathBuf,
    traces: [PathBuf; 3],
}

fn setup() -> Option<Setup> {
    let base = opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz")?;
    let test = opguard_testdata::shared_file("traces/hta/trace_compare__test__test.json.gz")?;
    let dir = tempfile::tempdir().expect("temp dir");
    let third = dir.path().join("third.json.gz");
    write_gzip(&third, &third_trial());
    let doc = json!({
        "format": "opguard.scaling/trials-v1",
        "metric": "inclusive_ns",
        "trials": [
            {"id": "base", "input": 1, "variant": "hta", "traces": [base]},
            {"id": "test", "input": 2, "variant": "hta", "traces": [test]},
            {"id": "generated", "input": 3, "variant": "hta", "traces": ["third.json.gz"]},
        ]
    });
    let trials = dir.path().join("trials.json");
    std::fs::write(&trials, serde_json::to_vec(&doc).expect("json")).expect("write");
    Some(Setup {
        _dir: dir,
        trials,
        traces: [base, test, third],
    })
}

#[test]
fn per_trial_totals_equal_an_independent_sum_of_the_raw_events() {
    let Some(s) = setup() else { return };
    let opts = opguard_formats::ReadOptions::default();
    for (i, path) in s.traces.iter().enumerate() {
        let spec = TrialSpec::new(format!("t{i}"), i as f64, "hta", vec![path.clone()]);
        let costs = trial_costs(&spec, Metric::InclusiveNs, &opts).expect("costs");
        for (name, prefix, cat) in [
            ("aten::zeros", "aten::zeros", "cpu_op"),
            ("ProfilerStep#N", "ProfilerStep#", "user_annotation"),
            (FILL, FILL, "kernel"),
        ] {
            let frame = costs
                .frames
                .iter()
                .find(|f| f.name == name && f.category == cat);
            let raw = raw_total(path, prefix, cat);
            assert!(raw > 0, "{name} missing from {}", path.display());
            assert_eq!(
                frame.map(|f| f.value),
                Some(raw),
                "{name} in {}",
                path.display()
            );
        }
    }
}

#[test]
fn real_traces_correlate_end_to_end() {
    let Some(s) = setup() else { return };
    let report = run_trials_file(&s.trials, None).expect("run");

    // Four frames are in all three trials; their semantic ids matched across
    // two real captures and one generated file.
    let mut hot: Vec<(&str, &str)> = report
        .hotspots
        .iter()
        .map(|h| (h.series.name.as_str(), h.series.category.as_str()))
        .collect();
    hot.sort();
    assert_eq!(
        hot,
        vec![
            ("ProfilerStep#N", "user_annotation"),
            ("aten::zeros", "cpu_op"),
            ("cudaLaunchKernel", "cuda_runtime"),
            (FILL, "kernel"),
        ]
    );
    // aten::zeros: 25 µs, 25 µs, 75 µs at inputs 1, 2, 3 — scipy's
    // `ties_in_cost` row: rho 0.8660254037844387, p 0.33333333333333326.
    let zeros = report
        .hotspots
        .iter()
        .find(|h| h.series.name == "aten::zeros")
        .expect("zeros");
    assert!(
        approx(zeros.spearman_rho, 0.8660254037844387, 1e-12),
        "{}",
        zeros.spearman_rho
    );
    assert!(
        approx(zeros.p_value, 0.33333333333333326, 1e-12),
        "{}",
        zeros.p_value
    );
    assert_eq!(zeros.independent_trial_count, 3);
    assert_eq!((zeros.supported_min, zeros.supported_max), (1.0, 3.0));
    // Two launches per trial: 4 + 4 µs, 4 + 4 µs, 5 + 5 µs.
    let launch = report
        .hotspots
        .iter()
        .find(|h| h.series.name == "cudaLaunchKernel")
        .expect("launch");
    assert!(
        approx(launch.spearman_rho, 0.8660254037844387, 1e-12),
        "{}",
        launch.spearman_rho
    );
    // Four hypotheses with p = 1/3 each: BH leaves them at 1/3.
    for h in &report.hotspots {
        assert_eq!(h.tested_hypothesis_count, 4);
        assert!(approx(h.adjusted_p_value, h.p_value, 1e-12));
    }

    // Operators only the `test` run has: one trial, reported.
    let all2all = report
        .insufficient
        .iter()
        .find(|i| i.series.name == "All2All_Pooled_Req")
        .expect("All2All_Pooled_Req reported");
    assert_eq!(all2all.reason, InsufficientReason::FewerThan3Samples);
    assert_eq!(all2all.trial_ids, ["test"]);
    // Operators of both real runs but not the generated one: two trials.
    let empty = report
        .insufficient
        .iter()
        .find(|i| i.series.name == "aten::empty")
        .expect("aten::empty");
    assert_eq!(empty.trial_ids, ["base", "test"]);

    // The elided kernel name is unmatched coverage of the generated trial.
    assert_eq!(report.unmatched.len(), 1, "{:#?}", report.unmatched);
    assert_eq!(report.unmatched[0].name, ELIDED);
    assert_eq!(
        (
            report.unmatched[0].trial_id.as_str(),
            report.unmatched[0].value
        ),
        ("generated", 40_000)
    );
}
