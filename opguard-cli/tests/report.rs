//! `opguard report`: the default input, real traces, exclusive creation and
//! nothing left behind by a failed run.

use std::path::PathBuf;

use crate::common::run;

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn the_default_input_gives_one_page_with_every_section() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    let r = run(&["report", "--json", "--out", path_str(&out)]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let line = &r.json_lines()[0];
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(line["bytes"], html.len() as u64);
    assert_eq!(line["traces"], 3);
    for file in [
        "decode.rank0.json.gz",
        "decode.rank1.json.gz",
        "decode.rocm.json.gz",
    ] {
        assert!(html.contains(&format!("<h2>{file}</h2>")), "{file}");
    }
    assert_eq!(html.matches("<svg class=\"chart timeline\"").count(), 3);
    assert_eq!(html.matches("<svg class=\"chart bars\"").count(), 3);
    assert!(html.contains("<section id=\"alignment\">"));
    assert!(html.contains("<section id=\"seam-verdict\">"));
    assert!(!html.contains("<script"));
    // Nothing is fetched: no source or link to anywhere else.
    assert!(!html.contains(" src=") && !html.contains("href=\"http"));
}

#[test]
fn real_traces_and_trials_draw_alignment_and_scatter() {
    let (Some(a), Some(b)) = (
        opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz"),
        opguard_testdata::shared_file("traces/hta/trace_compare__test__test.json.gz"),
    ) else {
        return;
    };
    let trials =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scaling/seed003/trials.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    let r = run(&[
        "report",
        "--out",
        path_str(&out),
        "--trials",
        path_str(&trials),
        path_str(&a),
        path_str(&b),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.contains("r.html"), "{}", r.stdout);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<section id=\"alignment\">"));
    assert!(html.contains("<svg class=\"chart scatter\""));
    assert!(html.contains("reverse_scan"));
    assert!(!html.contains("<section id=\"seam-verdict\">"));
}

#[test]
fn an_existing_output_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    std::fs::write(&out, "mine").unwrap();
    let r = run(&["report", "--json", "--out", path_str(&out)]);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "output_exists");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
}

#[test]
fn a_failed_run_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json.gz");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, b"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": NaN}]}").unwrap();
    // A readable trace first: the failure comes after work was done.
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/default-input/decode.rank0.json.gz"),
        &good,
    )
    .unwrap();
    let out = dir.path().join("r.html");
    let r = run(&[
        "report",
        "--json",
        "--out",
        path_str(&out),
        path_str(&good),
        path_str(&bad),
    ]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(!out.exists(), "a failed run wrote its output");
    let trials = dir.path().join("trials.json");
    std::fs::write(&trials, "[]").unwrap();
    let r = run(&[
        "report",
        "--out",
        path_str(&out),
        "--trials",
        path_str(&trials),
        path_str(&good),
    ]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(!out.exists(), "a refused trials document left a page");
}
