//! The merge is associative and commutative down to the bytes.

use std::sync::OnceLock;

use opguard_job::{job_from_json, summarize, Job, RankSummary, SummaryOptions};
use proptest::prelude::*;

use crate::real::hta;

/// Real summaries: two ranks of one job, a ROCm trace, a trace without
/// device rows, the same rank file twice, and an unreadable file.
fn summaries() -> &'static [RankSummary] {
    static ALL: OnceLock<Vec<RankSummary>> = OnceLock::new();
    ALL.get_or_init(|| {
        let options = SummaryOptions::new().top(3);
        let names = [
            "trace_filter__sampled_rank-0.json.gz",
            "trace_filter__sampled_rank-1.json.gz",
            "trace_filter__sampled_rank-1.json.gz",
            "amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
            "cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
            "critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
        ];
        let mut v: Vec<RankSummary> = names
            .iter()
            .filter_map(|n| hta(n))
            .map(|p| summarize(p, &options))
            .collect();
        v.push(summarize("/nonexistent/rank-9.json.gz", &options));
        v
    })
}

/// Merges `jobs` as a binary tree whose split points come from `splits`,
/// sending every partial result through its JSON text on the way.
fn tree(jobs: &[Job], splits: &mut impl Iterator<Item = usize>) -> Job {
    match jobs.len() {
        0 => Job::empty(),
        1 => jobs[0].clone(),
        n => {
            let at = 1 + splits.next().unwrap_or(0) % (n - 1);
            let (l, r) = (tree(&jobs[..at], splits), tree(&jobs[at..], splits));
            let l = job_from_json("left", &serde_json::to_string(&l).unwrap()).unwrap();
            if splits.next().unwrap_or(0) % 2 == 0 {
                l.merge(r)
            } else {
                r.merge(l)
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn any_grouping_and_order_gives_the_same_bytes(
        order in Just((0..7usize).collect::<Vec<_>>()).prop_shuffle(),
        splits in proptest::collection::vec(0usize..100, 32),
        empties in proptest::collection::vec(0usize..8, 0..3),
    ) {
        let all = summaries();
        let want = serde_json::to_string(&Job::from_summaries(all.to_vec())).unwrap();
        let mut jobs: Vec<Job> = order
            .iter()
            .filter_map(|&i| all.get(i))
            .cloned()
            .map(Job::from)
            .collect();
        for &at in &empties {
            jobs.insert(at.min(jobs.len()), Job::empty());
        }
        let got = tree(&jobs, &mut splits.into_iter());
        prop_assert_eq!(serde_json::to_string(&got).unwrap(), want);
    }
}
