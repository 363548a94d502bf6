//! Seam requests (seed 001) and their verdict.

use opguard_formats::ReadOptions;
use opguard_model::ModelOptions;
use opguard_select::{verdict_with, Request, Verdict, VerdictOptions};

use crate::sandbox::{is_confined, scratch, write_traces};
use crate::trace::fuzz_options;

/// A seam request and up to two traces, split at `0xFF` bytes: the request
/// is read with `Request::from_json`; when it is admitted and every path it
/// names stays inside a scratch directory (holding the traces as `t0.json`,
/// `t1.json` and the fixture capture `attention.pid-4242.json.gz`), the
/// verdict is evaluated. Checked, from the seed's contract: the verdict
/// passes only when every process passes and nothing failed; the top-level
/// counts are the sums over processes; logical target calls never exceed
/// raw spans; a declared depth can add a rejection, never buy a pass (the
/// same request without declared depths passes whenever it does); and the
/// verdict serialises with the seed's field names (`best_process_meta_file` inside
/// `best_process`).
pub fn seam_request(data: &[u8]) {
    let mut parts = data.split(|&b| b == 0xFF);
    let request_bytes = parts.next().unwrap_or_default();
    let traces: Vec<&[u8]> = parts.take(2).collect();
    let Ok(request) = Request::from_json(request_bytes, "request") else {
        return;
    };
    let paths = request
        .processes
        .iter()
        .flat_map(|p| p.trace.iter().chain(&p.meta));
    if !paths
        .into_iter()
        .all(|p| p != "-" && is_confined(p.as_ref()))
    {
        return;
    }
    let dir = scratch("seam", &["select/attention.pid-4242.json.gz"]);
    write_traces(&dir, &traces, 2);
    let options =
        || VerdictOptions::new().read(ReadOptions::new(ModelOptions::new()).reader(fuzz_options()));
    let Ok(verdict) = verdict_with(request.clone(), &dir, options()) else {
        return;
    };
    check_verdict(&verdict);
    let mut undeclared = request;
    for c in &mut undeclared.candidates {
        c.declared_depth = None;
    }
    let without = verdict_with(undeclared, &dir, options()).expect("admitted once already");
    check_verdict(&without);
    assert!(
        !verdict.ok || without.ok,
        "a declared depth bought a pass: {:?}",
        without.failed
    );
}

fn check_verdict(v: &Verdict) {
    assert_eq!(
        v.ok,
        v.failed.is_empty(),
        "ok against failed: {:?}",
        v.failed
    );
    assert!(
        !v.ok || v.processes.iter().all(|p| p.ok),
        "a verdict passed with a failing process"
    );
    // Sums over the evaluated processes.
    let sum = |f: fn(&opguard_select::ProcessVerdict) -> u64| {
        v.processes
            .iter()
            .filter(|p| p.evaluated)
            .map(f)
            .sum::<u64>()
    };
    assert_eq!(v.target_marker_calls, sum(|p| p.target_marker_calls));
    assert_eq!(v.target_marker_spans, sum(|p| p.target_marker_spans));
    assert_eq!(v.matched_kernel_calls, sum(|p| p.matched_kernel_calls));
    assert!(v.target_marker_calls <= v.target_marker_spans);
    for p in &v.processes {
        assert!(p.target_marker_calls <= p.target_marker_spans, "{}", p.name);
        assert!(!p.ok || p.evaluated, "{} passed unevaluated", p.name);
    }
    let json = serde_json::to_value(v).expect("a verdict serializes");
    for key in [
        "ok",
        "deepest_verified",
        "failed",
        "target_marker_calls",
        "matched_kernel_calls",
        "correlated_external_ids",
        "candidate_targets_tested",
        "deeper_live_candidates",
        "missing_candidate_markers",
        "installed_but_never_live_candidates",
    ] {
        assert!(
            json.get(key).is_some(),
            "the verdict lacks the seed's {key}"
        );
    }
    if !json["best_process"].is_null() {
        assert!(json["best_process"]["best_process_meta_file"].is_string());
    }
}
