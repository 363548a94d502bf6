//! Issue 15: the reader flags (`--salvage`, `--max-decoded-bytes`,
//! `--max-encoded-bytes`, `--max-output-bytes`), `-` for stdin, and
//! `inspect` over many files, on cut-off variants of real traces.

use std::io::Read;
use std::path::{Path, PathBuf};

use opguard_trace::{ReaderOptions, TraceReader};

use crate::common::{opguard, run, run_cmd};

const BASE: &str = "traces/hta/trace_compare__base__base.json.gz";
const TEST: &str = "traces/hta/trace_compare__test__test.json.gz";

fn inflate(path: &Path) -> String {
    let mut out = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut out)
        .unwrap();
    out
}

/// The real trace cut in the middle: its plain text, written to `dir`.
fn cut_trace(dir: &Path) -> Option<(PathBuf, String)> {
    let doc = inflate(&opguard_testdata::shared_file(BASE)?);
    let cut = doc[..doc.len() / 2].to_owned();
    let path = dir.join("cut.json");
    std::fs::write(&path, &cut).unwrap();
    Some((path, cut))
}

/// Complete events the library's salvage reads from `text` (its own tests
/// hold that count against serde_json on cuts at many offsets).
fn salvaged(text: &str) -> u64 {
    let mut r =
        TraceReader::with_options(text.as_bytes(), ReaderOptions::new().salvage(true)).unwrap();
    while r.next_event().unwrap().is_some() {}
    r.finish().unwrap().events
}

/// Two real traces of the same program (a base and a test run).
fn two_real_traces() -> Option<[PathBuf; 2]> {
    Some([
        opguard_testdata::shared_file(BASE)?,
        opguard_testdata::shared_file(TEST)?,
    ])
}

#[test]
fn a_cut_trace_is_refused_with_its_count_and_read_with_salvage() {
    let dir = tempfile::tempdir().unwrap();
    let Some((path, text)) = cut_trace(dir.path()) else {
        return;
    };
    let complete = salvaged(&text);
    assert!(complete > 0);
    let p = path.to_str().unwrap();
    let r = run(&["trace", "info", "--json", p]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let err = r.json_error();
    assert_eq!(err["code"], "json_truncated");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{complete} complete events")),
        "{message}"
    );
    assert!(message.contains("--salvage"), "{message}");

    let r = run(&["trace", "info", "--json", "--salvage", p]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let info = &r.json_lines()[0];
    assert_eq!(info["events"], complete);
    assert_eq!(info["warnings"][0]["code"], "truncated", "{info}");

    // Every trace-reading command takes --salvage and reports the warning.
    for args in [
        &["trace", "launches", "--salvage", p][..],
        &["select", "profile", "--salvage", p],
        &["inspect", "--salvage", p],
    ] {
        let r = run(args);
        assert_eq!(r.status, 0, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("warning[truncated]"),
            "{args:?}: {}",
            r.stderr
        );
        let strict: Vec<&str> = args.iter().copied().filter(|a| *a != "--salvage").collect();
        let r = run(&strict);
        assert_eq!(r.status, 2, "{strict:?}");
        assert!(
            r.stderr.contains("error[json_truncated]"),
            "{strict:?}: {}",
            r.stderr
        );
    }
    let r = run(&["select", "profile", "--json", "--salvage", p]);
    let warning: serde_json::Value =
        serde_json::from_str(r.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(warning["warning"]["code"], "truncated");
    assert_eq!(warning["warning"]["complete_events"], complete);
    assert_eq!(warning["warning"]["input"], p);
}

#[test]
fn limits_are_a_flag_away_and_the_error_names_the_flag() {
    let Some(gz) = opguard_testdata::shared_file(BASE) else {
        return;
    };
    let decoded = inflate(&gz).len() as u64;
    let encoded = std::fs::metadata(&gz).unwrap().len();
    let g = gz.to_str().unwrap();
    for (flag, n) in [
        ("--max-decoded-bytes", decoded),
        ("--max-encoded-bytes", encoded),
    ] {
        let at = n.to_string();
        let r = run(&["trace", "info", "--json", flag, &at, g]);
        assert_eq!(r.status, 0, "{flag} {at}: {}", r.stderr);
        let below = (n - 1).to_string();
        for cmd in [
            &["trace", "info", "--json", flag, &below, g][..],
            &["trace", "launches", "--json", flag, &below, g],
            &["select", "profile", "--json", flag, &below, g],
            &["inspect", "--json", flag, &below, g],
        ] {
            let r = run(cmd);
            assert_eq!(r.status, 2, "{cmd:?}");
            let err = r.json_error();
            assert_eq!(err["code"], "limit_exceeded", "{cmd:?}");
            assert!(err["message"].as_str().unwrap().contains(flag), "{err}");
        }
    }
    let r = run(&["trace", "info", "--max-decoded-bytes", "512MiB", g]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let r = run(&["trace", "info", "--max-decoded-bytes", "4GB", g]);
    assert_eq!(r.status, 64, "a decimal unit is refused, not guessed");
    assert!(r.stderr.contains("powers of 1024"), "{}", r.stderr);
}

#[test]
fn export_output_limit_is_a_flag_away() {
    let Some([a, b]) = two_real_traces() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("view.json");
    let o = out.to_str().unwrap();
    let args = |limit: &'static str| {
        vec![
            "export",
            "--json",
            "--from-profile",
            a.to_str().unwrap(),
            "--from-profile",
            b.to_str().unwrap(),
            "--out",
            o,
            "--max-output-bytes",
            limit,
        ]
    };
    let r = run(&args("1KiB"));
    assert_eq!(r.status, 2);
    let err = r.json_error();
    assert_eq!(err["code"], "limit_exceeded");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("--max-output-bytes"),
        "{err}"
    );
    assert!(!out.exists(), "a failed export leaves nothing behind");
    let r = run(&args("1GiB"));
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(out.exists());
}

#[test]
fn stdin_is_a_trace_wherever_a_trace_is_read() {
    let Some(gz) = opguard_testdata::shared_file(BASE) else {
        return;
    };
    let text = inflate(&gz);
    let g = gz.to_str().unwrap();
    for cmd in [
        &["trace", "launches", "--json"][..],
        &["select", "profile", "--json"],
        &["inspect", "--json"],
    ] {
        let from_file = run(&[cmd, &[g]].concat());
        let from_stdin = run_cmd(opguard(&[cmd, &["-"]].concat()), &text);
        assert_eq!(from_file.status, 0, "{cmd:?}: {}", from_file.stderr);
        assert_eq!(from_stdin.status, 0, "{cmd:?}: {}", from_stdin.stderr);
        // The same figures, whatever the file is called.
        let strip = |r: &crate::common::Run| r.stdout.replace(g, "-");
        let (file_doc, stdin_doc) = (strip(&from_file), strip(&from_stdin));
        let key = |s: &str| -> serde_json::Value {
            let mut v: serde_json::Value = serde_json::from_str(s.trim()).unwrap();
            // The artifact digest differs: gzip bytes vs plain bytes.
            scrub(&mut v);
            v
        };
        assert_eq!(key(&file_doc), key(&stdin_doc), "{cmd:?}");
    }
}

/// Removes what names the bytes rather than the events (digests, sizes).
fn scrub(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in [
                "artifact",
                "clock_domain",
                "artifacts",
                "source",
                "sha256",
                "file",
            ] {
                m.remove(k);
            }
            m.values_mut().for_each(scrub);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(scrub),
        _ => {}
    }
}

#[test]
fn inspect_reports_every_readable_trace_and_why_others_were_not_aligned() {
    let Some([a, b]) = two_real_traces() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let Some((cut, _)) = cut_trace(dir.path()) else {
        return;
    };
    let missing = dir.path().join("missing.json");
    let [a, b, cut, missing] = [&a, &b, &cut, &missing].map(|p| p.to_str().unwrap().to_owned());
    let r = run(&["inspect", "--json", &cut, &a, &missing, &b]);
    assert_eq!(r.status, 2, "an unreadable trace makes the exit status 2");
    let doc = &r.json_lines()[0];
    let files: Vec<&str> = doc["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [a.as_str(), b.as_str()],
        "both readable traces are reported"
    );
    assert_eq!(doc["alignment"]["files"], serde_json::json!([a, b]));
    let not: Vec<(&str, &str)> = doc["not_aligned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["file"].as_str().unwrap(), n["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(not.len(), 2, "{not:?}");
    assert_eq!(not[0].0, cut);
    assert!(not[0].1.contains("json_truncated"), "{not:?}");
    assert_eq!(not[1].0, missing);
    assert!(not[1].1.contains("unreadable"), "{not:?}");
    // Both failures are on stderr, one line each.
    assert_eq!(r.stderr.lines().count(), 2, "{}", r.stderr);

    // Three readable traces: the third is named with the reason.
    let r = run(&["inspect", "--json", "--salvage", &cut, &a, &b]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = &r.json_lines()[0];
    assert_eq!(doc["traces"].as_array().unwrap().len(), 3);
    assert_eq!(doc["alignment"]["files"], serde_json::json!([cut, a]));
    let third = &doc["not_aligned"][0];
    assert_eq!(third["file"], b.as_str());
    assert!(
        third["reason"].as_str().unwrap().contains("one pair"),
        "{third}"
    );
}
