//! Seed 003 across checkouts and venvs: one real PyTorch trace
//! (`torch/traces/proc_a.json.gz`, torch CPU profiling a model from a source
//! tree) written three times with only the prefix of its Python frame paths
//! changed, as three installs would print it. Everything else is the real
//! trace's bytes as parsed: the rewrite is faithful because a venv or a
//! checkout changes nothing but where the files sit.

use std::collections::{BTreeMap, BTreeSet};
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

fn read(path: &Path) -> opguard_model::TraceModel {
    opguard_formats::read(
        path,
        ArtifactSpec::new(),
        &opguard_formats::ReadOptions::new(ModelOptions::new()),
    )
    .unwrap()
}

/// The Python frames as the original trace names them (Kineto already wrote
/// installed packages relative): the (name, file, line) every relocated copy
/// must come back to.
fn python_frames(path: &Path) -> BTreeSet<(String, Option<String>, Option<u32>)> {
    let m = read(path);
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

/// The three layouts, the third with its project one directory deeper
/// (`proj/src/mymodel/...`) than its entry script (`proj/`).
fn third_checkout_one_deeper(doc: &Value) -> Vec<Value> {
    LAYOUTS
        .iter()
        .enumerate()
        .map(|(i, (p, c))| relocate(doc, p, c, if i == 2 { "src/" } else { "" }))
        .collect()
}

/// A checkout whose project sits one directory deeper than its entry script
/// (`proj/src/mymodel/...` vs `proj/mymodel/...`): the project frames cannot
/// join. They are reported as unmatched with the identity reason, never as
/// insufficient data; installed-package frames still join.
#[test]
fn frames_split_by_identity_are_unmatched_with_the_reason() {
    let Some((_, doc)) = original() else { return };
    let dir = tempfile::tempdir().unwrap();
    let docs = third_checkout_one_deeper(&doc);
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

/// Frames CPython names by an object's address (`<built-in method reshape
/// of Tensor object at 0x7f36768de120>`): `(semantic id or None, normalized
/// name, the event's own name)` for every such Python frame of a trace.
fn addressed_frames(path: &Path) -> Vec<(Option<String>, String, String)> {
    let m = read(path);
    m.slices()
        .iter()
        .filter(|s| s.class == SliceClass::PythonFunction && m.name(s.name).contains(" at 0x"))
        .map(|s| {
            let f = m.semantic_frame(s);
            (
                f.id.map(|id| id.as_str().to_owned()),
                f.name,
                m.name(s.name).to_owned(),
            )
        })
        .collect()
}

/// The referee: the distinct names of both traces' Python frames once
/// CPython's ` at 0x...` is cut out, the unnamed built-ins set aside.
const ADDRESS_REFEREE: &str = r#"
import gzip, json, re, sys
names = set()
for path in sys.argv[1:]:
    for e in json.load(gzip.open(path))["traceEvents"]:
        name = e.get("name", "")
        if e.get("cat") == "python_function" and " at 0x" in name:
            names.add(re.sub(r" at 0x[0-9a-fA-F]+", "", name.strip()))
print(len([n for n in names if not n.startswith("<built-in method  of ")]))
"#;

/// Two real processes (`proc_a`, `threads`: the same model profiled twice)
/// print every built-in's object at another address. Before, each address
/// was an identity of its own, so the same launcher landed in
/// `insufficient` one trial at a time.
#[test]
fn a_builtin_named_by_its_address_is_one_frame_in_every_process() {
    let (Some(a), Some(b)) = (
        opguard_testdata::shared_file("torch/traces/proc_a.json.gz"),
        opguard_testdata::shared_file("torch/traces/threads.json.gz"),
    ) else {
        return;
    };
    let (in_a, in_b) = (addressed_frames(&a), addressed_frames(&b));
    let ids = |frames: &[(Option<String>, String, String)]| -> BTreeMap<String, BTreeSet<String>> {
        let mut by_name: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (id, name, _) in frames {
            if let Some(id) = id {
                by_name.entry(name.clone()).or_default().insert(id.clone());
            }
        }
        by_name
    };
    let (ids_a, ids_b) = (ids(&in_a), ids(&in_b));
    let shared: Vec<&String> = ids_a.keys().filter(|n| ids_b.contains_key(*n)).collect();
    assert!(shared.len() >= 5, "{shared:?}");
    for name in &shared {
        assert_eq!(ids_a[*name].len(), 1, "{name}: one id in one process");
        assert_eq!(
            ids_a[*name], ids_b[*name],
            "{name}: one id in both processes"
        );
    }
    // The two processes really placed the objects elsewhere.
    let raw = |f: &[(Option<String>, String, String)], n: &str| -> BTreeSet<String> {
        f.iter().filter(|x| x.1 == n).map(|x| x.2.clone()).collect()
    };
    for name in [
        "<built-in method get of dict object>",
        "<built-in method items of dict object>",
    ] {
        assert!(!raw(&in_a, name).is_empty());
        assert!(raw(&in_a, name).is_disjoint(&raw(&in_b, name)), "{name}");
    }
    // The events keep their addresses; only the identity drops them.
    assert!(in_a
        .iter()
        .all(|(_, name, event)| !name.contains(" at 0x") && event.contains(" at 0x")));

    let distinct: BTreeSet<&String> = in_a
        .iter()
        .chain(&in_b)
        .filter_map(|f| f.0.as_ref())
        .collect();
    let a_str = a.to_str().unwrap();
    let b_str = b.to_str().unwrap();
    let referee = opguard_testdata::python3(["-c", ADDRESS_REFEREE, a_str, b_str]);
    let expected: usize = String::from_utf8(referee).unwrap().trim().parse().unwrap();
    assert_eq!(distinct.len(), expected);
    // A pybind11 function without a name was told apart by its address
    // alone: partial, with the reason, never merged.
    let unnamed: Vec<_> = in_a
        .iter()
        .filter(|f| f.1.starts_with("<built-in method  of "))
        .collect();
    assert!(!unnamed.is_empty());
    assert!(unnamed.iter().all(|f| f.0.is_none()));
}

/// Every `at 0x<hex>` shifted by `shift`, as another process would print
/// the same objects.
fn readdress(doc: &Value, shift: u64) -> Value {
    let mut doc = doc.clone();
    for e in doc["traceEvents"].as_array_mut().unwrap() {
        let Some(name) = e["name"].as_str() else {
            continue;
        };
        let mut out = String::new();
        let mut rest = name;
        while let Some(at) = rest.find(" at 0x") {
            let after = &rest[at + 6..];
            let digits = after.bytes().take_while(u8::is_ascii_hexdigit).count();
            let address = u64::from_str_radix(&after[..digits], 16).unwrap();
            out.push_str(&format!("{} at 0x{:x}", &rest[..at], address + shift));
            rest = &after[digits..];
        }
        out.push_str(rest);
        e["name"] = json!(out);
    }
    doc
}

#[test]
fn builtins_named_by_address_join_across_three_trials_and_unnamed_ones_are_unmatched() {
    let Some((_, doc)) = original() else { return };
    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<Value> = [0, 0x1000, 0x20_0000]
        .iter()
        .map(|&shift| readdress(&doc, shift))
        .collect();
    assert_ne!(docs[0]["traceEvents"], docs[1]["traceEvents"]);
    let report = run_trials_file(trials(dir.path(), &docs), None).unwrap();

    let builtin = |name: &str| name.starts_with("<built-in method ");
    let joined: Vec<_> = report
        .not_correlatable
        .iter()
        .map(|n| (&n.series.name, n.independent_trial_count))
        .chain(
            report
                .hotspots
                .iter()
                .map(|h| (&h.series.name, h.independent_trial_count)),
        )
        .filter(|(name, _)| builtin(name))
        .collect();
    assert!(joined.len() >= 10, "{joined:?}");
    assert!(joined
        .iter()
        .all(|(name, trials)| *trials == 3 && !name.contains(" at 0x")));
    assert!(
        report.insufficient.iter().all(|i| !builtin(&i.series.name)),
        "{:?}",
        report.insufficient
    );
    assert!(report
        .unmatched
        .iter()
        .any(|u| u.reason.contains("built-in method without a name")));
}

/// `python ./scan.py` and `python scan.py` in one checkout: the second trial
/// writes every project file with a leading `./`. Same file, same line: one
/// series, never an identity split.
#[test]
fn a_leading_dot_segment_is_the_same_file() {
    let Some((path, doc)) = original() else {
        return;
    };
    let want = python_frames(&path);
    let mut dotted = relocate(&doc, "/usr/lib/python3/dist-packages", ".", "");
    // relocate wrote `./file`; undo it for installed packages, as Kineto
    // writes those relative to site-packages.
    for e in dotted["traceEvents"].as_array_mut().unwrap() {
        if let Some(name) = e["name"]
            .as_str()
            .and_then(|n| n.strip_prefix("/usr/lib/python3/dist-packages/"))
        {
            e["name"] = json!(name.to_owned());
        }
    }
    assert!(dotted["traceEvents"].to_string().contains("\"./mymodel/"));
    let dir = tempfile::tempdir().unwrap();
    // A third capture: other bytes (its objects elsewhere), same frames.
    let third = readdress(&doc, 0x40);
    let report = run_trials_file(trials(dir.path(), &[doc, dotted, third]), None).unwrap();
    assert!(
        report
            .unmatched
            .iter()
            .all(|u| !u.reason.starts_with("identity differs")),
        "{:?}",
        report.unmatched.first()
    );
    let joined: BTreeSet<_> = report
        .not_correlatable
        .iter()
        .filter(|n| n.series.category == "python_function" && n.independent_trial_count == 3)
        .filter(|n| n.series.file.is_some())
        .map(|n| (n.series.name.clone(), n.series.file.clone(), n.series.line))
        .collect();
    assert_eq!(joined, want);
}

/// The advice the split reason gives, followed: the checkout whose project
/// sits one directory deeper names its own `source_root` in the trials
/// document, and its project frames join the other two trials'.
#[test]
fn a_trials_source_root_joins_a_checkout_laid_out_differently() {
    let Some((_, doc)) = original() else { return };
    let dir = tempfile::tempdir().unwrap();
    let docs = third_checkout_one_deeper(&doc);
    let path = trials(dir.path(), &docs);
    let mut trials_doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let project = |report: &opguard_scaling::ScalingReport| -> (usize, usize) {
        let joined = report
            .not_correlatable
            .iter()
            .filter(|n| {
                n.series
                    .file
                    .as_deref()
                    .is_some_and(|f| f.starts_with("mymodel/"))
            })
            .filter(|n| n.independent_trial_count == 3)
            .count();
        let split = report
            .unmatched
            .iter()
            .filter(|u| u.reason.starts_with("identity differs") && u.reason.contains("mymodel/"))
            .count();
        (joined, split)
    };
    let (joined, split) = project(&run_trials_file(&path, None).unwrap());
    assert_eq!(joined, 0);
    assert!(split > 0);

    trials_doc["trials"][2]["source_root"] = json!(format!("{}/src", LAYOUTS[2].1));
    std::fs::write(&path, serde_json::to_vec(&trials_doc).unwrap()).unwrap();
    let (joined, split) = project(&run_trials_file(&path, None).unwrap());
    assert!(joined > 10, "{joined} project series joined");
    assert_eq!(split, 0);
}
