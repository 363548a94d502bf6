//! `opguard census`, on the real torch captures.

use std::path::PathBuf;

use opguard_census::{Capture, Census, FamilyTable, WidthComparison};

use serde_json::Value;

use crate::common::run;

#[track_caller]
fn capture(stem: &str) -> Option<PathBuf> {
    opguard_testdata::shared_file(&format!("torch/census/{stem}.json"))
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// The CLI's capture object is the library's `Census` field for field, plus
/// `role`, `file` and `host_resolution_check`.
fn library_part(report: &Value) -> Value {
    let mut v = report.clone();
    let obj = v.as_object_mut().unwrap();
    for key in ["role", "file", "host_resolution_check"] {
        assert!(obj.remove(key).is_some(), "missing {key}");
    }
    v
}

#[test]
fn json_is_the_library_census_of_every_real_capture() {
    for stem in [
        "clean_sym_w2",
        "clean_sym_w8",
        "clean_control_w2",
        "hostres_sym_w2",
        "hostres_sym_w8",
    ] {
        let Some(path) = capture(stem) else {
            return;
        };
        let r = run(&["census", "--json", s(&path)]);
        assert_eq!(r.status, 0, "{stem}: {}", r.stderr);
        assert_eq!(r.stderr, "");
        let lines = r.json_lines();
        assert_eq!(lines.len(), 1);
        let report = &lines[0];
        assert!(report["comparison"].is_null());
        let captures = report["captures"].as_array().unwrap();
        assert_eq!(captures.len(), 1);
        let c = &captures[0];
        assert_eq!(c["role"], "capture");
        assert_eq!(c["label"], stem);
        assert_eq!(c["digest"].as_str().unwrap().len(), 64);
        for row in c["families"].as_array().unwrap() {
            for key in ["family", "ops", "shape_entries", "non_numeric"] {
                assert!(row.get(key).is_some(), "{stem}: family row lacks {key}");
            }
        }
        for key in [
            "totals",
            "unclassified",
            "concrete_dims",
            "host_resolutions_by_line",
        ] {
            assert!(c.get(key).is_some(), "{stem}: lacks {key}");
        }
        let want = Census::compute(&Capture::from_path(&path).unwrap(), &FamilyTable::default());
        assert_eq!(
            library_part(c),
            serde_json::to_value(&want).unwrap(),
            "{stem}"
        );
    }
}

#[test]
fn clean_widths_compare_as_a_free_symbol_with_the_control() {
    let (Some(w2), Some(w8), Some(ctl)) = (
        capture("clean_sym_w2"),
        capture("clean_sym_w8"),
        capture("clean_control_w2"),
    ) else {
        return;
    };
    let r = run(&[
        "census",
        "--json",
        s(&w2),
        "--compare",
        s(&w8),
        "--control",
        s(&ctl),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let report = &r.json_lines()[0];
    let roles: Vec<_> = report["captures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["role"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(roles, ["capture", "compare", "control"]);
    let cmp = &report["comparison"];
    assert_eq!(cmp["free_symbol"], true);
    let held = cmp["evidence_held"].as_object().unwrap();
    // Eleven checks, and the control's two.
    assert_eq!(held.len(), 13, "{held:?}");
    assert!(held.values().all(|v| v == &Value::Bool(true)), "{held:?}");
    assert!(held.contains_key("control_fully_concrete"));

    let want = WidthComparison::compare(
        &Capture::from_path(&w2).unwrap(),
        &Capture::from_path(&w8).unwrap(),
        Some(&Capture::from_path(&ctl).unwrap()),
    )
    .unwrap();
    let mut got = cmp.clone();
    got.as_object_mut().unwrap().remove("evidence_held");
    assert_eq!(got, serde_json::to_value(&want).unwrap());
    for (name, check) in want.evidence.checks() {
        assert_eq!(held[name], check.held, "{name}");
    }
}

/// Seed 004: "unclassified must be empty". The same free pair under a family table
/// that no longer claims `aten.mm`: not free, exit 1, the operator and the fix named.
#[test]
fn an_unclassified_operator_makes_compare_not_free_and_exit_1() {
    let (Some(w2), Some(w8)) = (capture("clean_sym_w2"), capture("clean_sym_w8")) else {
        return;
    };
    let mut table: Value = serde_json::from_str(opguard_census::DEFAULT_FAMILIES_JSON).unwrap();
    let mut removed = false;
    for family in table["families"].as_array_mut().unwrap() {
        let ops = family["operators"].as_array_mut().unwrap();
        let before = ops.len();
        ops.retain(|o| o != "aten.mm");
        removed |= ops.len() < before;
    }
    assert!(removed, "the default table claims aten.mm");
    let dir = tempfile::tempdir().unwrap();
    let families = dir.path().join("families.json");
    std::fs::write(&families, serde_json::to_vec(&table).unwrap()).unwrap();
    let r = run(&["census", "--json", s(&w2), "--compare", s(&w8)]);
    assert_eq!(
        r.status, 0,
        "the default table classifies everything: {}",
        r.stdout
    );
    let args = [
        "census",
        s(&w2),
        "--compare",
        s(&w8),
        "--families",
        s(&families),
    ];
    let r = run(&[&args[..1], &["--json"], &args[1..]].concat());
    assert_eq!(r.status, 1, "{}", r.stderr);
    let cmp = &r.json_lines()[0]["comparison"];
    assert_eq!(cmp["free_symbol"], false);
    assert_eq!(cmp["evidence_held"]["every_operator_classified"], false);
    let verdict = cmp["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("aten.mm.default") && verdict.contains("classify it in the family table"),
        "{verdict}"
    );
    let human = run(&args);
    assert_eq!(human.status, 1);
    assert!(human.stdout.contains("aten.mm.default"), "{}", human.stdout);
}

#[test]
fn host_resolved_widths_are_not_free_and_exit_1() {
    let (Some(h2), Some(h8)) = (capture("hostres_sym_w2"), capture("hostres_sym_w8")) else {
        return;
    };
    let r = run(&["census", "--json", s(&h2), "--compare", s(&h8)]);
    assert_eq!(r.status, 1, "a negative verdict exits 1: {}", r.stderr);
    let cmp = &r.json_lines()[0]["comparison"];
    assert_eq!(cmp["free_symbol"], false);
    assert_eq!(cmp["evidence_held"]["same_digest"], false);
    assert!(cmp["evidence_held"].get("control_fully_concrete").is_none());

    let human = run(&["census", s(&h2), "--compare", s(&h8)]);
    assert_eq!(human.status, 1);
    assert!(human.stdout.contains("not free"), "{}", human.stdout);
    assert!(human.stdout.contains("same_digest *"));
}

#[test]
fn a_width_one_capture_is_refused_and_prints_no_record() {
    let Some(w1) = capture("clean_sym_w1") else {
        return;
    };
    let r = run(&["census", "--json", s(&w1)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "", "a refusal must not print a record");
    let e = r.json_error();
    assert_eq!(e["code"], "step_axis_not_symbolic");
    assert!(e["message"].as_str().unwrap().contains("clean_sym_w1"));

    let human = run(&["census", s(&w1)]);
    assert_eq!(human.status, 2);
    assert_eq!(human.stdout, "");
    assert!(
        human.stderr.starts_with("error[step_axis_not_symbolic]: "),
        "{}",
        human.stderr
    );

    // Refused as the second width too, before anything is printed.
    let Some(w2) = capture("clean_sym_w2") else {
        return;
    };
    let r = run(&["census", "--json", s(&w2), "--compare", s(&w1)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(r.json_error()["code"], "step_axis_not_symbolic");
}

#[test]
fn a_concrete_capture_offered_as_a_width_is_refused() {
    let (Some(ctl), Some(w8)) = (capture("clean_control_w2"), capture("clean_sym_w8")) else {
        return;
    };
    let r = run(&["census", "--json", s(&ctl), "--compare", s(&w8)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(r.json_error()["code"], "step_axis_not_symbolic");
}

#[test]
fn declared_host_resolutions_are_checked_as_a_multiset() {
    let Some(h2) = capture("hostres_sym_w2") else {
        return;
    };
    let census = Census::compute(&Capture::from_path(&h2).unwrap(), &FamilyTable::default());
    assert!(!census.host_resolutions_by_line.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let exact = dir.path().join("exact.json");
    std::fs::write(
        &exact,
        serde_json::to_string(&census.host_resolutions_by_line).unwrap(),
    )
    .unwrap();
    let r = run(&[
        "census",
        "--json",
        s(&h2),
        "--declared-host-resolutions",
        s(&exact),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let check = &r.json_lines()[0]["captures"][0]["host_resolution_check"];
    assert_eq!(check["matches"], true);

    // One line converting once more than declared fails.
    let mut once_less = census.host_resolutions_by_line.clone();
    let first = once_less.keys().next().unwrap().clone();
    *once_less.get_mut(&first).unwrap() += 1;
    let changed = dir.path().join("changed.json");
    std::fs::write(&changed, serde_json::to_string(&once_less).unwrap()).unwrap();
    let r = run(&[
        "census",
        "--json",
        s(&h2),
        "--declared-host-resolutions",
        s(&changed),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let check = &r.json_lines()[0]["captures"][0]["host_resolution_check"];
    assert_eq!(check["matches"], false);
    assert_eq!(check["changed"][0]["line"], first.as_str());

    let human = run(&["census", s(&h2), "--declared-host-resolutions", s(&changed)]);
    assert_eq!(human.status, 1);
    assert!(
        human.stdout.contains("differs from the declared set"),
        "{}",
        human.stdout
    );
}

#[test]
fn a_family_table_replaces_the_default() {
    let Some(w2) = capture("clean_sym_w2") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("families.json");
    std::fs::write(
        &table,
        r#"{"format": "opguard.census/families-v1",
            "families": [{"family": "gemm", "operators": ["aten.mm", "aten.addmm", "aten.bmm"]}]}"#,
    )
    .unwrap();
    let r = run(&["census", "--json", s(&w2), "--families", s(&table)]);
    // The one-family table leaves most operators unclassified: the census is
    // printed whole, and an incomplete census exits 1.
    assert_eq!(r.status, 1, "{}", r.stderr);
    let c = &r.json_lines()[0]["captures"][0];
    let families = c["families"].as_array().unwrap();
    assert_eq!(families.len(), 1);
    assert_eq!(families[0]["family"], "gemm");
    let total = c["totals"]["ops"].as_u64().unwrap();
    let gemm = families[0]["ops"].as_u64().unwrap();
    assert_eq!(c["unclassified"]["ops"].as_u64().unwrap(), total - gemm);
    assert!(total > gemm);
}

#[test]
fn bad_inputs_are_errors_with_the_library_code() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"format\": ").unwrap();
    let r = run(&["census", "--json", s(&bad)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(r.json_error()["code"], "json_syntax");

    let r = run(&["census", "--json", "/nonexistent/capture.json"]);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "io");

    let Some(w2) = capture("clean_sym_w2") else {
        return;
    };
    // A capture offered as a family table: the library's refusal, passed on.
    let want = FamilyTable::from_path(&w2).unwrap_err();
    let r = run(&["census", "--json", s(&w2), "--families", s(&w2)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "");
    let e = r.json_error();
    assert_eq!(e["code"], want.code());
    assert_eq!(e["message"], want.to_string());
}

#[test]
fn a_control_without_a_comparison_is_a_usage_error() {
    let r = run(&["census", "a.json", "--control", "c.json"]);
    assert_eq!(r.status, 64);
    assert!(r.stderr.contains("--compare"), "{}", r.stderr);
}

/// Seed 004: an incomplete census is not a pass. A capture with operators no
/// family claims once exited 0, even with a host-resolution verdict asked for
/// and holding; now it exits 1 unless `--allow-unclassified`.
#[test]
fn an_incomplete_census_exits_1_unless_allowed_by_name() {
    let fixtures = opguard_testdata::fixtures_dir().join("census");
    let traps = fixtures.join("prefix_traps.capture.json");
    let families = fixtures.join("seed004_families.json");
    let dir = tempfile::tempdir().unwrap();
    let declared = dir.path().join("declared.json");
    std::fs::write(&declared, "{}").unwrap();
    let args = ["census", s(&traps), "--families", s(&families)];

    let r = run(&[&args[..], &["--json"]].concat());
    assert_eq!(r.status, 1, "{}", r.stderr);
    let report = &r.json_lines()[0];
    assert_eq!(report["every_operator_classified"], false);
    assert_eq!(report["allow_unclassified"], false);
    assert_eq!(report["captures"][0]["unclassified"]["ops"], 4);

    let with_declared = [&args[..], &["--declared-host-resolutions", s(&declared)]].concat();
    let r = run(&[&with_declared[..], &["--json"]].concat());
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.json_lines()[0]["captures"][0]["host_resolution_check"]["matches"],
        true
    );
    let human = run(&with_declared);
    assert_eq!(human.status, 1);
    assert!(
        human.stdout.contains("aten.addmm.default")
            && human.stdout.contains("--allow-unclassified"),
        "{}",
        human.stdout
    );

    let r = run(&[&with_declared[..], &["--allow-unclassified", "--json"]].concat());
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(r.json_lines()[0]["allow_unclassified"], true);
    // Every operator classified: 0 without the flag.
    let r = run(&[
        "census",
        s(&traps),
        "--declared-host-resolutions",
        s(&declared),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
}
