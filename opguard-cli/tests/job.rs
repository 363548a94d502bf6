//! `opguard job`, on real rank traces and real damaged copies of them.

use std::path::{Path, PathBuf};

use opguard_testdata::{rank_copy, shared_file};

use crate::common::run;

#[track_caller]
fn hta(name: &str) -> Option<PathBuf> {
    shared_file(&format!("traces/hta/{name}"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn output_is_identical_for_any_jobs_and_a_directory_is_its_files() {
    let names = [
        "trace_filter__sampled_rank-0.json.gz",
        "trace_filter__sampled_rank-1.json.gz",
        "nccl_parser_config__nccl_data.json.gz",
        "cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    ];
    let Some(files) = names.iter().map(|n| hta(n)).collect::<Option<Vec<_>>>() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for f in &files {
        std::fs::copy(f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    let d = s(dir.path());
    let one = run(&["job", "--json", "--jobs", "1", d]);
    assert_eq!(one.status, 0, "{}", one.stderr);
    assert_eq!(one.stderr, "");
    for jobs in ["2", "3", "16"] {
        let other = run(&["job", "--json", "--jobs", jobs, d]);
        assert_eq!(other.status, 0, "{}", other.stderr);
        assert_eq!(
            other.stdout, one.stdout,
            "--jobs {jobs} differs from --jobs 1"
        );
    }
    // The directory stands for its files, given in any order.
    let listed: Vec<PathBuf> = files
        .iter()
        .rev()
        .map(|f| dir.path().join(f.file_name().unwrap()))
        .collect();
    let mut args = vec!["job", "--json"];
    args.extend(listed.iter().map(|p| s(p)));
    assert_eq!(run(&args).stdout, one.stdout);
    let doc = &one.json_lines()[0];
    assert_eq!(doc["format"], "opguard.job/v1");
    assert_eq!(doc["ranks"].as_array().unwrap().len(), 4);
}

#[test]
fn a_slowed_rank_is_named_and_costs_agree_with_python() {
    let Some(src) = hta("trace_filter__sampled_rank-1.json.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for rank in 0..3 {
        let scale = if rank == 1 { 2.5 } else { 1.0 };
        rank_copy(
            &src,
            &dir.path().join(format!("r{rank}.json.gz")),
            rank,
            scale,
        );
    }
    let r = run(&["job", "--json", "--jobs", "2", s(dir.path())]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let job = &r.json_lines()[0];
    let top = &job["frames"][0];
    assert_eq!(top["slowest_rank"], 1, "{top}");
    assert!(top["slowest_file"]
        .as_str()
        .unwrap()
        .ends_with("r1.json.gz"));

    // Independently: total kernel time per (rank, name) straight from the
    // trace JSON, in Python, against the job's per-rank frame costs for
    // kernels whose name is its own frame.
    std::fs::write(dir.path().join("job.json"), &r.stdout).unwrap();
    let check = r#"
import gzip, json, sys, glob, os, collections
d = sys.argv[1]
job = json.load(open(os.path.join(d, "job.json")))
totals = collections.defaultdict(int)
names = collections.defaultdict(set)
for path in glob.glob(os.path.join(d, "r*.json.gz")):
    t = json.load(gzip.open(path))
    rank = t["distributedInfo"]["rank"]
    for e in t["traceEvents"]:
        if e.get("cat") == "kernel" and e.get("ph") == "X":
            totals[(rank, e["name"])] += round(e.get("dur", 0) * 1000)
            names[e["name"]].add(rank)
checked = 0
for f in job["frames"]:
    if f["category"] != "kernel" or f["name"] not in names:
        continue
    costs = {c["rank"]: c["cost_ns"] for c in f["per_rank"]}
    # Frames that merge several raw names are skipped: one name, one frame.
    if sum(1 for n in names if n == f["name"]) != 1:
        continue
    want = {r: totals[(r, f["name"])] for r in names[f["name"]]}
    if costs != want:
        print("mismatch", f["name"], costs, want); sys.exit(1)
    ordered = sorted(want.values())
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) // 2
    assert f["max_ns"] == max(ordered) and f["median_ns"] == median, f
    slowest = min(r for r, v in want.items() if v == max(ordered))
    assert f["slowest_rank"] == slowest, (f["name"], f["slowest_rank"], slowest)
    checked += 1
assert checked >= 20, checked
print(checked)
"#;
    opguard_testdata::python3([
        std::ffi::OsStr::new("-c"),
        check.as_ref(),
        dir.path().as_os_str(),
    ]);
}

#[test]
fn bad_ranks_never_stop_or_hide_the_job() {
    let Some(src) = hta("trace_filter__sampled_rank-0.json.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("a-good.json.gz");
    rank_copy(&src, &good, 0, 1.0);
    let cut = dir.path().join("b-cut.json.gz");
    opguard_testdata::write_cut_copy(&src, &cut);
    let bytes = std::fs::read(&src).unwrap();
    // Corrupt: a real copy whose gzip stream has bytes overwritten inside.
    let mut corrupt_bytes = bytes.clone();
    let mid = corrupt_bytes.len() / 2;
    corrupt_bytes[mid..mid + 64].fill(0xff);
    let corrupt = dir.path().join("c-corrupt.json.gz");
    std::fs::write(&corrupt, &corrupt_bytes).unwrap();

    let r = run(&["job", "--json", "--jobs", "1", s(dir.path())]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    // Read by three workers, and by three that each inflate on a thread of
    // their own: the same ranks, errors and offsets.
    for jobs in ["3", "6"] {
        let other = run(&["job", "--json", "--jobs", jobs, s(dir.path())]);
        assert_eq!(
            (other.status, &other.stdout, &other.stderr),
            (r.status, &r.stdout, &r.stderr),
            "--jobs {jobs}"
        );
    }
    let job = &r.json_lines()[0];
    let ranks = job["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 3);
    let good_rank = ranks.iter().find(|r| r["file"] == s(&good)).unwrap();
    assert!(good_rank["error"].is_null());
    assert!(good_rank["device_time_ns"].as_i64().unwrap() > 0);
    for bad in [&cut, &corrupt] {
        let entry = ranks.iter().find(|r| r["file"] == s(bad)).unwrap();
        assert!(entry["error"]["code"]
            .as_str()
            .unwrap()
            .starts_with("trace."));
        assert!(r.stderr.contains(s(bad)), "{}", r.stderr);
    }
    for f in job["frames"].as_array().unwrap() {
        assert_eq!(f["missing"].as_array().unwrap().len(), 2, "{f}");
    }
    // One JSON error line per bad rank on stderr.
    let errors: Vec<serde_json::Value> = r
        .stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(errors.len(), 2);
    // Each is the error `trace info` gives for that file alone: the same
    // message and the same position, said once.
    for (bad, error) in [&cut, &corrupt].iter().zip(&errors) {
        let alone = run(&["trace", "info", "--json", s(bad)]);
        let mut want = alone.json_error();
        want["code"] = format!("trace.{}", want["code"].as_str().unwrap()).into();
        assert_eq!(error["error"], want, "{}", s(bad));
        let human = run(&["job", "--jobs", "1", s(bad)]);
        let first = human.stderr.lines().next().unwrap();
        let alone = run(&["trace", "info", s(bad)]);
        assert_eq!(
            first.replacen("error[trace.", "error[", 1),
            alone.stderr.lines().next().unwrap(),
            "{}",
            human.stderr
        );
    }
}

/// The reader flags apply to every rank: a rank cut off by a killed job is
/// an error without `--salvage` and is read (its complete events) with it;
/// a decoded limit below a rank's size refuses that rank.
#[test]
fn the_reader_flags_apply_to_every_rank() {
    let Some(src) = hta("trace_filter__sampled_rank-0.json.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("a-good.json.gz");
    rank_copy(&src, &good, 0, 1.0);
    let decoded = opguard_testdata::decoded(&src);
    let cut = dir.path().join("b-cut.json");
    std::fs::write(&cut, &decoded[..decoded.len() * 2 / 3]).unwrap();

    let strict = run(&["job", "--json", s(dir.path())]);
    assert_eq!(strict.status, 2, "{}", strict.stderr);
    let salvaged = run(&["job", "--json", "--salvage", "--jobs", "1", s(dir.path())]);
    assert_eq!(salvaged.status, 0, "{}", salvaged.stderr);
    let inflating = run(&["job", "--json", "--salvage", "--jobs", "4", s(dir.path())]);
    assert_eq!(inflating.stdout, salvaged.stdout, "{}", inflating.stderr);
    let job = &salvaged.json_lines()[0];
    let cut_rank = job["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file"] == s(&cut))
        .unwrap();
    assert!(cut_rank["error"].is_null(), "{cut_rank}");
    assert!(cut_rank["device_time_ns"].as_i64().unwrap() > 0);

    let limited = run(&["job", "--json", "--max-decoded-bytes", "1000", s(&good)]);
    assert_eq!(limited.status, 2, "{}", limited.stderr);
    assert_eq!(
        limited.json_lines()[0]["ranks"][0]["error"]["code"],
        "trace.limit_exceeded"
    );
}

/// A real torch.distributed job (three gloo ranks recorded by
/// fixtures/producers/record.sh, the last one fed four times the batch):
/// each rank is named by its own `distributedInfo.rank`, the CPU-only ranks
/// are compared by host operator, the straggler is named where its extra
/// work is, and every per-rank cost is the one Python adds up from the JSON.
#[test]
fn a_real_torch_distributed_job_names_its_straggler() {
    let ranks: Vec<PathBuf> = (0..3)
        .map(|r| opguard_testdata::producer_trace(&format!("torch_ddp_rank{r}.json.gz")))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    // Given in reverse: the job orders ranks itself.
    let mut args = vec!["job", "--json"];
    args.extend(ranks.iter().rev().map(|p| s(p)));
    let r = run(&args);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let job = &r.json_lines()[0];
    let listed: Vec<(i64, &str)> = job["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rank"].as_i64().unwrap(),
                r["frame_basis"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(listed, [(0, "host_ops"), (1, "host_ops"), (2, "host_ops")]);
    for op in ["aten::addmm", "aten::mm"] {
        let frame = job["frames"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == op)
            .unwrap_or_else(|| panic!("no frame {op}"));
        assert_eq!(frame["slowest_rank"], 2, "{frame}");
        assert!(frame["missing"].as_array().unwrap().is_empty(), "{frame}");
    }

    // The table names host operators as written: kernel short names would
    // show `mm` and two identical `AddmmBackward0` rows.
    let mut human = vec!["job"];
    human.extend(ranks.iter().map(|p| s(p)));
    let table = run(&human);
    assert_eq!(table.status, 0, "{}", table.stderr);
    for label in [
        "  aten::mm",
        "  AddmmBackward0",
        "  autograd::engine::evaluate_function: AddmmBackward0",
    ] {
        assert!(
            table
                .stdout
                .lines()
                .any(|l| l.ends_with(label) && l.split("  ").last() == Some(label.trim_start())),
            "no row {label:?}:\n{}",
            table.stdout
        );
    }

    std::fs::write(dir.path().join("job.json"), &r.stdout).unwrap();
    let check = r#"
import gzip, json, sys, collections
job = json.load(open(sys.argv[1]))
totals = collections.defaultdict(int)
for path in sys.argv[2:]:
    t = json.load(gzip.open(path))
    rank = t["distributedInfo"]["rank"]
    for e in t["traceEvents"]:
        if e.get("cat") == "cpu_op" and e.get("ph") == "X":
            totals[(e["name"], rank)] += round(e["dur"] * 1000)
names = {name for name, _ in totals}
checked = 0
for f in job["frames"]:
    assert f["category"] == "cpu_op" and f["name"] in names, f
    costs = {c["rank"]: c["cost_ns"] for c in f["per_rank"]}
    want = {r: n for (name, r), n in totals.items() if name == f["name"]}
    if costs != want:
        print("mismatch", f["name"], costs, want); sys.exit(1)
    slowest = min(r for r, v in want.items() if v == max(want.values()))
    assert f["slowest_rank"] == slowest, (f["name"], f["slowest_rank"], slowest)
    checked += 1
assert checked == len(names), (checked, len(names))
print(checked)
"#;
    let mut args: Vec<std::ffi::OsString> = vec![
        "-c".into(),
        check.into(),
        dir.path().join("job.json").into(),
    ];
    args.extend(ranks.iter().map(Into::into));
    opguard_testdata::python3(args);
}

/// Pointed at a run directory, the job reads the traces in it and says on
/// stderr which other files it did not read; a directory with no trace is
/// refused.
#[test]
fn files_in_a_directory_that_are_not_traces_are_named_not_read() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..3 {
        let name = format!("torch_ddp_rank{r}.json.gz");
        std::fs::copy(
            opguard_testdata::producer_trace(&name),
            dir.path().join(&name),
        )
        .unwrap();
    }
    let log = dir.path().join("train.log");
    std::fs::write(&log, "step 1 loss 2.3\n").unwrap();
    let r = run(&["job", "--json", s(dir.path())]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(r.json_lines()[0]["ranks"].as_array().unwrap().len(), 3);
    let warning: serde_json::Value = serde_json::from_str(r.stderr.trim()).unwrap();
    assert_eq!(warning["warning"]["code"], "job_file_skipped");
    assert_eq!(warning["warning"]["input"], s(&log));
    let human = run(&["job", s(dir.path())]);
    assert_eq!(human.status, 0, "{}", human.stderr);
    assert!(
        human.stderr.starts_with("warning[job_file_skipped]") && human.stderr.contains(s(&log)),
        "{}",
        human.stderr
    );

    let logs_only = tempfile::tempdir().unwrap();
    std::fs::copy(&log, logs_only.path().join("train.log")).unwrap();
    let none = run(&["job", "--json", s(logs_only.path())]);
    assert_eq!(none.status, 2, "{}", none.stderr);
    assert!(none.stderr.contains("no_ranks"), "{}", none.stderr);
}

/// A directory's JSON files that are other documents (the default input's
/// seam request, a job document) are named on stderr and not read as
/// ranks; a cut trace beside them is still a rank, unreadable.
#[test]
fn a_directory_s_other_json_documents_are_not_ranks() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/default-input");
    let r = run(&["job", "--json", s(&shipped)]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let job = &r.json_lines()[0];
    let files: Vec<&str> = job["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(files.iter().all(|f| f.ends_with(".json.gz")), "{files:?}");
    let line: serde_json::Value = serde_json::from_str(r.stderr.trim()).unwrap();
    let warning = &line["warning"];
    assert_eq!(warning["code"], "job_file_skipped");
    assert!(
        warning["input"]
            .as_str()
            .unwrap()
            .ends_with("seam-request.json"),
        "{warning}"
    );
    // The job document itself, and a cut rank, beside the traces.
    let dir = tempfile::tempdir().unwrap();
    for f in std::fs::read_dir(&shipped).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    std::fs::write(dir.path().join("job.json"), &r.stdout).unwrap();
    opguard_testdata::write_cut_copy(
        &shipped.join("decode.rank1.json.gz"),
        &dir.path().join("decode.rank9.json.gz"),
    );
    let again = run(&["job", "--json", s(dir.path())]);
    assert_eq!(
        again.status, 2,
        "the cut rank is unreadable: {}",
        again.stderr
    );
    let ranks = again.json_lines()[0]["ranks"].as_array().unwrap().len();
    assert_eq!(ranks, 4);
    let skipped: Vec<String> = again
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|l| l["warning"].clone())
        .filter(|w| w["code"] == "job_file_skipped")
        .map(|w| {
            w["input"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(skipped, ["job.json", "seam-request.json"]);
}
