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

/// A second `opguard report` in the same place says how to write another:
/// the `--out` it suggests names a file that does not exist, and works.
#[test]
fn a_second_report_is_told_which_name_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let report = |args: &[&str]| {
        let mut cmd = crate::common::opguard(&["report"]);
        cmd.args(args).current_dir(dir.path());
        crate::common::run_cmd(cmd, "")
    };
    assert_eq!(report(&[]).status, 0);
    let again = report(&[]);
    assert_eq!(again.status, 2);
    let message = again.stderr;
    assert!(message.contains("error[output_exists]"), "{message}");
    let suggested = message
        .split("e.g. --out ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no --out suggested: {message}"));
    assert_eq!(suggested, "opguard-report-2.html");
    assert_eq!(report(&["--out", suggested]).status, 0);
    assert!(dir.path().join(suggested).is_file());
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

/// `opguard job --json` (or any engine's reduce) drawn: the job's page
/// alone when no trace is given, with the straggler named; a document that
/// is not a job is refused before anything is written.
#[test]
fn a_job_document_draws_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["job".to_owned(), "--json".to_owned()];
    args.extend((0..3).map(|r| {
        opguard_testdata::producer_trace(&format!("torch_ddp_rank{r}.json.gz"))
            .display()
            .to_string()
    }));
    let job = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(job.status, 0, "{}", job.stderr);
    let doc = dir.path().join("job.json");
    std::fs::write(&doc, &job.stdout).unwrap();

    let out = dir.path().join("job.html");
    let r = run(&[
        "report",
        "--json",
        "--job",
        path_str(&doc),
        "--out",
        path_str(&out),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(r.json_lines()[0]["traces"], 0);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<h2>Job: 3 ranks</h2>"));
    assert!(
        !html.contains("<section class=\"artifact\""),
        "no default input"
    );
    let mm = html
        .split("<g class=\"strip-row\">")
        .find(|row| row.starts_with("<title>aten::mm</title>"))
        .expect("a strip for aten::mm");
    assert!(mm.contains(">20.22 ms on rank 2 · median 9.27 ms<"), "{mm}");

    // A trace is not a job document: refused, nothing written.
    let refused = dir.path().join("refused.html");
    let trace = opguard_testdata::producer_trace("torch_ddp_rank0.json.gz");
    let bad = run(&[
        "report",
        "--job",
        path_str(&trace),
        "--out",
        path_str(&refused),
    ]);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(!refused.exists());
    let text = dir.path().join("trace.json");
    std::fs::write(&text, opguard_testdata::decoded(&trace)).unwrap();
    let bad = run(&[
        "report",
        "--job",
        path_str(&text),
        "--out",
        path_str(&refused),
    ]);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("wrong_format"), "{}", bad.stderr);
    assert!(!refused.exists());
}
