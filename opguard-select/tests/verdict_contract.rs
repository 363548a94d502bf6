//! The verdict's smaller promises, each on a trace built for it: which
//! process is the best one, where a span's bounds lie, what counts as a
//! call, how refusals and undeclared installs are reported, which evidence
//! row is the target's, and the errors that are not verdicts.

use opguard_model::{ArtifactSpec, ModelOptions};
use opguard_select::{verdict_for_models, Failure, Request, Verdict};
use opguard_testdata::kineto_writer::{KinetoTrace, Thread};
use opguard_trace::{OwnedEvent, RawJson, ScalarKey};
use serde_json::{json, Value};

use crate::support::*;

/// The selected callable.
const TARGET: &str = "pkg.layer:forward";
/// Another probe.
const OTHER: &str = "pkg.ops:launch_tile";
/// A third probe.
const THIRD: &str = "pkg.ops:prepare";

/// What one target call does.
#[derive(Clone, Copy, PartialEq)]
enum Call {
    /// The target span encloses a launch of the kernel.
    Launches,
    /// The target span launches nothing.
    Idle,
    /// The kernel is launched after the target span ends.
    LaunchesAfter,
}

/// A target call at `base`: its span is [base, base + 10 µs]; a launch is
/// [base + 1 µs, + 0.5 µs] (or 20 µs after `base`), its kernel runs later.
fn target_call(t: &mut KinetoTrace, host: Thread, base: i64, ids: &mut Ids, call: Call) {
    t.user_annotation(host, &marker(TARGET), base, 10_000, Some(ids.ext()));
    let at = match call {
        Call::Launches => base + 1_000,
        Call::LaunchesAfter => base + 20_000,
        Call::Idle => return,
    };
    t.launch(host, "cuLaunchKernel", at, 500, ids.corr(), None)
        .kernel(0, 7, PAGED, base + 60_000, 5_000);
}

/// One thread running `calls` target calls 100 µs apart.
fn calls_trace(host: Thread, calls: &[Call]) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    let mut ids = Ids::new();
    for (i, call) in calls.iter().enumerate() {
        target_call(
            &mut t,
            host,
            1_000_000 + i as i64 * 100_000,
            &mut ids,
            *call,
        );
    }
    t
}

fn select(c: &Capture, candidates: &[(&str, Option<i64>)], processes: Vec<Value>) -> Verdict {
    c.verdict(&request(TARGET, PAGED, candidates, processes))
}

/// Selects the target, its only probe, on one process tracing `t`.
fn target_alone(t: &KinetoTrace) -> Verdict {
    let c = Capture::new();
    let tr = c.trace("t.json.gz", t);
    select(
        &c,
        &[(TARGET, None)],
        vec![process("p", Some(&tr), &[TARGET])],
    )
}

fn with_meta(mut p: Value, meta: &str) -> Value {
    p["meta"] = json!(meta);
    p
}

fn best(v: &Verdict) -> (&str, &str) {
    let b = v.best_process.as_ref().expect("an evaluated process");
    (b.process.as_str(), b.best_process_meta_file.as_str())
}

#[test]
fn the_best_process_passes_before_it_launches_more() {
    let c = Capture::new();
    // rank-0 launches three times but never installed OTHER: it fails.
    let a = c.trace("rank-0.json.gz", &calls_trace((1, 1), &[Call::Launches; 3]));
    let b = c.trace("rank-1.json.gz", &calls_trace((2, 2), &[Call::Launches]));
    let v = select(
        &c,
        &[(TARGET, None), (OTHER, None)],
        vec![
            with_meta(process("rank-0", Some(&a), &[TARGET]), "rank-0.meta.json"),
            with_meta(
                process("rank-1", Some(&b), &[TARGET, OTHER]),
                "rank-1.meta.json",
            ),
        ],
    );
    let ok: Vec<bool> = v.processes.iter().map(|p| p.ok).collect();
    assert_eq!(ok, [false, true]);
    assert_eq!(v.processes[0].failed, [Failure::CandidateMarkerMissing]);
    assert_eq!(v.processes[0].matched_kernel_calls, 3);
    assert_eq!(v.processes[1].matched_kernel_calls, 1);
    assert_eq!(best(&v), ("rank-1", "rank-1.meta.json"));
}

#[test]
fn among_passing_processes_the_best_launched_most_then_called_most() {
    use Call::*;
    let c = Capture::new();
    let run = |a: &[Call], b: &[Call]| -> Verdict {
        let ta = c.trace("rank-0.json.gz", &calls_trace((1, 1), a));
        let tb = c.trace("rank-1.json.gz", &calls_trace((2, 2), b));
        let v = select(
            &c,
            &[(TARGET, None)],
            vec![
                with_meta(process("rank-0", Some(&ta), &[TARGET]), "rank-0.meta.json"),
                process("rank-1", Some(&tb), &[TARGET]),
            ],
        );
        assert!(v.ok, "{:?}", v.failed);
        v
    };
    // More matched launches wins, even with fewer target calls.
    let v = run(&[Launches, Idle, Idle], &[Launches, Launches]);
    assert_eq!(
        (
            v.processes[0].target_marker_calls,
            v.processes[0].matched_kernel_calls
        ),
        (3, 1)
    );
    assert_eq!(
        (
            v.processes[1].target_marker_calls,
            v.processes[1].matched_kernel_calls
        ),
        (2, 2)
    );
    // rank-1 names no meta file: its trace stands in.
    assert_eq!(best(&v), ("rank-1", "rank-1.json.gz"));
    // Equal launches: more target calls wins.
    let v = run(&[Launches, Launches], &[Launches, Idle, Launches]);
    assert_eq!(best(&v), ("rank-1", "rank-1.json.gz"));
    // The other way round, rank-0 wins.
    let v = run(&[Launches, Idle, Launches], &[Launches, Launches]);
    assert_eq!(best(&v), ("rank-0", "rank-0.meta.json"));
    // A full tie goes to the first in request order.
    let v = run(&[Launches, Launches], &[Launches, Launches]);
    assert_eq!(best(&v), ("rank-0", "rank-0.meta.json"));
}

#[test]
fn counts_over_three_calls_with_nested_same_name_copies() {
    // Each call's target marker appears twice, one copy inside the other;
    // calls 1 and 3 launch under the marker, call 2 launches after it.
    let host = (5, 5);
    let mut t = KinetoTrace::new();
    let mut ids = Ids::new();
    for (i, call) in [Call::Launches, Call::LaunchesAfter, Call::Launches]
        .into_iter()
        .enumerate()
    {
        let base = 1_000_000 + i as i64 * 100_000;
        t.user_annotation(host, &marker(TARGET), base - 100, 10_200, Some(ids.ext()));
        target_call(&mut t, host, base, &mut ids, call);
    }
    let v = target_alone(&t);
    let p = &v.processes[0];
    assert_eq!((p.target_marker_spans, p.target_marker_calls), (6, 3));
    assert_eq!((p.matched_kernel_rows, p.matched_kernel_calls), (3, 2));
    assert_eq!(p.matched_by_launch_correlation, 2);
    assert_eq!(p.launch_correlation_edges, 2);
    let names: Vec<(&str, u64, u64)> = p
        .matched_kernel_names
        .iter()
        .map(|m| (m.name.as_str(), m.rows, m.attributed))
        .collect();
    assert_eq!(names, [(PAGED, 3, 2)]);
    assert!(v.ok, "{:?}", v.failed);
}

#[test]
fn a_launch_ending_exactly_at_the_span_end_is_inside_it() {
    let host = (5, 5);
    let check = |launch_at: i64, launch_dur: i64| -> u64 {
        let mut t = KinetoTrace::new();
        t.user_annotation(host, &marker(TARGET), 1_000, 10_000, Some(1));
        t.launch(host, "cuLaunchKernel", launch_at, launch_dur, 7, None)
            .kernel(0, 7, PAGED, 50_000, 1_000);
        target_alone(&t).matched_kernel_calls
    };
    // The span is [1000, 11000], bounds included.
    assert_eq!(check(10_500, 500), 1, "ends at the span's end");
    assert_eq!(check(1_000, 500), 1, "starts at the span's start");
    assert_eq!(check(10_501, 500), 0, "ends 1 ns after it");
    assert_eq!(check(999, 500), 0, "starts 1 ns before it");
}

#[test]
fn markers_and_launches_of_another_pid_on_the_same_tid_do_not_count() {
    // One merged trace: pid 100 calls the target once and launches under
    // it; pid 200, on the same tid, calls it twice and launches twice.
    let mut t = KinetoTrace::new();
    let mut ids = Ids::new();
    target_call(&mut t, (100, 1), 1_000_000, &mut ids, Call::Launches);
    target_call(&mut t, (200, 1), 2_000_000, &mut ids, Call::Launches);
    target_call(&mut t, (200, 1), 2_100_000, &mut ids, Call::Launches);
    // pid 200 also launches at a time inside pid 100's span.
    t.launch((200, 1), "cuLaunchKernel", 1_002_000, 500, ids.corr(), None)
        .kernel(0, 7, PAGED, 1_090_000, 1_000);
    let c = Capture::new();
    let tr = c.trace("merged.json.gz", &t);
    let mut p100 = process("pid-100", Some(&tr), &[TARGET]);
    p100["pid"] = json!(100);
    let mut p200 = process("pid-200", Some(&tr), &[TARGET]);
    p200["pid"] = json!(200);
    let v = select(&c, &[(TARGET, None)], vec![p100, p200]);
    let counts: Vec<(u64, u64, u64)> = v
        .processes
        .iter()
        .map(|p| {
            (
                p.target_marker_calls,
                p.matched_kernel_calls,
                p.matched_kernel_rows,
            )
        })
        .collect();
    // Every process sees all four matching rows; each is credited only
    // with the launches of its own pid under its own spans.
    assert_eq!(counts, [(1, 1, 4), (2, 2, 4)]);
    assert_eq!((v.target_marker_calls, v.matched_kernel_calls), (3, 3));
}

/// A host annotation with a pid but no tid.
fn unthreaded_annotation(t: &mut KinetoTrace, pid: i64, name: &str, ts: i64, dur: i64) {
    t.push(OwnedEvent {
        ph: Some("X".into()),
        cat: Some("user_annotation".into()),
        name: Some(name.into()),
        pid: Some(ScalarKey::Number(pid.to_string())),
        tid: None,
        ts_ns: Some(ts),
        dur_ns: Some(dur),
        args: Some(RawJson::from_value(&json!({}))),
        ..OwnedEvent::default()
    });
}

#[test]
fn target_spans_without_a_thread_are_calls_that_place_no_launch() {
    let host = (5, 5);
    let mut t = calls_trace(host, &[Call::Launches, Call::Launches]);
    // A third target span with no tid, around a launch on the host thread.
    unthreaded_annotation(&mut t, 5, &marker(TARGET), 3_000_000, 10_000);
    t.launch(host, "cuLaunchKernel", 3_001_000, 500, 99, None)
        .kernel(0, 7, PAGED, 3_060_000, 1_000);
    let v = target_alone(&t);
    let p = &v.processes[0];
    assert_eq!((p.target_marker_spans, p.target_marker_calls), (3, 3));
    // The launch under the unthreaded span cannot be placed on its thread.
    assert_eq!((p.matched_kernel_rows, p.matched_kernel_calls), (3, 2));
}

#[test]
fn declared_depth_must_be_strictly_greater_to_make_a_candidate_deeper() {
    // The target calls and launches; OTHER runs beside it (never inside,
    // never around) and launches the kernel itself.
    let host = (5, 5);
    let mut t = calls_trace(host, &[Call::Launches]);
    t.user_annotation(host, &marker(OTHER), 2_000_000, 10_000, Some(900));
    t.launch(host, "cuLaunchKernel", 2_001_000, 500, 901, None)
        .kernel(0, 7, PAGED, 2_060_000, 1_000);
    // THIRD also runs beside it, declares itself deeper, launches nothing.
    t.user_annotation(host, &marker(THIRD), 3_000_000, 10_000, Some(902));
    let c = Capture::new();
    let tr = c.trace("t.json.gz", &t);
    let run = |other_depth: i64| -> Verdict {
        select(
            &c,
            &[
                (TARGET, Some(1)),
                (OTHER, Some(other_depth)),
                (THIRD, Some(2)),
            ],
            vec![process("p", Some(&tr), &[TARGET, OTHER, THIRD])],
        )
    };
    for depth in [0, 1] {
        let v = run(depth);
        assert!(v.ok && v.deepest_verified, "depth {depth}: {:?}", v.failed);
        assert!(v.declared_deeper_live_candidates.is_empty());
        assert_eq!(candidate(&v, 0, OTHER).kernel_launches, 1);
    }
    let v = run(2);
    assert_eq!(v.failed, [Failure::DeclaredDeeperLiveCandidate]);
    assert!(!v.deepest_verified);
    // THIRD declares depth 2 too, but launches nothing.
    assert_eq!(v.declared_deeper_live_candidates, [OTHER]);
    assert_eq!(candidate(&v, 0, THIRD).kernel_launches, 0);
}

#[test]
fn a_candidate_starting_with_the_target_and_outlasting_it_encloses_it() {
    // OTHER declares itself deeper and launches the kernel, but every call
    // shows it around the target: [base, base + 20 µs] around
    // [base, base + 10 µs], starting at the same instant.
    let host = (5, 5);
    let mut t = KinetoTrace::new();
    let mut ids = Ids::new();
    for i in 0..2 {
        let base = 1_000_000 + i * 100_000;
        t.user_annotation(host, &marker(OTHER), base, 20_000, Some(ids.ext()));
        target_call(&mut t, host, base, &mut ids, Call::Launches);
    }
    let c = Capture::new();
    let tr = c.trace("t.json.gz", &t);
    let v = select(
        &c,
        &[(TARGET, Some(1)), (OTHER, Some(2))],
        vec![process("p", Some(&tr), &[TARGET, OTHER])],
    );
    let other = candidate(&v, 0, OTHER);
    assert_eq!(
        (
            other.live_calls,
            other.encloses_target_calls,
            other.nested_in_target_calls,
            other.kernel_launches,
            other.kernel_launches_nested_in_target
        ),
        (2, 2, 0, 2, 0)
    );
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
}

#[test]
fn a_target_that_never_launches_under_its_marker_is_not_deepest_verified() {
    let v = target_alone(&calls_trace(
        (5, 5),
        &[Call::LaunchesAfter, Call::LaunchesAfter],
    ));
    let p = &v.processes[0];
    assert_eq!(p.failed, [Failure::DeviceKernelNotUnderTarget]);
    assert_eq!((p.matched_kernel_rows, p.matched_kernel_calls), (2, 0));
    assert!(!p.ok && !p.deepest_verified);
    assert!(!v.ok && !v.deepest_verified);
}

#[test]
fn device_rows_without_a_launch_are_not_ambiguous_correlations() {
    let host = (5, 5);
    let mut t = calls_trace(host, &[Call::Launches]);
    // Device rows no runtime call correlates with.
    t.kernel(
        0,
        7,
        "void unlaunched_kernel<1>(int)",
        2_000_000,
        1_000,
        None,
        None,
    );
    t.kernel(0, 7, PAGED, 2_100_000, 1_000, Some(5_000), None);
    let v = target_alone(&t);
    assert_eq!(v.processes[0].ambiguous_correlation_rows, 0);
    assert_eq!(v.processes[0].matched_kernel_rows, 2);
    assert!(v.ok, "{:?}", v.failed);
    // Two runtime calls claiming one correlation id: the row they both
    // name is ambiguous, and no correlation edge is drawn for it.
    t.runtime(host, "cuLaunchKernel", 2_050_000, 500, Some(6_000), None);
    t.runtime(host, "cuLaunchKernel", 2_060_000, 500, Some(6_000), None);
    t.kernel(0, 7, PAGED, 2_200_000, 1_000, Some(6_000), None);
    let v = target_alone(&t);
    assert_eq!(v.processes[0].ambiguous_correlation_rows, 1);
    assert_eq!(v.processes[0].matched_kernel_rows, 3);
}

#[test]
fn refusals_keep_their_own_reasons_and_undeclared_installs_are_reported() {
    let c = Capture::new();
    let tr = c.trace("t.json.gz", &calls_trace((5, 5), &[Call::Launches]));
    let refused = json!([
        {"spec": THIRD, "reason": "native_object"},
        {"spec": OTHER, "reason": "jit_object"},
    ]);
    let installed = [TARGET, "pkg.extra:helper"];
    let mut evaluated = process("p0", Some(&tr), &installed);
    evaluated["refused"] = refused.clone();
    let mut missing = process("p1", None, &installed);
    missing["refused"] = refused;
    let v = select(
        &c,
        &[(TARGET, None), (OTHER, None), (THIRD, None)],
        vec![evaluated, missing],
    );
    for p in &v.processes {
        let got: Vec<(&str, &str)> = p
            .refused_candidates
            .iter()
            .map(|r| (r.spec.as_str(), r.reason.as_str()))
            .collect();
        // In probe order, each with its own reason.
        assert_eq!(
            got,
            [(OTHER, "jit_object"), (THIRD, "native_object")],
            "{}",
            p.name
        );
        assert_eq!(p.undeclared_installed, ["pkg.extra:helper"], "{}", p.name);
        assert_eq!(p.missing_candidate_markers, [OTHER, THIRD], "{}", p.name);
    }
}

#[test]
fn only_the_targets_evidence_row_is_marked_as_the_target() {
    let c = Capture::new();
    let tr = c.trace("t.json.gz", &calls_trace((5, 5), &[Call::Launches]));
    let all = [OTHER, TARGET, THIRD];
    let v = select(
        &c,
        &[(OTHER, None), (TARGET, None), (THIRD, None)],
        vec![
            process("read", Some(&tr), &all),
            process("absent", None, &all),
        ],
    );
    assert!(v.processes[0].evaluated && !v.processes[1].evaluated);
    for p in &v.processes {
        let flags: Vec<(&str, bool)> = p
            .candidates
            .iter()
            .map(|e| (e.spec.as_str(), e.is_target))
            .collect();
        assert_eq!(
            flags,
            [(OTHER, false), (TARGET, true), (THIRD, false)],
            "{}",
            p.name
        );
    }
}

#[test]
fn an_undeclared_target_is_probed_beside_the_declared_candidates() {
    let c = Capture::new();
    let tr = c.trace("t.json.gz", &calls_trace((5, 5), &[Call::Launches]));
    let v = select(
        &c,
        &[(OTHER, None), (THIRD, None)],
        vec![process("p", Some(&tr), &[TARGET, OTHER, THIRD])],
    );
    assert_eq!(v.declared_candidates, [TARGET, OTHER, THIRD]);
    assert_eq!(v.target_marker, marker(TARGET));
    assert_eq!(v.matched_kernel_calls, 1);
    assert!(v.ok, "{:?}", v.failed);
}

#[test]
fn a_trace_path_that_cannot_be_inspected_is_an_error_not_a_missing_trace() {
    let c = Capture::new();
    std::fs::write(c.path("not-a-dir"), b"a file").unwrap();
    let path = c.request(&request(
        TARGET,
        PAGED,
        &[(TARGET, None)],
        vec![process("p", Some("not-a-dir/t.json.gz"), &[TARGET])],
    ));
    let e = opguard_select::verdict_from_request_file(&path)
        .expect_err("a path through a file is not a missing trace");
    assert_eq!(e.code(), "trace_unreadable");
    assert!(e.to_string().contains("not-a-dir"), "{e}");
}

#[test]
fn models_are_given_one_per_process_in_request_order() {
    let c = Capture::new();
    let tr = c.trace("t.json.gz", &calls_trace((5, 5), &[Call::Launches]));
    let model = opguard_formats::read(
        c.path(&tr),
        ArtifactSpec::new().role("seam_capture"),
        &opguard_formats::ReadOptions::new(ModelOptions::new()),
    )
    .unwrap();
    let req = |n: usize| -> Request {
        let processes = (0..n)
            .map(|i| process(&format!("p{i}"), Some(&tr), &[TARGET]))
            .collect();
        serde_json::from_value(request(TARGET, PAGED, &[(TARGET, None)], processes)).unwrap()
    };
    let v = verdict_for_models(req(2), &[Some(&model), None]).unwrap();
    assert_eq!(v.failed, [Failure::CaptureProcessTraceMissing]);
    assert_eq!(v.processes[0].matched_kernel_calls, 1);
    let v = verdict_for_models(req(1), &[Some(&model)]).unwrap();
    assert!(v.ok, "{:?}", v.failed);
    for (n, given) in [(1, 0), (1, 2), (2, 1)] {
        let traces = vec![Some(&model); given];
        let e = verdict_for_models(req(n), &traces).unwrap_err();
        assert_eq!(e.code(), "invalid_value", "{n} processes, {given} traces");
        assert!(
            e.to_string()
                .contains(&format!("{given} traces were given for {n} processes")),
            "{e}"
        );
    }
}

#[test]
fn failures_display_as_their_codes() {
    let all = [
        (Failure::NoCaptureProcesses, "no_capture_processes"),
        (Failure::CaptureTargetMissing, "capture_target_missing"),
        (Failure::CaptureTargetMismatch, "capture_target_mismatch"),
        (
            Failure::CaptureProcessTraceMissing,
            "capture_process_trace_missing",
        ),
        (Failure::CandidateMarkerMissing, "candidate_marker_missing"),
        (Failure::TargetMarkerMissing, "target_marker_missing"),
        (
            Failure::DeviceKernelNotObserved,
            "device_kernel_not_observed",
        ),
        (Failure::DeviceKernelAmbiguous, "device_kernel_ambiguous"),
        (
            Failure::DeviceKernelNotUnderTarget,
            "device_kernel_not_under_target",
        ),
        (Failure::DeeperLiveCandidate, "deeper_live_candidate"),
        (
            Failure::DeclaredDeeperLiveCandidate,
            "declared_deeper_live_candidate",
        ),
    ];
    for (f, code) in all {
        assert_eq!(f.to_string(), code);
        assert_eq!(f.code(), code);
        assert_eq!(serde_json::to_value(f).unwrap(), code);
    }
}
