//! `opguard inspect`: runs with no argument on a fresh clone, on input the
//! generator produces.

use std::process::Command;

#[test]
fn the_shipped_default_input_is_what_the_generator_produces() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/default-input");
    let generated = opguard_examples::default_input::generate().unwrap();
    let mut shipped: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    shipped.sort();
    let mut names: Vec<_> = generated.iter().map(|f| f.name.to_owned()).collect();
    names.sort();
    assert_eq!(
        shipped, names,
        "regenerate with: cargo run -p opguard-examples --example generate_default_input"
    );
    let total: usize = generated.iter().map(|f| f.bytes.len()).sum();
    assert!(
        total < 1 << 20,
        "the default input stays under 1 MB ({total} bytes)"
    );
    for f in generated {
        assert_eq!(
            std::fs::read(dir.join(f.name)).unwrap(),
            f.bytes,
            "{} differs from the generator; regenerate with: cargo run -p opguard-examples --example generate_default_input",
            f.name
        );
    }
    // The walkthrough's map names the view of the shipped traces by hash.
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(opguard_examples::default_input::REVIEW_MAP_PATH);
    assert_eq!(
        std::fs::read(&map).unwrap(),
        opguard_examples::default_input::review_map().unwrap(),
        "{} differs from the generator; regenerate with: cargo run -p opguard-examples --example generate_default_input",
        map.display()
    );
}

#[test]
fn inspect_without_arguments_reports_regions_profiles_and_the_verdict() {
    let out = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .args(["inspect", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["input"], "default");
    let traces = doc["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 3);
    let providers: Vec<&str> = traces
        .iter()
        .map(|t| t["launches"]["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["kineto_cuda", "kineto_rocm", "kineto_cuda"]);
    for t in traces {
        let r = &t["launches"];
        assert!(r["graph_launch_count"].as_u64().unwrap() > 0);
        assert_eq!(r["kernel_count"], r["correlated_kernel_count"]);
        assert_eq!(t["profile"]["entity_kind_contract"], "v1");
    }
    assert_eq!(doc["seam_verdict"]["ok"], true);
    // The automatic alignment of the first two traces: rank 0 of the CUDA
    // run and the ROCm run of the same step.
    let a = &doc["alignment"];
    assert!(a["error"].is_null(), "{a}");
    assert_eq!(
        a["files"],
        serde_json::json!(["decode.rank0.json.gz", "decode.rocm.json.gz"])
    );
    let runs = a["runs"].as_array().unwrap();
    assert_eq!(runs[0]["run"], "decode.rank0");
    assert_eq!(runs[1]["run"], "decode.rocm");
    let per_run: Vec<u64> = runs
        .iter()
        .map(|r| r["operations"].as_u64().unwrap())
        .collect();
    assert!(per_run.iter().all(|&n| n > 0), "{a}");
    assert_eq!(a["operations"].as_u64(), Some(per_run.iter().sum()));
    let statuses = a["statuses"].as_object().unwrap();
    let counted: u64 = statuses.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(a["operations"].as_u64(), Some(counted));
    // Both runs are rank 0: every operation has a possible counterpart.
    assert_eq!(statuses["no_corresponding_trace_file"], 0);
    let pairs = a["pairs"].as_u64().unwrap();
    assert!(pairs > 0);
    assert_eq!(
        statuses["ok"].as_u64().unwrap() + statuses["differs"].as_u64().unwrap(),
        2 * pairs
    );
    assert_eq!(a["verdict"], "not_evaluated");
    // The scratch copy of the default input is removed afterwards.
    let human = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .arg("inspect")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("shipped default input"));
    assert!(text.contains("paged_attention_v2_kernel"));
    assert!(text.contains("seam verdict"));
    assert!(
        text.contains("== alignment: decode.rank0.json.gz vs decode.rocm.json.gz"),
        "{text}"
    );
    assert!(
        text.contains(&format!("candidate pairs    {pairs}")),
        "{text}"
    );
}

#[test]
fn inspect_on_a_given_trace_has_no_verdict_and_a_bad_one_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("t.json.gz");
    let mut t = opguard_testdata::kineto_writer::KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 0, 10, 7, Some(1))
        .kernel(0, 7, "projection_kernel", 20, 5);
    std::fs::write(&good, t.to_gzip().unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .args(["inspect", "--json"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["input"], "given");
    assert!(doc["seam_verdict"].is_null());
    assert!(doc["alignment"].is_null(), "one trace has no alignment");
    assert_eq!(doc["traces"][0]["launches"]["correlated_kernel_count"], 1);
    // Two traces without operator events: inspect still succeeds, and the
    // alignment says why it has no candidates (export's refusal).
    let good = good.to_str().unwrap();
    let r = crate::common::run(&["inspect", "--json", good, good]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let a = &r.json_lines()[0]["alignment"];
    assert_eq!(a["error"]["code"], "no_operations", "{a}");
    assert!(a["pairs"].is_null() && a["next"].is_null());
    let bad = dir.path().join("bad.json");
    // Cut inside its first event (a lone `[` is a valid, empty trace).
    std::fs::write(&bad, r#"[{"ph":"X""#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_opguard"))
        .arg("inspect")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn inspect_lists_host_operations_of_captures_without_device_activity() {
    let torch = opguard_testdata::producer_trace("torch_cpu.json.gz");
    let jax = opguard_testdata::producer_trace("jax_tensorboard.trace.json.gz");
    let r = crate::common::run(&[
        "inspect",
        "--json",
        "--top",
        "3",
        torch.to_str().unwrap(),
        jax.to_str().unwrap(),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = &r.json_lines()[0];
    for (i, provider) in [(0, "kineto_other"), (1, "jax")] {
        let profile = &doc["traces"][i]["profile"];
        assert_eq!(profile["trace"]["provider"], provider);
        assert_eq!(profile["device_activity"], false);
        assert_eq!(profile["host"]["rows"].as_array().unwrap().len(), 3);
    }
    let r = crate::common::run(&["inspect", "--top", "3", torch.to_str().unwrap()]);
    assert!(r.stdout.contains("no device activity"), "{}", r.stdout);
    assert!(r.stdout.contains("ProfilerStep#2"), "{}", r.stdout);
}

#[test]
fn inspect_reads_each_trace_once_so_a_trace_from_stdin_is_aligned_like_its_file() {
    // One capture against itself: every operation has its pair.
    let a = opguard_testdata::producer_trace("torch_cpu.json.gz");
    let (a, b) = (a.to_str().unwrap(), a.to_str().unwrap());
    let files = crate::common::run(&["inspect", "--json", a, b]);
    assert_eq!(files.status, 0, "{}", files.stderr);
    let piped = crate::common::run_bytes(
        crate::common::opguard(&["inspect", "--json", "-", b]),
        &std::fs::read(a).unwrap(),
    );
    assert_eq!(piped.status, 0, "{}", piped.stderr);
    let (files, piped) = (&files.json_lines()[0], &piped.json_lines()[0]);
    // Read once, its model gives the sections and the records: nothing is
    // left out for want of a second read.
    assert_eq!(piped["not_aligned"], serde_json::json!([]));
    let (f, p) = (&files["alignment"], &piped["alignment"]);
    assert_eq!(p["files"], serde_json::json!(["-", b]));
    assert!(f["error"].is_null() && p["error"].is_null(), "{f}\n{p}");
    assert!(f["pairs"].as_u64().unwrap() > 0, "{f}");
    for key in ["operations", "pairs", "statuses", "verdict"] {
        assert_eq!(f[key], p[key], "{key}");
    }
    let operations = |a: &serde_json::Value| -> Vec<u64> {
        let runs = a["runs"].as_array().unwrap();
        runs.iter()
            .map(|r| r["operations"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(operations(f), operations(p));
}

/// The traces the agreement and advice tests run on: committed real
/// producer traces and the shipped default input.
fn committed(name: &str) -> String {
    let path = match name.strip_prefix("default/") {
        Some(file) => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/default-input")
            .join(file),
        None => opguard_testdata::producer_trace(name),
    };
    path.to_str().unwrap().to_owned()
}

/// `inspect` aligns its first two traces by the rule `export` applies to
/// the same two files: the same runs, operations, pairs and statuses, or
/// the same refusal. Two ranks of one torch.distributed job (seed 000:
/// automatic pairs join the same rank of two runs) have no pairs in either.
#[test]
fn inspect_and_export_agree_on_the_same_two_traces() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("torch_ddp_rank0.json.gz", "torch_ddp_rank1.json.gz"),
        (
            "default/decode.rank0.json.gz",
            "default/decode.rocm.json.gz",
        ),
        (
            "torch_inductor.json.gz",
            "torch_inductor_kernel_profile.json.gz",
        ),
        ("torch_cpu.json.gz", "torch_cpu.json.gz"),
        ("torch_cpu.json.gz", "torch_cpu_noshapes.json.gz"),
        (
            "default/decode.rank0.json.gz",
            "default/decode.rank1.json.gz",
        ),
    ];
    let mut pairs_seen = Vec::new();
    for (i, (a, b)) in cases.into_iter().enumerate() {
        let (a, b) = (committed(a), committed(b));
        let inspect = crate::common::run(&["inspect", "--json", &a, &b]);
        assert_eq!(inspect.status, 0, "{}", inspect.stderr);
        let aligned = &inspect.json_lines()[0]["alignment"];
        let out = dir.path().join(format!("view{i}.json"));
        let export = crate::common::run(&[
            "export",
            "--json",
            "--from-profile",
            &a,
            "--from-profile",
            &b,
            "--out",
            out.to_str().unwrap(),
        ]);
        if export.status != 0 {
            assert_eq!(export.status, 2, "{}", export.stderr);
            assert_eq!(
                aligned["error"]["code"],
                export.json_error()["code"],
                "{a} {b}: {aligned}"
            );
            pairs_seen.push(None);
            continue;
        }
        let summary = &export.json_lines()[0];
        assert!(aligned["error"].is_null(), "{a} {b}: {aligned}");
        let runs: Vec<&serde_json::Value> = aligned["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r["run"])
            .collect();
        assert_eq!(serde_json::json!(runs), summary["runs"], "{a} {b}");
        for key in [
            "operations",
            "pairs",
            "statuses",
            "first_differences",
            "verdict",
        ] {
            assert_eq!(aligned[key], summary[key], "{a} {b}: {key}");
        }
        pairs_seen.push(summary["pairs"].as_u64());
    }
    // The cases cover pairs, no pairs for two ranks, and a refusal.
    assert_eq!(pairs_seen[0], Some(0), "two ranks of one job");
    assert!(pairs_seen[1].unwrap() > 0 && pairs_seen[2].unwrap() > 0);
    assert_eq!(pairs_seen[4], None, "recorded without shapes");
}

/// Every next step `inspect` prints is a command that works: run from the
/// directory `inspect` ran in, each exits 0 (`export` writes its view,
/// `job` compares the ranks). The reader flags of the run are carried over
/// and paths are quoted for the shell.
#[test]
fn the_next_steps_inspect_prints_run() {
    let dir = tempfile::tempdir().unwrap();
    // A path with a space and a quote, which the shell must keep whole.
    let odd = dir.path().join("my run's trace.json.gz");
    std::fs::copy(committed("torch_inductor.json.gz"), &odd).unwrap();
    let runs: Vec<Vec<String>> = vec![
        vec![],
        vec![
            committed("torch_ddp_rank0.json.gz"),
            committed("torch_ddp_rank1.json.gz"),
            odd.to_str().unwrap().to_owned(),
            committed("torch_cpu_noshapes.json.gz"),
            committed("torch_ddp_rank2.json.gz"),
        ],
        vec![
            "--salvage".into(),
            committed("torch_inductor_kernel_profile.json.gz"),
            odd.to_str().unwrap().to_owned(),
        ],
    ];
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_opguard"))
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut executed = Vec::new();
    for args in runs {
        let mut cmd = crate::common::opguard(&["inspect", "--json"]);
        cmd.args(&args).current_dir(dir.path());
        let r = crate::common::run_cmd(cmd, "");
        assert_eq!(r.status, 0, "{args:?}: {}", r.stderr);
        let doc = &r.json_lines()[0];
        let mut next: Vec<String> = doc["alignment"]["next"]
            .as_str()
            .map(str::to_owned)
            .into_iter()
            .collect();
        for n in doc["not_aligned"].as_array().unwrap() {
            match n["next"].as_str() {
                Some(c) => next.push(c.to_owned()),
                // Only a trace export refuses has no next step, and says why.
                None => assert!(n["reason"].as_str().unwrap().contains("refuses"), "{n}"),
            }
        }
        if args.first().is_some_and(|a| a == "--salvage") {
            assert!(next.iter().all(|c| c.contains(" --salvage ")), "{next:?}");
        }
        for command in next {
            let out = std::process::Command::new("sh")
                .args(["-c", &command])
                .env("PATH", &path)
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{command}: exit {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
            executed.push(command);
        }
    }
    let count = |what: &str| executed.iter().filter(|c| c.starts_with(what)).count();
    // Default: export (CUDA vs ROCm) and job (rank 1); given: job (ranks 0
    // and 1), export (rank 0 and the inductor run), job (rank 2); salvage:
    // export.
    assert_eq!(
        (count("opguard export"), count("opguard job")),
        (3, 3),
        "{executed:#?}"
    );
    // Each export wrote a view of its own: no advice named an existing file.
    let views = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("view")
        })
        .count();
    assert_eq!(views, 3);
}
