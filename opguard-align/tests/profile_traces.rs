//! Records from small PyTorch-profiler-shaped traces written with
//! opguard-trace's Kineto writer: which events become operations, how
//! inputs are flattened and counted, which python frames enclose an
//! operation, how provenance numbers are kept, and how several traces are
//! checked for distinct (run, rank). Every expected value is derived by hand
//! from the events written here.

use std::path::{Path, PathBuf};

use opguard_align::{
    export, export_profile_records, export_profiles, records_from_profile, ExportOptions,
    ExportRequest, ExportSummary, ProfileInput, TensorSummary,
};
use opguard_testdata::kineto_writer::KinetoTrace;
use opguard_trace::{OwnedEvent, RawJson, ReaderOptions, ScalarKey};

const PID: i64 = 1;
const TID: i64 = 7;

fn slice(cat: &str, ph: &str, name: &str, ts_ns: i64, dur_ns: i64, args: &str) -> OwnedEvent {
    OwnedEvent {
        ph: Some(ph.into()),
        cat: Some(cat.into()),
        name: Some(name.into()),
        pid: Some(ScalarKey::from(PID)),
        tid: Some(ScalarKey::from(TID)),
        ts_ns: Some(ts_ns),
        dur_ns: Some(dur_ns),
        args: Some(RawJson::new(args).expect("args are JSON")),
        ..OwnedEvent::default()
    }
}

/// One trace: three operations recorded with shapes under python frames,
/// plus events that are not operations. `mm_dtype` is the element type of
/// the matrix multiply's first input (the one difference between runs).
fn trace(mm_dtype: &str) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    t.set_metadata("distributedInfo", &serde_json::json!({"rank": 2}));
    let py = |name: &str, ts: i64, dur: i64| slice("python_function", "X", name, ts, dur, "{}");
    // forward [0, 100 µs) encloses everything; block [10, 30) ends exactly
    // when aten::mm starts; inner [20, 50) was rounded past its parent's
    // end, so at 30 µs it is still open while block, below it, is not.
    t.push(py("model.py(10): forward", 0, 100_000));
    t.push(py("model.py(20): block", 10_000, 20_000));
    t.push(py("model.py(30): inner", 20_000, 30_000));
    // Not operations: another category, and a cpu_op that is not a slice.
    t.user_annotation((PID, TID), "ProfilerStep#1", 0, 200_000, None);
    t.push(slice("cpu_op", "i", "aten::empty", 25_000, 0, "{}"));
    t.push(slice(
        "cpu_op",
        "X",
        "aten::mm",
        30_000,
        5_000,
        &format!(
            r#"{{"External id": 5, "Sequence number": -3, "Input Dims": [[2, 3], [3, 4]], "Input type": ["{mm_dtype}", "float"], "Input Strides": [[3, 1], []]}}"#
        ),
    ));
    t.push(slice(
        "cpu_op",
        "X",
        "aten::cat",
        60_000,
        5_000,
        r#"{"External id": 18446744073709551616, "Input Dims": [[[2, 3], [2, 5]], []], "Input type": ["TensorList", "Scalar"]}"#,
    ));
    // Three tensor inputs without a usable shape: a dimension that is not a
    // number, a tensor list whose dims are not a list of shapes, and a type
    // with no dims entry at all.
    t.push(slice(
        "cpu_op",
        "X",
        "aten::add",
        70_000,
        5_000,
        r#"{"Input Dims": [[4], [4, "x"], [], [4]], "Input type": ["float", "float", "Scalar", "TensorList", "float"]}"#,
    ));
    t
}

fn write(dir: &Path, name: &str, t: &KinetoTrace) -> PathBuf {
    let path = dir.join(name);
    let bytes = if name.ends_with(".gz") {
        t.to_gzip().expect("gzip trace")
    } else {
        t.to_bytes().expect("trace")
    };
    std::fs::write(&path, bytes).expect("write trace");
    path
}

/// (shape, dtype, argument, list item) of each input summary.
type Flat<'a> = (Vec<i64>, &'a str, Option<u32>, Option<u32>);

fn shapes(inputs: &[TensorSummary]) -> Vec<Flat<'_>> {
    inputs
        .iter()
        .map(|s| (s.shape.clone(), s.dtype.as_str(), s.arg, s.item))
        .collect()
}

#[test]
fn only_cpu_op_slices_become_records_with_their_input_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "base.pt.trace.json", &trace("float"));
    let recs = records_from_profile(&ProfileInput::new(&path), &ReaderOptions::default()).unwrap();
    assert_eq!((recs.run.as_str(), recs.rank), ("base", 2));
    let ops: Vec<(&str, &str, u64)> = recs
        .records
        .iter()
        .map(|r| (r.record_id.as_str(), r.op.as_str(), r.sequence))
        .collect();
    assert_eq!(
        ops,
        [
            ("base/rank2/op0", "aten::mm", 0),
            ("base/rank2/op1", "aten::cat", 1),
            ("base/rank2/op2", "aten::add", 2),
        ]
    );
    for r in &recs.records {
        assert_eq!((r.run.as_str(), r.rank), ("base", 2));
        assert!(r.io.outputs.is_empty(), "the profiler records no outputs");
        assert_eq!(r.thread.as_deref(), Some("1/7"));
    }
    let [mm, cat, add] = &recs.records[..] else {
        unreachable!()
    };
    assert_eq!(
        shapes(&mm.io.inputs),
        [
            (vec![2, 3], "float", Some(0), None),
            (vec![3, 4], "float", Some(1), None)
        ]
    );
    // A recorded stride is kept; an empty one means "not recorded".
    assert_eq!(mm.io.inputs[0].stride, Some(vec![3, 1]));
    assert_eq!(mm.io.inputs[1].stride, None);
    assert_eq!((mm.ts_ns, mm.dur_ns), (Some(30_000), Some(5_000)));
    // A tensor list becomes one summary per element; the scalar is dropped.
    assert_eq!(
        shapes(&cat.io.inputs),
        [
            (vec![2, 3], "TensorList", Some(0), Some(0)),
            (vec![2, 5], "TensorList", Some(0), Some(1))
        ]
    );
    assert_eq!(shapes(&add.io.inputs), [(vec![4], "float", Some(0), None)]);
}

#[test]
fn each_tensor_input_without_a_usable_shape_counts_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "base.json", &trace("float"));
    let recs = records_from_profile(&ProfileInput::new(&path), &ReaderOptions::default()).unwrap();
    // aten::add: [4, "x"], a TensorList with dims [4], a float without dims.
    assert_eq!(recs.unsummarized_inputs, 3);
    // One such input alone counts one.
    let mut t = KinetoTrace::new();
    t.push(slice(
        "cpu_op",
        "X",
        "aten::relu",
        0,
        1_000,
        r#"{"Input Dims": [["?"]], "Input type": ["float"]}"#,
    ));
    let one = write(dir.path(), "one.json", &t);
    let recs = records_from_profile(&ProfileInput::new(&one), &ReaderOptions::default()).unwrap();
    assert_eq!(recs.records.len(), 1);
    assert!(recs.records[0].io.inputs.is_empty());
    assert_eq!(recs.unsummarized_inputs, 1);
    assert_eq!(recs.rank, 0, "no distributedInfo means rank 0");
}

#[test]
fn provenance_numbers_stay_json_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "base.json", &trace("float"));
    let recs = records_from_profile(&ProfileInput::new(&path), &ReaderOptions::default()).unwrap();
    let origin = |i: usize| recs.records[i].origin.clone().expect("origin");
    let mm = origin(0);
    assert_eq!(mm["external_id"], serde_json::json!(5));
    assert!(mm["external_id"].is_u64());
    assert_eq!(mm["sequence_number"], serde_json::json!(-3));
    assert!(mm["sequence_number"].is_i64());
    assert_eq!(
        mm["event"],
        serde_json::json!(format!("{}:{}", recs.sha256, 5)),
        "aten::mm is event 5 of the trace"
    );
    // Beyond u64 a number is kept exactly, as its text.
    assert_eq!(
        origin(1)["external_id"],
        serde_json::json!("18446744073709551616")
    );
    assert!(origin(2).get("external_id").is_none());
}

#[test]
fn a_frame_that_ended_when_the_operation_starts_is_not_on_its_stack() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "base.json", &trace("float"));
    let recs = records_from_profile(&ProfileInput::new(&path), &ReaderOptions::default()).unwrap();
    let stack = |i: usize| -> Vec<String> {
        recs.records[i]
            .stack
            .iter()
            .map(|f| f.function.clone())
            .collect()
    };
    // aten::mm at 30 µs: block [10, 30) has ended, inner [20, 50) and
    // forward [0, 100) are open. Innermost first.
    assert_eq!(stack(0), ["inner", "forward"]);
    let c = recs.records[0].callsite.as_ref().expect("callsite");
    assert_eq!(
        (c.file.as_str(), c.function.as_str(), c.line),
        ("model.py", "inner", Some(30))
    );
    // aten::cat at 60 µs and aten::add at 70 µs: only forward is open.
    assert_eq!(stack(1), ["forward"]);
    assert_eq!(stack(2), ["forward"]);
}

#[test]
fn two_traces_export_as_two_runs_of_one_rank() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.pt.trace.json", &trace("float"));
    let test = write(dir.path(), "test.pt.trace.json.gz", &trace("c10::Half"));
    let out = dir.path().join("view.json");
    let s = export_profiles(&[ProfileInput::new(&base), ProfileInput::new(&test)], &out).unwrap();
    assert_eq!(s.runs, ["base", "test"]);
    assert_eq!(s.ranks, [2]);
    assert_eq!((s.operations, s.pairs), (6, 3));
    assert_eq!((s.statuses.ok, s.statuses.differs), (4, 2));
    assert_eq!(s.sources.len(), 2);
    assert!(s.sources.iter().all(|x| x.kind == "profile"));
    assert_eq!(
        s.first_differences
            .iter()
            .map(|f| f.record_id.as_str())
            .collect::<Vec<_>>(),
        ["base/rank2/op0", "test/rank2/op0"]
    );
    let view = crate::read_view(&out);
    let ops = crate::ops_by_id(&view);
    // Each operation event is named by its operator (what Perfetto shows).
    for (id, (_, e)) in &ops {
        assert_eq!(e["name"], e["args"]["op"]["name"], "{id}");
    }
    let (_, mm) = &ops["test/rank2/op0"];
    assert_eq!(mm["name"], "aten::mm");
    assert_eq!(mm["args"]["io"]["inputs"][0]["dtype"], "c10::Half");
    assert_eq!(
        mm["args"]["io"]["inputs"][0]["shape"],
        serde_json::json!([2, 3])
    );
}

#[test]
fn each_run_and_rank_may_come_from_one_trace_only() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.json", &trace("float"));
    let test = write(dir.path(), "test.json", &trace("float"));
    let input = |path: &PathBuf, run: &str, rank: u32| ProfileInput {
        path: path.clone(),
        run: Some(run.into()),
        rank: Some(rank),
    };
    // Two runs of two ranks each: the same run label with another rank, or
    // the same rank with another run label, is no duplicate.
    let out = dir.path().join("two_ranks.json");
    let s = export_profiles(
        &[
            input(&base, "x", 0),
            input(&base, "x", 1),
            input(&test, "y", 0),
            input(&test, "y", 1),
        ],
        &out,
    )
    .unwrap();
    assert_eq!(s.ranks, [0, 1]);
    assert_eq!((s.operations, s.pairs), (12, 6));
    // The same run and rank twice is refused, naming the second trace.
    let out = dir.path().join("dup.json");
    let err = export_profiles(
        &[
            input(&base, "x", 0),
            input(&test, "y", 0),
            input(&test, "x", 0),
        ],
        &out,
    )
    .unwrap_err();
    assert_eq!(err.code(), "duplicate_run_rank");
    assert_eq!(err.path(), Some(test.as_path()));
    assert!(!out.exists());
}

#[test]
fn an_export_needs_two_or_more_traces() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.json", &trace("float"));
    for inputs in [vec![], vec![ProfileInput::new(&base)]] {
        let out = dir.path().join("view.json");
        let err = export(&ExportRequest {
            records: None,
            from_profile: inputs,
            output: out.clone(),
        })
        .unwrap_err();
        assert_eq!(err.code(), "invalid_request", "{err}");
        assert!(!out.exists());
    }
}

#[test]
fn an_operation_without_a_name_is_refused_at_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.json", &trace("float"));
    // The second operation of the test run has no name: it would be the
    // record on line 3 of a records file (the header is line 1).
    let mut t = KinetoTrace::new();
    t.cpu_op_with_shapes(
        (PID, TID),
        "aten::mm",
        0,
        1_000,
        None,
        None,
        serde_json::json!([[2, 2]]),
        serde_json::json!(["float"]),
    );
    t.push(OwnedEvent {
        name: None,
        ..slice("cpu_op", "X", "", 2_000, 1_000, "{}")
    });
    let test = write(dir.path(), "test.json", &t);
    let out = dir.path().join("view.json");
    let err =
        export_profiles(&[ProfileInput::new(&test), ProfileInput::new(&base)], &out).unwrap_err();
    assert_eq!(err.code(), "invalid_records");
    assert!(err.to_string().contains("line 3: op is empty"), "{err}");
    assert!(!out.exists());
}

#[test]
fn records_taken_once_export_exactly_as_the_traces_do() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.pt.trace.json", &trace("float"));
    let test = write(dir.path(), "test.pt.trace.json.gz", &trace("c10::Half"));
    let inputs = [ProfileInput::new(&base), ProfileInput::new(&test)];
    let from_traces = export_profiles(&inputs, &dir.path().join("a.json")).unwrap();
    let records: Vec<_> = inputs
        .iter()
        .map(|i| records_from_profile(i, &ReaderOptions::new()).unwrap())
        .collect();
    assert_eq!(
        records.iter().map(|r| r.records.len()).collect::<Vec<_>>(),
        [3, 3]
    );
    let out = dir.path().join("b.json");
    let from_records =
        export_profile_records(records.clone(), &out, &ExportOptions::default()).unwrap();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(dir.path().join("a.json")).unwrap()
    );
    assert_eq!(
        ExportSummary {
            output: from_traces.output.clone(),
            ..from_records
        },
        from_traces
    );
    // One trace's records, or the same run and rank twice, are refused and
    // nothing is written.
    let out = dir.path().join("c.json");
    let err =
        export_profile_records(records[..1].to_vec(), &out, &ExportOptions::default()).unwrap_err();
    assert_eq!(err.code(), "invalid_request");
    let twice = vec![records[0].clone(), records[0].clone()];
    let err = export_profile_records(twice, &out, &ExportOptions::default()).unwrap_err();
    assert_eq!(err.code(), "duplicate_run_rank");
    assert!(!out.exists());
}
