//! `opguard fixtures run`: every parity fixture passes through this build,
//! and a flipped expectation is caught by its id.

use std::path::{Path, PathBuf};

use opguard_testdata::fixture::{header_faults, HeaderFault};
use serde_json::Value;

use crate::common::{run, Run};

fn repo_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `(passed, failed)` from the summary line, which is alone on its line.
fn summary(r: &Run) -> (u64, u64) {
    let line = r
        .stdout
        .lines()
        .last()
        .unwrap_or_else(|| panic!("no output: {}", r.stderr));
    let (passed, failed) = line
        .strip_suffix(" failed")
        .and_then(|l| l.split_once(" passed, "))
        .unwrap_or_else(|| panic!("the last line is not `N passed, M failed`: {line}"));
    (passed.parse().unwrap(), failed.parse().unwrap())
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn write_json(p: &Path, v: &Value) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// The case lines of a run: `<file>::<id>` -> the rest of the line.
fn case_lines(r: &Run) -> Vec<(String, String)> {
    r.stdout
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(name, _)| name.contains("::"))
        .map(|(n, rest)| (n.to_owned(), rest.to_owned()))
        .collect()
}

#[test]
fn every_fixture_case_passes_from_the_repository() {
    // No DIR: the source tree's fixtures/ (the test runs in opguard-cli/).
    let r = run(&["fixtures", "run"]);
    let failed: Vec<&str> = r.stdout.lines().filter(|l| l.contains("FAILED")).collect();
    assert_eq!(
        r.status,
        0,
        "failing cases:\n{}\n{}",
        failed.join("\n"),
        r.stderr
    );
    let (passed, n_failed) = summary(&r);
    assert_eq!(n_failed, 0);
    // One line per case of every case file, counted from the files themselves.
    let dir = repo_fixtures();
    let kn = read_json(&dir.join("kernel-name/kernel_symbols.json"));
    let count = |v: &Value, key: &str| v[key].as_array().unwrap().len() as u64;
    let expected_cases = count(&kn, "symbol_cases")
        + count(&kn, "verdict_cases")
        + count(&read_json(&dir.join("select/cases.json")), "cases")
        + count(&read_json(&dir.join("scaling/cases.json")), "cases")
        + count(&read_json(&dir.join("align/map_cases.json")), "cases")
        + 1; // align/map_cases.json::(export), the export's declared shape
    assert_eq!(passed, expected_cases);
    let lines = case_lines(&r);
    assert_eq!(lines.len() as u64, expected_cases);
    for (prefix, id) in [
        ("kernel_symbols.json", "sym-seed-clamp-position-kernel"),
        ("select/cases.json", "0802_outer_wrapper"),
        ("scaling/cases.json", "seed003_inclusive"),
        ("align/map_cases.json", "stale-artifact-hash-fails"),
    ] {
        let name = format!("{prefix}::{id}");
        assert!(
            lines.iter().any(|(n, rest)| *n == name && rest == "ok"),
            "no `{name} ok` line"
        );
    }
    assert!(r.stdout.contains("skipped census/: "), "{}", r.stdout);
}

#[test]
fn a_flipped_expectation_fails_that_case_by_id_and_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let src = repo_fixtures();
    let mut kn = read_json(&src.join("kernel-name/kernel_symbols.json"));
    let case = &mut kn["verdict_cases"][0];
    let id = case["id"].as_str().unwrap().to_owned();
    let was = case["expected"]["is_match"].as_bool().unwrap();
    case["expected"]["is_match"] = Value::Bool(!was);
    write_json(&tmp.path().join("kernel-name/kernel_symbols.json"), &kn);

    // The same file unmodified, as the baseline.
    let base = tempfile::tempdir().unwrap();
    std::fs::create_dir(base.path().join("kernel-name")).unwrap();
    std::fs::copy(
        src.join("kernel-name/kernel_symbols.json"),
        base.path().join("kernel-name/kernel_symbols.json"),
    )
    .unwrap();
    let before = run(&["fixtures", "run", s(base.path())]);
    let name = format!("kernel_symbols.json::{id}");
    assert!(
        case_lines(&before).contains(&(name.clone(), "ok".to_owned())),
        "{name} does not pass unmodified:\n{}",
        before.stdout
    );

    let r = run(&["fixtures", "run", s(tmp.path())]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no line for {name}"));
    assert!(line.starts_with(&format!("{name} FAILED (")), "{line}");
    assert!(
        line.contains("is_match"),
        "the reason names the field: {line}"
    );
    let (p0, f0) = summary(&before);
    assert_eq!(summary(&r), (p0 - 1, f0 + 1));
    // The files DIR lacks are listed, not silently passed.
    for file in [
        "select/cases.json",
        "scaling/cases.json",
        "align/map_cases.json",
    ] {
        assert!(
            r.stdout.contains(&format!("skipped {file}: ")),
            "{}",
            r.stdout
        );
    }

    // --json: one object per case, then the summary.
    let r = run(&["fixtures", "run", "--json", s(tmp.path())]);
    assert_eq!(r.status, 1);
    let lines = r.json_lines();
    let failed: Vec<&Value> = lines.iter().filter(|l| l["ok"] == false).collect();
    assert!(failed.iter().any(|l| l["id"] == id.as_str()
        && l["file"] == "kernel_symbols.json"
        && l["message"]
            .as_str()
            .is_some_and(|m| m.contains("is_match"))));
    let last = lines.last().unwrap();
    assert_eq!(last["failed"], f0 + 1);
    assert_eq!(last["passed"], p0 - 1);
    assert_eq!(last["skipped"].as_array().unwrap().len(), 3);
    for l in &lines[..lines.len() - 1] {
        let mut keys: Vec<&String> = l.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["file", "id", "message", "ok"]);
        assert_eq!(l["message"].is_null(), l["ok"] == true);
    }
}

#[test]
fn a_flipped_align_expectation_fails_that_case() {
    let tmp = tempfile::tempdir().unwrap();
    let src = repo_fixtures().join("align");
    let mut doc = read_json(&src.join("map_cases.json"));
    let case = &mut doc["cases"][0];
    let id = case["id"].as_str().unwrap().to_owned();
    let pairs = case["expected"]["pairs"].as_u64().unwrap();
    case["expected"]["pairs"] = (pairs + 1).into();
    let records = doc["records"].as_str().unwrap().to_owned();
    write_json(&tmp.path().join("align/map_cases.json"), &doc);
    std::fs::copy(src.join(&records), tmp.path().join("align").join(&records)).unwrap();
    let r = run(&["fixtures", "run", s(tmp.path())]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    let failed: Vec<&str> = r.stdout.lines().filter(|l| l.contains("FAILED")).collect();
    assert_eq!(failed.len(), 1, "{}", r.stdout);
    assert!(
        failed[0].starts_with(&format!(
            "align/map_cases.json::{id} FAILED (pairs: expected {}",
            pairs + 1
        )),
        "{}",
        failed[0]
    );
}

#[test]
fn a_malformed_fixture_file_exits_2_before_any_case_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let mut kn = read_json(&repo_fixtures().join("kernel-name/kernel_symbols.json"));
    let declared = kn["symbol_case_count"].as_u64().unwrap();
    kn["symbol_case_count"] = (declared + 1).into();
    let path = tmp.path().join("kernel-name/kernel_symbols.json");
    write_json(&path, &kn);
    let r = run(&["fixtures", "run", "--json", s(tmp.path())]);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "", "nothing runs before every file is checked");
    let e = r.json_error();
    assert_eq!(e["code"], "fixture_malformed");
    assert!(e["message"].as_str().unwrap().contains("symbol_case_count"));
    assert_eq!(e["input"], s(&path));

    std::fs::write(&path, "{\"schema\": ").unwrap();
    let r = run(&["fixtures", "run", s(tmp.path())]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.starts_with("error[fixture_malformed]: "),
        "{}",
        r.stderr
    );

    let empty = tempfile::tempdir().unwrap();
    let r = run(&["fixtures", "run", "--json", s(empty.path())]);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "no_fixtures");
}

/// Every case file goes through one header check (fixtures/README.md): each
/// header fault of the shared table is refused with the field it is about,
/// before any case runs.
#[test]
fn every_case_file_header_is_checked_by_one_loader() {
    for HeaderFault { file, fault, says } in header_faults() {
        let tmp = tempfile::tempdir().unwrap();
        let mut doc = read_json(&repo_fixtures().join(file));
        fault(&mut doc);
        let path = tmp.path().join(file);
        write_json(&path, &doc);
        let r = run(&["fixtures", "run", "--json", s(tmp.path())]);
        assert_eq!(r.status, 2, "{file}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{file}: nothing runs");
        let e = r.json_error();
        assert_eq!(e["code"], "fixture_malformed", "{file}");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(says), "{file}: {message}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn flipped_select_and_scaling_expectations_fail_those_cases() {
    let tmp = tempfile::tempdir().unwrap();
    for d in ["select", "scaling"] {
        copy_dir(&repo_fixtures().join(d), &tmp.path().join(d));
    }
    // A verdict field of the first select case.
    let path = tmp.path().join("select/cases.json");
    let mut doc = read_json(&path);
    let case = &mut doc["cases"][0];
    let select_id = case["id"].as_str().unwrap().to_owned();
    let n = case["expect"]["matched_kernel_calls"].as_u64().unwrap();
    case["expect"]["matched_kernel_calls"] = (n + 1).into();
    write_json(&path, &doc);
    // The expected error code of the first scaling error case.
    let path = tmp.path().join("scaling/cases.json");
    let mut doc = read_json(&path);
    let case = doc["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["expect"]["error"].is_string())
        .unwrap();
    let scaling_id = case["id"].as_str().unwrap().to_owned();
    case["expect"]["error"] = "not_the_code".into();
    write_json(&path, &doc);

    let r = run(&["fixtures", "run", s(tmp.path())]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    let failed: Vec<&str> = r.stdout.lines().filter(|l| l.contains("FAILED")).collect();
    assert_eq!(failed.len(), 2, "{}", r.stdout);
    assert!(failed[0].starts_with(&format!(
        "select/cases.json::{select_id} FAILED (matched_kernel_calls: expected {}, got {n})",
        n + 1
    )));
    assert!(failed[1].starts_with(&format!(
        "scaling/cases.json::{scaling_id} FAILED (error code: expected \"not_the_code\""
    )));
}
