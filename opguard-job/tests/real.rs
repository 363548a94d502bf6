//! Real rank traces, real cut-off and corrupt copies, a really slowed rank.

use std::path::PathBuf;

use opguard_job::{
    job_from_json, job_from_path, job_inputs, run_job, summarize, FrameBasis, Job, SkipReason,
    SummaryOptions,
};
use opguard_testdata::{decoded as gunzip, gzip, rank_copy, shared_file};
use opguard_trace::ReaderOptions;

#[track_caller]
pub fn hta(name: &str) -> Option<PathBuf> {
    shared_file(&format!("traces/hta/{name}"))
}

fn json(job: &Job) -> String {
    serde_json::to_string(job).unwrap()
}

#[test]
fn two_real_ranks_of_one_job() {
    let (Some(r0), Some(r1)) = (
        hta("trace_filter__sampled_rank-0.json.gz"),
        hta("trace_filter__sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let options = SummaryOptions::new();
    // Given in reverse: the job orders ranks by number.
    let job = Job::from_summaries([summarize(&r1, &options), summarize(&r0, &options)]).unwrap();
    let ranks: Vec<_> = job.ranks.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [Some(0), Some(1)]);
    for r in &job.ranks {
        assert!(r.error.is_none(), "{:?}", r.error);
        assert_eq!(r.provider.as_deref(), Some("kineto_cuda"));
        assert_eq!(r.frame_basis, Some(FrameBasis::Device));
        assert_eq!(r.artifact.as_ref().map(String::len), Some(64));
        assert!(r.device_time_ns > 0);
        assert_eq!(r.top.len(), 10);
        assert!(
            r.collectives
                .iter()
                .any(|c| c.name.starts_with("ncclKernel_SendRecv")),
            "{:?}",
            r.collectives
        );
    }
    // Every frame's figures follow from its per-rank costs.
    for f in &job.frames {
        let max = f.per_rank.iter().map(|c| c.cost_ns).max().unwrap();
        assert_eq!(f.max_ns, max);
        assert_eq!(f.per_rank.len() + f.missing.len(), 2, "{}", f.name);
    }
    // No field of the document is an absolute time.
    let text = json(&job);
    for forbidden in ["\"ts", "start_ns", "end_ns", "timestamp"] {
        assert!(!text.contains(forbidden), "{forbidden} in the job document");
    }
}

#[test]
fn a_really_slowed_rank_is_named_slowest() {
    let Some(src) = hta("trace_filter__sampled_rank-0.json.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for rank in 0..4 {
        let dst = dir.path().join(format!("rank{rank}.json.gz"));
        rank_copy(&src, &dst, rank, if rank == 2 { 3.0 } else { 1.0 });
        paths.push(dst);
    }
    let job = run_job(&paths, 1, &SummaryOptions::new(), &|_, _| {}).unwrap();
    let kernels: Vec<_> = job
        .frames
        .iter()
        .filter(|f| f.category == "kernel" && f.max_ns > 0)
        .collect();
    assert!(kernels.len() > 10);
    for f in &kernels {
        assert_eq!(f.slowest_rank, Some(2), "{}", f.name);
        assert!(f.slowest_file.ends_with("rank2.json.gz"));
        assert!(f.missing.is_empty());
        // Three equal ranks and one three times slower: the median is an
        // unslowed rank's cost.
        assert_eq!(f.median_ns, f.per_rank[0].cost_ns, "{}", f.name);
    }
    let slowed = &job.ranks[2];
    assert!(slowed.device_time_ns > 2 * job.ranks[0].device_time_ns);
}

#[test]
fn unreadable_ranks_are_listed_and_missing_everywhere() {
    let Some(src) = hta("trace_filter__sampled_rank-1.json.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json.gz");
    rank_copy(&src, &good, 1, 1.0);
    // Cut off: the first half of the real gzip file.
    let bytes = std::fs::read(&src).unwrap();
    let cut = dir.path().join("cut.json.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    // Corrupt: the real JSON with one event's closing brace removed.
    let mut text = gunzip(&src);
    let at = text.len() / 2 + memchr(&text[text.len() / 2..], b'}');
    text.remove(at);
    let corrupt = dir.path().join("corrupt.json.gz");
    std::fs::write(&corrupt, gzip(&text)).unwrap();

    let paths = [cut.clone(), good.clone(), corrupt.clone()];
    let job = run_job(&paths, 2, &SummaryOptions::new(), &|_, _| {}).unwrap();
    let errors: Vec<_> = job
        .unreadable()
        .map(|r| (r.file.clone(), r.error.as_ref().unwrap().code.clone()))
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.contains(&(cut.display().to_string(), "trace.gzip_truncated".into())));
    let corrupt_code = &errors
        .iter()
        .find(|(f, _)| *f == corrupt.display().to_string())
        .unwrap()
        .1;
    assert!(corrupt_code.starts_with("trace.json_"), "{corrupt_code}");
    // The good rank is still reported in full, and every frame names the
    // two unreadable ranks as missing.
    assert!(!job.frames.is_empty());
    for f in &job.frames {
        assert_eq!(f.per_rank.len(), 1);
        let missing: Vec<_> = f.missing.iter().map(|m| m.file.clone()).collect();
        assert!(missing.contains(&cut.display().to_string()));
        assert!(missing.contains(&corrupt.display().to_string()));
    }
}

fn memchr(hay: &[u8], b: u8) -> usize {
    hay.iter().position(|&c| c == b).unwrap()
}

#[test]
fn a_rank_over_a_limit_is_an_error_not_a_stop() {
    let (Some(small), Some(big)) = (
        hta("trace_compare__base__base.json.gz"),
        hta("trace_filter__sampled_rank-0.json.gz"),
    ) else {
        return;
    };
    let limit = 200_000;
    assert!(gunzip(&small).len() < limit && gunzip(&big).len() > limit);
    let options =
        SummaryOptions::new().reader(ReaderOptions::new().max_decoded_bytes(limit as u64));
    let job = run_job(&[small, big.clone()], 1, &options, &|_, _| {}).unwrap();
    let bad: Vec<_> = job.unreadable().collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].file, big.display().to_string());
    assert_eq!(bad[0].error.as_ref().unwrap().code, "trace.limit_exceeded");
    assert!(job.frames.iter().all(|f| f.missing.len() == 1));
}

#[test]
fn a_trace_without_device_rows_reports_host_operators() {
    let Some(cpu) = hta("cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz") else {
        return;
    };
    let s = summarize(&cpu, &SummaryOptions::new());
    assert_eq!(s.rank.frame_basis, Some(FrameBasis::HostOps));
    assert_eq!(s.rank.device_time_ns, 0);
    assert!(!s.frames.is_empty());
    assert!(s.frames.iter().all(|f| f.category == "cpu_op"));
}

#[test]
fn workers_do_not_change_the_job() {
    let files: Vec<PathBuf> = [
        "trace_filter__sampled_rank-0.json.gz",
        "trace_filter__sampled_rank-1.json.gz",
        "nccl_parser_config__nccl_data.json.gz",
        "cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
        "amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    ]
    .iter()
    .filter_map(|n| hta(n))
    .collect();
    if files.is_empty() {
        return;
    }
    let options = SummaryOptions::new();
    let one = json(&run_job(&files, 1, &options, &|_, _| {}).unwrap());
    let mut reversed = files.clone();
    reversed.reverse();
    for workers in [2, 3, 8] {
        assert_eq!(
            json(&run_job(&reversed, workers, &options, &|_, _| {}).unwrap()),
            one
        );
    }
    // A job read back from its JSON merges like the value it came from.
    let back = job_from_json("job", &one).unwrap();
    assert_eq!(json(&back), one);
}

/// The summary reads a small model (launches, device rows, host operators
/// added up as they stream past); on every real trace it is byte for byte
/// the summary of the whole model, host-only captures included.
#[test]
fn the_small_model_summarises_like_the_whole_one() {
    use opguard_job::summarize_model;
    use opguard_model::{ArtifactSpec, ModelOptions};
    let Some(mut traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for name in ["proc_a.json.gz", "threads.json.gz"] {
        traces.extend(shared_file(&format!("torch/traces/{name}")));
    }
    let mut host_only = 0;
    for path in traces {
        let file = path.display().to_string();
        let spec = ArtifactSpec::new().role("rank");
        let whole = opguard_formats::read(
            &path,
            spec,
            &opguard_formats::ReadOptions::new(ModelOptions::new()),
        )
        .unwrap();
        let expected = serde_json::to_string(&summarize_model(file.clone(), &whole, 10)).unwrap();
        let small = summarize(&path, &SummaryOptions::new());
        assert_eq!(serde_json::to_string(&small).unwrap(), expected, "{file}");
        host_only += usize::from(small.rank.frame_basis == Some(FrameBasis::HostOps));
    }
    assert!(host_only >= 2, "{host_only} host-only traces");
}

/// A worker reads rank after rank into one set of model buffers; each rank's
/// summary is still the summary of a fresh read, whatever came before it
/// (larger ranks, other providers, a rank that failed half-way).
#[test]
fn a_worker_reusing_its_buffers_summarises_like_fresh_reads() {
    let Some(mut traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for name in ["proc_a.json.gz", "threads.json.gz"] {
        traces.extend(shared_file(&format!("torch/traces/{name}")));
    }
    opguard_testdata::largest_first(&mut traces);
    let largest = traces[0].clone();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.json.gz");
    opguard_testdata::write_cut_copy(&largest, &cut);
    traces.insert(1, cut);
    let options = SummaryOptions::new();
    // One worker: every rank read into the buffers of the one before.
    let reused = json(&run_job(&traces, 1, &options, &|_, _| {}).unwrap());
    let fresh = json(&Job::from_summaries(traces.iter().map(|p| summarize(p, &options))).unwrap());
    assert_eq!(reused, fresh);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&reused).unwrap()["ranks"]
            .as_array()
            .unwrap()
            .len(),
        traces.len()
    );
}

/// A directory stands for the captures in it, by content: the real ranks
/// of a torch.distributed job beside what a run directory also holds (the
/// program, a log, a protobuf that is not an XSpace however it is named, a
/// hidden file, a subdirectory). The other files are listed as skipped,
/// never read as ranks that fail; a file named on the command line is a
/// rank whatever it is.
#[test]
fn a_directory_is_its_captures_and_the_rest_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let mut traces = Vec::new();
    for r in 0..3 {
        let name = format!("torch_ddp_rank{r}.json.gz");
        let to = dir.path().join(&name);
        std::fs::copy(opguard_testdata::producer_trace(&name), &to).unwrap();
        traces.push(to);
    }
    let plain = dir.path().join("copy_of_rank0.pt.trace.json");
    std::fs::write(&plain, gunzip(&traces[0])).unwrap();
    traces.push(plain);
    let log = dir.path().join("train.log");
    std::fs::write(&log, "step 1 loss 2.3\n").unwrap();
    // An HloProto (what XLA dumps beside a run), named like an XSpace.
    let hlo = dir.path().join("vm.xplane.pb");
    std::fs::write(&hlo, b"\x0a\x05\x0a\x03jit").unwrap();
    std::fs::write(dir.path().join(".nfs0001"), "").unwrap();
    std::fs::create_dir(dir.path().join("plugins.json")).unwrap();

    let inputs = job_inputs(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(
        inputs.ranks,
        [
            traces[3].clone(),
            traces[0].clone(),
            traces[1].clone(),
            traces[2].clone()
        ]
    );
    let skipped: Vec<_> = inputs.skipped.iter().map(|s| s.path.clone()).collect();
    assert_eq!(skipped, [log.clone(), hlo]);
    assert!(inputs
        .skipped
        .iter()
        .all(|s| s.reason == SkipReason::NotACapture));
    let job = run_job(&inputs.ranks, 2, &SummaryOptions::new(), &|_, _| {}).unwrap();
    assert_eq!(job.unreadable().count(), 0);

    let named = job_inputs(&[log.clone(), traces[0].clone()]).unwrap();
    assert_eq!(named.ranks, [log, traces[0].clone()]);
    assert!(named.skipped.is_empty());
}

/// A JAX profile directory holds one run three times: the XSpace and the
/// two JSON views JAX writes of it. The XSpace is the rank; the views are
/// listed, each naming the XSpace it views.
#[test]
fn a_jax_run_directory_is_one_rank_its_xspace() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &str, to: &str| {
        let to = dir.path().join(to);
        std::fs::copy(opguard_testdata::producer_trace(from), &to).unwrap();
        to
    };
    let xspace = copy("jax_tensorboard.xplane.pb", "vm.xplane.pb");
    let tensorboard = copy("jax_tensorboard.trace.json.gz", "vm.trace.json.gz");
    let perfetto = copy("jax_perfetto_trace.json.gz", "perfetto_trace.json.gz");
    let inputs = job_inputs(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(inputs.ranks, std::slice::from_ref(&xspace));
    let skipped: Vec<_> = inputs
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.reason.clone()))
        .collect();
    assert_eq!(
        skipped,
        [
            (perfetto, SkipReason::ViewOfXspace(xspace.clone())),
            (tensorboard, SkipReason::ViewOfXspace(xspace.clone())),
        ]
    );
    let job = run_job(&inputs.ranks, 1, &SummaryOptions::new(), &|_, _| {}).unwrap();
    assert_eq!(job.unreadable().count(), 0);
    assert_eq!(job.ranks[0].provider.as_deref(), Some("xla"));
    assert_eq!(job.ranks[0].frame_basis, Some(FrameBasis::HostOps));
}

/// Two XSpace ranks, one of them on eight GPUs: read by content, summarised
/// by device time; a cut copy is an unreadable rank with the XSpace
/// reader's code and position.
#[test]
fn xspace_ranks_are_summarised_and_a_cut_one_is_listed() {
    let Some(gpu) = shared_file("xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(&gpu).unwrap();
    for (name, len) in [("a.xplane.pb", bytes.len()), ("b.pb", bytes.len() / 2)] {
        std::fs::write(dir.path().join(name), &bytes[..len]).unwrap();
    }
    let inputs = job_inputs(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(inputs.ranks.len(), 2);
    let job = run_job(&inputs.ranks, 2, &SummaryOptions::new(), &|_, _| {}).unwrap();
    let (read, cut) = (&job.ranks[0], &job.ranks[1]);
    assert!(read.error.is_none(), "{:?}", read.error);
    assert_eq!(read.frame_basis, Some(FrameBasis::Device));
    assert_eq!(read.launch.as_ref().unwrap().correlated_kernel_count, 235);
    let error = cut.error.as_ref().unwrap();
    assert_eq!(error.code, "trace.protobuf_truncated");
    assert!(
        error.offset.is_some() && error.json_path.is_some(),
        "{error:?}"
    );
}

/// The names tables and pages print are the JSON's.
#[test]
fn frame_bases_print_as_the_json_names_them() {
    for basis in [FrameBasis::Device, FrameBasis::HostOps] {
        assert_eq!(
            serde_json::to_value(basis).unwrap(),
            serde_json::Value::from(basis.as_str())
        );
    }
}

/// A job document cut short (a job killed while writing it) is refused with
/// its position, said once.
#[test]
fn a_cut_job_document_is_refused_at_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let ranks: Vec<PathBuf> = (0..3)
        .map(|r| opguard_testdata::producer_trace(&format!("torch_ddp_rank{r}.json.gz")))
        .collect();
    let text =
        serde_json::to_string(&run_job(&ranks, 1, &SummaryOptions::new(), &|_, _| {}).unwrap())
            .unwrap();
    let cut = dir.path().join("job.json");
    std::fs::write(&cut, &text[..5000]).unwrap();
    let e = job_from_path(&cut).unwrap_err();
    assert_eq!(e.code(), "json_syntax");
    let message = e.to_string();
    assert_eq!(
        message.matches("(line 1, column 5000)").count(),
        1,
        "{message}"
    );
    assert!(job_from_path(&dir.path().join("absent.json")).is_err());
    assert!(
        job_from_path(dir.path()).is_err(),
        "a directory is not a document"
    );
}
