//! Provider detection on traces real producers wrote: torch.profiler on CPU,
//! torch.compile, viztracer, both files of JAX's profiler, and an older
//! Kineto trace whose launches are proven by correlation.

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, HostKind, ModelOptions, Provider, TraceModel};

fn read(path: &std::path::Path) -> TraceModel {
    opguard_trace::read_model(
        path,
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_committed_producer_trace_names_its_producer() {
    let expected = [
        ("torch_cpu.json.gz", Provider::KinetoOther),
        ("torch_cpu_noshapes.json.gz", Provider::KinetoOther),
        ("torch_inductor.json.gz", Provider::KinetoOther),
        (
            "torch_inductor_kernel_profile.json.gz",
            Provider::KinetoOther,
        ),
        ("viztracer.json.gz", Provider::Viztracer),
        ("viztracer_func_args.json.gz", Provider::Viztracer),
        ("jax_perfetto_trace.json.gz", Provider::Jax),
        ("jax_tensorboard.trace.json.gz", Provider::Jax),
        // Written through Perfetto's JSON exporter (`__metadata` rows,
        // `trace_processor_stats`), but the browser's metadata says Chrome.
        ("chrome_user_timing.json.gz", Provider::Chrome),
        // Every rank of a torch.distributed (gloo) job.
        ("torch_ddp_rank0.json.gz", Provider::KinetoOther),
        ("torch_ddp_rank1.json.gz", Provider::KinetoOther),
        ("torch_ddp_rank2.json.gz", Provider::KinetoOther),
    ];
    // Every JSON trace committed is in the list: a new one cannot go
    // unchecked. (JAX's XSpace protobuf beside them is opguard-xplane's.)
    let one = opguard_testdata::producer_trace("torch_cpu.json.gz");
    let mut committed: Vec<String> = std::fs::read_dir(one.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".xplane.pb"))
        .collect();
    committed.sort();
    let mut listed: Vec<String> = expected.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(committed, listed);
    for (name, provider) in expected {
        let m = read(&opguard_testdata::producer_trace(name));
        assert_eq!(m.artifact().provider, provider, "{name}");
        assert!(m.artifact().provider_detected, "{name}");
    }
}

#[test]
fn a_given_provider_overrides_detection() {
    let path = opguard_testdata::producer_trace("viztracer.json.gz");
    let m = opguard_trace::read_model(
        &path,
        ArtifactSpec::new().provider(Provider::Unknown),
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(m.artifact().provider, Provider::Unknown);
    assert!(!m.artifact().provider_detected);
    // Under `unknown` nothing says viztracer's `fee` rows are Python frames.
    let kinds: Vec<HostKind> = (0..m.slices().len()).map(|i| m.host_kind(i)).collect();
    assert!(kinds.iter().all(|k| *k == HostKind::Unclassified));
}

#[test]
fn provider_names_round_trip() {
    for p in Provider::ALL {
        assert_eq!(Provider::from_name(p.as_str()), Some(p));
    }
    assert!(Provider::names().contains("viztracer, jax, chrome"));
}

#[test]
fn jax_end_markers_are_markers_and_xla_ops_carry_their_module() {
    for name in [
        "jax_perfetto_trace.json.gz",
        "jax_tensorboard.trace.json.gz",
    ] {
        let m = read(&opguard_testdata::producer_trace(name));
        let mut markers = 0;
        let mut xla = 0;
        for (i, s) in m.slices().iter().enumerate() {
            let text = m.name(s.name);
            match m.host_kind(i) {
                HostKind::Marker => {
                    assert!(text.starts_with("end: "), "{name}: {text}");
                    markers += 1;
                }
                HostKind::XlaOp => {
                    let d = m.host_detail(i).expect("an XLA op has its detail");
                    assert_eq!(d.hlo_op.map(|n| m.name(n)), Some(text));
                    assert!(d
                        .hlo_module
                        .map(|n| m.name(n))
                        .is_some_and(|t| t.starts_with("jit_")));
                    xla += 1;
                }
                _ => assert!(!text.starts_with("end: "), "{name}: {text} is a marker"),
            }
        }
        assert!(
            markers > 0 && xla > 0,
            "{name}: {markers} markers, {xla} XLA ops"
        );
        assert_eq!(
            markers, xla,
            "{name}: JAX closes every XLA op with one marker"
        );
    }
}

/// Defect 10: an older Kineto trace (categories `Kernel`/`Runtime`, no
/// `schemaVersion`, `async_gpu` flows) was provider `unknown` and claimed 0
/// correlated kernels where all 4 are proven by `correlation`.
#[test]
fn older_kineto_correlates_its_four_proven_kernels() {
    let Some(path) =
        opguard_testdata::shared_file("traces/hta/trace_file_list__inference_rank_1.json.gz")
    else {
        return;
    };
    let m = read(&path);
    assert_eq!(m.artifact().provider, Provider::KinetoCuda);
    assert!(m.summary().metadata.get("schemaVersion").is_none());
    let r = launch_region(&m, 10);
    assert_eq!((r.kernel_count, r.correlated_kernel_count), (4, 4));
    assert!(r.coverage.host_to_device_correlation_proven);
    // Unknown still claims nothing (seed 002).
    let unknown = opguard_trace::read_model(
        &path,
        ArtifactSpec::new().provider(Provider::Unknown),
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(launch_region(&unknown, 10).correlated_kernel_count, 0);
}
