//! Written traces (Kineto-shaped, gzipped) through the real reader: steps
//! as samples, joins by kernel identity.

use std::path::{Path, PathBuf};

use opguard_compare::{
    compare_paths, CompareOptions, EntityKind, ErrorKind, GateStatus, SampleUnit, Verdict,
};

use crate::support::{write_training_trace, Rng};

const GEMM: &str = "void gemm_kernel<float, 128>(float const*, float*, int)";
const RELU: &str = "void relu_kernel<float>(float*, int)";
const SOFTMAX: &str = "void softmax_kernel<float, 4>(float const*, float*)";

/// Eight steps of three kernels with ±5% noise; `gemm_scale` slows GEMM.
fn run(dir: &Path, name: &str, rng: &mut Rng, gemm: &str, gemm_scale: f64) -> PathBuf {
    write_training_trace(&dir.join(name), 8, &mut |_| {
        vec![
            (
                gemm.to_owned(),
                rng.noisy((40_000.0 * gemm_scale) as i64, 0.05),
            ),
            (RELU.to_owned(), rng.noisy(8_000, 0.05)),
            (SOFTMAX.to_owned(), rng.noisy(15_000, 0.05)),
        ]
    })
}

#[test]
fn a_slowed_kernel_in_written_traces_is_found_by_steps_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    // One draw; how often anything else is flagged (BH at 5% allows some)
    // is measured over 500 draws in the statistics tests. With seed 20,
    // for one, RELU's eight steps fell 5.9% apart by chance (q 0.016).
    let mut rng = Rng::new(21);
    let base = run(dir.path(), "base.json.gz", &mut rng, GEMM, 1.0);
    let test = run(dir.path(), "test.json.gz", &mut rng, GEMM, 1.2);
    let c = compare_paths(&[base], &[test], &CompareOptions::new()).unwrap();
    assert_eq!(c.sample_unit, SampleUnit::Step);
    assert_eq!(
        c.baseline.samples.len(),
        8,
        "one trace of 8 steps: 8 samples"
    );
    assert!(c.baseline.samples[3].ends_with("ProfilerStep#3"));
    assert_eq!(c.baseline.providers, ["kineto_cuda"]);
    let assignment = c.baseline.runs[0].step_assignment.unwrap();
    assert_eq!(
        assignment.device_by_launch, 24,
        "every kernel placed by its launch"
    );
    assert_eq!(assignment.device_outside_steps, 0);
    assert_eq!(c.gate.status, GateStatus::Failed, "{}", c.gate.message);
    assert_eq!(
        c.gate.failing,
        [
            "gemm_kernel",
            "device busy",
            "device 0 stream 7",
            "launch region",
            "step"
        ],
        "the kernel, then the totals it is part of"
    );
    let gemm = &c.entities[0];
    assert_eq!(
        (gemm.kind, gemm.verdict),
        (EntityKind::Kernel, Verdict::Regressed)
    );
    assert_eq!(gemm.key, "gemm_kernel<float, 128>");
    assert!(gemm.fails_gate);
    let ratio = gemm.ratio.unwrap();
    assert!((1.1..1.3).contains(&ratio), "{ratio}");
    // Nothing else: the other kernels, the host operator and the launches
    // are unchanged; of the totals only what contains GEMM's time moves.
    for e in &c.entities[1..] {
        assert_eq!(e.verdict, Verdict::Unchanged, "{} {:?}", e.name, e.q_value);
        assert!(!e.fails_gate);
    }
    let names: Vec<&str> = c.entities.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names[1..],
        [
            "softmax_kernel",
            "cudaLaunchKernel",
            "relu_kernel",
            "aten::mm"
        ],
        "by size within unchanged"
    );
    for t in &c.totals {
        let moved = matches!(
            t.kind,
            EntityKind::DeviceBusy
                | EntityKind::StreamBusy
                | EntityKind::LaunchRegion
                | EntityKind::StepDuration
        );
        assert!(moved, "{:?}", t.kind);
        assert_ne!(t.verdict, Verdict::Improved, "{}", t.name);
    }
    let busy = c
        .totals
        .iter()
        .find(|t| t.kind == EntityKind::DeviceBusy)
        .unwrap();
    assert_eq!(
        busy.verdict,
        Verdict::Regressed,
        "GEMM is most of the device time"
    );
}

/// The same kernel spelled three ways joins: demangled, Itanium-mangled,
/// and with its template arguments spaced differently.
#[test]
fn renamed_but_same_kernels_join() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(7);
    let spellings = [
        GEMM,
        "_Z11gemm_kernelIfLi128EEvPKfPfi",
        "void gemm_kernel<float,128>(float const*, float*, int)",
    ];
    let base = run(dir.path(), "base.json.gz", &mut rng, spellings[0], 1.0);
    for spelling in &spellings[1..] {
        let test = run(dir.path(), "test.json.gz", &mut rng, spelling, 1.0);
        let c =
            compare_paths(std::slice::from_ref(&base), &[test], &CompareOptions::new()).unwrap();
        let kernels: Vec<_> = c
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Kernel)
            .collect();
        assert_eq!(
            kernels.len(),
            3,
            "{spelling}: {:?}",
            kernels.iter().map(|e| &e.key).collect::<Vec<_>>()
        );
        for k in kernels {
            assert_eq!(k.verdict, Verdict::Unchanged, "{spelling}: {}", k.name);
            assert_eq!(k.baseline.calls, 8);
            assert_eq!(k.candidate.calls, 8);
        }
        assert_eq!(c.gate.status, GateStatus::Passed, "{}", c.gate.message);
    }
}

/// Two instantiations of one template are two kernels: GEMM on doubles is
/// not GEMM on floats, however alike the names look.
#[test]
fn different_instantiations_do_not_join() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(8);
    let base = run(dir.path(), "base.json.gz", &mut rng, GEMM, 1.0);
    for other in [
        "void gemm_kernel<double, 128>(double const*, double*, int)",
        "void gemm_kernel<float, 256>(float const*, float*, int)",
    ] {
        let test = run(dir.path(), "test.json.gz", &mut rng, other, 1.0);
        let c =
            compare_paths(std::slice::from_ref(&base), &[test], &CompareOptions::new()).unwrap();
        let gemms: Vec<_> = c
            .entities
            .iter()
            .filter(|e| e.key.starts_with("gemm_kernel<"))
            .map(|e| (e.verdict, e.name.as_str()))
            .collect();
        let expected_name = |key: &str| key.to_owned();
        assert_eq!(gemms.len(), 2, "{other}: {gemms:?}");
        assert!(
            gemms.contains(&(
                Verdict::OnlyInBaseline,
                expected_name("gemm_kernel<float, 128>").as_str()
            )),
            "{gemms:?}"
        );
        assert!(
            gemms.iter().any(|(v, _)| *v == Verdict::OnlyInCandidate),
            "{gemms:?}"
        );
        assert_eq!(c.gate.only_in_baseline, 1);
        assert_eq!(c.gate.only_in_candidate, 1);
    }
}

/// `--step NAME`: a range of that name marks the steps; a trace without it
/// is an error, never a silent one-sample run.
#[test]
fn a_named_step_range_that_is_missing_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(9);
    let base = run(dir.path(), "base.json.gz", &mut rng, GEMM, 1.0);
    let test = run(dir.path(), "test.json.gz", &mut rng, GEMM, 1.0);
    let e = compare_paths(
        std::slice::from_ref(&base),
        std::slice::from_ref(&test),
        &CompareOptions::new().step("train_step"),
    )
    .unwrap_err();
    assert_eq!(e.code(), "step_not_found");
    assert!(matches!(e.kind(), ErrorKind::StepNotFound { .. }));
    let c = compare_paths(
        &[base],
        &[test],
        &CompareOptions::new().step("ProfilerStep"),
    )
    .unwrap();
    assert_eq!(c.candidate.samples.len(), 8);
}

/// A directory stands for the traces in it; one trace named twice on a
/// side is refused (its steps would count as evidence twice).
#[test]
fn directories_and_a_trace_given_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (b, t) = (dir.path().join("base"), dir.path().join("test"));
    std::fs::create_dir_all(&b).unwrap();
    std::fs::create_dir_all(&t).unwrap();
    let mut rng = Rng::new(10);
    let one = run(&b, "run1.json.gz", &mut rng, GEMM, 1.0);
    run(&b, "run2.json.gz", &mut rng, GEMM, 1.0);
    std::fs::write(b.join("notes.txt"), "not a trace").unwrap();
    run(&t, "run1.json.gz", &mut rng, GEMM, 1.0);
    let c = compare_paths(
        std::slice::from_ref(&b),
        std::slice::from_ref(&t),
        &CompareOptions::new(),
    )
    .unwrap();
    assert_eq!(c.baseline.runs.len(), 2);
    assert_eq!(c.baseline.samples.len(), 16);
    let e = compare_paths(
        &[one.clone(), one.clone()],
        std::slice::from_ref(&t),
        &CompareOptions::new(),
    )
    .unwrap_err();
    assert_eq!(e.code(), "artifact_reused");
    // A copy under another name is the same artifact too: refused by its
    // SHA-256 once read, where the same path is refused before a second read.
    let copy = b.join("copy-of-run1.json.gz");
    std::fs::copy(&one, &copy).unwrap();
    let e = compare_paths(&[one, copy], &[t], &CompareOptions::new()).unwrap_err();
    assert_eq!(e.code(), "artifact_reused");
}

/// A directory is listed by content, as `opguard job` lists ranks: JAX's
/// XSpace and the two JSON views it wrote of the same run beside it are one
/// run (the XSpace), not three; a file that is no capture is skipped with
/// its reason.
#[test]
fn a_run_written_three_ways_is_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let side = dir.path().join("jax");
    std::fs::create_dir_all(&side).unwrap();
    for (from, to) in [
        ("jax_tensorboard.xplane.pb", "vm.xplane.pb"),
        ("jax_tensorboard.trace.json.gz", "vm.trace.json.gz"),
        ("jax_perfetto_trace.json.gz", "perfetto_trace.json.gz"),
    ] {
        std::fs::copy(opguard_testdata::producer_trace(from), side.join(to)).unwrap();
    }
    std::fs::write(side.join("run.log"), "step 1 done\n").unwrap();
    let inputs = opguard_compare::side_inputs("baseline", std::slice::from_ref(&side)).unwrap();
    assert_eq!(inputs.traces, [side.join("vm.xplane.pb")]);
    let skipped: Vec<_> = inputs.skipped.iter().map(|s| s.path.clone()).collect();
    assert_eq!(
        skipped,
        [
            side.join("run.log"),
            side.join("perfetto_trace.json.gz"),
            side.join("vm.trace.json.gz")
        ]
    );
    let c = compare_paths(
        std::slice::from_ref(&side),
        std::slice::from_ref(&side),
        &CompareOptions::new(),
    )
    .unwrap();
    assert_eq!(c.baseline.runs.len(), 1);
    assert_eq!(c.baseline.formats, ["xspace"]);
}

/// Across formats: a real Nsight Systems export (its kernel named
/// `add_parallel(const float *, const float *, float *, int)`, demangled
/// without a return type) against a Kineto trace of the same kernel under
/// its Itanium-mangled name joins by identity, one kernel on both sides,
/// and each side says which provider and format it came from.
#[test]
fn an_nsight_and_a_kineto_view_of_one_kernel_join() {
    let Some(nsys) = opguard_testdata::shared_file("nsys/test-cuda_report1.sqlite") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut t = opguard_testdata::kineto_writer::KinetoTrace::new();
    for i in 0..4 {
        t.launch((1, 1), "cudaLaunchKernel", 1_000 * i, 500, i, None)
            .kernel(0, 7, "_Z12add_parallelPKfS0_Pfi", 1_000 * i + 600, 300);
    }
    let kineto = dir.path().join("kineto.json.gz");
    std::fs::write(&kineto, t.to_gzip().unwrap()).unwrap();
    let c = compare_paths(
        std::slice::from_ref(&nsys),
        std::slice::from_ref(&kineto),
        &CompareOptions::new(),
    )
    .unwrap();
    assert_eq!(c.baseline.providers, ["nsight_systems"]);
    assert_eq!(c.candidate.providers, ["kineto_cuda"]);
    let kernels: Vec<_> = c
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Kernel)
        .map(|e| {
            (
                e.key.as_str(),
                e.verdict,
                e.baseline.calls,
                e.candidate.calls,
            )
        })
        .collect();
    assert_eq!(
        kernels,
        [("add_parallel", Verdict::Insufficient, 4, 4)],
        "one run a side: joined, not tested"
    );
}

/// `--step NAME` on real PyTorch traces: the `record_function` range
/// `opguard.train_step` marks the steps (two per run), each is a sample,
/// and the range itself is the steps, not an entity.
#[test]
fn a_named_range_marks_the_steps_of_real_traces() {
    let base = opguard_testdata::producer_trace("torch_cpu.json.gz");
    let test = opguard_testdata::producer_trace("torch_cpu_noshapes.json.gz");
    let options = CompareOptions::new().step("opguard.train_step");
    let c = compare_paths(
        std::slice::from_ref(&base),
        std::slice::from_ref(&test),
        &options,
    )
    .unwrap();
    assert_eq!(c.sample_unit, SampleUnit::Step);
    assert_eq!(
        c.baseline.runs[0].steps,
        ["opguard.train_step", "opguard.train_step"]
    );
    assert!(c.entities.iter().all(|e| e.name != "opguard.train_step"));
    // ProfilerStep#N is the default, and there the record_function range is
    // an entity like any region.
    let c = compare_paths(&[base], &[test], &CompareOptions::new()).unwrap();
    assert_eq!(
        c.baseline.runs[0].steps,
        ["ProfilerStep#2", "ProfilerStep#3"]
    );
    assert!(c.entities.iter().any(|e| e.name == "opguard.train_step"));
}
