//! One meaning, one code: every document-reading door of every crate (the
//! library call, the `opguard` command, the C ABI entry point) reports one
//! repeated key as `duplicate_key` and one wrong type as `wrong_type`, at the
//! same JSON path (`document.<code>` in the C ABI). The Python and Node
//! bindings walk the same doors in `bindings/*/test*/*one_code*`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::run;

/// A fault written into a document's top-level field `key`.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// The field given twice.
    RepeatedKey,
    /// The field holding a value of another JSON type (a number, or a
    /// string where a number belongs).
    WrongType,
}

impl Fault {
    fn code(self) -> &'static str {
        match self {
            Fault::RepeatedKey => "duplicate_key",
            Fault::WrongType => "wrong_type",
        }
    }

    /// `doc` (an object holding `key`) with this fault at `key`.
    fn apply(self, doc: &Value, key: &str) -> String {
        assert!(doc.get(key).is_some(), "{key} is not in {doc}");
        match self {
            Fault::RepeatedKey => {
                let first = format!("{{{}:{},", json!(key), doc[key]);
                serde_json::to_string(doc).unwrap().replacen('{', &first, 1)
            }
            Fault::WrongType => {
                let mut doc = doc.clone();
                doc[key] = if doc[key].is_number() {
                    json!("5")
                } else {
                    json!(5)
                };
                doc.to_string()
            }
        }
    }
}

/// What a door reported: its code and the JSON path of the fault.
#[derive(Debug, PartialEq)]
struct Reported {
    code: String,
    json_path: String,
}

fn reported(code: &str, json_path: impl Into<String>) -> Reported {
    Reported {
        code: code.to_owned(),
        json_path: json_path.into(),
    }
}

/// The command's `--json` error line.
fn cli(args: &[&str]) -> Reported {
    let r = run(args);
    assert_eq!(r.status, 2, "{args:?}: {r:?}");
    let e = r.json_error();
    reported(
        e["code"].as_str().unwrap(),
        e["json_path"].as_str().unwrap_or("(none)"),
    )
}

/// A C ABI entry point's error envelope, its `document.` prefix checked and
/// taken off so the code compares with the library's. The request is text,
/// so that a document inside it reaches the reader as written.
fn capi(entry: &str, request: &str) -> Reported {
    let reply = opguard_capi::call(entry, request).expect("an entry point");
    let reply: Value = serde_json::from_str(&reply).unwrap();
    let e = &reply["error"];
    let code = e["code"]
        .as_str()
        .unwrap_or_else(|| panic!("{entry}: {reply}"));
    let code = code
        .strip_prefix("document.")
        .unwrap_or_else(|| panic!("{entry}: {code} is not the document's code: {reply}"));
    reported(code, e["json_path"].as_str().unwrap_or("(none)"))
}

fn library<E: std::fmt::Display>(
    result: Result<impl Sized, E>,
    code: impl Fn(&E) -> &'static str,
    document: impl Fn(&E) -> Option<&opguard_document::Error>,
) -> Reported {
    let Err(e) = result else {
        panic!("the document was read");
    };
    let path = document(&e).map_or("(not the document's error)".into(), |d| d.path());
    reported(code(&e), path)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn capture() -> Value {
    json!({"format": "opguard.census/capture-v1", "label": "a", "step_axis": "s0",
           "step_hint": 2, "ops": [], "guards": [], "replacements": {},
           "host_resolutions": []})
}

/// Every door of one document kind, for one fault: `(door, what it reported)`.
type Walk = fn(&Path, Fault) -> Vec<(&'static str, Reported)>;

fn seam_request(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let doc = json!({"protocol_version": 1, "target": "pkg.mod:f"});
    let text = fault.apply(&doc, "target");
    let file = write(dir, "seam.json", &text);
    fn select<T>(r: Result<T, opguard_select::Error>) -> Reported {
        library(r, opguard_select::Error::code, |e| match e.kind() {
            opguard_select::ErrorKind::Document { source, .. } => Some(source),
            _ => None,
        })
    }
    vec![
        (
            "opguard_select::Request::from_json",
            select(opguard_select::Request::from_json(
                text.as_bytes(),
                "request",
            )),
        ),
        (
            "opguard_select::verdict_from_request_file",
            select(opguard_select::verdict_from_request_file(&file)),
        ),
        (
            "opguard select verdict",
            cli(&["select", "verdict", "--request", s(&file), "--json"]),
        ),
        (
            "opguard_seam_verdict request",
            capi("opguard_seam_verdict", &format!(r#"{{"request": {text}}}"#)),
        ),
        (
            "opguard_seam_verdict request_path",
            capi(
                "opguard_seam_verdict",
                &json!({ "request_path": file }).to_string(),
            ),
        ),
    ]
}

fn align_kind(e: &opguard_align::Error) -> Option<&opguard_document::Error> {
    match e.kind() {
        opguard_align::ErrorKind::Document { source, .. } => Some(source),
        _ => None,
    }
}

fn apply_request(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let doc = json!({"protocol_version": 1, "artifact": "view.json",
                     "alignment_map": "map.json", "output": "out.json"});
    let text = fault.apply(&doc, "artifact");
    let file = write(dir, "apply.json", &text);
    vec![
        (
            "opguard_align::parse_request",
            library(
                opguard_align::parse_request(&text, dir),
                opguard_align::Error::code,
                align_kind,
            ),
        ),
        (
            "opguard_align::apply_request_file",
            library(
                opguard_align::apply_request_file(&file),
                opguard_align::Error::code,
                align_kind,
            ),
        ),
        (
            "opguard tools align --request",
            cli(&["tools", "align", "--request", s(&file), "--json"]),
        ),
        (
            "opguard_alignment_map_apply",
            capi("opguard_alignment_map_apply", &text),
        ),
    ]
}

fn alignment_map(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    // The map is read before the artifact, so none is needed.
    let doc = json!({"version": 1, "artifact_sha256": "0".repeat(64), "reviews": []});
    let map = write(dir, "map.json", &fault.apply(&doc, "artifact_sha256"));
    let view = dir.join("view.json");
    let out = dir.join("reviewed.json");
    vec![
        (
            "opguard_align::apply",
            library(
                opguard_align::apply(&view, &map, &out),
                opguard_align::Error::code,
                align_kind,
            ),
        ),
        (
            "opguard align",
            cli(&[
                "align",
                "--artifact",
                s(&view),
                "--alignment-map",
                s(&map),
                "--out",
                s(&out),
                "--json",
            ]),
        ),
        (
            "opguard_alignment_map_apply alignment_map",
            capi(
                "opguard_alignment_map_apply",
                &json!({"protocol_version": 1, "artifact": view, "alignment_map": map,
                        "output": out})
                .to_string(),
            ),
        ),
    ]
}

fn records(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let record = json!({"record_id": "a/0/0", "run": "a", "rank": 0, "sequence": 0,
                        "op": "aten::mm", "stack": [], "io": {"inputs": [], "outputs": []}});
    let text = format!(
        "{{\"format\":\"opguard.records/v1\"}}\n{}\n",
        fault.apply(&record, "run")
    );
    let file = write(dir, "r.jsonl", &text);
    let out = dir.join("view.json");
    vec![
        (
            "opguard_align::read_records",
            library(
                opguard_align::read_records(&file),
                opguard_align::Error::code,
                align_kind,
            ),
        ),
        (
            "opguard export --records",
            cli(&["export", "--records", s(&file), "--out", s(&out), "--json"]),
        ),
        (
            "opguard_export_build records",
            capi(
                "opguard_export_build",
                &json!({"records": file, "output": out}).to_string(),
            ),
        ),
    ]
}

fn trials(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let doc = json!({"trials": [{"id": "a", "input": 1, "variant": "v", "traces": ["t.json"]}]});
    let text = fault.apply(&doc, "trials");
    let file = write(dir, "trials.json", &text);
    let scaling = |r| {
        library(r, opguard_scaling::Error::code, |e| match e.kind() {
            opguard_scaling::ErrorKind::Document { source, .. } => Some(source),
            _ => None,
        })
    };
    vec![
        (
            "opguard_scaling::TrialsDocument::from_json",
            scaling(opguard_scaling::TrialsDocument::from_json(
                text.as_bytes(),
                dir,
                "trials",
            )),
        ),
        (
            "opguard_scaling::TrialsDocument::read",
            scaling(opguard_scaling::TrialsDocument::read(&file)),
        ),
        (
            "opguard scaling",
            cli(&["scaling", "--trials", s(&file), "--json"]),
        ),
        (
            "opguard_scaling_correlate trials",
            capi(
                "opguard_scaling_correlate",
                &format!(r#"{{"trials": {text}}}"#),
            ),
        ),
        (
            "opguard_scaling_correlate trials_path",
            capi(
                "opguard_scaling_correlate",
                &json!({ "trials_path": file }).to_string(),
            ),
        ),
    ]
}

fn job(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let doc = json!({"format": "opguard.job/v1", "ranks": [], "frames": []});
    let text = fault.apply(&doc, "format");
    let file = write(dir, "job.json", &text);
    let job = |r| {
        library(r, opguard_job::Error::code, |e| match e.kind() {
            opguard_job::ErrorKind::Document { source, .. } => Some(source),
            _ => None,
        })
    };
    let report = dir.join("job.html");
    vec![
        (
            "opguard_job::job_from_json",
            job(opguard_job::job_from_json("job", &text)),
        ),
        (
            "opguard_job::job_from_path",
            job(opguard_job::job_from_path(&file)),
        ),
        (
            "opguard report --job",
            cli(&["report", "--job", s(&file), "--out", s(&report), "--json"]),
        ),
        (
            "opguard_job_merge summaries",
            capi(
                "opguard_job_merge",
                &format!(r#"{{"summaries": [{text}]}}"#),
            ),
        ),
    ]
}

fn census_error(e: &opguard_census::Error) -> Option<&opguard_document::Error> {
    match e.kind() {
        opguard_census::ErrorKind::Document { source, .. } => Some(source),
        _ => None,
    }
}

fn census_capture(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let text = fault.apply(&capture(), "label");
    let file = write(dir, "capture.json", &text);
    let census = |r| library(r, opguard_census::Error::code, census_error);
    vec![
        (
            "opguard_census::Capture::from_slice",
            census(opguard_census::Capture::from_slice(text.as_bytes())),
        ),
        (
            "opguard_census::Capture::from_path",
            census(opguard_census::Capture::from_path(&file)),
        ),
        ("opguard census", cli(&["census", s(&file), "--json"])),
        (
            "opguard_census capture",
            capi("opguard_census", &format!(r#"{{"capture": {text}}}"#)),
        ),
        (
            "opguard_census capture_path",
            capi(
                "opguard_census",
                &json!({ "capture_path": file }).to_string(),
            ),
        ),
        (
            "opguard_census_compare_widths first",
            capi(
                "opguard_census_compare_widths",
                &format!(r#"{{"first": {text}, "second": {}}}"#, capture()),
            ),
        ),
    ]
}

fn census_families(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let doc = json!({"format": "opguard.census/families-v1", "families": []});
    let text = fault.apply(&doc, "families");
    let file = write(dir, "families.json", &text);
    let capture = write(dir, "good-capture.json", &capture().to_string());
    let census = |r| library(r, opguard_census::Error::code, census_error);
    vec![
        (
            "opguard_census::FamilyTable::from_slice",
            census(opguard_census::FamilyTable::from_slice(text.as_bytes())),
        ),
        (
            "opguard census --families",
            cli(&["census", s(&capture), "--families", s(&file), "--json"]),
        ),
        (
            "opguard_census families",
            capi(
                "opguard_census",
                &format!(
                    r#"{{"capture_path": {}, "families": {text}}}"#,
                    json!(capture)
                ),
            ),
        ),
    ]
}

fn census_declared(dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let doc = json!({"pkg/a.py:1 in f": 1});
    let text = fault.apply(&doc, "pkg/a.py:1 in f");
    let file = write(dir, "declared.json", &text);
    let capture = write(dir, "good-capture.json", &capture().to_string());
    let census = |r| library(r, opguard_census::Error::code, census_error);
    vec![
        (
            "opguard_census::DeclaredHostResolutions::from_slice",
            census(opguard_census::DeclaredHostResolutions::from_slice(
                text.as_bytes(),
            )),
        ),
        (
            "opguard census --declared-host-resolutions",
            cli(&[
                "census",
                s(&capture),
                "--declared-host-resolutions",
                s(&file),
                "--json",
            ]),
        ),
        (
            "opguard_census declared_host_resolutions",
            capi(
                "opguard_census",
                &format!(
                    r#"{{"capture_path": {}, "declared_host_resolutions": {text}}}"#,
                    json!(capture)
                ),
            ),
        ),
    ]
}

/// The C ABI's own requests: the same fault in the request itself.
fn capi_request(_dir: &Path, fault: Fault) -> Vec<(&'static str, Reported)> {
    let request = fault.apply(&json!({"symbol": "clamp_position_kernel"}), "symbol");
    vec![
        (
            "opguard_kernel_canonicalize",
            capi("opguard_kernel_canonicalize", &request),
        ),
        (
            "opguard_kernel_short_name",
            capi("opguard_kernel_short_name", &request),
        ),
    ]
}

#[test]
fn one_repeated_key_and_one_wrong_type_have_one_code_at_every_door() {
    let walks: [(&str, &str, Walk); 10] = [
        ("seam request", "target", seam_request),
        ("apply request", "artifact", apply_request),
        ("alignment map", "artifact_sha256", alignment_map),
        ("records line", "run", records),
        ("trials document", "trials", trials),
        ("job document", "format", job),
        ("capture", "label", census_capture),
        ("family table", "families", census_families),
        (
            "declared host resolutions",
            "$[\"pkg/a.py:1 in f\"]",
            census_declared,
        ),
        ("C ABI request", "symbol", capi_request),
    ];
    let mut doors = 0;
    for fault in [Fault::RepeatedKey, Fault::WrongType] {
        for (kind, path, walk) in walks {
            let dir = tempfile::tempdir().unwrap();
            for (door, got) in walk(dir.path(), fault) {
                doors += 1;
                assert_eq!(got.code, fault.code(), "{kind}, {door}: {got:?}");
                assert_eq!(got.json_path, path, "{kind}, {door}: {got:?}");
            }
        }
    }
    // Every door above was walked with both faults.
    assert_eq!(doors, 2 * 38);
}
