//! `opguard kernel-name`, run against the parity fixture: the command is one
//! more runner of `fixtures/kernel-name/kernel_symbols.json`.

use serde_json::Value;

use crate::common::{opguard, run, run_cmd};

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/kernel-name/kernel_symbols.json"
    );
    let text =
        std::fs::read_to_string(path).expect("the kernel-name parity fixture is in the repository");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// A value that can travel as one stdin line.
fn line_safe(s: &str) -> bool {
    !s.contains(['\n', '\r', '\t'])
}

fn check_symbol_case(case: &Value, got: &Value) {
    let id = case["id"].as_str().unwrap();
    assert_eq!(got["symbol"], case["symbol"], "{id}");
    for (key, want) in case["expected"].as_object().unwrap() {
        assert_eq!(&got[key], want, "{id}: {key}");
    }
    // The keys the batch contract names.
    for key in ["symbol", "base", "short_name", "template", "degenerate"] {
        assert!(got.get(key).is_some(), "{id}: lacks {key}");
    }
    let kind = got["template"]["kind"].as_str().unwrap();
    assert!(
        ["none", "complete", "elided"].contains(&kind),
        "{id}: {kind}"
    );
    assert!(got["template"]["args"].is_array(), "{id}");
}

#[test]
fn canonical_json_stdin_agrees_with_every_fixture_case() {
    let fx = fixture();
    let cases: Vec<&Value> = fx["symbol_cases"].as_array().unwrap().iter().collect();
    assert_eq!(
        cases.len() as u64,
        fx["symbol_case_count"].as_u64().unwrap()
    );
    let (batch, by_arg): (Vec<&Value>, Vec<&Value>) = cases
        .iter()
        .partition(|c| line_safe(c["symbol"].as_str().unwrap()));
    assert!(batch.len() > 100);

    let input: String = batch
        .iter()
        .map(|c| format!("{}\n", c["symbol"].as_str().unwrap()))
        .collect();
    let r = run_cmd(
        opguard(&["kernel-name", "canonical", "--json", "--full", "--stdin"]),
        &input,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let lines = r.json_lines();
    assert_eq!(lines.len(), batch.len(), "one output line per input line");
    for (case, got) in batch.iter().zip(&lines) {
        check_symbol_case(case, got);
    }

    // The compact default is the full answer without the four long fields.
    let r = run_cmd(
        opguard(&["kernel-name", "canonical", "--json", "--stdin"]),
        &input,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let compact = r.json_lines();
    assert_eq!(compact.len(), batch.len());
    let compact_keys = [
        "base",
        "qualification",
        "short_name",
        "annotation",
        "truncated",
        "degenerate",
        "memory_op",
        "mangling",
        "identity",
    ];
    let mut sorted_keys = compact_keys;
    sorted_keys.sort_unstable();
    for (full, short) in lines.iter().zip(&compact) {
        let keys: Vec<&str> = short
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(keys, sorted_keys, "{}", full["symbol"]);
        for key in compact_keys {
            assert_eq!(short[key], full[key], "{}: {key}", full["symbol"]);
        }
    }

    // Symbols with tabs or line breaks go as arguments.
    assert!(!by_arg.is_empty());
    for case in by_arg {
        let r = run(&[
            "kernel-name",
            "canonical",
            "--json",
            "--full",
            case["symbol"].as_str().unwrap(),
        ]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        check_symbol_case(case, &r.json_lines()[0]);
    }
}

#[test]
fn canonical_with_many_arguments_answers_each_in_order() {
    let r = run(&[
        "kernel-name",
        "canonical",
        "--json",
        "--fields",
        "base,template,degenerate",
        "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)",
        "Memcpy DtoD (Device -> Device)",
        "void",
    ]);
    assert_eq!(r.status, 0);
    let lines = r.json_lines();
    let bases: Vec<_> = lines.iter().map(|l| l["base"].as_str().unwrap()).collect();
    assert_eq!(bases, ["clamp_position_kernel", "Memcpy", "void"]);
    assert_eq!(lines[0].as_object().unwrap().len(), 3);
    let first = r.stdout.lines().next().unwrap();
    assert!(
        first.starts_with(r#"{"base":"clamp_position_kernel","template":{"#)
            && first.ends_with(r#","degenerate":false}"#),
        "--fields keeps its order: {first}"
    );
    assert_eq!(lines[0]["template"]["args"], serde_json::json!(["long"]));
    assert_eq!(lines[2]["degenerate"], true);

    let human = run(&["kernel-name", "canonical", "k<int, ...>"]);
    assert_eq!(human.status, 0);
    assert!(
        human.stdout.contains("elided <int, ...>"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("degenerate"), "{}", human.stdout);
}

#[test]
fn stdin_keeps_empty_lines_and_strips_crlf() {
    let r = run_cmd(
        opguard(&["kernel-name", "canonical", "--json", "--full", "--stdin"]),
        "main_kernel[prefill]\r\n\nvoid k<4>(float*)",
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let lines = r.json_lines();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["symbol"], "main_kernel[prefill]");
    assert_eq!(lines[0]["annotation"], "prefill");
    assert_eq!(lines[1]["symbol"], "");
    assert_eq!(lines[2]["base"], "k");
}

#[test]
fn invalid_utf8_on_stdin_is_an_error_naming_the_line() {
    let mut cmd = opguard(&["kernel-name", "canonical", "--json", "--stdin"]);
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"good_kernel_name\nbad\xff\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "the good line was answered");
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "invalid_utf8");
    assert_eq!(err["error"]["line"], 2);
}

#[test]
fn short_names_are_the_library_display_names() {
    let long = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float*)";
    let very_long = format!("{}_kernel(int)", "x".repeat(80));
    let r = run(&[
        "kernel-name",
        "short",
        long,
        "Memcpy HtoD (Host -> Device)",
        &very_long,
    ]);
    assert_eq!(r.status, 0);
    let lines: Vec<_> = r.stdout.lines().collect();
    assert_eq!(lines[0], "vectorized_elementwise_kernel");
    assert_eq!(lines[1], "Memcpy HtoD (Host -> Device)");
    assert_eq!(lines[2].chars().count(), 60);
    assert_eq!(lines[2], opguard_kernel_name::short_name(&very_long));

    let r = run_cmd(
        opguard(&["kernel-name", "short", "--json", "--stdin"]),
        &format!("{long}\n"),
    );
    assert_eq!(r.status, 0);
    let l = &r.json_lines()[0];
    assert_eq!(l["symbol"], long);
    assert_eq!(l["short_name"], "vectorized_elementwise_kernel");
}

#[test]
fn match_exits_0_on_a_match_and_1_on_no_match() {
    let row = "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)";
    let r = run(&["kernel-name", "match", "clamp_position_kernel", row]);
    assert_eq!(r.status, 0, "{}", r.stdout);
    assert!(r.stdout.starts_with("match (base_only)"), "{}", r.stdout);

    let other = "void (anonymous namespace)::elementwise_kernel_with_index<int>(int)";
    let r = run(&["kernel-name", "match", "--json", row, other]);
    assert_eq!(r.status, 1);
    let v = &r.json_lines()[0];
    assert_eq!(v["match"], false);
    assert_eq!(v["reason"], "base_differs");

    // The seed's collision: `void` never certifies anything, itself included.
    let r = run(&["kernel-name", "match", "--json", "void", "void"]);
    assert_eq!(r.status, 1);
    assert_eq!(r.json_lines()[0]["reason"], "degenerate_token");
}

/// Runs `match --json --stdin` over the fixture's `want<TAB>got` pairs.
fn match_batch<'a>(cases: impl Iterator<Item = &'a Value>) -> crate::common::Run {
    let input: String = cases
        .map(|c| {
            format!(
                "{}\t{}\n",
                c["want"].as_str().unwrap(),
                c["got"].as_str().unwrap()
            )
        })
        .collect();
    run_cmd(
        opguard(&["kernel-name", "match", "--json", "--stdin"]),
        &input,
    )
}

#[test]
fn match_json_stdin_agrees_with_every_fixture_verdict() {
    let fx = fixture();
    let cases = fx["verdict_cases"].as_array().unwrap();
    assert_eq!(
        cases.len() as u64,
        fx["verdict_case_count"].as_u64().unwrap()
    );
    let batch: Vec<&Value> = cases
        .iter()
        .filter(|c| line_safe(c["want"].as_str().unwrap()) && line_safe(c["got"].as_str().unwrap()))
        .collect();
    assert!(batch.len() > 100);
    let r = match_batch(batch.iter().copied());
    let lines = r.json_lines();
    assert_eq!(lines.len(), batch.len());
    let mut all = true;
    for (case, got) in batch.iter().zip(&lines) {
        let id = case["id"].as_str().unwrap();
        let want = &case["expected"];
        assert_eq!(got["match"], want["is_match"], "{id}");
        assert_eq!(got["reason"], want["reason"], "{id}");
        assert_eq!(got["basis"], want["basis"], "{id}");
        assert_eq!(got["want"], case["want"], "{id}");
        all &= want["is_match"] == true;
    }
    assert!(!all, "the fixture has negative cases");
    assert_eq!(
        r.status, 1,
        "one pair that does not match makes the batch exit 1"
    );

    // Only matching pairs: exit 0.
    let r = match_batch(
        batch
            .iter()
            .copied()
            .filter(|c| c["expected"]["is_match"] == true),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
}

#[test]
fn a_match_line_without_one_tab_is_an_error() {
    for input in ["only_one_symbol\n", "a\tb\tc\n"] {
        let r = run_cmd(
            opguard(&["kernel-name", "match", "--json", "--stdin"]),
            input,
        );
        assert_eq!(r.status, 2, "{input:?}");
        let e = r.json_error();
        assert_eq!(e["code"], "bad_line");
        assert_eq!(e["line"], 1);
    }
    let r = run_cmd(opguard(&["kernel-name", "match", "--stdin"]), "x\n");
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("error[bad_line]: "), "{}", r.stderr);
    assert!(r.stderr.contains("(line 1)"), "{}", r.stderr);
}

#[test]
fn kernel_name_usage_errors_exit_64() {
    for args in [
        &["kernel-name", "match", "only_want"][..],
        &["kernel-name", "match", "--stdin", "a", "b"],
        &["kernel-name", "canonical"],
        &["kernel-name", "canonical", "--stdin", "sym"],
        &["kernel-name", "frobnicate"],
    ] {
        let r = run(args);
        assert_eq!(r.status, 64, "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty());
    }
}

#[test]
fn fields_must_be_known_and_distinct_and_need_json() {
    for (args, needle) in [
        (&["--json", "--fields", "identity,colour"][..], "colour"),
        (&["--json", "--fields", "identity,identity"][..], "twice"),
    ] {
        let mut all = vec!["kernel-name", "canonical"];
        all.extend_from_slice(args);
        all.push("k_kernel");
        let r = run(&all);
        assert_eq!(r.status, 64, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
    }
    let r = run(&["kernel-name", "canonical", "--full", "k_kernel"]);
    assert_eq!(r.status, 64, "--full without --json: {}", r.stderr);
}

/// A program that sends one symbol and waits for its answer before sending
/// the next (a plugin talking over a pipe) is answered line by line, although
/// a batch is written in large chunks.
#[test]
fn stdin_answers_each_line_before_the_next_arrives() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;

    let mut child = opguard(&["kernel-name", "canonical", "--json", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let symbols = [
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
        "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)",
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
    ];
    for symbol in symbols {
        stdin.write_all(format!("{symbol}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        let answer = rx.recv_timeout(Duration::from_secs(60));
        let Ok(answer) = answer else {
            let _ = child.kill();
            panic!("no answer to {symbol:?} while stdin stayed open");
        };
        let got: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(
            got["identity"],
            opguard_kernel_name::canonicalize(symbol).identity(),
            "{symbol}"
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}
