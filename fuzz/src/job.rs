//! Job documents: rank summaries (`opguard.job.rank/v1`) and jobs
//! (`opguard.job/v1`) read back and merged.

use opguard_job::{job_from_json, Job};

/// Up to four documents split at `0xFF` bytes (never part of UTF-8 text),
/// each read with `job_from_json`. Checked: an accepted document reads back
/// from its own serialisation unchanged; merging is commutative and
/// associative down to the bytes and refuses (`frame_conflict`) in every
/// order and grouping alike, with one error text for every order of
/// `merge_all`; `Job::empty` is the identity; and a merged job keeps its
/// derived fields (per-rank order, max, median, slowest rank, missing ranks,
/// frame order) as documented.
pub fn job_document(data: &[u8]) {
    let jobs: Vec<Job> = data
        .split(|&b| b == 0xFF)
        .take(4)
        .enumerate()
        .filter_map(|(i, bytes)| {
            let text = std::str::from_utf8(bytes).ok()?;
            let job = job_from_json(&format!("doc{i}"), text).ok()?;
            check_job(&job);
            let again = serde_json::to_string(&job).expect("a job serializes");
            let back = job_from_json("again", &again).expect("a job reads back");
            assert_eq!(back, job, "a job read back from its own JSON");
            let identity = job.clone().merge(Job::empty()).expect("empty merges");
            assert_eq!(identity, job, "Job::empty is not the identity");
            Some(job)
        })
        .collect();
    if jobs.len() < 2 {
        return;
    }
    let forward = Job::merge_all(jobs.clone());
    let backward = Job::merge_all(jobs.iter().rev().cloned());
    assert_eq!(
        outcome(&forward),
        outcome(&backward),
        "merge_all depends on the order of its inputs"
    );
    if let Ok(job) = &forward {
        check_job(job);
    }
    // Grouped two ways: ((a b) c) and (a (b c)), and b merged into a.
    let (a, b) = (jobs[0].clone(), jobs[1].clone());
    let ab = a.clone().merge(b.clone());
    let ba = b.clone().merge(a.clone());
    assert_eq!(outcome(&ab), outcome(&ba), "merge is not commutative");
    if let Some(c) = jobs.get(2) {
        let left = ab.and_then(|ab| ab.merge(c.clone()));
        let right = b.merge(c.clone()).and_then(|bc| a.merge(bc));
        assert_eq!(
            code_or_bytes(&left),
            code_or_bytes(&right),
            "merge is not associative"
        );
        if jobs.len() == 3 {
            assert_eq!(code_or_bytes(&left), code_or_bytes(&forward));
        }
    }
}

/// The serialised job, or the error's text.
fn outcome(result: &Result<Job, opguard_job::Error>) -> Result<String, String> {
    match result {
        Ok(job) => Ok(serde_json::to_string(job).expect("a job serializes")),
        Err(e) => Err(e.to_string()),
    }
}

/// The serialised job, or the error's code: which rank a conflict names
/// depends on the grouping (the first rank giving a value within the part
/// merged), the refusal and its code do not.
fn code_or_bytes(result: &Result<Job, opguard_job::Error>) -> Result<String, &'static str> {
    match result {
        Ok(job) => Ok(serde_json::to_string(job).expect("a job serializes")),
        Err(e) => Err(e.code()),
    }
}

/// The derived fields of a job, recomputed here from its costs.
fn check_job(job: &Job) {
    let ranks: Vec<(Option<i64>, &str)> = job
        .ranks
        .iter()
        .map(|r| (r.rank, r.file.as_str()))
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "ranks out of order");
    for w in job.frames.windows(2) {
        assert!(
            (std::cmp::Reverse(w[0].max_ns), &w[0].id) < (std::cmp::Reverse(w[1].max_ns), &w[1].id),
            "frames out of order or one id twice"
        );
    }
    for f in &job.frames {
        assert!(!f.per_rank.is_empty(), "a frame without costs");
        assert!(
            f.per_rank.windows(2).all(|w| w[0] <= w[1]),
            "per_rank out of order"
        );
        let max = f.per_rank.iter().map(|c| c.cost_ns).max().unwrap_or(0);
        assert_eq!(f.max_ns, max, "max_ns of {}", f.id);
        let slowest = f.per_rank.iter().find(|c| c.cost_ns == max).expect("a max");
        assert_eq!(
            (f.slowest_rank, f.slowest_file.as_str()),
            (slowest.rank, slowest.file.as_str())
        );
        let mut costs: Vec<i128> = f.per_rank.iter().map(|c| i128::from(c.cost_ns)).collect();
        costs.sort_unstable();
        let n = costs.len();
        let median = if n % 2 == 1 {
            costs[n / 2]
        } else {
            (costs[n / 2 - 1] + costs[n / 2]).div_euclid(2)
        };
        assert_eq!(i128::from(f.median_ns), median, "median_ns of {}", f.id);
        // Missing: the job's ranks minus those with a cost, as multisets.
        let mut left: Vec<(Option<i64>, &str)> = ranks.clone();
        for c in &f.per_rank {
            if let Some(p) = left.iter().position(|r| *r == (c.rank, c.file.as_str())) {
                left.remove(p);
            }
        }
        let missing: Vec<(Option<i64>, &str)> = f
            .missing
            .iter()
            .map(|r| (r.rank, r.file.as_str()))
            .collect();
        assert_eq!(missing, left, "missing ranks of {}", f.id);
    }
}
