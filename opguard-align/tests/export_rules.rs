//! Export rules: order-aware candidates, statuses, the export's content and
//! determinism, and records-file errors (each failure writes nothing).

use opguard_align::{
    export_records, export_with, CallsiteMatch, ExportOptions, ExportRequest, Status,
};

use serde_json::Value;

use crate::{listing, ops_by_id, read_view, record, sha256sum, write_records};

fn ops(run: &str, rank: u32, names: &[&str]) -> Vec<opguard_align::Record> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| record(run, rank, i as u64, n, 10 + i as u32 % 7, &[4, 4], "float"))
        .collect()
}

/// The op names of a long loop body: many repeats, so index-based pairing
/// would find plenty of equal names to "pass" with.
fn body(n: usize) -> Vec<String> {
    let names = [
        "aten::mm",
        "aten::add",
        "aten::relu",
        "aten::mm",
        "aten::softmax",
    ];
    (0..n).map(|i| names[i % names.len()].to_owned()).collect()
}

#[test]
fn one_extra_operation_leaves_one_unpaired_instead_of_shifting_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    let a_names = body(40);
    let mut b_names = a_names.clone();
    b_names.insert(7, "aten::to".into());
    let mut records: Vec<_> = a_names
        .iter()
        .enumerate()
        .map(|(i, n)| record("a", 0, i as u64, n, 100 + (i % 5) as u32, &[8, 8], "float"))
        .collect();
    records.extend(b_names.iter().enumerate().map(|(i, n)| {
        let line = if n == "aten::to" {
            99
        } else {
            100 + (if i > 7 { i - 1 } else { i } % 5) as u32
        };
        record("b", 0, i as u64, n, line, &[8, 8], "float")
    }));
    let path = write_records(dir.path(), "r.jsonl", &records);
    let out = dir.path().join("v.json");
    let s = export_records(&path, &out).unwrap();
    assert_eq!(s.pairs, 40);
    assert_eq!(s.statuses.unpaired, 1);
    assert_eq!(s.statuses.ok, 80);
    assert_eq!(s.statuses.differs, 0);
    // Every pair joins the k-th operation of a with the k-th non-extra of b.
    let view = read_view(&out);
    let by_id = ops_by_id(&view);
    for k in 0..40u64 {
        let bk = if k >= 7 { k + 1 } else { k };
        let c = &by_id[&format!("a/0/{k}")].1["args"]["correspondence"];
        assert_eq!(c["peer"]["record_id"], format!("b/0/{bk}"), "pair {k}");
    }
    assert_eq!(
        by_id["b/0/7"].1["args"]["correspondence"]["status"],
        "unpaired"
    );
}

#[test]
fn an_operation_is_left_unpaired_rather_than_forced() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = ops("a", 0, &["aten::mm", "aten::relu"]);
    records.extend(ops("b", 0, &["fused::mm_relu"]));
    let path = write_records(dir.path(), "r.jsonl", &records);
    let s = export_records(&path, &dir.path().join("v.json")).unwrap();
    assert_eq!(s.pairs, 0);
    assert_eq!(s.statuses.unpaired, 3);
}

#[test]
fn callsites_are_part_of_the_signature_unless_relaxed() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = vec![record("a", 0, 0, "aten::mm", 10, &[2], "float")];
    records.push(record("b", 0, 0, "aten::mm", 11, &[2], "float"));
    let path = write_records(dir.path(), "r.jsonl", &records);
    let exact = export_records(&path, &dir.path().join("exact.json")).unwrap();
    assert_eq!(exact.pairs, 0, "different lines are different callsites");
    let request = ExportRequest {
        records: Some(path.clone()),
        from_profile: vec![],
        output: dir.path().join("noline.json"),
    };
    let relaxed = export_with(
        &request,
        &ExportOptions::new().callsite_match(CallsiteMatch::IgnoreLine),
    )
    .unwrap();
    assert_eq!(relaxed.pairs, 1);
}

#[test]
fn ranks_missing_from_one_run_are_marked_no_corresponding_trace_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = ops("a", 0, &["aten::mm"]);
    records.extend(ops("a", 3, &["aten::mm", "aten::add"]));
    records.extend(ops("b", 0, &["aten::mm"]));
    records.extend(ops("b", 5, &["aten::mm"]));
    let path = write_records(dir.path(), "r.jsonl", &records);
    let s = export_records(&path, &dir.path().join("v.json")).unwrap();
    assert_eq!(s.ranks, [0, 3, 5]);
    assert_eq!(s.statuses.no_corresponding_trace_file, 3);
    assert_eq!(s.statuses.ok, 2);
    let view = read_view(&dir.path().join("v.json"));
    let by_id = ops_by_id(&view);
    for id in ["a/3/0", "a/3/1", "b/5/0"] {
        assert_eq!(
            by_id[id].1["args"]["correspondence"]["status"],
            "no_corresponding_trace_file"
        );
    }
}

#[test]
fn recorded_field_differences_are_named_and_ok_is_only_recorded_field_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = record("a", 0, 0, "aten::mm", 1, &[2, 3], "float");
    let mut b = record("b", 0, 0, "aten::mm", 1, &[2, 3], "float");
    a.io.outputs[0].fingerprint = Some("sha1:aa".into());
    b.io.outputs[0].fingerprint = Some("sha1:bb".into());
    b.io.inputs[0].device = Some("cuda:0".into());
    let path = write_records(dir.path(), "r.jsonl", &[a, b]);
    let out = dir.path().join("v.json");
    let s = export_records(&path, &out).unwrap();
    assert_eq!(s.statuses.differs, 2);
    let view = read_view(&out);
    let c = &ops_by_id(&view)["a/0/0"].1["args"]["correspondence"];
    assert_eq!(
        c["differences"],
        serde_json::json!(["outputs[0].fingerprint"])
    );
    assert_eq!(c["not_compared"], serde_json::json!(["inputs[0].device"]));
    let meta = &view["opguard"];
    assert!(meta["ok_means"].as_str().unwrap().contains("collide"));
    assert_eq!(meta["tensor_equality"], "not_established");
}

#[test]
fn export_layout_operations_flows_lanes_markers_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let (view_path, s) = crate::export_fixture(dir.path());
    let view = read_view(&view_path);
    let events = view["traceEvents"].as_array().unwrap();
    // Operations first, one X event each, with op, io and correspondence.
    for e in &events[..16] {
        assert_eq!(e["ph"], "X");
        assert_eq!(e["cat"], "opguard.op");
        let op = &e["args"]["op"];
        for k in [
            "record_id",
            "run",
            "rank",
            "sequence",
            "name",
            "callsite",
            "stack",
        ] {
            assert!(op.get(k).is_some(), "args.op.{k}");
        }
        assert!(e["args"]["io"]["inputs"].is_array());
        assert!(e["args"]["io"]["outputs"].is_array());
        let c = &e["args"]["correspondence"];
        assert_eq!(c["validation"], "unreviewed");
        assert_eq!(c["tensor_equality"], "not_established");
    }
    assert!(events[16..].iter().all(|e| e["cat"] != "opguard.op"));
    // After the operations, the tail in the documented order: names, flows,
    // status lanes, markers (each block whole, none interleaved).
    let stage = |e: &Value| match (e["ph"].as_str(), e["cat"].as_str()) {
        (Some("M"), _) => 0,
        (Some("s" | "f"), Some("opguard.correspondence")) => 1,
        (Some("X"), Some("opguard.status")) => 2,
        (Some("i"), Some("opguard.first_difference")) => 3,
        other => panic!("an event of no tail block: {other:?}"),
    };
    let stages: Vec<u8> = events[16..].iter().map(stage).collect();
    assert!(stages.is_sorted(), "tail blocks out of order: {stages:?}");
    assert_eq!(stages.first(), Some(&0));
    assert_eq!(stages.last(), Some(&3));
    let count = |cat: &str, ph: &str| {
        events
            .iter()
            .filter(|e| e["cat"] == cat && e["ph"] == ph)
            .count() as u64
    };
    assert_eq!(count("opguard.correspondence", "s"), s.pairs);
    assert_eq!(count("opguard.correspondence", "f"), s.pairs);
    assert_eq!(count("opguard.status", "X"), 16);
    assert_eq!(count("opguard.first_difference", "i"), 2);
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "original · rank 0",
            "candidate · rank 0",
            "original · rank 1",
            "candidate · rank 2"
        ]
    );
    let meta = &view["opguard"];
    assert_eq!(meta["format"], "opguard.export/v1");
    assert!(meta["presentation"]
        .as_str()
        .unwrap()
        .contains("not GPU causal order"));
    assert_eq!(meta["verdict"], "not_evaluated");
    // Perfetto shows process labels: the caveats are visible there too.
    let label = events
        .iter()
        .find(|e| e["name"] == "process_labels")
        .unwrap();
    assert!(label["args"]["labels"]
        .as_str()
        .unwrap()
        .contains("not GPU causal order"));
    // Paired operations share a presentation column.
    let by_id = ops_by_id(&view);
    assert_eq!(
        by_id["original/0/3"].1["ts"],
        by_id["candidate/0/4"].1["ts"]
    );
    assert_eq!(s.verdict, "not_evaluated");
    assert!(opguard_align::validate_export(&view_path)
        .unwrap()
        .is_valid());
}

#[test]
fn export_bytes_are_deterministic_plain_and_gzip() {
    let dir = tempfile::tempdir().unwrap();
    let records = crate::fixture("two_runs.records.jsonl");
    let mut shas = Vec::new();
    for name in ["a.json", "b.json", "a.json.gz", "b.json.gz"] {
        let out = dir.path().join(name);
        let s = export_records(&records, &out).unwrap();
        assert_eq!(s.output_sha256, sha256sum(&out));
        shas.push(s.output_sha256);
    }
    assert_eq!(shas[0], shas[1]);
    assert_eq!(shas[2], shas[3]);
    assert_ne!(shas[0], shas[2]);
    assert_eq!(
        read_view(&dir.path().join("a.json")),
        read_view(&dir.path().join("a.json.gz"))
    );
}

#[test]
fn gzip_records_are_read_like_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read(crate::fixture("two_runs.records.jsonl")).unwrap();
    let gz = dir.path().join("r.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &plain).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let a = export_records(&gz, &dir.path().join("a.json")).unwrap();
    let b = export_records(
        &crate::fixture("two_runs.records.jsonl"),
        &dir.path().join("b.json"),
    )
    .unwrap();
    assert_eq!(
        read_view(&dir.path().join("a.json"))["traceEvents"],
        read_view(&dir.path().join("b.json"))["traceEvents"]
    );
    assert_ne!(
        a.sources[0].sha256, b.sources[0].sha256,
        "sources name the input bytes"
    );
}

fn export_error(dir: &std::path::Path, text: &str) -> opguard_align::Error {
    let path = dir.join("bad.jsonl");
    std::fs::write(&path, text).unwrap();
    let out = dir.join("v.json");
    let err = export_records(&path, &out).unwrap_err();
    assert!(!out.exists());
    assert_eq!(listing(dir), ["bad.jsonl"]);
    std::fs::remove_file(&path).unwrap();
    err
}

#[test]
fn records_file_errors_fail_with_codes_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let h = "{\"format\":\"opguard.records/v1\"}\n";
    let line = |id: &str, run: &str, rank: u32, seq: u64| {
        serde_json::to_string(&record(run, rank, seq, "aten::mm", 1, &[1], "float"))
            .unwrap()
            .replace(&format!("\"{run}/{rank}/{seq}\""), &format!("\"{id}\""))
            + "\n"
    };
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "invalid_records"),
        (
            "{\"format\":\"opguard.records/v2\"}\n".into(),
            "invalid_records",
        ),
        (format!("{h}{{\"record_id\":\"x\"}}\n"), "missing_field"),
        (
            format!(
                "{h}{}",
                line("x", "a", 0, 0).replace("\"op\":", "\"opname\":\"?\",\"op\":")
            ),
            "unknown_field",
        ),
        (
            format!("{h}{}{}", line("x", "a", 0, 0), line("x", "b", 0, 0)),
            "duplicate_record_id",
        ),
        (
            format!("{h}{}{}", line("x", "a", 0, 0), line("y", "a", 0, 0)),
            "run_count",
        ),
        (
            format!(
                "{h}{}{}{}",
                line("x", "a", 0, 0),
                line("y", "b", 0, 0),
                line("z", "c", 0, 0)
            ),
            "run_count",
        ),
        (
            format!(
                "{h}{}{}{}",
                line("x", "a", 0, 0),
                line("y", "a", 0, 0),
                line("z", "b", 0, 0)
            ),
            "duplicate_sequence",
        ),
    ];
    for (text, code) in cases {
        let err = export_error(dir.path(), &text);
        assert_eq!(err.code(), code, "{text}: {err}");
    }
}

#[test]
fn statuses_of_an_export_sum_to_its_operations() {
    let dir = tempfile::tempdir().unwrap();
    let (_, s) = crate::export_fixture(dir.path());
    assert_eq!(s.statuses.total(), s.operations);
    for st in Status::ALL {
        assert_eq!(Status::parse(st.as_str()), Some(st));
    }
}
