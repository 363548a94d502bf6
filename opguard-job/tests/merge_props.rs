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
                l.merge(r).unwrap()
            } else {
                r.merge(l).unwrap()
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
        let want = serde_json::to_string(&Job::from_summaries(all.to_vec()).unwrap()).unwrap();
        let mut jobs: Vec<Job> = order
            .iter()
            .filter_map(|&i| all.get(i))
            .cloned()
            .map(|s| Job::try_from(s).unwrap())
            .collect();
        for &at in &empties {
            jobs.insert(at.min(jobs.len()), Job::empty());
        }
        let got = tree(&jobs, &mut splits.into_iter());
        prop_assert_eq!(serde_json::to_string(&got).unwrap(), want);
    }
}

/// How a forged copy of a real summary lies about one of its frames.
#[derive(Debug, Clone, Copy)]
enum Lie {
    /// Its category with the last letter changed (`cpu_op` → `cpu_ot`, the
    /// change the fuzzer found).
    Category,
    /// A kernel identity it does not have, or none where it has one.
    KernelIdentity,
}

/// A copy of `summary` as another rank (rank 1000, `forged.json`) whose frame
/// `at` keeps its id but lies about what it is; returns the id.
fn forge(summary: &RankSummary, at: usize, lie: Lie) -> (RankSummary, String) {
    let mut forged = summary.clone();
    forged.rank.rank = Some(1000);
    forged.rank.file = "forged.json".into();
    let frame = &mut forged.frames[at];
    match lie {
        Lie::Category => {
            let last = frame.category.pop().unwrap_or('x');
            frame.category.push(if last == 't' { 'u' } else { 't' });
        }
        Lie::KernelIdentity => {
            frame.kernel_identity = match frame.kernel_identity.take() {
                Some(_) => None,
                None => Some("forged_kernel".into()),
            }
        }
    }
    let id = frame.id.clone();
    (forged, id)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Two rank documents, each well-formed, that disagree on what one frame
    /// id is: refused with `frame_conflict` naming that id, in every order
    /// and grouping, with the same error for every order of one `merge_all`.
    #[test]
    fn documents_that_disagree_on_a_frame_are_refused_in_any_order(
        pick in 0usize..1000,
        frame in 0usize..10_000,
        lie in prop_oneof![Just(Lie::Category), Just(Lie::KernelIdentity)],
        order in Just((0..8usize).collect::<Vec<_>>()).prop_shuffle(),
        splits in proptest::collection::vec(0usize..100, 32),
    ) {
        let all = summaries();
        let readable: Vec<&RankSummary> = all.iter().filter(|s| !s.frames.is_empty()).collect();
        prop_assume!(!readable.is_empty());
        let victim = readable[pick % readable.len()];
        let (forged, id) = forge(victim, frame % victim.frames.len(), lie);
        // Every document crosses its JSON text, as between Ray tasks.
        let mut docs: Vec<String> = all.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
        docs.push(serde_json::to_string(&forged).unwrap());
        let jobs: Vec<Job> = order
            .iter()
            .filter_map(|&i| docs.get(i))
            .map(|d| job_from_json("rank", d).unwrap())
            .collect();
        prop_assert_eq!(jobs.len(), docs.len());

        let in_order = Job::merge_all(jobs.clone()).unwrap_err();
        let reversed = Job::merge_all(jobs.iter().rev().cloned()).unwrap_err();
        prop_assert_eq!(in_order.code(), "frame_conflict");
        prop_assert_eq!(in_order.to_string(), reversed.to_string());
        prop_assert!(in_order.to_string().contains(&id), "{}", in_order);

        // Any binary tree of merges fails where the two meet, on the same id.
        let mut splits = splits.into_iter();
        let got = try_tree(&jobs, &mut splits).unwrap_err();
        prop_assert_eq!(got.code(), "frame_conflict");
        prop_assert!(got.to_string().contains(&id), "{}", got);
    }

    /// One document holding the same id twice, with different fields, is
    /// refused as it is read.
    #[test]
    fn a_document_that_disagrees_with_itself_is_refused(
        pick in 0usize..1000,
        frame in 0usize..10_000,
        lie in prop_oneof![Just(Lie::Category), Just(Lie::KernelIdentity)],
    ) {
        let all = summaries();
        let readable: Vec<&RankSummary> = all.iter().filter(|s| !s.frames.is_empty()).collect();
        prop_assume!(!readable.is_empty());
        let victim = readable[pick % readable.len()];
        let at = frame % victim.frames.len();
        let (forged, id) = forge(victim, at, lie);
        let mut doubled = victim.clone();
        doubled.frames.push(forged.frames[at].clone());
        let rank_doc = serde_json::to_string(&doubled).unwrap();
        let e = job_from_json("rank", &rank_doc).unwrap_err();
        prop_assert_eq!(e.code(), "frame_conflict");
        prop_assert!(e.to_string().contains(&id), "{}", e);
        // The same frames written as one job document.
        let mut job = Job::try_from(victim.clone()).unwrap();
        let mut twin = job.frames.iter().find(|f| f.id == id).unwrap().clone();
        match lie {
            Lie::Category => twin.category = forged.frames[at].category.clone(),
            Lie::KernelIdentity => twin.kernel_identity = forged.frames[at].kernel_identity.clone(),
        }
        job.frames.push(twin);
        let e = job_from_json("job", &serde_json::to_string(&job).unwrap()).unwrap_err();
        prop_assert_eq!(e.code(), "frame_conflict");
    }
}

/// [`tree`] without unwrapping: the first refusal on the way up.
fn try_tree(
    jobs: &[Job],
    splits: &mut impl Iterator<Item = usize>,
) -> Result<Job, opguard_job::Error> {
    match jobs.len() {
        0 => Ok(Job::empty()),
        1 => Ok(jobs[0].clone()),
        n => {
            let at = 1 + splits.next().unwrap_or(0) % (n - 1);
            let (l, r) = (
                try_tree(&jobs[..at], splits)?,
                try_tree(&jobs[at..], splits)?,
            );
            if splits.next().unwrap_or(0) % 2 == 0 {
                l.merge(r)
            } else {
                r.merge(l)
            }
        }
    }
}
