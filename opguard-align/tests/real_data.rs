//! End to end on real PyTorch profiler traces: two runs of the same
//! program (trace_compare base/test), two ranks of one job
//! (trace_filter rank 0/1) and a run with python stacks (torch proc_a).
//! Figures are checked against oracles computed here from the raw traces
//! with serde_json (cpu_op counts, a dynamic-programming LCS over operator
//! names, first differences recomputed from the view).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use opguard_align::{
    apply, export_profiles, export_with, records_from_profile, validate_export, CallsiteMatch,
    ExportOptions, ExportRequest, ProfileInput,
};
use opguard_trace::ReaderOptions;

use crate::{lcs_len, ops_by_id, read_view, review, sha256sum};

#[track_caller]
fn hta(name: &str) -> Option<PathBuf> {
    opguard_testdata::shared_file(&format!("traces/hta/{name}"))
}

/// The two ranks of one job.
fn filter_ranks() -> Option<(PathBuf, PathBuf)> {
    Some((
        hta("trace_filter__sampled_rank-0.json.gz")?,
        hta("trace_filter__sampled_rank-1.json.gz")?,
    ))
}

/// Operator names of a trace's cpu_ops in the adapter's documented order
/// (start time, longer first, file order), read with serde_json.
fn oracle_names(path: &Path) -> Vec<String> {
    let doc = read_view(path);
    let events = doc["traceEvents"].as_array().unwrap();
    let mut ops: Vec<(f64, f64, usize, String)> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["cat"] == "cpu_op" && e["ph"] == "X")
        .map(|(i, e)| {
            (
                e["ts"].as_f64().unwrap(),
                e["dur"].as_f64().unwrap_or(0.0),
                i,
                e["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    ops.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.2.cmp(&b.2))
    });
    ops.into_iter().map(|o| o.3).collect()
}

/// First difference per process recomputed from a view.
fn oracle_first_differences(view: &Value) -> BTreeMap<i64, String> {
    let mut first: BTreeMap<i64, (u64, String)> = BTreeMap::new();
    for e in view["traceEvents"].as_array().unwrap() {
        if e["cat"] != "opguard.op" {
            continue;
        }
        let s = &e["args"]["correspondence"]["status"];
        if s != "differs" && s != "unpaired" {
            continue;
        }
        let pid = e["pid"].as_i64().unwrap();
        let seq = e["args"]["op"]["sequence"].as_u64().unwrap();
        let id = e["args"]["op"]["record_id"].as_str().unwrap().to_owned();
        let entry = first.entry(pid).or_insert((seq, id.clone()));
        if seq < entry.0 {
            *entry = (seq, id);
        }
    }
    first.into_iter().map(|(k, v)| (k, v.1)).collect()
}

fn markers(view: &Value) -> BTreeMap<i64, String> {
    view["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "opguard.first_difference")
        .map(|e| {
            (
                e["pid"].as_i64().unwrap(),
                e["args"]["record_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn flows(view: &Value) -> usize {
    view["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "opguard.correspondence" && e["ph"] == "s")
        .count()
}

fn status(view: &Value, id: &str) -> String {
    ops_by_id(view)[id].1["args"]["correspondence"]["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn trace_compare_base_against_test_exports_reviews_and_renders() {
    let (Some(base), Some(test)) = (
        hta("trace_compare__base__base.json.gz"),
        hta("trace_compare__test__test.json.gz"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let base_sha = sha256sum(&base);
    let view_path = dir.path().join("view.json.gz");
    let s = export_profiles(
        &[ProfileInput::new(&base), ProfileInput::new(&test)],
        &view_path,
    )
    .unwrap();
    let (a, b) = (oracle_names(&base), oracle_names(&test));
    assert_eq!((a.len(), b.len()), (6, 9));
    assert_eq!(s.operations, 15);
    assert_eq!(
        s.runs,
        ["trace_compare__base__base", "trace_compare__test__test"]
    );
    assert_eq!(s.ranks, [1], "both traces say distributedInfo.rank 1");
    // No stacks in these traces: the signature is the operator name, so
    // the pairs are an LCS of the names.
    assert_eq!(s.pairs as usize, lcs_len(&a, &b));
    assert_eq!(s.pairs, 6);
    assert_eq!(s.statuses.unpaired, 3);
    assert_eq!(s.statuses.ok + s.statuses.differs, 12);
    assert!(validate_export(&view_path).unwrap().is_valid());
    let view = read_view(&view_path);
    assert_eq!(flows(&view), 6);
    assert_eq!(markers(&view), oracle_first_differences(&view));

    // Review: reject one automatic pair, confirm another, and map an
    // unpaired operation of the test run onto a paired base operation with
    // the same first input (displacing its automatic peer).
    let ops = ops_by_id(&view);
    let by_index: BTreeMap<usize, (&String, &Value)> =
        ops.iter().map(|(k, (i, e))| (*i, (k, e))).collect();
    let paired: Vec<(usize, usize)> = by_index
        .iter()
        .filter(|(_, (_, e))| {
            e["args"]["op"]["run"] == s.runs[0] && e["args"]["correspondence"]["peer"].is_object()
        })
        .map(|(i, (_, e))| {
            (
                *i,
                e["args"]["correspondence"]["peer"]["event"]
                    .as_u64()
                    .unwrap() as usize,
            )
        })
        .collect();
    let unpaired_with_input = by_index
        .iter()
        .find(|(_, (_, e))| {
            e["args"]["correspondence"]["status"] == "unpaired"
                && !e["args"]["io"]["inputs"].as_array().unwrap().is_empty()
        })
        .map(|(i, (_, e))| (*i, e["args"]["io"]["inputs"][0].clone()))
        .expect("an unpaired test operation with a tensor input");
    let target = paired
        .iter()
        .map(|(l, _)| *l)
        .find(|l| {
            by_index[l].1["args"]["io"]["inputs"]
                .as_array()
                .is_some_and(|x| !x.is_empty())
        })
        .expect("a paired base operation with an input");
    let (reject, confirm) = {
        let rest: Vec<_> = paired.iter().filter(|(l, _)| *l != target).collect();
        (*rest[0], *rest[1])
    };
    let sha = &s.output_sha256;
    let sel = Some((json!(["inputs", 0]), json!(["inputs", 0])));
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        crate::map_json(
            sha,
            json!([
                review(sha, reject.0, reject.1, "not_comparable", None),
                review(sha, confirm.0, confirm.1, "comparable", None),
                review(sha, target, unpaired_with_input.0, "comparable", sel),
            ]),
        ),
    )
    .unwrap();
    let out = dir.path().join("reviewed.json.gz");
    let view_sha = sha256sum(&view_path);
    let r = apply(&view_path, &map, &out).unwrap();
    assert_eq!(sha256sum(&view_path), view_sha, "the export is unchanged");
    assert_eq!(sha256sum(&base), base_sha, "the source trace is unchanged");
    assert_eq!(r.verdict, "not_evaluated");
    assert_eq!(r.pairs, 6 - 1 - 1 + 1, "rejected, displaced, new");
    assert_eq!(r.displaced, 1);
    assert_eq!(r.new_mappings, 1);
    assert_eq!(r.statuses.not_comparable, 2);
    assert_eq!(r.statuses.undetermined, 1);
    assert_eq!(r.statuses.unpaired, 2);
    assert_eq!(r.decisions.comparable, 2);
    assert_eq!(r.decisions.not_comparable, 1);
    assert_eq!(r.validation.agent_reviewed, 6);
    assert!(validate_export(&out).unwrap().is_valid());
    let reviewed = read_view(&out);
    assert_eq!(flows(&reviewed), r.pairs as usize);
    assert_eq!(markers(&reviewed), oracle_first_differences(&reviewed));
    let by_id = ops_by_id(&reviewed);
    let rid = |i: usize| by_index[&i].0.clone();
    assert_eq!(status(&reviewed, &rid(reject.0)), "not_comparable");
    assert_eq!(status(&reviewed, &rid(reject.1)), "not_comparable");
    assert_eq!(
        status(&reviewed, &rid(target)),
        by_id[&rid(unpaired_with_input.0)].1["args"]["correspondence"]["status"]
    );
    let new_status = if by_index[&target].1["args"]["io"]["inputs"][0] == unpaired_with_input.1 {
        "ok"
    } else {
        "differs"
    };
    assert_eq!(status(&reviewed, &rid(unpaired_with_input.0)), new_status);
    let displaced_peer = paired.iter().find(|(l, _)| *l == target).unwrap().1;
    assert_eq!(status(&reviewed, &rid(displaced_peer)), "undetermined");
    let orig = &by_id[&rid(reject.0)].1["args"]["correspondence"]["original_comparison"];
    assert_eq!(orig[0]["superseded"], "rejected");
    assert_eq!(orig[0]["basis"], "automatic_callsite_sequence");
}

#[test]
fn two_ranks_of_one_job_map_across_ranks() {
    let Some((r0, r1)) = filter_ranks() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let view_path = dir.path().join("view.json");
    let s = export_profiles(
        &[ProfileInput::new(&r0), ProfileInput::new(&r1)],
        &view_path,
    )
    .unwrap();
    let (a, b) = (oracle_names(&r0), oracle_names(&r1));
    assert_eq!(s.operations as usize, a.len() + b.len());
    assert_eq!(s.ranks, [0, 1]);
    assert_eq!(
        s.pairs, 0,
        "rank 0 and rank 1 have no counterpart in the other run"
    );
    assert_eq!(s.statuses.no_corresponding_trace_file, s.operations);
    assert!(validate_export(&view_path).unwrap().is_valid());
    let view = read_view(&view_path);
    let ops = ops_by_id(&view);
    // Cross-rank review: the first aten::mm of each rank, and the first
    // aten::add, compared on their first input; plus a rejected alternative.
    let first = |rank: u32, name: &str| {
        ops.values()
            .filter(|(_, e)| e["args"]["op"]["rank"] == rank && e["name"] == name)
            .min_by_key(|(_, e)| e["args"]["op"]["sequence"].as_u64().unwrap())
            .map(|(i, e)| (*i, e["args"]["io"]["inputs"][0].clone()))
            .unwrap()
    };
    let (mm0, mm1) = (first(0, "aten::mm"), first(1, "aten::mm"));
    let (add0, add1) = (first(0, "aten::add"), first(1, "aten::add"));
    let sha = &s.output_sha256;
    let sel = || Some((json!(["inputs", 0]), json!(["inputs", 0])));
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        crate::map_json(
            sha,
            json!([
                review(sha, mm0.0, mm1.0, "comparable", sel()),
                review(sha, add0.0, add1.0, "comparable", sel()),
                review(sha, mm0.0, add1.0, "not_comparable", None),
            ]),
        ),
    )
    .unwrap();
    let out = dir.path().join("reviewed.json");
    let r = apply(&view_path, &map, &out).unwrap();
    assert_eq!(r.pairs, 2);
    assert_eq!(r.new_mappings, 2);
    let expect = |x: &Value, y: &Value| if x == y { "ok" } else { "differs" };
    let reviewed = read_view(&out);
    let by_id = ops_by_id(&reviewed);
    let id_of = |i: usize| by_id.iter().find(|(_, (j, _))| *j == i).unwrap().0.clone();
    assert_eq!(status(&reviewed, &id_of(mm0.0)), expect(&mm0.1, &mm1.1));
    assert_eq!(status(&reviewed, &id_of(add1.0)), expect(&add0.1, &add1.1));
    assert_eq!(
        r.statuses.no_corresponding_trace_file,
        s.operations - 4,
        "the rejected alternative keeps both mappings and everything else as it was"
    );
    assert_eq!(flows(&reviewed), 2);
    assert!(markers(&reviewed).is_empty() == oracle_first_differences(&reviewed).is_empty());
    assert_eq!(markers(&reviewed), oracle_first_differences(&reviewed));
    assert!(validate_export(&out).unwrap().is_valid());
}

#[test]
fn two_ranks_compared_as_two_runs_of_one_rank_pair_by_lcs() {
    let Some((r0, r1)) = filter_ranks() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.json.gz");
    let inputs = vec![
        ProfileInput {
            path: r0.clone(),
            run: Some("rank0".into()),
            rank: Some(0),
        },
        ProfileInput {
            path: r1.clone(),
            run: Some("rank1".into()),
            rank: Some(0),
        },
    ];
    let s = export_with(
        &ExportRequest {
            records: None,
            from_profile: inputs,
            output: out.clone(),
        },
        &ExportOptions::new().callsite_match(CallsiteMatch::Ignore),
    )
    .unwrap();
    let (a, b) = (oracle_names(&r0), oracle_names(&r1));
    assert_eq!(
        s.pairs as usize,
        lcs_len(&a, &b),
        "Myers finds a longest common subsequence"
    );
    assert!(s.pairs > 1000, "{}", s.pairs);
    assert_eq!(
        s.statuses.unpaired as usize,
        a.len() + b.len() - 2 * s.pairs as usize
    );
    assert!(s.alignment_budget_exhausted_ranks.is_empty());
    let view = read_view(&out);
    assert_eq!(flows(&view) as u64, s.pairs);
    assert_eq!(markers(&view), oracle_first_differences(&view));
    assert!(validate_export(&out).unwrap().is_valid());
    // Paired operations always have the same operator name.
    let ops = ops_by_id(&view);
    for (_, e) in ops.values() {
        if let Some(p) = e["args"]["correspondence"]["peer"]["event"].as_u64() {
            let peer = &view["traceEvents"][p as usize];
            assert_eq!(peer["name"], e["name"]);
        }
    }
}

#[test]
fn python_stacks_give_callsites_and_a_run_aligns_with_itself() {
    let Some(proc_a) = opguard_testdata::shared_file("torch/traces/proc_a.json.gz") else {
        return;
    };
    let recs =
        records_from_profile(&ProfileInput::new(&proc_a), &ReaderOptions::default()).unwrap();
    let doc = read_view(&proc_a);
    let cpu_ops = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "cpu_op")
        .count();
    assert_eq!(recs.records.len(), cpu_ops);
    assert_eq!(recs.rank, 0);
    // The rms_norm multiply is called from mymodel/kernels.py line 21.
    let mul = recs
        .records
        .iter()
        .find(|r| r.op == "aten::mul" && r.stack.iter().any(|f| f.function == "rms_norm"))
        .expect("an aten::mul under rms_norm");
    let c = mul.callsite.as_ref().unwrap();
    assert_eq!(
        (c.file.as_str(), c.function.as_str(), c.line),
        ("mymodel/kernels.py", "rms_norm", Some(21))
    );
    assert!(mul
        .stack
        .iter()
        .any(|f| f.file.as_deref() == Some("profile_decode.py")));
    assert!(!mul.io.inputs.is_empty() && mul.io.inputs[0].stride.is_some());
    let with_callsite = recs.records.iter().filter(|r| r.callsite.is_some()).count();
    assert!(
        with_callsite * 10 > recs.records.len() * 9,
        "{with_callsite} of {}",
        recs.records.len()
    );
    // The same trace as two runs: everything pairs and agrees.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("self.json.gz");
    let s = export_profiles(
        &[
            ProfileInput {
                path: proc_a.clone(),
                run: Some("x".into()),
                rank: None,
            },
            ProfileInput {
                path: proc_a.clone(),
                run: Some("y".into()),
                rank: None,
            },
        ],
        &out,
    )
    .unwrap();
    assert_eq!(s.pairs as usize, cpu_ops);
    assert_eq!(s.statuses.ok as usize, 2 * cpu_ops);
    assert!(s.first_differences.is_empty());
    // The same file twice without labels is refused: one run and rank.
    let err = export_profiles(
        &[ProfileInput::new(&proc_a), ProfileInput::new(&proc_a)],
        &dir.path().join("x.json"),
    )
    .unwrap_err();
    assert_eq!(err.code(), "duplicate_run_rank");
    assert!(!dir.path().join("x.json").exists());
}

#[test]
fn every_hta_trace_turns_into_records() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for path in traces {
        let recs = records_from_profile(&ProfileInput::new(&path), &ReaderOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (i, r) in recs.records.iter().enumerate() {
            assert_eq!(r.sequence, i as u64);
            assert!(!r.op.is_empty());
        }
        // The serde oracle takes long on the 87 MB trace in debug builds;
        // the checks above still cover it.
        if std::fs::metadata(&path).unwrap().len() > 1 << 20 {
            continue;
        }
        let doc = read_view(&path);
        let events = doc
            .get("traceEvents")
            .or(Some(&doc))
            .and_then(|v| v.as_array())
            .unwrap();
        let n = events
            .iter()
            .filter(|e| e["cat"] == "cpu_op" && e["ph"] == "X")
            .count();
        assert_eq!(recs.records.len(), n, "{}", path.display());
    }
}

/// Issue 15 item 7: an input that would pair nothing is named, with why,
/// before anything is written.
#[test]
fn an_input_without_operations_or_shapes_is_named_with_the_reason() {
    let (Some(base), Some(alexnet), Some(old_kineto)) = (
        opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz"),
        opguard_testdata::shared_file(
            "traces/hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
        ),
        opguard_testdata::shared_file("traces/hta/trace_file_list__inference_rank_1.json.gz"),
    ) else {
        return;
    };
    let test =
        opguard_testdata::shared_file("traces/hta/trace_compare__test__test.json.gz").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("view.json");

    // Real torch profile recorded without record_shapes (359 cpu_op, no
    // "Input Dims"): its own code, its file named.
    let err = export_profiles(
        &[ProfileInput::new(&base), ProfileInput::new(&alexnet)],
        &out,
    )
    .unwrap_err();
    assert_eq!(err.code(), "recorded_without_shapes", "{err}");
    assert_eq!(err.path(), Some(alexnet.as_path()));
    assert!(err.to_string().contains("359 operations"), "{err}");
    assert!(!out.exists());

    // A real trace with no cpu_op at all.
    let err = export_profiles(
        &[ProfileInput::new(&old_kineto), ProfileInput::new(&base)],
        &out,
    )
    .unwrap_err();
    assert_eq!(err.code(), "no_operations", "{err}");
    assert_eq!(err.path(), Some(old_kineto.as_path()));
    assert!(!out.exists());

    // opguard's own export is a real trace, but not a PyTorch profile.
    let view = dir.path().join("first.json");
    export_profiles(&[ProfileInput::new(&base), ProfileInput::new(&test)], &view).unwrap();
    let err =
        export_profiles(&[ProfileInput::new(&base), ProfileInput::new(&view)], &out).unwrap_err();
    assert_eq!(err.code(), "no_operations", "{err}");
    assert_eq!(err.path(), Some(view.as_path()));
    assert!(
        err.to_string()
            .contains("not a PyTorch profiler trace (provider opguard_export)"),
        "{err}"
    );
    assert!(!out.exists());
}
