//! Frames whose identity is partial are listed, never merged, never dropped:
//! "no correlated hotspot" and "identity prevented matching" look different.

use opguard_testdata::kineto_writer::KinetoTrace;

use crate::support::{cuda_trace, Experiment};

const ELIDED: &str = "void gemm_kernel<128, ...>(float const*, float*)";
const DEGENERATE: &str = "void k<4>(float*)";

/// Everything that scales here has a partial identity: an elided template
/// kernel, a degenerate kernel name, and a host op without a name.
fn partial_trial(i: i64, cost: i64) -> KinetoTrace {
    let pid = 900 + i;
    let epoch = 3_000_000 * (i + 1);
    let mut t = cuda_trace(pid, epoch);
    t.launch(
        (pid, pid),
        "cudaLaunchKernel",
        epoch + 10_000,
        1_000,
        epoch + 2,
        None,
    )
    .kernel(0, 7, ELIDED, epoch + 12_000, cost);
    t.launch(
        (pid, pid),
        "cudaLaunchKernel",
        epoch + 20_000,
        1_000,
        epoch + 3,
        None,
    )
    .kernel(0, 7, DEGENERATE, epoch + 22_000, 2 * cost);
    t.cpu_op((pid, pid), "", epoch + 30_000, 3 * cost, None);
    t
}

#[test]
fn partial_identities_are_listed_per_trial_with_their_cost() {
    let mut x = Experiment::new();
    for (i, cost) in [10, 20, 30].into_iter().enumerate() {
        x.trial(
            &format!("p{i}"),
            (i + 1) as f64,
            "base",
            &partial_trial(i as i64, cost),
        );
    }
    let report = x.run(None).expect("run");

    // Nothing scaling was matchable: no hotspot ...
    assert!(report.hotspots.is_empty(), "{report:#?}");
    // ... and the report says why, with the cost that was kept out.
    assert_eq!(report.unmatched.len(), 9, "{:#?}", report.unmatched);
    for (i, cost) in [10i64, 20, 30].into_iter().enumerate() {
        let trial = format!("p{i}");
        let rows: Vec<_> = report
            .unmatched
            .iter()
            .filter(|u| u.trial_id == trial)
            .collect();
        let find = |name: &str| rows.iter().find(|u| u.name == name).copied();
        let elided = find(ELIDED).expect("elided kernel listed");
        assert_eq!((elided.value, elided.occurrence_count), (cost, 1));
        assert!(elided.reason.contains("elided"), "{}", elided.reason);
        let degenerate = find(DEGENERATE).expect("degenerate kernel listed");
        assert_eq!(degenerate.value, 2 * cost);
        assert!(
            degenerate.reason.contains("base identifier"),
            "{}",
            degenerate.reason
        );
        let nameless = find("").expect("nameless op listed");
        assert_eq!(
            (nameless.value, nameless.category.as_str()),
            (3 * cost, "cpu_op")
        );
        assert!(nameless.reason.contains("no name"), "{}", nameless.reason);
        assert!(rows
            .iter()
            .all(|u| u.input == (i + 1) as f64 && u.variant == "base"));
        // The pointer is artifact-local: `<sha256>:<index>`.
        assert!(rows.iter().all(|u| u.first_occurrence.len() > 65));
    }
    // The matchable frames around them are still reported.
    assert!(report
        .not_correlatable
        .iter()
        .any(|n| n.series.name == "void warmup_kernel<float>(float*)"));
}

#[test]
fn two_elided_kernels_are_not_merged_with_each_other() {
    let mut t = cuda_trace(1, 0);
    t.launch((1, 1), "cudaLaunchKernel", 10_000, 100, 2, None)
        .kernel(0, 7, ELIDED, 11_000, 10);
    t.launch((1, 1), "cudaLaunchKernel", 20_000, 100, 3, None)
        .kernel(
            0,
            7,
            "void gemm_kernel<256, ...>(float const*, float*)",
            21_000,
            10,
        );
    let mut x = Experiment::new();
    x.trial("only", 1.0, "base", &t);
    let report = x.run(None).expect("run");
    let names: Vec<&str> = report.unmatched.iter().map(|u| u.name.as_str()).collect();
    assert!(
        names.contains(&ELIDED)
            && names.contains(&"void gemm_kernel<256, ...>(float const*, float*)")
    );
}
