//! The profile of every capture, on traces real producers wrote: a capture
//! without device activity lists its host operations by self and total
//! time, and the numbers agree with an independent referee
//! (`fixtures/producers/referee.py`) over the same JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions};
use opguard_select::{profile, EntityKind, HostProfile, ProfileDocument};

const PRODUCER_TRACES: &[&str] = &[
    "torch_cpu.json.gz",
    "torch_cpu_noshapes.json.gz",
    "torch_inductor.json.gz",
    "torch_inductor_kernel_profile.json.gz",
    "viztracer.json.gz",
    "viztracer_func_args.json.gz",
    "jax_perfetto_trace.json.gz",
    "jax_tensorboard.trace.json.gz",
    "torch_ddp_rank0.json.gz",
    "torch_ddp_rank1.json.gz",
    "torch_ddp_rank2.json.gz",
];

/// Every row: no Top-N cut, so every operation can be held against the
/// referee.
const ALL: usize = 1_000_000;

fn host(doc: &ProfileDocument) -> &HostProfile {
    assert!(!doc.device_activity);
    assert_eq!(doc.device_rows, 0);
    doc.host
        .as_ref()
        .expect("a capture without device rows has a host profile")
}

fn referee(trace: &Path) -> serde_json::Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/producers/referee.py");
    let out = opguard_testdata::python3([script.as_path(), trace]);
    serde_json::from_slice(&out).expect("referee JSON")
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Sums {
    calls: u64,
    self_ns: i64,
    total_ns: i64,
}

#[test]
fn host_rows_agree_with_the_referee_on_every_producer_trace() {
    for name in PRODUCER_TRACES {
        let path = opguard_testdata::producer_trace(name);
        let doc = profile(&path, ALL).unwrap();
        let h = host(&doc);
        let want = referee(&path);
        assert_eq!(h.markers, want["markers"].as_u64().unwrap(), "{name}");

        // Rows of one (category, name) in several HLO modules add up.
        let mut ours: BTreeMap<String, Sums> = BTreeMap::new();
        for r in &h.rows {
            let s = ours
                .entry(format!("{}\t{}", r.evidence.category, r.name))
                .or_default();
            s.calls += r.calls;
            s.self_ns += r.self_ns;
            s.total_ns += r.total_ns;
        }
        let mut region_names = Vec::new();
        for r in &h.regions {
            let key = format!("{}\t{}", r.category, r.name);
            let w = &want["operations"][&key];
            assert_eq!(r.calls, w["calls"].as_u64().unwrap(), "{name} {key}");
            assert_eq!(r.total_ns, w["total_ns"].as_i64().unwrap(), "{name} {key}");
            region_names.push(key);
        }
        let theirs = want["operations"].as_object().unwrap();
        for (key, w) in theirs {
            if region_names.contains(key) {
                continue;
            }
            let expected = Sums {
                calls: w["calls"].as_u64().unwrap(),
                self_ns: w["self_ns"].as_i64().unwrap(),
                total_ns: w["total_ns"].as_i64().unwrap(),
            };
            assert_eq!(ours.get(key), Some(&expected), "{name}: {key}");
        }
        assert_eq!(ours.len() + region_names.len(), theirs.len(), "{name}");
        let self_sum: i64 = h.rows.iter().map(|r| r.self_ns).sum();
        assert_eq!(h.self_time_ns, self_sum, "{name}");
        assert_eq!(
            h.operations,
            h.rows.iter().map(|r| r.calls).sum::<u64>(),
            "{name}"
        );
    }
}

#[test]
fn a_cpu_only_torch_capture_lists_operators_with_shapes_and_its_steps_as_regions() {
    let doc = profile(opguard_testdata::producer_trace("torch_cpu.json.gz"), ALL).unwrap();
    let h = host(&doc);
    assert!(h.note.contains("no device activity"));
    let addmm = h
        .rows
        .iter()
        .find(|r| r.name == "aten::addmm")
        .expect("aten::addmm");
    assert_eq!(addmm.entity_kind, EntityKind::DispatcherOp);
    assert_eq!(addmm.evidence.basis, "cpu_op_category");
    assert!(!addmm.evidence.input_shapes.is_empty());
    let by_shape: u64 = addmm.evidence.input_shapes.iter().map(|s| s.calls).sum();
    assert_eq!(by_shape, addmm.calls);
    let python = h
        .rows
        .iter()
        .find(|r| r.evidence.category == "python_function")
        .unwrap();
    assert_eq!(python.entity_kind, EntityKind::PythonLauncher);
    // The schedule's active steps and the record_function region.
    let regions: Vec<&str> = h.regions.iter().map(|r| r.name.as_str()).collect();
    for step in ["ProfilerStep#2", "ProfilerStep#3", "opguard.train_step"] {
        assert!(regions.contains(&step), "{step} in {regions:?}");
    }
    assert!(h.rows.iter().all(|r| !r.name.starts_with("ProfilerStep#")));
    // Rows rank by self time.
    assert!(h.rows.windows(2).all(|w| w[0].self_ns >= w[1].self_ns));

    let bare = profile(
        opguard_testdata::producer_trace("torch_cpu_noshapes.json.gz"),
        ALL,
    )
    .unwrap();
    let h = host(&bare);
    assert!(h.rows.iter().any(|r| r.evidence.basis == "cpu_op_category"));
    assert!(h.rows.iter().all(|r| r.evidence.input_shapes.is_empty()));
}

#[test]
fn xla_ops_are_listed_by_hlo_op_and_module_and_end_markers_never() {
    for name in [
        "jax_perfetto_trace.json.gz",
        "jax_tensorboard.trace.json.gz",
    ] {
        let doc = profile(opguard_testdata::producer_trace(name), ALL).unwrap();
        let h = host(&doc);
        assert!(h.markers > 0, "{name}");
        assert!(
            h.rows.iter().all(|r| !r.name.starts_with("end: ")),
            "{name}"
        );
        let xla: Vec<_> = h
            .rows
            .iter()
            .filter(|r| r.evidence.basis == "xla_hlo_op")
            .collect();
        assert!(!xla.is_empty(), "{name}");
        for r in xla {
            assert_eq!(r.entity_kind, EntityKind::DispatcherOp);
            assert_eq!(r.evidence.hlo_op.as_deref(), Some(r.name.as_str()));
            assert_eq!(r.evidence.hlo_module.as_deref(), Some("jit_layer"));
        }
        let pjit = h
            .rows
            .iter()
            .find(|r| r.name == "PjitFunction(layer)")
            .unwrap();
        assert_eq!(pjit.entity_kind, EntityKind::PythonLauncher);
    }
}

#[test]
fn viztracer_functions_are_python_frames() {
    for name in ["viztracer.json.gz", "viztracer_func_args.json.gz"] {
        let doc = profile(opguard_testdata::producer_trace(name), ALL).unwrap();
        assert_eq!(doc.trace.provider, "viztracer");
        let h = host(&doc);
        assert!(h
            .rows
            .iter()
            .all(|r| r.entity_kind == EntityKind::PythonLauncher));
        for f in ["tokenize", "count", "top"] {
            assert!(
                h.rows.iter().any(|r| r.name.starts_with(&format!("{f} ("))),
                "{f}"
            );
        }
    }
}

#[test]
fn inductors_placeholder_name_is_unresolved_with_a_reason() {
    let doc = profile(
        opguard_testdata::producer_trace("torch_inductor.json.gz"),
        ALL,
    )
    .unwrap();
    let h = host(&doc);
    let row = h
        .rows
        .iter()
        .find(|r| r.name == "<built-in function kernel>")
        .expect("the placeholder is a row");
    assert_eq!(row.entity_kind, EntityKind::Unresolved);
    assert_eq!(row.evidence.basis, "placeholder_name");
    assert!(row
        .evidence
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("inductor")));
}

#[test]
fn device_rows_stay_first_and_no_host_profile_is_added() {
    let Some(path) = opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz")
    else {
        return;
    };
    let doc = profile(&path, 10).unwrap();
    assert!(doc.device_activity && doc.device_rows > 0);
    assert!(doc.host.is_none());
    assert_eq!(doc.rows[0].rank, 1);
    assert_eq!(doc.negative_duration_rows, 0);
}

/// Defect 11: a negative kernel duration added nothing in launch regions
/// but was summed raw in the profile. One real trace with one kernel's
/// `dur` made negative: both analyses now add 0 for it and say so.
#[test]
fn a_negative_kernel_duration_adds_nothing_in_the_profile_and_the_region() {
    let Some(path) =
        opguard_testdata::shared_file("traces/hta/trace_file_list__inference_rank_1.json.gz")
    else {
        return;
    };
    let raw = std::fs::read(&path).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&raw[..]), &mut text).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let kernel = doc["traceEvents"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["cat"] == "Kernel")
        .unwrap();
    let removed_ns = kernel["dur"].as_i64().unwrap() * 1000;
    kernel["dur"] = serde_json::json!(-40);
    let dir = tempfile::tempdir().unwrap();
    let bent = dir.path().join("negative.json");
    std::fs::write(&bent, serde_json::to_vec(&doc).unwrap()).unwrap();

    let before = profile(&path, 10).unwrap();
    let after = profile(&bent, 10).unwrap();
    assert_eq!(after.negative_duration_rows, 1);
    assert_eq!(after.device_rows, before.device_rows);
    assert_eq!(after.device_time_ns, before.device_time_ns - removed_ns);
    let model = opguard_formats::read(
        &bent,
        ArtifactSpec::new(),
        &opguard_formats::ReadOptions::new(ModelOptions::new()),
    )
    .unwrap();
    let region = launch_region(&model, 10);
    assert_eq!(region.kernel_duration_ns, after.device_time_ns);
    assert_eq!(region.coverage.negative_duration_slices, 1);
    assert!(after.rows.iter().all(|r| r.total_device_ns >= 0));
}
