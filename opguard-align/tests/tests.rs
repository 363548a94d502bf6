//! Integration tests for opguard-align: one binary, one module per concern.
mod align_props;
mod export_rules;
mod input_and_map_errors;
mod limits;
mod map_cases;
mod output_discipline;
mod output_errors;
mod profile_traces;
mod real_data;
mod records_files;
mod request;
mod review_counts;
mod spill;
mod threads;
mod validator;
mod validator_defects;
mod view_reader;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use opguard_align::{export_records, ExportSummary, Record, RecordsWriter, TensorSummary};

/// A file of the language-neutral fixtures.
pub fn fixture(name: &str) -> PathBuf {
    opguard_testdata::fixtures_dir().join("align").join(name)
}

/// SHA-256 of a file, by the system's `sha256sum` (an independent oracle).
pub fn sha256sum(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("ascii")[..64].to_owned()
}

/// Names of the entries of a directory, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Exports the fixture records to `dir/view.json`.
pub fn export_fixture(dir: &Path) -> (PathBuf, ExportSummary) {
    let view = dir.join("view.json");
    let summary =
        export_records(&fixture("two_runs.records.jsonl"), &view).expect("fixture exports");
    (view, summary)
}

/// The whole view as JSON (test-side oracle: serde_json over the file).
pub fn read_view(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).expect("view readable");
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut out)
            .expect("gzip");
        out
    } else {
        bytes
    };
    serde_json::from_slice(&bytes).expect("view is JSON")
}

/// Operation events of a view by record id: (index, event).
pub fn ops_by_id(view: &serde_json::Value) -> BTreeMap<String, (usize, serde_json::Value)> {
    view["traceEvents"]
        .as_array()
        .expect("events")
        .iter()
        .enumerate()
        .filter(|(_, e)| e["cat"] == "opguard.op")
        .map(|(i, e)| {
            (
                e["args"]["op"]["record_id"]
                    .as_str()
                    .expect("record id")
                    .to_owned(),
                (i, e.clone()),
            )
        })
        .collect()
}

/// A record with one input and one output summary.
pub fn record(
    run: &str,
    rank: u32,
    seq: u64,
    op: &str,
    line: u32,
    shape: &[i64],
    dtype: &str,
) -> Record {
    Record {
        record_id: format!("{run}/{rank}/{seq}"),
        run: run.into(),
        rank,
        sequence: seq,
        op: op.into(),
        callsite: Some(opguard_align::Callsite {
            file: "model.py".into(),
            function: "forward".into(),
            line: Some(line),
        }),
        stack: vec![],
        io: opguard_align::Io {
            inputs: vec![TensorSummary {
                shape: shape.to_vec(),
                dtype: dtype.into(),
                ..TensorSummary::default()
            }],
            outputs: vec![TensorSummary {
                shape: shape.to_vec(),
                dtype: dtype.into(),
                ..TensorSummary::default()
            }],
        },
        thread: None,
        ts_ns: None,
        dur_ns: None,
        origin: None,
    }
}

/// Writes records to `dir/name`.
pub fn write_records(dir: &Path, name: &str, records: &[Record]) -> PathBuf {
    let path = dir.join(name);
    let mut w = RecordsWriter::new(std::fs::File::create(&path).expect("create")).expect("header");
    for r in records {
        w.write(r).expect("write");
    }
    w.finish().expect("finish");
    path
}

/// A map document as JSON text.
pub fn map_json(artifact: &str, reviews: serde_json::Value) -> String {
    serde_json::json!({"version": 1, "artifact_sha256": artifact, "reviews": reviews}).to_string()
}

/// One review entry.
pub fn review(
    sha: &str,
    l: usize,
    r: usize,
    decision: &str,
    sel: Option<(serde_json::Value, serde_json::Value)>,
) -> serde_json::Value {
    let (lt, rt) = sel.unwrap_or((serde_json::Value::Null, serde_json::Value::Null));
    serde_json::json!({
        "left_ref": format!("{sha}:{l}"),
        "right_ref": format!("{sha}:{r}"),
        "left_tensor": lt,
        "right_tensor": rt,
        "decision": decision,
        "reason": "reviewed in a test",
        "evidence": [{"basis": "observed", "reference": "test"}],
    })
}

/// Length of a longest common subsequence (dynamic programming): the oracle
/// the order-aware alignment is checked against.
pub fn lcs_len<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev = vec![0u32; b.len() + 1];
    for x in a {
        let mut cur = vec![0u32; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        prev = cur;
    }
    prev[b.len()] as usize
}
