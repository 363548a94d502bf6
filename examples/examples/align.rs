//! The example that opens the `opguard-align` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example align`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_align::{apply, export_records, validate_export, Record, RecordsWriter, TensorSummary};

    let dir = tempfile::tempdir()?;
    let op = |run: &str, seq: u64, name: &str, dtype: &str| Record {
        record_id: format!("{run}/{seq}"), run: run.into(), rank: 0, sequence: seq,
        op: name.into(), callsite: None, stack: vec![],
        io: opguard_align::Io {
            inputs: vec![TensorSummary { shape: vec![4, 8], dtype: dtype.into(), ..Default::default() }],
            outputs: vec![],
        },
        thread: None, ts_ns: None, dur_ns: None, origin: None,
    };
    let mut w = RecordsWriter::new(std::fs::File::create(dir.path().join("runs.jsonl"))?)?;
    for r in [op("a", 0, "aten::mm", "float"), op("a", 1, "aten::relu", "float"),
              op("b", 0, "aten::to", "float"), op("b", 1, "aten::mm", "c10::Half"),
              op("b", 2, "aten::relu", "float")] {
        w.write(&r)?;
    }
    w.finish()?;

    let view = dir.path().join("view.json");
    let summary = export_records(&dir.path().join("runs.jsonl"), &view)?;
    assert_eq!((summary.pairs, summary.statuses.ok, summary.statuses.differs), (2, 2, 2));
    assert_eq!(summary.statuses.unpaired, 1); // the extra aten::to shifts nothing
    assert!(validate_export(&view)?.is_valid());

    // Reject the mm pair (operations 0 and 3 of the export).
    let map = serde_json::json!({
        "version": 1,
        "artifact_sha256": summary.output_sha256,
        "reviews": [{
            "left_ref": format!("{}:0", summary.output_sha256),
            "right_ref": format!("{}:3", summary.output_sha256),
            "decision": "not_comparable",
            "reason": "the candidate computes in half precision by design",
            "evidence": [{"basis": "source_inference", "reference": "model.py:12"}]
        }]
    });
    std::fs::write(dir.path().join("map.json"), map.to_string())?;
    let reviewed = dir.path().join("reviewed.json.gz");
    let response = apply(&view, &dir.path().join("map.json"), &reviewed)?;
    assert_eq!(response.verdict, "not_evaluated");
    assert_eq!((response.pairs, response.statuses.not_comparable), (1, 2));
    assert!(validate_export(&reviewed)?.is_valid());
    println!("opguard-align: the documented example ran");
    Ok(())
}
