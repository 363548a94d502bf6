//! The cases seed 001's `test_kernel_selection.py` names, re-created on
//! real-Kineto-shaped traces written to gzip files and read back through the
//! real reader.

use opguard_select::{Failure, Verdict};
use opguard_testdata::kineto_writer::KinetoTrace;
use serde_json::json;

use crate::support::*;

const CALLS: usize = 36;
const HOST: (i64, i64) = (4242, 4242);

fn chain(c: &Capture, call: AttentionCall) -> String {
    c.trace(
        "trace.pid-4242.json.gz",
        &attention_trace(HOST, CALLS, call),
    )
}

fn both_installed(trace: &str) -> Vec<serde_json::Value> {
    vec![process("pid-4242", Some(trace), &[WRAPPER, LAUNCHER])]
}

/// Selects `target` on the wrapper/launcher capture, declaring the wrapper
/// and the launcher (in that order) with these depths.
fn select(c: &Capture, trace: &str, target: &str, depths: [Option<i64>; 2]) -> Verdict {
    c.verdict(&request(
        target,
        PAGED,
        &[(WRAPPER, depths[0]), (LAUNCHER, depths[1])],
        both_installed(trace),
    ))
}

#[test]
fn test_0720_live_inner_launcher_is_selection_success() {
    let c = Capture::new();
    let trace = chain(&c, AttentionCall::default());
    let v = select(&c, &trace, LAUNCHER, [Some(0), Some(1)]);
    assert!(v.ok, "{:?}", v.failed);
    assert!(v.deepest_verified);
    assert!(v.failed.is_empty());
    assert_eq!(v.target_marker_calls, CALLS as u64);
    assert_eq!(v.target_marker_spans, CALLS as u64);
    assert_eq!(v.matched_kernel_calls, CALLS as u64);
    // Inside the launcher only the Triton launches happen; the aten::fill_
    // op (and its External id) sits in the wrapper, outside the launcher.
    assert_eq!(v.launch_correlation_edges, CALLS as u64);
    assert_eq!(v.correlated_external_ids, 0);
    assert!(v.deeper_live_candidates.is_empty());
    assert_eq!(v.live_candidates, [WRAPPER, LAUNCHER]);
    assert_eq!(v.candidate_targets_tested, [WRAPPER, LAUNCHER]);
    let w = candidate(&v, 0, WRAPPER);
    assert_eq!(
        (w.encloses_target_calls, w.nested_in_target_calls),
        (CALLS as u64, 0)
    );
    assert_eq!(
        w.kernel_launches, CALLS as u64,
        "the wrapper launches it too, through the launcher"
    );
    assert_eq!(w.kernel_launches_nested_in_target, 0);
    let best = v.best_process.as_ref().expect("one evaluated process");
    assert_eq!(best.process, "pid-4242");
    assert_eq!(best.best_process_meta_file, trace);
}

#[test]
fn test_0802_outer_wrapper_fails_when_0720_launcher_is_marked() {
    let c = Capture::new();
    let trace = chain(&c, AttentionCall::default());
    let v = select(&c, &trace, WRAPPER, [Some(0), Some(1)]);
    assert!(!v.ok);
    assert!(!v.deepest_verified);
    assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
    assert_eq!(v.deeper_live_candidates, [LAUNCHER]);
    // It looks perfect on paper: the wrapper is live and the kernel
    // launches inside its span ...
    assert_eq!(v.target_marker_calls, CALLS as u64);
    assert_eq!(v.matched_kernel_calls, CALLS as u64);
    assert_eq!(v.launch_correlation_edges, 2 * CALLS as u64);
    assert_eq!(v.correlated_external_ids, CALLS as u64);
    // ... but the launcher is observed inside it, launching the kernel.
    let l = candidate(&v, 0, LAUNCHER);
    assert_eq!(l.nested_in_target_calls, CALLS as u64);
    assert_eq!(l.kernel_launches_nested_in_target, CALLS as u64);

    // The production 0802 shape: the wrapper's marker was installed on an
    // alias the live path never calls, and the capture recorded the
    // launcher. The selection cannot reach extraction.
    let only_launcher = AttentionCall {
        wrapper_marked: false,
        ..AttentionCall::default()
    };
    let c = Capture::new();
    let trace = chain(&c, only_launcher);
    let mut r = request(
        WRAPPER,
        PAGED,
        &[(WRAPPER, None), (LAUNCHER, None)],
        both_installed(&trace),
    );
    r["capture_target"] = json!(LAUNCHER);
    let v = c.verdict(&r);
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(
        codes(&v),
        [
            "capture_target_mismatch",
            "target_marker_missing",
            "device_kernel_not_under_target"
        ]
    );
    assert_eq!(v.matched_kernel_calls, 0);
    assert_eq!(v.target_marker_calls, 0);
    assert_eq!(v.installed_but_never_live_candidates, [WRAPPER]);
}

#[test]
fn test_triton_kernel_without_external_id_is_linked_by_launch_correlation() {
    let c = Capture::new();
    let trace = chain(&c, AttentionCall::default());
    // The rows really have the two shapes: Triton with a correlation and no
    // External id, at::native with both.
    let doc = decode(&c.path(&trace));
    let rows: Vec<&serde_json::Value> = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "kernel")
        .collect();
    let shape = |name: &str| {
        let mine: Vec<_> = rows.iter().filter(|e| e["name"] == name).collect();
        assert_eq!(mine.len(), CALLS);
        (
            mine.iter().all(|e| e["args"].get("correlation").is_some()),
            mine.iter().all(|e| e["args"].get("External id").is_some()),
        )
    };
    assert_eq!(shape(PAGED), (true, false));
    assert_eq!(shape(FILL), (true, true));

    let v = select(&c, &trace, LAUNCHER, [None, None]);
    assert!(v.ok, "{:?}", v.failed);
    let p = &v.processes[0];
    assert_eq!(p.matched_kernel_calls, CALLS as u64);
    assert_eq!(p.matched_by_launch_correlation, CALLS as u64);
    assert_eq!(p.matched_by_external_id, 0);

    // The same launches without the correlation on the device rows: the
    // kernels are still seen, but nothing links them to the seam.
    let mut t = KinetoTrace::new();
    let mut ids = Ids::new();
    for i in 0..CALLS as i64 {
        let base = 1_000_000 + i * 100_000;
        t.user_annotation(HOST, &marker(LAUNCHER), base, 35_000, Some(ids.ext()));
        t.runtime(
            HOST,
            "cuLaunchKernel",
            base + 1_000,
            500,
            Some(ids.corr()),
            None,
        );
        t.kernel(0, 7, PAGED, base + 2_000, 20_000, None, None);
    }
    let trace = c.trace("uncorrelated.json.gz", &t);
    let v = c.verdict(&request(
        LAUNCHER,
        PAGED,
        &[(LAUNCHER, None)],
        vec![process("pid-4242", Some(&trace), &[LAUNCHER])],
    ));
    assert_eq!(v.processes[0].matched_kernel_rows, CALLS as u64);
    assert_eq!(v.matched_kernel_calls, 0);
    assert_eq!(codes(&v), ["device_kernel_not_under_target"]);
}

#[test]
fn test_the_observed_nesting_is_what_settles_deepest_not_the_declared_depth() {
    let c = Capture::new();
    let trace = chain(&c, AttentionCall::default());

    // A candidate appended with depth 999 cannot outrank what the profiler
    // observed: the wrapper encloses the launcher.
    let v = c.verdict(&request(
        LAUNCHER,
        PAGED,
        &[(LAUNCHER, Some(1)), (WRAPPER, Some(999))],
        both_installed(&trace),
    ));
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    assert!(v.declared_deeper_live_candidates.is_empty());

    // A self-reported depth cannot buy a pass either.
    let v = select(&c, &trace, WRAPPER, [Some(999), Some(0)]);
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
    assert_eq!(v.deeper_live_candidates, [LAUNCHER]);

    // It can add a rejection: a sibling path that also launches the kernel,
    // never seen enclosing the target, declared deeper than it.
    const SIBLING: &str = "vllm.attention.ops.paged_attn:PagedAttention.forward_decode";
    let mut t = attention_trace(HOST, CALLS, AttentionCall::default());
    let mut ids = Ids::starting_at(10_000, 10_000);
    let base = 50_000_000;
    t.user_annotation(HOST, &marker(SIBLING), base, 10_000, Some(ids.ext()));
    t.launch(HOST, "cuLaunchKernel", base + 1_000, 500, ids.corr(), None)
        .kernel(0, 7, PAGED, base + 20_000, 20_000);
    let trace = c.trace("sibling.json.gz", &t);
    let installed = [WRAPPER, LAUNCHER, SIBLING];
    let with_depth = |depth: i64| {
        c.verdict(&request(
            LAUNCHER,
            PAGED,
            &[
                (WRAPPER, Some(0)),
                (LAUNCHER, Some(1)),
                (SIBLING, Some(depth)),
            ],
            vec![process("pid-4242", Some(&trace), &installed)],
        ))
    };
    let v = with_depth(5);
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(v.failed, [Failure::DeclaredDeeperLiveCandidate]);
    assert_eq!(v.declared_deeper_live_candidates, [SIBLING]);
    assert!(
        v.deeper_live_candidates.is_empty(),
        "nothing was observed deeper"
    );
    let v = with_depth(0);
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
}

#[test]
fn test_device_projected_annotation_does_not_invert_call_nesting() {
    let c = Capture::new();
    let call = AttentionCall {
        device_projection: true,
        ..AttentionCall::default()
    };
    let trace = chain(&c, call);
    // On the device timeline the wrapper's copy really lands inside the
    // launcher's.
    let doc = decode(&c.path(&trace));
    let device = |spec: &str| -> Vec<(f64, f64)> {
        doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["cat"] == "gpu_user_annotation" && e["name"] == marker(spec).as_str())
            .map(|e| {
                let ts = e["ts"].as_f64().unwrap();
                (ts, ts + e["dur"].as_f64().unwrap())
            })
            .collect()
    };
    let (w, l) = (device(WRAPPER), device(LAUNCHER));
    assert_eq!((w.len(), l.len()), (CALLS, CALLS));
    assert!(w.iter().zip(&l).all(|(w, l)| l.0 < w.0 && w.1 < l.1));

    let v = select(&c, &trace, LAUNCHER, [None, None]);
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    let p = &v.processes[0];
    assert_eq!(
        p.target_marker_calls, CALLS as u64,
        "device copies are not calls"
    );
    assert_eq!(p.target_device_projected_spans, CALLS as u64);
    let w = candidate(&v, 0, WRAPPER);
    assert_eq!(w.device_projected_spans, CALLS as u64);
    assert_eq!(w.nested_in_target_calls, 0);
    assert_eq!(w.encloses_target_calls, CALLS as u64);
    assert_eq!(w.live_calls, CALLS as u64);

    // And the wrapper is still refused: host nesting still rules.
    let v = select(&c, &trace, WRAPPER, [None, None]);
    assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
    assert_eq!(v.deeper_live_candidates, [LAUNCHER]);
}

#[test]
fn test_every_declared_probe_candidate_must_have_an_installed_marker() {
    const RUNNER: &str = "vllm.attention.ops.triton_runner:TritonRunnerCore.run";
    const JIT: &str = "vllm.attention.ops.triton_kernels:kernel_paged_attention_2d";
    let c = Capture::new();
    let trace = chain(&c, AttentionCall::default());
    let candidates = [
        (WRAPPER, None),
        (LAUNCHER, None),
        (RUNNER, None),
        (JIT, None),
    ];
    let processes = vec![json!({
        "name": "pid-4242",
        "trace": trace,
        "installed": [WRAPPER, LAUNCHER],
        "refused": [{"spec": JIT, "reason": "jit_object"}],
    })];
    let v = c.verdict(&request(LAUNCHER, PAGED, &candidates, processes));
    assert!(!v.ok);
    assert!(!v.deepest_verified, "an unprobed candidate could be deeper");
    assert_eq!(v.failed, [Failure::CandidateMarkerMissing]);
    assert_eq!(v.missing_candidate_markers, [RUNNER, JIT]);
    assert!(v.installed_but_never_live_candidates.is_empty());
    assert_eq!(v.candidate_targets_tested, [WRAPPER, LAUNCHER]);
    let p = &v.processes[0];
    assert_eq!(p.refused_candidates.len(), 1);
    assert_eq!(
        (
            p.refused_candidates[0].spec.as_str(),
            p.refused_candidates[0].reason.as_str()
        ),
        (JIT, "jit_object")
    );
    // Everything else held: the launch evidence is there.
    assert_eq!(v.matched_kernel_calls, CALLS as u64);

    // Installing them all (the class method too) gives the pass back.
    let installed = [WRAPPER, LAUNCHER, RUNNER, JIT];
    let v = c.verdict(&request(
        LAUNCHER,
        PAGED,
        &candidates,
        vec![process("pid-4242", Some(&trace), &installed)],
    ));
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    assert!(v.missing_candidate_markers.is_empty());
}

#[test]
fn test_a_probed_candidate_that_never_fired_is_reported_not_silently_dropped() {
    const PREFILL: &str = "vllm.attention.ops.prefix_prefill:context_attention_fwd";
    let c = Capture::new();
    let trace = chain(&c, AttentionCall::default());
    let installed = [WRAPPER, LAUNCHER, PREFILL];
    let v = c.verdict(&request(
        LAUNCHER,
        PAGED,
        &[(WRAPPER, None), (LAUNCHER, None), (PREFILL, None)],
        vec![process("pid-4242", Some(&trace), &installed)],
    ));
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    assert_eq!(v.installed_but_never_live_candidates, [PREFILL]);
    assert!(v.missing_candidate_markers.is_empty());
    assert!(v.deeper_live_candidates.is_empty());
    assert_eq!(v.candidate_targets_tested, installed);
    assert_eq!(v.live_candidates, [WRAPPER, LAUNCHER]);
    let e = candidate(&v, 0, PREFILL);
    assert!(e.installed);
    assert_eq!((e.live_calls, e.spans, e.kernel_launches), (0, 0, 0));
    let json = to_json(&v);
    assert_eq!(
        json["installed_but_never_live_candidates"],
        json!([PREFILL])
    );
    assert_eq!(json["missing_candidate_markers"], json!([]));
}

#[test]
fn test_cli_requires_deepest_selection_on_every_capture_process() {
    const INNER: &str = "vllm.attention.ops.rocm_attn:_launch_paged_decode";
    let c = Capture::new();
    // Rank 0 takes the launcher; rank 1 reaches the kernel through a helper
    // nested inside the launcher.
    let rank0 = c.trace(
        "trace.pid-1000.json.gz",
        &attention_trace((1000, 1000), CALLS, AttentionCall::default()),
    );
    let mut t = KinetoTrace::new();
    let mut ids = Ids::new();
    let host = (1001, 1001);
    for i in 0..CALLS as i64 {
        // The same call, with a helper marked around the launch.
        let base = 1_000_000 + i * 100_000;
        attention_call(&mut t, host, base, &mut ids, AttentionCall::default());
        t.user_annotation(host, &marker(INNER), base + 5_500, 2_000, Some(ids.ext()));
    }
    let rank1 = c.trace("trace.pid-1001.json.gz", &t);
    let installed = [WRAPPER, LAUNCHER, INNER];
    let candidates = [(WRAPPER, None), (LAUNCHER, None), (INNER, None)];
    let mut processes = vec![
        process("pid-1000", Some(&rank0), &installed),
        process("pid-1001", Some(&rank1), &installed),
    ];
    processes[0]["meta"] = json!("meta.pid-1000.json");
    processes[1]["meta"] = json!("meta.pid-1001.json");

    // Each rank alone.
    let only = |p: usize| {
        c.verdict(&request(
            LAUNCHER,
            PAGED,
            &candidates,
            vec![processes[p].clone()],
        ))
    };
    assert!(only(0).ok, "{:?}", only(0).failed);
    assert_eq!(only(1).failed, [Failure::DeeperLiveCandidate]);

    // Together: one rank disagreeing sinks the verdict.
    let r = request(LAUNCHER, PAGED, &candidates, processes.clone());
    let v = c.verdict(&r);
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
    assert_eq!(v.deeper_live_candidates, [INNER]);
    let oks: Vec<bool> = v.processes.iter().map(|p| p.ok).collect();
    assert_eq!(oks, [true, false]);
    assert!(
        v.installed_but_never_live_candidates.is_empty(),
        "live on rank 1"
    );
    assert_eq!(v.processes[0].installed_but_never_live_candidates, [INNER]);
    // Counts are sums and say so; the one field naming a process sits with
    // that process's name only.
    assert_eq!(v.counts_scope, "sum_over_processes");
    assert_eq!(v.target_marker_calls, 2 * CALLS as u64);
    assert_eq!(v.matched_kernel_calls, 2 * CALLS as u64);
    let best = v.best_process.as_ref().unwrap();
    assert_eq!(
        (best.process.as_str(), best.best_process_meta_file.as_str()),
        ("pid-1000", "meta.pid-1000.json")
    );
    let json = to_json(&v);
    assert!(json.get("best_process_meta_file").is_none());
    let best_json = json["best_process"].as_object().unwrap();
    let mut keys: Vec<&str> = best_json.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["best_process_meta_file", "process"]);

    // A rank named in the install log without a trace fails the verdict,
    // whether the log gives none or a path nobody wrote.
    for missing in [json!(null), json!("trace.pid-1002.json.gz")] {
        let mut p = processes.clone();
        p[1] = json!({"name": "pid-1002", "trace": missing, "installed": installed});
        let v = c.verdict(&request(LAUNCHER, PAGED, &candidates, p));
        assert!(!v.ok && !v.deepest_verified);
        assert_eq!(v.failed, [Failure::CaptureProcessTraceMissing]);
        assert!(!v.processes[1].evaluated);
        assert!(v.processes[0].ok);
    }
}

#[test]
fn test_launch_correlation_outside_the_marker_span_is_not_enough() {
    let host = (7, 7);
    let mut t = KinetoTrace::new();
    let (start, end) = (1_000_000, 1_100_000);
    t.user_annotation(host, &marker(LAUNCHER), start, end - start, Some(1));
    // k1: launched inside the span on the marker thread: attributed.
    t.launch(host, "cuLaunchKernel", start + 10_000, 500, 101, None)
        .kernel(0, 7, PAGED, end + 50_000, 10_000);
    // k2: launched on the marker thread after the span ends; the kernel
    // itself runs inside the span's time.
    t.launch(host, "cuLaunchKernel", end + 1_000, 500, 102, None)
        .kernel(0, 7, PAGED, start + 20_000, 10_000);
    // k3: another thread of the process, inside the span's time.
    t.launch((7, 8), "cuLaunchKernel", start + 30_000, 500, 103, None)
        .kernel(0, 7, PAGED, start + 40_000, 10_000);
    // k4: another process, inside the span's time.
    t.launch((9, 9), "cuLaunchKernel", start + 30_000, 500, 104, None)
        .kernel(0, 7, PAGED, start + 50_000, 10_000);
    // k5: a launch that starts inside the span and ends after it.
    t.launch(host, "cuLaunchKernel", end - 100, 500, 105, None)
        .kernel(0, 7, PAGED, end + 70_000, 10_000);
    // k6: no edge at all, running inside the span.
    t.kernel(0, 7, PAGED, start + 60_000, 10_000, None, None);
    // k7: an External id naming an op outside the span, no correlation.
    t.cpu_op(host, "aten::_triton_launch", end + 2_000, 1_000, Some(77));
    t.kernel(0, 7, PAGED, start + 80_000, 5_000, None, Some(77));
    let c = Capture::new();
    let trace = c.trace("outside.json.gz", &t);
    let v = c.verdict(&request(
        LAUNCHER,
        PAGED,
        &[(LAUNCHER, None)],
        vec![process("pid-7", Some(&trace), &[LAUNCHER])],
    ));
    let p = &v.processes[0];
    assert_eq!(p.matched_kernel_rows, 7);
    assert_eq!(p.matched_kernel_calls, 1);
    assert_eq!(p.matched_by_launch_correlation, 1);
    assert_eq!(p.matched_by_external_id, 0);
    assert_eq!(p.launch_correlation_edges, 1);
    assert!(v.ok, "one launch inside the span is enough: {:?}", v.failed);

    // Without k1, nothing is attributed and the verdict fails.
    let mut t = KinetoTrace::new();
    t.user_annotation(host, &marker(LAUNCHER), start, end - start, Some(1));
    t.launch(host, "cuLaunchKernel", end + 1_000, 500, 102, None)
        .kernel(0, 7, PAGED, start + 20_000, 10_000);
    t.launch((7, 8), "cuLaunchKernel", start + 30_000, 500, 103, None)
        .kernel(0, 7, PAGED, start + 40_000, 10_000);
    let trace = c.trace("outside-only.json.gz", &t);
    let v = c.verdict(&request(
        LAUNCHER,
        PAGED,
        &[(LAUNCHER, None)],
        vec![process("pid-7", Some(&trace), &[LAUNCHER])],
    ));
    assert_eq!(v.matched_kernel_calls, 0);
    assert_eq!(v.failed, [Failure::DeviceKernelNotUnderTarget]);
}

/// One rank's calls in `t`: wrapper spans (when `marked`), each running
/// aten::fill_ and issuing PAGED.
fn rank_calls(t: &mut KinetoTrace, host: (i64, i64), ids: &mut Ids, calls: usize, marked: bool) {
    let call = AttentionCall {
        wrapper_marked: marked,
        launcher_marked: false,
        device_projection: false,
    };
    for i in 0..calls as i64 {
        attention_call(t, host, 1_000_000 + i * 100_000, ids, call);
    }
}

#[test]
fn test_correlation_ids_do_not_collide_across_merged_call_traces() {
    const N: usize = 4;
    let (r0, r1) = ((100, 100), (200, 200));
    let c = Capture::new();
    let candidates = [(WRAPPER, None)];
    let rank = |name: &str, trace: &str, pid: Option<i64>| {
        let mut p = process(name, Some(trace), &[WRAPPER]);
        p["pid"] = json!(pid);
        p
    };

    // Two files with the very same correlation ids, overlapping in time:
    // rank 1 never entered the launcher. Each file is its own artifact.
    let mut t0 = KinetoTrace::new();
    rank_calls(&mut t0, r0, &mut Ids::new(), N, true);
    let mut t1 = KinetoTrace::new();
    rank_calls(&mut t1, r1, &mut Ids::new(), N, false);
    let (f0, f1) = (
        c.trace("trace.pid-100.json.gz", &t0),
        c.trace("trace.pid-200.json.gz", &t1),
    );
    let v = c.verdict(&request(
        WRAPPER,
        PAGED,
        &candidates,
        vec![rank("pid-100", &f0, None), rank("pid-200", &f1, None)],
    ));
    assert_eq!(v.processes[0].matched_kernel_calls, N as u64);
    assert!(v.processes[0].ok);
    assert_eq!(v.processes[1].matched_kernel_calls, 0);
    assert_eq!(
        v.processes[1].failed,
        [
            Failure::TargetMarkerMissing,
            Failure::DeviceKernelNotUnderTarget
        ]
    );
    assert_eq!(v.matched_kernel_calls, N as u64);
    assert!(!v.ok);

    // One merged file, ids prefixed per rank: each rank gets its own
    // launches, even though rank 1's launches happen inside rank 0's spans'
    // time.
    let mut merged = KinetoTrace::new();
    rank_calls(&mut merged, r0, &mut Ids::new(), N, true);
    rank_calls(
        &mut merged,
        r1,
        &mut Ids::starting_at(1 << 40, 1 << 40),
        N,
        true,
    );
    let fm = c.trace("merged.json.gz", &merged);
    let v = c.verdict(&request(
        WRAPPER,
        PAGED,
        &candidates,
        vec![
            rank("pid-100", &fm, Some(100)),
            rank("pid-200", &fm, Some(200)),
        ],
    ));
    assert!(v.ok, "{:?}", v.failed);
    for p in &v.processes {
        assert_eq!(
            (p.target_marker_calls, p.matched_kernel_calls),
            (N as u64, N as u64)
        );
        assert_eq!(
            p.matched_kernel_rows,
            2 * N as u64,
            "both ranks' rows are in the file"
        );
        assert_eq!(p.ambiguous_correlation_rows, 0);
        assert_eq!(p.correlated_external_ids, N as u64);
    }
    assert_eq!(v.matched_kernel_calls, 2 * N as u64);

    // One merged file whose ids were NOT prefixed: every correlation names
    // two launches on two processes. No edge is drawn, nothing is credited
    // to the wrong rank, and the verdict fails closed.
    let mut clash = KinetoTrace::new();
    rank_calls(&mut clash, r0, &mut Ids::new(), N, true);
    rank_calls(&mut clash, r1, &mut Ids::new(), N, false);
    let fc = c.trace("clash.json.gz", &clash);
    let v = c.verdict(&request(
        WRAPPER,
        PAGED,
        &candidates,
        vec![rank("pid-100", &fc, Some(100))],
    ));
    let p = &v.processes[0];
    assert_eq!(p.ambiguous_correlation_rows, 4 * N as u64);
    assert_eq!(p.matched_kernel_calls, 0);
    assert_eq!(p.correlated_external_ids, 0);
    assert_eq!(v.failed, [Failure::DeviceKernelNotUnderTarget]);
}
