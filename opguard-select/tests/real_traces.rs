//! Verdicts on real traces, checked against an independent oracle: serde_json
//! over the decoded file, applying the rule directly (a device row is
//! attributed when its correlation's runtime call, or its External id's host
//! op, sits on the marker's thread inside a marker span).
//!
//! HolisticTraceAnalysis traces carry existing `record_function` markers
//! (`ProfilerStep#1`, optimizer steps, `## forward ##`); they are declared
//! as candidates with an explicit `marker`. The torch traces carry
//! `opguard.seam::` markers and no device kernels at all.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use opguard_select::{verdict_from_request_file, Failure, Verdict};
use serde_json::{json, Value};

use crate::support::*;

type Thread = (String, String);

/// Exact nanoseconds from a JSON number in microseconds.
fn ns(v: &Value) -> i64 {
    let text = v.to_string();
    if text.contains(['e', 'E']) {
        return (v.as_f64().expect("number") * 1000.0).round() as i64;
    }
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut frac = frac.to_owned();
    frac.truncate(3);
    while frac.len() < 3 {
        frac.push('0');
    }
    int.parse::<i64>().expect("integer part") * 1000 + frac.parse::<i64>().expect("fraction")
}

fn key(v: &Value) -> Option<String> {
    (!v.is_null()).then(|| v.to_string())
}

struct Ev {
    cat: String,
    name: String,
    thread: Option<Thread>,
    pid: Option<String>,
    ts: i64,
    end: i64,
    corr: Option<String>,
    ext: Option<String>,
}

fn is_runtime(cat: &str) -> bool {
    matches!(
        cat,
        "cuda_runtime" | "cuda_driver" | "hip_runtime" | "hip_driver" | "mtia_runtime"
    ) || cat.eq_ignore_ascii_case("runtime")
}

fn is_device(cat: &str) -> bool {
    cat.eq_ignore_ascii_case("kernel")
        || matches!(cat, "gpu_memcpy" | "gpu_memset" | "mtia_ccp_events")
}

/// The oracle's reading of one trace.
struct Oracle {
    events: Vec<Ev>,
    launches: HashMap<String, Vec<usize>>,
    hosts: HashMap<(String, String), Vec<usize>>,
    sole_pid: Option<String>,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    spans: u64,
    calls: u64,
    matched_rows: u64,
    matched: u64,
    matched_by_correlation: u64,
    launch_edges: u64,
    external_ids: u64,
}

impl Oracle {
    fn read(path: &Path) -> Oracle {
        let doc = decode(path);
        let list = doc
            .get("traceEvents")
            .or(Some(&doc))
            .and_then(Value::as_array)
            .expect("events");
        let mut events = Vec::new();
        for e in list.iter().filter(|e| e["ph"] == "X") {
            let (Some(ts), dur) = (e.get("ts"), e.get("dur")) else {
                continue;
            };
            let ts = ns(ts);
            let pid = key(&e["pid"]);
            let tid = key(&e["tid"]);
            events.push(Ev {
                cat: e["cat"].as_str().unwrap_or("").to_owned(),
                name: e["name"].as_str().unwrap_or("").to_owned(),
                thread: pid.clone().zip(tid),
                pid,
                ts,
                end: ts + dur.map_or(0, ns),
                corr: key(&e["args"]["correlation"]),
                ext: key(&e["args"]["External id"]),
            });
        }
        let mut launches: HashMap<String, Vec<usize>> = HashMap::new();
        let mut hosts: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let mut pids: HashSet<String> = HashSet::new();
        for (i, e) in events.iter().enumerate() {
            if is_runtime(&e.cat) {
                if let Some(c) = &e.corr {
                    launches.entry(c.clone()).or_default().push(i);
                }
            }
            if is_runtime(&e.cat) || e.cat == "cpu_op" || e.cat == "user_annotation" {
                if let Some(p) = &e.pid {
                    pids.insert(p.clone());
                    if let Some(x) = &e.ext {
                        hosts.entry((p.clone(), x.clone())).or_default().push(i);
                    }
                }
            }
        }
        let sole_pid = (pids.len() == 1).then(|| pids.into_iter().next().unwrap());
        Oracle {
            events,
            launches,
            hosts,
            sole_pid,
        }
    }

    fn spans(&self, marker: &str) -> BTreeMap<Thread, Vec<(i64, i64)>> {
        let mut by: BTreeMap<Thread, Vec<(i64, i64)>> = BTreeMap::new();
        for e in &self.events {
            if (e.cat == "user_annotation" || e.cat == "cpu_op") && e.name == marker {
                if let Some(t) = &e.thread {
                    by.entry(t.clone()).or_default().push((e.ts, e.end));
                }
            }
        }
        by
    }

    fn counts(&self, marker: &str, kernel: &str) -> Counts {
        let spans = self.spans(marker);
        let inside = |i: usize| within(&spans, &self.events[i]);
        let mut c = Counts {
            spans: spans.values().map(|v| v.len() as u64).sum(),
            calls: spans.values().map(|v| logical_calls(v)).sum(),
            ..Counts::default()
        };
        let mut ext_ids = HashSet::new();
        for e in self.events.iter().filter(|e| is_device(&e.cat)) {
            let launches = e.corr.as_ref().and_then(|c| self.launches.get(c));
            let launch = match launches.map(Vec::as_slice) {
                Some([one]) => Some(*one),
                _ => None,
            };
            let ext_pid = match launches {
                Some(l) if !l.is_empty() => {
                    let first = &self.events[l[0]].pid;
                    l.iter()
                        .all(|&i| self.events[i].pid == *first)
                        .then(|| first.clone())
                        .flatten()
                }
                _ => self.sole_pid.clone(),
            };
            let hosts: &[usize] = match (&e.ext, ext_pid) {
                (Some(x), Some(p)) => self.hosts.get(&(p, x.clone())).map_or(&[], |v| v),
                _ => &[],
            };
            let by_corr = launch.is_some_and(inside);
            let by_ext = hosts.iter().any(|&h| inside(h));
            c.launch_edges += u64::from(by_corr);
            if by_ext {
                ext_ids.insert(e.ext.clone());
            }
            if opguard_kernel_name::is_match(kernel, &e.name) {
                c.matched_rows += 1;
                c.matched += u64::from(by_corr || by_ext);
                c.matched_by_correlation += u64::from(by_corr);
            }
        }
        c.external_ids = ext_ids.len() as u64;
        c
    }

    /// The device row names attributed under `marker`, most first.
    fn top_kernels(&self, marker: &str) -> Vec<(String, u64)> {
        let spans = self.spans(marker);
        let mut n: HashMap<&str, u64> = HashMap::new();
        for e in self.events.iter().filter(|e| is_device(&e.cat)) {
            let Some(l) = e.corr.as_ref().and_then(|c| self.launches.get(c)) else {
                continue;
            };
            let [one] = l.as_slice() else { continue };
            if within(&spans, &self.events[*one]) {
                *n.entry(&e.name).or_default() += 1;
            }
        }
        let mut v: Vec<(String, u64)> = n.into_iter().map(|(k, c)| (k.to_owned(), c)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// How many calls of `inner` sit, by time alone, inside a span of
    /// `outer` on any thread.
    fn nested_calls_any_thread(&self, inner: &str, outer: &str) -> u64 {
        let outer: Vec<(i64, i64)> = self.spans(outer).into_values().flatten().collect();
        self.spans(inner)
            .values()
            .flat_map(|v| calls_of(v))
            .filter(|&(ts, end)| outer.iter().any(|s| s.0 <= ts && end <= s.1))
            .count() as u64
    }

    /// How many calls of `outer` contain a span of `inner` on their thread.
    fn enclosing_calls(&self, outer: &str, inner: &str) -> u64 {
        self.related_calls(outer, inner, |call, s| call.0 <= s.0 && s.1 <= call.1)
    }

    /// How many calls of `inner` sit inside a span of `outer` on its thread.
    fn nested_calls(&self, inner: &str, outer: &str) -> u64 {
        self.related_calls(inner, outer, |call, s| s.0 <= call.0 && call.1 <= s.1)
    }

    /// How many calls of `of` stand in `rel` to some span of `to` on the
    /// same thread.
    fn related_calls(&self, of: &str, to: &str, rel: fn((i64, i64), (i64, i64)) -> bool) -> u64 {
        let to = self.spans(to);
        let mut n = 0;
        for (t, spans) in self.spans(of) {
            for call in calls_of(&spans) {
                n += u64::from(to.get(&t).is_some_and(|v| v.iter().any(|&s| rel(call, s))));
            }
        }
        n
    }
}

/// Whether host event `e` sits inside one of `spans` on its own thread.
fn within(spans: &BTreeMap<Thread, Vec<(i64, i64)>>, e: &Ev) -> bool {
    e.thread.as_ref().is_some_and(|t| {
        spans
            .get(t)
            .is_some_and(|v| v.iter().any(|s| s.0 <= e.ts && e.end <= s.1))
    })
}

/// Spans not contained in an earlier one (by start, longer first): the
/// logical calls of one marker on one thread.
fn calls_of(spans: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut sorted = spans.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    (0..sorted.len())
        .filter(|&i| {
            !sorted[..i]
                .iter()
                .any(|o| o.0 <= sorted[i].0 && sorted[i].1 <= o.1)
        })
        .map(|i| sorted[i])
        .collect()
}

fn logical_calls(spans: &[(i64, i64)]) -> u64 {
    calls_of(spans).len() as u64
}

/// A candidate with an explicit marker.
fn cand(spec: &str, marker: &str) -> Value {
    json!({"spec": spec, "declared_depth": null, "marker": marker})
}

fn real_request(
    target: &str,
    kernel: &str,
    candidates: Vec<Value>,
    processes: Vec<(&str, &Path)>,
) -> Value {
    let specs: Vec<&str> = candidates
        .iter()
        .map(|c| c["spec"].as_str().unwrap())
        .collect();
    let processes: Vec<Value> = processes
        .into_iter()
        .map(|(name, path)| process(name, path.to_str(), &specs))
        .collect();
    let mut r = request(target, kernel, &[], processes);
    r["candidates"] = Value::Array(candidates);
    r
}

fn check(v: &Verdict, p: usize, want: &Counts, what: &str) {
    let got = &v.processes[p];
    let got = Counts {
        spans: got.target_marker_spans,
        calls: got.target_marker_calls,
        matched_rows: got.matched_kernel_rows,
        matched: got.matched_kernel_calls,
        matched_by_correlation: got.matched_by_launch_correlation,
        launch_edges: got.launch_correlation_edges,
        external_ids: got.correlated_external_ids,
    };
    assert_eq!(&got, want, "{what}: verdict vs oracle");
}

#[test]
fn amd_rocm_optimizer_step_is_certified_and_the_profiler_step_refused() {
    let Some(path) = shared("traces/hta/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz")
    else {
        return;
    };
    let o = Oracle::read(&path);
    let (step, opt) = ("ProfilerStep#1", "Optimizer.step#SGD.step");
    let (step_spec, opt_spec) = (
        "torch.profiler.profiler:profile.step",
        "torch.optim.sgd:SGD.step",
    );
    let kernel = o.top_kernels(opt)[0].0.clone();
    assert!(kernel.contains("multi_tensor_apply_kernel"), "{kernel}");
    let c = Capture::new();
    let candidates = vec![cand(step_spec, step), cand(opt_spec, opt)];
    let v = c.verdict(&real_request(
        opt_spec,
        &kernel,
        candidates.clone(),
        vec![("pid-597913", &path)],
    ));
    let want = o.counts(opt, &kernel);
    assert_eq!(want.matched, 1);
    check(&v, 0, &want, "SGD.step");
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    assert_eq!(v.processes[0].provider.as_deref(), Some("kineto_rocm"));
    // The profiler re-emitted both markers on the device timeline.
    assert_eq!(v.processes[0].target_device_projected_spans, 1);
    assert_eq!(candidate(&v, 0, step_spec).encloses_target_calls, 1);

    // Selecting the step instead: the optimizer step is observed inside it,
    // launching the kernel. Kernels of the backward thread, launched in the
    // step's time but on another thread, are not the step's.
    let v = c.verdict(&real_request(
        step_spec,
        &kernel,
        candidates,
        vec![("pid-597913", &path)],
    ));
    let want = o.counts(step, &kernel);
    check(&v, 0, &want, "ProfilerStep#1");
    assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
    assert_eq!(v.deeper_live_candidates, [opt_spec]);
    let backward = o
        .events
        .iter()
        .filter(|e| is_runtime(&e.cat) && e.thread.as_ref().is_some_and(|t| t.1 == "598009"))
        .count();
    assert!(
        backward > 0,
        "the trace has launches on the backward thread"
    );
}

#[test]
fn nccl_trace_forward_and_optimizer_seams_match_the_oracle() {
    let Some(path) = shared("traces/hta/nccl_parser_config__nccl_data.json.gz") else {
        return;
    };
    let o = Oracle::read(&path);
    for (outer, inner, outer_spec, inner_spec) in [
        (
            "## forward ##",
            "DistributedDataParallel.forward",
            "trainer.loop:forward",
            "torch.nn.parallel.distributed:DistributedDataParallel.forward",
        ),
        (
            "## optimizer ##",
            "Optimizer.step#SGD.step",
            "trainer.loop:optimizer",
            "torch.optim.sgd:SGD.step",
        ),
    ] {
        let kernel = o.top_kernels(inner)[0].0.clone();
        let candidates = vec![cand(outer_spec, outer), cand(inner_spec, inner)];
        let c = Capture::new();
        let nested = o.nested_calls(inner, outer);
        assert!(nested > 0, "{inner} runs inside {outer}");

        let v = c.verdict(&real_request(
            inner_spec,
            &kernel,
            candidates.clone(),
            vec![("rank", &path)],
        ));
        let want = o.counts(inner, &kernel);
        assert!(want.matched > 0);
        check(&v, 0, &want, inner);
        assert!(v.ok && v.deepest_verified, "{inner}: {:?}", v.failed);
        assert_eq!(
            candidate(&v, 0, outer_spec).encloses_target_calls,
            o.enclosing_calls(outer, inner)
        );

        let v = c.verdict(&real_request(
            outer_spec,
            &kernel,
            candidates,
            vec![("rank", &path)],
        ));
        let want = o.counts(outer, &kernel);
        check(&v, 0, &want, outer);
        assert_eq!(v.failed, [Failure::DeeperLiveCandidate], "{outer}");
        assert_eq!(candidate(&v, 0, inner_spec).nested_in_target_calls, nested);
    }
}

#[test]
fn two_real_ranks_each_match_their_oracle_and_sum() {
    let (Some(r0), Some(r1)) = (
        shared("traces/hta/trace_filter__sampled_rank-0.json.gz"),
        shared("traces/hta/trace_filter__sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let (o0, o1) = (Oracle::read(&r0), Oracle::read(&r1));
    let marker = "DistributedDataParallel.forward";
    let spec = "torch.nn.parallel.distributed:DistributedDataParallel.forward";
    let names1: HashSet<String> = o1.top_kernels(marker).into_iter().map(|k| k.0).collect();
    let kernel = o0
        .top_kernels(marker)
        .into_iter()
        .map(|k| k.0)
        .find(|k| names1.contains(k))
        .expect("a kernel both ranks launch in the forward");
    let c = Capture::new();
    let v = c.verdict(&real_request(
        spec,
        &kernel,
        vec![cand(spec, marker)],
        vec![("rank-0", &r0), ("rank-1", &r1)],
    ));
    let (w0, w1) = (o0.counts(marker, &kernel), o1.counts(marker, &kernel));
    check(&v, 0, &w0, "rank 0");
    check(&v, 1, &w1, "rank 1");
    assert!(w0.matched > 0 && w1.matched > 0);
    assert_eq!(v.matched_kernel_calls, w0.matched + w1.matched);
    assert_eq!(v.target_marker_calls, w0.calls + w1.calls);
    let all_ok = v.processes.iter().all(|p| p.ok);
    assert_eq!(v.ok, all_ok && v.failed.is_empty());
    // Rank 1 without its trace sinks the verdict.
    let mut r = real_request(
        spec,
        &kernel,
        vec![cand(spec, marker)],
        vec![("rank-0", &r0), ("rank-1", &r1)],
    );
    r["processes"][1]["trace"] = Value::Null;
    let v = c.verdict(&r);
    assert_eq!(v.processes[1].failed, [Failure::CaptureProcessTraceMissing]);
    assert!(!v.ok);
}

#[test]
fn launches_on_another_thread_or_process_are_never_the_markers() {
    // The backward thread: the marker is on tid 3914, the launch on 24922.
    // The Triton example: the marker and the launch are in two processes.
    for (file, marker, spec) in [
        (
            "traces/hta/call_stack__backward_thread.json",
            "## backward ##",
            "trainer.loop:backward",
        ),
        (
            "traces/hta/triton_example__triton_example.json.gz",
            "ProfilerStep#1",
            "torch.profiler.profiler:profile.step",
        ),
    ] {
        let Some(path) = shared(file) else { return };
        let o = Oracle::read(&path);
        let kernel = o
            .events
            .iter()
            .find(|e| e.cat == "kernel")
            .map(|e| e.name.clone())
            .expect("one kernel");
        let c = Capture::new();
        let v = c.verdict(&real_request(
            spec,
            &kernel,
            vec![cand(spec, marker)],
            vec![("p", &path)],
        ));
        let want = o.counts(marker, &kernel);
        assert_eq!((want.matched_rows, want.matched), (1, 0), "{file}");
        check(&v, 0, &want, file);
        assert_eq!(v.failed, [Failure::DeviceKernelNotUnderTarget], "{file}");
    }
}

#[test]
fn cpu_only_torch_capture_fails_with_device_kernel_never_observed() {
    let Some(path) = shared("torch/traces/proc_a.json.gz") else {
        return;
    };
    let seams: Value =
        serde_json::from_slice(&std::fs::read(path.with_file_name("proc_a.seams.json")).unwrap())
            .unwrap();
    let declared: Vec<String> = seams["declared_seams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().strip_prefix(PREFIX).unwrap().to_owned())
        .collect();
    assert_eq!(declared.len(), 7);
    let target = "mymodel.layers:Attention.forward";
    let candidates: Vec<(&str, Option<i64>)> =
        declared.iter().map(|s| (s.as_str(), None)).collect();
    let installed: Vec<&str> = declared.iter().map(String::as_str).collect();
    let c = Capture::new();
    let v = c.verdict(&request(
        target,
        "attention_core_kernel",
        &candidates,
        vec![process(
            "pid-14130",
            Some(path.to_str().unwrap()),
            &installed,
        )],
    ));
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(
        codes(&v),
        [
            "device_kernel_not_observed",
            "device_kernel_not_under_target"
        ]
    );
    assert_eq!(v.processes[0].provider.as_deref(), Some("kineto_other"));
    // Everything else is read from the real markers, and agrees with the
    // capture's own record and with the oracle.
    let o = Oracle::read(&path);
    let observed = seams["observed_seams"].as_object().unwrap();
    for spec in &declared {
        let m = marker(spec);
        let e = candidate(&v, 0, spec);
        let count = observed.get(&m).map_or(0, |s| s["count"].as_u64().unwrap());
        assert_eq!(e.spans, count, "{spec}");
        assert_eq!(
            e.live_calls,
            o.spans(&m).values().map(|v| logical_calls(v)).sum::<u64>()
        );
        if spec != target {
            assert_eq!(
                e.nested_in_target_calls,
                o.nested_calls(&m, &marker(target)),
                "{spec}"
            );
            assert_eq!(
                e.encloses_target_calls,
                o.enclosing_calls(&m, &marker(target)),
                "{spec}"
            );
        }
    }
    assert_eq!(v.target_marker_calls, 6);
    assert_eq!(
        candidate(&v, 0, "mymodel.kernels:attention_core").nested_in_target_calls,
        6
    );
    assert_eq!(
        candidate(&v, 0, "mymodel.model:TinyDecoder.decode_step").encloses_target_calls,
        3
    );
    let never: Vec<String> = seams["declared_never_observed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().strip_prefix(PREFIX).unwrap().to_owned())
        .collect();
    assert_eq!(v.installed_but_never_live_candidates, never);
}

#[test]
fn two_threads_nest_only_on_their_own_thread() {
    let Some(path) = shared("torch/traces/threads.json.gz") else {
        return;
    };
    let o = Oracle::read(&path);
    let target = "mymodel.layers:Attention.forward";
    let core = "mymodel.kernels:attention_core";
    let step = "mymodel.model:TinyDecoder.decode_step";
    let others = [
        "mymodel.kernels:rms_norm",
        "mymodel.layers:MLP.forward",
        "mymodel.kernels:silu_gate",
    ];
    let mut specs = vec![step, target, core];
    specs.extend(others);
    let candidates: Vec<(&str, Option<i64>)> = specs.iter().map(|s| (*s, None)).collect();
    let c = Capture::new();
    let v = c.verdict(&request(
        target,
        "attention_core_kernel",
        &candidates,
        vec![process("pid-14176", Some(path.to_str().unwrap()), &specs)],
    ));
    assert_eq!(
        codes(&v),
        [
            "device_kernel_not_observed",
            "device_kernel_not_under_target"
        ]
    );
    let spans = o.spans(&marker(target));
    assert_eq!(spans.len(), 2, "two threads");
    assert_eq!(v.target_marker_calls, 4);
    let core_e = candidate(&v, 0, core);
    assert_eq!(
        core_e.nested_in_target_calls,
        o.nested_calls(&marker(core), &marker(target))
    );
    assert_eq!(core_e.nested_in_target_calls, 4);
    let step_e = candidate(&v, 0, step);
    assert_eq!(step_e.live_calls, 2);
    assert_eq!(step_e.encloses_target_calls, 2);
    assert_eq!(
        step_e.encloses_target_calls,
        o.enclosing_calls(&marker(step), &marker(target))
    );
    // The two steps run at the same time, so calls of one thread fall in
    // the other thread's attention span: a thread-blind nesting would see
    // them as nested (and even a whole step inside an attention call).
    for spec in others.iter().chain([&step]) {
        let m = marker(spec);
        let own = o.nested_calls(&m, &marker(target));
        let across = o.nested_calls_any_thread(&m, &marker(target));
        assert!(across > own, "{spec}: the trace shows cross-thread overlap");
        assert_eq!(candidate(&v, 0, spec).nested_in_target_calls, own, "{spec}");
    }
}

/// The 87 MB MTIA trace: its optimizer step marker is recorded twice, one
/// copy inside the other, on the same thread.
#[test]
fn mtia_nested_same_name_copies_are_one_call() {
    if cfg!(debug_assertions) && std::env::var("OPGUARD_SLOW_TESTS").is_err() {
        eprintln!("skipping the 87 MB MTIA trace in a debug build (set OPGUARD_SLOW_TESTS=1, or run with --release)");
        return;
    }
    let Some(path) = shared("traces/hta/mtia_trace_single_rank__mtia_rank_0.json.gz") else {
        return;
    };
    let o = Oracle::read(&path);
    let (outer, inner) = (
        "Optimizer.step#CombinedOptimizer.step",
        "Optimizer.step#Adam.step",
    );
    let (outer_spec, inner_spec) = (
        "torchrec.optim:CombinedOptimizer.step",
        "torch.optim.adam:Adam.step",
    );
    let kernel = o.top_kernels(inner)[0].0.clone();
    let c = Capture::new();
    let v = c.verdict(&real_request(
        outer_spec,
        &kernel,
        vec![cand(outer_spec, outer), cand(inner_spec, inner)],
        vec![("rank-0", &path)],
    ));
    let want = o.counts(outer, &kernel);
    check(&v, 0, &want, outer);
    assert!(want.spans > want.calls, "nested copies exist: {want:?}");
    assert_eq!(v.failed, [Failure::DeeperLiveCandidate]);
}

#[test]
fn request_paths_are_relative_to_the_request_file() {
    let Some(path) = shared("traces/hta/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz")
    else {
        return;
    };
    let c = Capture::new();
    std::fs::copy(&path, c.path("rank0.json.gz")).unwrap();
    let spec = "torch.optim.sgd:SGD.step";
    let r = real_request(
        spec,
        "multi_tensor_apply_kernel",
        vec![cand(spec, "Optimizer.step#SGD.step")],
        vec![("rank-0", Path::new("rank0.json.gz"))],
    );
    let file = c.request(&r);
    let v = verdict_from_request_file(&file).unwrap();
    assert_eq!(v.matched_kernel_calls, 1);
    assert!(v.ok, "{:?}", v.failed);
}
