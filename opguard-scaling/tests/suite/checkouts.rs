//! Seed 003 across checkouts and venvs: one real PyTorch trace
//! (`torch/traces/proc_a.json.gz`, torch CPU profiling a model from a source
//! tree) written three times with only the prefix of its Python frame paths
//! changed, as three installs would print it. Everything else is the real
//! trace's bytes as parsed: the rewrite is faithful because a venv or a
//! checkout changes nothing but where the files sit.

use std::collections::BTreeSet;
use std::path::Path;

use opguard_model::{ArtifactSpec, ModelOptions, SliceClass};
use opguard_scaling::run_trials_file;
use serde_json::{json, Value};

/// Where each trial's install and checkout sit.
const LAYOUTS: [(&str, &str); 3] = [
    (
        "/home/u1/venv/lib/python3.11/site-packages",
        "/home/u1/src/proj",
    ),
    (
        "/opt/conda/lib/python3.10/site-packages",
        "/srv/ci/build-17/proj",
    ),
    ("/usr/lib/python3/dist-packages", "/tmp/w/proj"),
];

/// Rewrites the file of every Python frame: installed packages (`torch/...`)
/// under `packages`, the project (`mymodel/...`, the entry script) under
/// `checkout`, project files additionally below `project_subdir`.
fn relocate(doc: &Value, packages: &str, checkout: &str, project_subdir: &str) -> Value {
    let mut doc = doc.clone();
    for e in doc["traceEvents"].as_array_mut().unwrap() {
        if e["cat"] != "python_function" {
            continue;
        }
        let Some(name) = e["name"].as_str() else {
            continue;
        };
        let Some((file, rest)) = name.split_once('(') else {
            continue;
        };
        if !file.ends_with(".py") {
            continue;
        }
        let moved = if file.starts_with("torch/") {
            format!("{packages}/{file}")
        } else if file.contains('/') {
            format!("{checkout}/{project_subdir}{file}")
        } else {
            format!("{checkout}/{file}")
        };
        e["name"] = json!(format!("{moved}({rest}"));
    }
    doc
}

fn write_gzip(path: &Path, doc: &Value) {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&serde_json::to_vec(doc).unwrap()).unwrap();
    std::fs::write(path, gz.finish().unwrap()).unwrap();
}

fn original() -> Option<(std::path::PathBuf, Value)> {
    let path = opguard_testdata::shared_file("torch/traces/proc_a.json.gz")?;
    let mut raw = String::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut raw)
        .unwrap();
    Some((path, serde_json::from_str(&raw).unwrap()))
}

fn trials(dir: &Path, docs: &[Value]) -> std::path::PathBuf {
    let mut trials = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let file = format!("t{i}.json.gz");
        write_gzip(&dir.join(&file), doc);
        trials.push(
            json!({"id": format!("t{i}"), "input": i + 1, "variant": "cpu", "traces": [file]}),
        );
    }
    let path = dir.join("trials.json");
    let doc = json!({"format": "opguard.scaling/trials-v1", "metric": "count", "trials": trials});
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

/// The Python frames as the original trace names them (Kineto already wrote
/// installed packages relative): the (name, file, line) every relocated copy
/// must come back to.
fn python_frames(path: &Path) -> BTreeSet<(String, Option<String>, Option<u32>)> {
    let m = opguard_formats::read(
        path,
        ArtifactSpec::new(),
        &opguard_formats::ReadOptions::new(ModelOptions::new()),
    )
    .unwrap();
    m.slices()
        .iter()
        .filter(|s| s.class == SliceClass::PythonFunction)
        .map(|s| m.semantic_frame(s))
        .filter(|f| f.file.is_some())
        .map(|f| (f.name, f.file, f.line))
        .collect()
}

#[test]
fn one_function_in_three_venvs_and_checkouts_is_one_series() {
    let Some((path, doc)) = original() else {
        return;
    };
    let want = python_frames(&path);
    assert!(want.len() > 50, "{} python frames", want.len());
    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<Value> = LAYOUTS
        .iter()
        .map(|(packages, checkout)| relocate(&doc, packages, checkout, ""))
        .collect();
    // The copies really differ where a venv and a checkout would.
    let first = docs[0]["traceEvents"].to_string();
    assert!(first.contains("/home/u1/venv/lib/python3.11/site-packages/torch/nn/modules/"));
    assert!(first.contains("/home/u1/src/proj/mymodel/"));
    let report = run_trials_file(trials(dir.path(), &docs), None).unwrap();

    let mut got = BTreeSet::new();
    let series = report
        .hotspots
        .iter()
        .map(|h| (&h.series, h.independent_trial_count))
        .chain(
            report
                .not_correlatable
                .iter()
                .map(|n| (&n.series, n.independent_trial_count)),
        );
    for (s, trials) in series.filter(|(s, _)| s.category == "python_function") {
        assert_eq!(trials, 3, "{s:?}");
        got.insert((s.name.clone(), s.file.clone(), s.line));
    }
    let got: BTreeSet<_> = got.into_iter().filter(|f| f.1.is_some()).collect();
    assert_eq!(
        got, want,
        "every Python frame joins across the three layouts"
    );
    let stray = |name: &str, file: &Option<String>| {
        file.as_deref().is_some_and(|f| f.starts_with('/')) || name.is_empty()
    };
    assert!(report
        .insufficient
        .iter()
        .all(|i| !stray(&i.series.name, &i.series.file) && i.series.category != "python_function"));
}

/// A checkout whose project sits one directory deeper than its entry script
/// (`proj/src/mymodel/...` vs `proj/mymodel/...`): the project frames cannot
/// join. They are reported as unmatched with the identity reason, never as
/// insufficient data; installed-package frames still join.
#[test]
fn frames_split_by_identity_are_unmatched_with_the_reason() {
    let Some((_, doc)) = original() else { return };
    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<Value> = LAYOUTS
        .iter()
        .enumerate()
        .map(|(i, (p, c))| relocate(&doc, p, c, if i == 2 { "src/" } else { "" }))
        .collect();
    let report = run_trials_file(trials(dir.path(), &docs), None).unwrap();
    let python_insufficient: Vec<_> = report
        .insufficient
        .iter()
        .filter(|i| i.series.category == "python_function")
        .collect();
    assert!(python_insufficient.is_empty(), "{python_insufficient:?}");
    let split: Vec<_> = report
        .unmatched
        .iter()
        .filter(|u| u.reason.starts_with("identity differs across trials"))
        .collect();
    assert!(!split.is_empty());
    assert!(split.iter().any(|u| u.trial_id == "t2"));
    assert!(
        split.iter().any(|u| u.reason.contains("src/mymodel/")),
        "{:?}",
        split[0].reason
    );
    // Installed packages still joined in all three trials (one input-independent
    // trace, so every joined series is constant).
    assert!(report.not_correlatable.iter().any(|n| n
        .series
        .file
        .as_deref()
        .is_some_and(|f| f.starts_with("torch/nn/"))
        && n.independent_trial_count == 3));
}
