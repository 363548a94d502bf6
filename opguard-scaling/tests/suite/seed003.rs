//! Seed 003's deterministic proof, on real files: the same operator at 10,
//! 20 and 30 ns in three separately written traces for inputs 1, 2 and 3.

use opguard_model::{ArtifactSpec, ModelOptions};
use opguard_scaling::{
    trial_costs, InsufficientReason, Metric, NotCorrelatableReason, TrialSpec, Unit,
};
use opguard_testdata::kineto_writer::KinetoTrace;

use crate::support::Experiment;

/// Trial `i` (0-based) of the seed's experiment. The traces differ in pid,
/// timestamps and event order, as independent captures do, so their
/// artifacts and occurrence ids all differ.
fn seed_trace(i: i64, reverse_scan_ns: i64, with_partner: bool) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    let thread = (4000 + 17 * i, 4000 + 17 * i);
    let epoch = 1_700_000_000_000 + 9_000_000 * i;
    t.process_name(thread.0, "python");
    // Different numbers of unrelated events before it: different indices.
    for k in 0..i {
        t.cpu_op(thread, "aten::empty", epoch + k * 10, 2, Some(100 + k));
    }
    t.cpu_op(
        thread,
        "reverse_scan",
        epoch + 1_000,
        reverse_scan_ns,
        Some(7 + i),
    );
    // Beside it: an operator whose cost does not change.
    t.cpu_op(thread, "aten::copy_", epoch + 2_000, 400, Some(8 + i));
    if with_partner {
        t.cpu_op(
            thread,
            "aten::cumsum",
            epoch + 3_000,
            50 * (i + 1),
            Some(9 + i),
        );
    }
    t
}

/// The seed's three trials, added in `order` (indices into 1→10, 2→20,
/// 3→30). `aten::cumsum` is only in the first two trials.
fn seed_experiment_in(order: &[usize]) -> Experiment {
    let mut x = Experiment::new();
    for &i in order {
        let (input, ns) = [(1.0, 10), (2.0, 20), (3.0, 30)][i];
        let i = i as i64;
        x.trial(
            &format!("t{}", i + 1),
            input,
            "base",
            &seed_trace(i, ns, i < 2),
        );
    }
    x
}

fn seed_experiment() -> Experiment {
    seed_experiment_in(&[0, 1, 2])
}

#[test]
fn same_operator_in_three_separate_traces_is_one_hotspot_with_rho_one() {
    let x = seed_experiment();
    let report = x.run(None).expect("scaling run");

    assert_eq!(report.hotspots.len(), 1, "{report:#?}");
    let hot = &report.hotspots[0];
    assert_eq!(hot.series.name, "reverse_scan");
    assert_eq!(hot.series.category, "cpu_op");
    assert_eq!(hot.series.variant, "base");
    assert_eq!(
        (hot.series.metric, hot.series.unit),
        (Metric::InclusiveNs, Unit::Ns)
    );
    assert_eq!(hot.spearman_rho, 1.0);
    assert_eq!(hot.p_value, 0.0);
    assert_eq!(hot.adjusted_p_value, 0.0);
    assert_eq!(hot.tested_hypothesis_count, 1);
    assert_eq!(hot.independent_trial_count, 3);
    assert_eq!((hot.supported_min, hot.supported_max), (1.0, 3.0));
    assert!(hot.series.semantic_frame_id.starts_with("sf3:"));
    assert!(report.unmatched.is_empty());
}

#[test]
fn the_constant_operator_is_not_correlatable_and_the_two_trial_operator_is_insufficient() {
    let report = seed_experiment().run(None).expect("scaling run");

    let names = |v: Vec<&str>| v.join(",");
    // aten::copy_ costs 400 ns everywhere: no rho at all, never rho 0.
    assert_eq!(
        names(
            report
                .not_correlatable
                .iter()
                .map(|n| n.series.name.as_str())
                .collect()
        ),
        "aten::copy_"
    );
    let constant = &report.not_correlatable[0];
    assert_eq!(constant.reason, NotCorrelatableReason::ConstantSeries);
    assert_eq!(constant.independent_trial_count, 3);
    assert_eq!(constant.trial_ids, ["t1", "t2", "t3"]);

    // aten::cumsum is in two trials; aten::empty in trials 2 and 3 (one and
    // two copies): both reported, neither dropped.
    let mut insufficient: Vec<(&str, usize, &[String])> = report
        .insufficient
        .iter()
        .map(|i| {
            assert_eq!(i.reason, InsufficientReason::FewerThan3Samples);
            (
                i.series.name.as_str(),
                i.independent_trial_count,
                i.trial_ids.as_slice(),
            )
        })
        .collect();
    insufficient.sort();
    assert_eq!(
        insufficient,
        vec![
            ("aten::cumsum", 2, &["t1".to_owned(), "t2".to_owned()][..]),
            ("aten::empty", 2, &["t2".to_owned(), "t3".to_owned()][..]),
        ]
    );
    let cumsum = report
        .insufficient
        .iter()
        .find(|i| i.series.name == "aten::cumsum");
    assert_eq!(
        cumsum.map(|c| (c.supported_min, c.supported_max)),
        Some((1.0, 2.0))
    );
}

#[test]
fn one_semantic_frame_three_artifacts_three_occurrences() {
    // What the audited system got wrong: each artifact's own frame id. Here
    // the occurrences differ in artifact and index, the semantic id does not.
    let x = seed_experiment();
    let mut semantic = Vec::new();
    let mut occurrences = Vec::new();
    for id in ["t1", "t2", "t3"] {
        let path = x.path(&format!("{id}.json.gz"));
        let model = opguard_formats::read(
            &path,
            ArtifactSpec::new(),
            &opguard_formats::ReadOptions::new(ModelOptions::new()),
        )
        .expect("read");
        let slice = model
            .slices()
            .iter()
            .find(|s| model.name(s.name) == "reverse_scan")
            .expect("reverse_scan present");
        semantic.push(model.semantic_frame(slice).id.expect("complete identity"));
        occurrences.push(model.occurrence(slice));
    }
    assert!(semantic.iter().all(|s| *s == semantic[0]));
    assert_ne!(occurrences[0].artifact, occurrences[1].artifact);
    assert_ne!(occurrences[1].artifact, occurrences[2].artifact);
    assert_ne!(occurrences[0].index, occurrences[2].index);

    // And the per-trial totals carry the semantic id, no occurrence.
    let spec = TrialSpec::new("t3", 3.0, "base", vec![x.path("t3.json.gz")]);
    let costs = trial_costs(
        &spec,
        Metric::InclusiveNs,
        &opguard_formats::ReadOptions::default(),
    )
    .expect("costs");
    let frame = costs
        .frames
        .iter()
        .find(|f| f.name == "reverse_scan")
        .expect("frame");
    assert_eq!(frame.semantic_frame_id, semantic[0].as_str());
    assert_eq!((frame.value, frame.occurrences), (30, 1));
}

#[test]
fn the_result_does_not_depend_on_trial_order_and_is_deterministic() {
    let x = seed_experiment();
    let first = serde_json::to_string(&x.run(None).expect("run")).expect("json");
    let again = serde_json::to_string(&x.run(None).expect("run")).expect("json");
    assert_eq!(first, again);

    let reversed = seed_experiment_in(&[2, 1, 0]);
    let other = serde_json::to_string(&reversed.run(None).expect("run")).expect("json");
    // Unmatched coverage is per trial in document order; here it is empty,
    // so the whole report must be identical.
    assert_eq!(first, other);
}

#[test]
fn variants_are_separate_series() {
    // Three trials, but split over two variants: no series reaches three.
    let mut x = Experiment::new();
    x.trial("a1", 1.0, "eager", &seed_trace(0, 10, false));
    x.trial("a2", 2.0, "eager", &seed_trace(1, 20, false));
    x.trial("b3", 3.0, "compiled", &seed_trace(2, 30, false));
    let report = x.run(None).expect("run");
    assert!(report.hotspots.is_empty(), "{report:#?}");
    let scan: Vec<(&str, usize)> = report
        .insufficient
        .iter()
        .filter(|i| i.series.name == "reverse_scan")
        .map(|i| (i.series.variant.as_str(), i.independent_trial_count))
        .collect();
    assert_eq!(scan, vec![("compiled", 1), ("eager", 2)]);
}

#[test]
fn repeated_inputs_are_samples_but_one_input_value_is_not_a_range() {
    let mut x = Experiment::new();
    for (i, ns) in [10, 20, 30].into_iter().enumerate() {
        x.trial(
            &format!("r{i}"),
            8.0,
            "base",
            &seed_trace(i as i64, ns, false),
        );
    }
    let report = x.run(None).expect("run");
    assert!(report.hotspots.is_empty());
    let scan = report
        .insufficient
        .iter()
        .find(|i| i.series.name == "reverse_scan")
        .expect("reported");
    assert_eq!(scan.reason, InsufficientReason::FewerThan2DistinctInputs);
    assert_eq!(
        (scan.independent_trial_count, scan.distinct_input_count),
        (3, 1)
    );
}

#[test]
fn the_json_report_has_the_contract_keys() {
    let report = seed_experiment().run(None).expect("run");
    let json = serde_json::to_value(&report).expect("json");
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&json),
        ["hotspots", "insufficient", "not_correlatable", "unmatched"]
    );
    let mut want = vec![
        // The keys the command line contract names ...
        "semantic_frame_id",
        "name",
        "metric",
        "unit",
        "spearman_rho",
        "p_value",
        "adjusted_p_value",
        "tested_hypothesis_count",
        "multiplicity_method",
        "independent_trial_count",
        "supported_min",
        "supported_max",
        // ... and what tells two series of one frame apart.
        "variant",
        "category",
        "file",
        "line",
        "build_id",
        "source_state",
    ];
    want.sort();
    assert_eq!(keys(&json["hotspots"][0]), want);
    assert_eq!(json["hotspots"][0]["spearman_rho"], 1.0);
    assert_eq!(
        json["hotspots"][0]["multiplicity_method"],
        "benjamini-hochberg-fdr"
    );
    assert_eq!(json["insufficient"][0]["reason"], "fewer_than_3_samples");
    assert_eq!(json["not_correlatable"][0]["reason"], "constant_series");
    // Round trip through the serde types.
    let back: opguard_scaling::ScalingReport = serde_json::from_value(json).expect("deserialize");
    assert_eq!(back, report);
}
