//! `opguard trace info`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use opguard_trace::TraceReader;
use serde_json::Value;

use crate::common::{opguard, run, run_cmd};

/// What the library reader says about a file, computed here independently
/// of the command.
struct Expected {
    sha256: String,
    encoded_bytes: u64,
    decoded_bytes: u64,
    events: u64,
    metadata_keys: Vec<String>,
    counts: BTreeMap<(Option<String>, Option<String>), u64>,
    span: Option<(i64, i64)>,
}

fn expected(path: &Path) -> Expected {
    let mut reader = TraceReader::open(path).expect("the library reads the trace");
    let mut counts = BTreeMap::new();
    let mut span: Option<(i64, i64)> = None;
    while let Some(e) = reader.next_event().expect("valid trace") {
        let key = (
            e.ph().map(|s| s.as_cow().into_owned()),
            e.cat().map(|s| s.as_cow().into_owned()),
        );
        *counts.entry(key).or_insert(0u64) += 1;
        let metadata = e.ph().is_some_and(|p| p == "M");
        if let (Ok(Some(ts)), false) = (e.ts_ns(), metadata) {
            let end = ts + e.dur_ns().unwrap().unwrap_or(0);
            span = Some(match span {
                None => (ts, end),
                Some((s, t)) => (s.min(ts), t.max(end)),
            });
        }
    }
    let s = reader.finish().expect("valid trace");
    Expected {
        sha256: s.sha256.to_hex(),
        encoded_bytes: s.encoded_bytes,
        decoded_bytes: s.decoded_bytes,
        events: s.events,
        metadata_keys: s
            .metadata
            .entries()
            .iter()
            .map(|(k, _)| k.clone())
            .collect(),
        counts,
        span,
    }
}

fn check(info: &Value, path: &Path) {
    let want = expected(path);
    let name = path.display();
    assert_eq!(info["file"], path.to_str().unwrap());
    let sha = info["sha256"].as_str().unwrap();
    assert_eq!(sha.len(), 64);
    assert!(sha
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_eq!(sha, want.sha256, "{name}");
    assert_eq!(info["encoded_bytes"], want.encoded_bytes, "{name}");
    assert_eq!(info["decoded_bytes"], want.decoded_bytes, "{name}");
    assert_eq!(info["events"], want.events, "{name}");
    assert_eq!(
        info["encoded_bytes"],
        std::fs::metadata(path).unwrap().len()
    );
    let keys: Vec<String> = info["metadata_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys, want.metadata_keys, "{name}");
    let gz = path.extension().is_some_and(|e| e == "gz");
    assert_eq!(info["compression"], if gz { "gzip" } else { "none" });
    assert_eq!(info["form"], "object", "{name}");

    let rows = info["counts"].as_array().unwrap();
    let mut got = BTreeMap::new();
    let mut total = 0;
    let mut previous: Option<(u64, Option<String>, Option<String>)> = None;
    for row in rows {
        let ph = row["ph"].as_str().map(str::to_owned);
        let cat = row["cat"].as_str().map(str::to_owned);
        assert!(row["cat"].is_string() || row["cat"].is_null());
        let count = row["count"].as_u64().unwrap();
        assert!(
            got.insert((ph.clone(), cat.clone()), count).is_none(),
            "{name}: duplicate row"
        );
        total += count;
        // Sorted by count descending, then ph, then cat.
        if let Some((pc, pph, pcat)) = &previous {
            assert!(
                (*pc > count) || (*pc == count && (pph, pcat) < (&ph, &cat)),
                "{name}: counts out of order at {row}"
            );
        }
        previous = Some((count, ph, cat));
    }
    assert_eq!(got, want.counts, "{name}");
    assert_eq!(total, want.events, "{name}");

    match want.span {
        Some((start, end)) => {
            let span = &info["time_span"];
            assert_eq!(span["start_ns"], start, "{name}");
            assert_eq!(span["end_ns"], end, "{name}");
            assert_eq!(span["duration_ns"], end - start, "{name}");
        }
        None => assert!(info["time_span"].is_null(), "{name}"),
    }
}

#[test]
fn json_matches_the_library_reader_on_every_real_trace() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for path in &traces {
        let r = run(&["trace", "info", "--json", path.to_str().unwrap()]);
        assert_eq!(r.status, 0, "{}: {}", path.display(), r.stderr);
        let lines = r.json_lines();
        assert_eq!(lines.len(), 1);
        check(&lines[0], path);
    }
}

/// All files in one run: one line each, in argument order, and stderr
/// silent (not a terminal: no progress bar, even for the 87 MB trace).
#[test]
fn many_files_give_one_line_each_and_no_progress_off_a_terminal() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    let mut args = vec!["trace", "info", "--json"];
    args.extend(traces.iter().rev().map(|p| p.to_str().unwrap()));
    let r = run(&args);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr, "",
        "stderr must be silent when it is not a terminal"
    );
    let lines = r.json_lines();
    assert_eq!(lines.len(), traces.len());
    for (line, path) in lines.iter().zip(traces.iter().rev()) {
        assert_eq!(line["file"], path.to_str().unwrap());
    }
}

#[test]
fn human_table_shows_the_facts_and_counts() {
    let Some(path) = opguard_testdata::shared_file(
        "traces/hta/critical_path__cuda_event_sync__event_sync_trace.json.gz",
    ) else {
        return;
    };
    let want = expected(&path);
    let r = run(&["trace", "info", path.to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains(&format!("sha256         {}", want.sha256)),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains(&format!("events         {}", want.events)));
    assert!(r.stdout.contains("count  ph  cat"));
    let kernel_rows = want.counts[&(Some("X".into()), Some("kernel".into()))];
    assert!(
        r.stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == [&kernel_rows.to_string(), "X", "kernel"]),
        "{}",
        r.stdout
    );
}

fn truncated_gzip(dir: &Path) -> std::path::PathBuf {
    let mut json = String::from(r#"{"traceEvents":["#);
    for i in 0..2000 {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            r#"{{"ph":"X","cat":"kernel","name":"k{i}","pid":0,"tid":1,"ts":{i}.5,"dur":1}}"#
        ));
    }
    json.push_str("]}");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(json.as_bytes()).unwrap();
    let bytes = gz.finish().unwrap();
    let path = dir.join("truncated.json.gz");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    path
}

#[test]
fn a_truncated_gzip_exits_2_with_a_json_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = truncated_gzip(dir.path());
    let r = run(&["trace", "info", "--json", path.to_str().unwrap()]);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "", "a refused file prints no record");
    let e = r.json_error();
    assert_eq!(e["code"], "gzip_truncated");
    assert!(e["event_index"].as_u64().is_some(), "{e}");
    assert_eq!(e["input"], path.to_str().unwrap());
    assert!(!e["message"].as_str().unwrap().is_empty());

    let human = run(&["trace", "info", path.to_str().unwrap()]);
    assert_eq!(human.status, 2);
    let first = human.stderr.lines().next().unwrap();
    assert!(
        first.starts_with("error[gzip_truncated]: gzip stream is truncated ("),
        "{first}"
    );
    assert!(
        first.contains(&format!("traceEvents[{}]", e["event_index"])),
        "{first}"
    );
}

#[test]
fn a_bad_file_among_good_ones_is_reported_and_the_rest_printed() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    let Some(good) = traces.first() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bad = truncated_gzip(dir.path());
    let r = run(&[
        "trace",
        "info",
        "--json",
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
    ]);
    assert_eq!(r.status, 2);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 1);
    check(&lines[0], good);
    assert_eq!(r.json_error()["code"], "gzip_truncated");
}

#[test]
fn reader_errors_carry_offset_and_event_index() {
    let r = run_cmd(
        opguard(&["trace", "info", "--json", "-"]),
        r#"{"traceEvents":[{"ph":"X","ts":1},{"ph":"X","ts":"2"}]}"#,
    );
    assert_eq!(r.status, 2);
    let e = r.json_error();
    assert_eq!(e["code"], "wrong_type");
    assert_eq!(e["event_index"], 1);
    assert_eq!(e["offset"], 49);
    assert_eq!(e["json_path"], "traceEvents[1].ts");

    let r = run_cmd(
        opguard(&["trace", "info", "-"]),
        r#"{"traceEvents":[{"ph":"X","ts":1},{"ph":"X","ts":"2"}]}"#,
    );
    assert_eq!(r.status, 2);
    assert_eq!(
        r.stderr.lines().next().unwrap(),
        r#"error[wrong_type]: field "ts" is a string, expected a number (microseconds) (at byte 49, traceEvents[1].ts)"#
    );
}

#[test]
fn a_missing_file_is_an_io_error() {
    let r = run(&["trace", "info", "--json", "/nonexistent/opguard/trace.json"]);
    assert_eq!(r.status, 2);
    assert_eq!(r.json_error()["code"], "io");
}

#[test]
fn stdin_is_read_with_a_dash() {
    let r = run_cmd(
        opguard(&["trace", "info", "--json", "-"]),
        r#"[{"ph":"X","cat":"kernel","ts":1.5,"dur":2},{"ph":"i","ts":0.25}]"#,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let info = &r.json_lines()[0];
    assert_eq!(info["file"], "-");
    assert_eq!(info["form"], "array");
    assert_eq!(info["events"], 2);
    assert_eq!(info["time_span"]["start_ns"], 250);
    assert_eq!(info["time_span"]["end_ns"], 3500);
    assert!(info["metadata_keys"].as_array().unwrap().is_empty());
}

/// A closed stdout stops the command quietly instead of panicking.
#[test]
fn a_closed_stdout_is_a_quiet_stop() {
    let Some(path) = opguard_testdata::hta_traces().and_then(|t| t.into_iter().next()) else {
        return;
    };
    let path = path.to_str().unwrap().to_owned();
    let mut args = vec!["trace", "info", "--json"];
    // Far more output than a pipe buffers.
    args.extend(std::iter::repeat_n(path.as_str(), 400));
    let mut cmd = opguard(&args);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
