//! What [`ModelOptions::operation_args`] adds to a model, held against the
//! trace's JSON parsed independently (serde_json over the decoded bytes),
//! and the Python-frame stacks against a brute-force search.

use std::path::{Path, PathBuf};

use opguard_model::{ArtifactSpec, ModelOptions, SliceClass, TraceModel};
use serde_json::Value;

/// Real traces with shapes: Python frames (`proc_a`, `threads`), the HTA
/// sample (shapes, sequence numbers, a rank), and the committed torch
/// captures.
fn traces() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = [
        "torch/traces/proc_a.json.gz",
        "torch/traces/threads.json.gz",
        "traces/hta/trace_filter__sampled_rank-1.json.gz",
        "traces/hta/call_stack__backward_thread.json",
        "traces/hta/trace_compare__base__base.json.gz",
    ]
    .iter()
    .filter_map(|p| opguard_testdata::shared_file(p))
    .collect();
    out.push(opguard_testdata::producer_trace("torch_cpu.json.gz"));
    out.push(opguard_testdata::producer_trace("torch_inductor.json.gz"));
    out
}

fn read(path: &Path, options: &ModelOptions) -> TraceModel {
    opguard_trace::read_model(
        path,
        ArtifactSpec::new(),
        options,
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap()
}

fn events(path: &Path) -> (Value, Vec<Value>) {
    let mut doc: Value = serde_json::from_slice(&opguard_testdata::decoded(path)).unwrap();
    let events = doc["traceEvents"]
        .as_array_mut()
        .map(std::mem::take)
        .unwrap();
    (doc, events)
}

#[test]
fn operation_args_are_kept_only_when_asked_and_as_the_trace_writes_them() {
    for path in traces() {
        let plain = read(&path, &ModelOptions::new());
        let kept = read(&path, &ModelOptions::new().operation_args(true));
        assert!(!plain.keeps_operation_args() && kept.keeps_operation_args());
        // Asking for more changes nothing else (names compared as text: the
        // extra texts are interned too).
        let view = |m: &TraceModel| -> Vec<String> {
            m.slices()
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let ids = [s.pid, s.tid, s.correlation, s.external_id, s.stream]
                        .map(|v| v.map(|v| m.id_text(v)));
                    let dims = m
                        .host_detail(i)
                        .and_then(|d| d.input_dims)
                        .map(|d| m.name(d));
                    let (name, cat) = (m.name(s.name), m.name(s.cat));
                    format!(
                        "{} {:?} {name} {cat} {} {} {ids:?} {dims:?}",
                        s.index, s.class, s.ts_ns, s.dur_ns
                    )
                })
                .collect()
        };
        let (a, b) = (view(&plain), view(&kept));
        assert!(a == b, "{path:?}: the models differ");
        let (doc, events) = events(&path);
        let mut checked = [0u32; 5];
        for (i, s) in kept.slices().iter().enumerate() {
            assert_eq!(plain.operation_args(i), None);
            let args = &events[s.index as usize]["args"];
            let Some(a) = kept.operation_args(i) else {
                if s.class == SliceClass::CpuOp {
                    for key in [
                        "Input Dims",
                        "Input type",
                        "Input Strides",
                        "Sequence number",
                    ] {
                        assert!(args.get(key).is_none(), "{path:?} {i} {key}");
                    }
                }
                continue;
            };
            assert_eq!(s.class, SliceClass::CpuOp, "only operators keep them");
            let json =
                |t: Option<_>| t.map(|t| serde_json::from_str::<Value>(kept.name(t)).unwrap());
            for (n, (key, text)) in [
                ("Input Dims", a.input_dims),
                ("Input type", a.input_types),
                ("Input Strides", a.input_strides),
            ]
            .into_iter()
            .enumerate()
            {
                assert_eq!(json(text).as_ref(), args.get(key), "{path:?} {i} {key}");
                checked[n] += u32::from(text.is_some());
            }
            assert_eq!(
                a.call_stack.map(|c| kept.name(c)),
                args.get("Call stack").and_then(Value::as_str)
            );
            checked[3] += u32::from(a.call_stack.is_some());
            let written = args.get("Sequence number").map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            assert_eq!(a.sequence_number.map(|n| kept.id_text(n)), written);
            checked[4] += u32::from(a.sequence_number.is_some());
        }
        eprintln!("{path:?}: dims/types/strides/call stack/sequence kept {checked:?}");
        let rank = doc
            .get("distributedInfo")
            .and_then(|d| d.get("rank"))
            .map(|r| r.as_u64().unwrap() as u32);
        assert_eq!(kept.distributed_rank(), Ok(rank), "{path:?}");
        assert_eq!(kept.first_untimed_operation(), None);
    }
}

#[test]
fn an_operations_model_is_the_full_model_without_the_device() {
    let mut device_left_out = 0;
    // The HTA traces but the two largest (MTIA, NCCL): tens of MB each in a
    // debug build, and their kinds of device work are among the others.
    let small = |p: &PathBuf| std::fs::metadata(p).is_ok_and(|m| m.len() < 500_000);
    // The committed traces run everywhere; the HTA ones when the shared
    // data is there, and only they have device work to leave out.
    let hta = opguard_testdata::hta_traces();
    let with_hta = hta.is_some();
    let hta = hta.into_iter().flatten().filter(small);
    for path in traces().into_iter().chain(hta) {
        let full = read(&path, &ModelOptions::new().operation_args(true));
        let host = read(&path, &ModelOptions::operations());
        assert_eq!(
            full.artifact(),
            host.artifact(),
            "{path:?}: same provider and digest"
        );
        assert!(host.flows().is_empty());
        let of = |m: &TraceModel| -> Vec<String> {
            m.slices()
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    !(s.class.is_device()
                        || s.class.is_runtime()
                        || s.class == SliceClass::GpuUserAnnotation)
                })
                .map(|(i, s)| {
                    let args = m.operation_args(i).map(|a| {
                        let text = |t: Option<_>| t.map(|t| m.name(t).to_owned());
                        let n = a.sequence_number.map(|n| m.id_text(n));
                        (
                            text(a.input_dims),
                            text(a.input_types),
                            text(a.call_stack),
                            n,
                        )
                    });
                    format!(
                        "{} {} {} {} {args:?}",
                        s.index,
                        m.name(s.name),
                        s.ts_ns,
                        s.dur_ns
                    )
                })
                .collect()
        };
        assert_eq!(of(&full), of(&host), "{path:?}");
        assert_eq!(of(&host).len(), host.slices().len(), "host slices only");
        device_left_out += full.slices().len() - host.slices().len();
    }
    assert!(
        !with_hta || device_left_out > 1000,
        "the traces have device work: {device_left_out}"
    );
}

#[test]
fn python_stacks_are_every_enclosing_frame_of_the_thread_innermost_first() {
    let mut with_frames = 0;
    for path in traces() {
        let m = read(&path, &ModelOptions::new());
        let order = m.operations_in_start_order();
        let slices = m.slices();
        // Start order, checked pairwise.
        for w in order.windows(2) {
            let (a, b) = (&slices[w[0]], &slices[w[1]]);
            assert!((a.ts_ns, -a.dur_ns, a.index) < (b.ts_ns, -b.dur_ns, b.index));
        }
        let ops = slices
            .iter()
            .filter(|s| s.class == SliceClass::CpuOp)
            .count();
        assert_eq!(order.len(), ops);
        let stacks = m.python_stacks(&order);
        for (&op, stack) in order.iter().zip(&stacks) {
            let o = &slices[op];
            // Brute force: every frame of the thread open at the start.
            let mut open: Vec<usize> = (0..slices.len())
                .filter(|&f| {
                    let s = &slices[f];
                    s.class == SliceClass::PythonFunction
                        && (s.pid, s.tid) == (o.pid, o.tid)
                        && s.ts_ns <= o.ts_ns
                        && s.end_ns() > o.ts_ns
                })
                .collect();
            open.sort_by_key(|&f| (slices[f].ts_ns, std::cmp::Reverse(slices[f].end_ns())));
            open.reverse();
            assert_eq!(stack, &open, "{path:?} operation {}", o.index);
            with_frames += usize::from(!stack.is_empty());
        }
    }
    assert!(
        with_frames > 100,
        "the traces have Python frames: {with_frames}"
    );
}
