//! `opguard compare`: the gate's exit statuses on written traces of eight
//! steps, and on the real HTA pair.

use std::path::{Path, PathBuf};

use opguard_testdata::kineto_writer::KinetoTrace;
use opguard_testdata::shared_file;

use crate::common::run;

/// Eight `ProfilerStep#N` ranges, each launching GEMM (`gemm_ns[step]`)
/// and a copy kernel of fixed noise.
fn trace(path: &Path, gemm_ns: impl Fn(usize) -> i64) -> PathBuf {
    let mut t = KinetoTrace::new();
    let host = (1, 1);
    let noise = [0, 300, -200, 100, -400, 200, -100, 400];
    for (step, copy_noise) in noise.into_iter().enumerate() {
        let ts = 1_000_000 * (step as i64 + 1);
        t.user_annotation(host, &format!("ProfilerStep#{step}"), ts, 900_000, None);
        let corr = 10 * step as i64;
        t.launch(host, "cudaLaunchKernel", ts + 1_000, 2_000, corr, None)
            .kernel(
                0,
                7,
                "void gemm_kernel<float>(float*)",
                ts + 5_000,
                gemm_ns(step),
            );
        t.launch(host, "cudaLaunchKernel", ts + 4_000, 2_000, corr + 1, None)
            .kernel(
                0,
                7,
                "void copy_kernel<float>(float*)",
                ts + 500_000,
                20_000 + copy_noise,
            );
    }
    std::fs::write(path, t.to_gzip().unwrap()).unwrap();
    path.to_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn the_gate_exits_1_on_a_regression_and_0_without() {
    let dir = tempfile::tempdir().unwrap();
    let noise = [0, 1_000, -700, 400, -1_200, 900, -300, 1_100];
    let base = trace(&dir.path().join("base.json.gz"), |i| 100_000 + noise[i]);
    let same = trace(&dir.path().join("same.json.gz"), |i| 100_000 - noise[7 - i]);
    let slow = trace(&dir.path().join("slow.json.gz"), |i| 120_000 + noise[i]);

    let failed = run(&[
        "compare",
        "--baseline",
        s(&base),
        "--candidate",
        s(&slow),
        "--json",
    ]);
    assert_eq!(failed.status, 1, "{}", failed.stderr);
    let doc: serde_json::Value = serde_json::from_str(&failed.stdout).unwrap();
    assert_eq!(doc["format"], "opguard.compare/v1");
    assert_eq!(doc["sample_unit"], "step");
    assert_eq!(doc["gate"]["status"], "failed");
    assert_eq!(doc["gate"]["failing"][0], "gemm_kernel");
    assert_eq!(doc["entities"][0]["verdict"], "regressed");
    assert_eq!(
        doc["entities"][0]["baseline"]["samples_ns"]
            .as_array()
            .unwrap()
            .len(),
        8
    );

    let human = run(&["compare", "--baseline", s(&base), "--candidate", s(&slow)]);
    assert_eq!(human.status, 1);
    assert!(human.stdout.contains("gate failed: "), "{}", human.stdout);
    assert!(human.stdout.contains("regressed"), "{}", human.stdout);

    // A threshold above the slowdown: regressed, reported, not failing.
    let within = run(&[
        "compare",
        "--baseline",
        s(&base),
        "--candidate",
        s(&slow),
        "--fail-above",
        "25%",
        "--json",
    ]);
    assert_eq!(within.status, 0, "{}", within.stderr);
    let doc: serde_json::Value = serde_json::from_str(&within.stdout).unwrap();
    assert_eq!(doc["gate"]["status"], "passed");
    // GEMM, device busy time and its stream's busy time (the launch region
    // ends with the copy, and the steps are fixed).
    assert_eq!(doc["gate"]["regressed_within_threshold"], 3);

    let passed = run(&["compare", "--baseline", s(&base), "--candidate", s(&same)]);
    assert_eq!(passed.status, 0, "{}{}", passed.stdout, passed.stderr);
    assert!(passed.stdout.contains("gate passed: "), "{}", passed.stdout);
}

#[test]
fn bad_input_exits_2_with_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let base = trace(&dir.path().join("base.json.gz"), |_| 100_000);
    let missing = dir.path().join("missing.json.gz");
    let nothing = dir.path().join("nothing");
    let cases: [(&[&str], &str); 4] = [
        (&["--candidate", s(&missing)], "io"),
        (&["--candidate", s(&base), "--fdr", "1.5"], "invalid_option"),
        (
            &["--candidate", s(&base), "--step", "train_step"],
            "step_not_found",
        ),
        (&["--candidate", s(&nothing)], "io"),
    ];
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    for (rest, code) in cases {
        let mut args = vec!["compare", "--json", "--baseline", s(&base)];
        args.extend_from_slice(rest);
        let r = run(&args);
        assert_eq!(r.status, 2, "{args:?}: {}", r.stderr);
        assert_eq!(r.json_error()["code"], code, "{args:?}");
    }
    let r = run(&[
        "compare",
        "--json",
        "--baseline",
        s(&base),
        "--candidate",
        s(&dir.path().join("empty")),
    ]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert_eq!(r.json_error()["code"], "no_runs");
}

#[test]
fn the_real_pair_is_undecided_and_says_so() {
    let (Some(base), Some(test)) = (
        shared_file("traces/hta/trace_compare__base__base.json.gz"),
        shared_file("traces/hta/trace_compare__test__test.json.gz"),
    ) else {
        return;
    };
    let r = run(&["compare", "--baseline", s(&base), "--candidate", s(&test)]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("gate undecided: nothing could be tested"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("warning[compare_undecided]"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("0.3333, above the FDR 0.05"),
        "{}",
        r.stderr
    );
}
