//! The XSpace in opguard-model: every modeled event a slice with the
//! referee's name, times and correlation id; launches proven inside
//! (artifact, host process, correlation_id), exactly where the referee's
//! join proves them.

use std::collections::{BTreeMap, HashMap};

use opguard_model::analysis::launch_region;
use opguard_model::{
    ArtifactSpec, Format, HostKind, IdValue, Kept, ModelOptions, Provider, SliceClass, TraceModel,
};
use opguard_xplane::{read_model, ReadOptions};

use crate::support::{referee, shared_profile, top_level_fields};

fn model(path: &std::path::Path, options: &ModelOptions) -> TraceModel {
    read_model(path, ArtifactSpec::new(), options, &ReadOptions::default()).unwrap()
}

fn int(v: &serde_json::Value) -> i64 {
    v.as_i64().unwrap()
}

/// The referee's events by occurrence index.
fn referee_events(want: &serde_json::Value) -> BTreeMap<u64, &Vec<serde_json::Value>> {
    want["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e[0].as_u64().unwrap(), e.as_array().unwrap()))
        .collect()
}

#[test]
fn every_event_of_the_shared_profile_is_a_slice_as_the_referee_reads_it() {
    let Some(path) = shared_profile() else { return };
    let want = referee(&path);
    let events = referee_events(&want);
    let model = model(&path, &ModelOptions::new());
    let a = model.artifact();
    assert_eq!((a.format, a.provider), (Format::Xspace, Provider::Xla));
    assert_eq!(a.producer, None, "this JAX 0.8 profile states no version");
    assert_eq!(model.summary().events, 3650);
    assert!(model.summary().warnings.is_empty());
    assert_eq!(model.slices().len(), events.len());
    let host = IdValue::Text(model.find_name("/host:CPU").unwrap());
    for s in model.slices() {
        let e = events[&s.index];
        let ctx = format!("{s:?} vs {e:?}");
        assert_eq!(model.name(s.name), e[3].as_str().unwrap(), "{ctx}");
        assert_eq!(s.ts_ns, int(&e[7]), "{ctx}");
        assert_eq!(s.dur_ns, int(&e[8]), "{ctx}");
        let correlation = e[6].as_i64().map(IdValue::Int);
        assert_eq!(s.correlation, correlation, "{ctx}");
        // One host: every slice, host or device, is its process's.
        assert_eq!(s.process, Some(host), "{ctx}");
        let plane = e[1].as_str().unwrap();
        if let Some(gpu) = plane.strip_prefix("/device:GPU:") {
            let gpu = IdValue::Int(gpu.parse().unwrap());
            assert!(s.class.is_device(), "{ctx}");
            assert_eq!((s.pid, s.device), (Some(gpu), Some(gpu)), "{ctx}");
            assert_eq!(s.stream, s.tid, "{ctx}");
        } else {
            assert_eq!(plane, "/host:CPU");
            assert_eq!(s.pid, Some(host), "{ctx}");
            assert_eq!(s.class.is_runtime(), correlation.is_some(), "{ctx}");
        }
    }
}

/// Every device event is a kernel proven launched by the one host call of
/// the process that carries its id, as the referee's join says; a host
/// call becomes a launch when its name says so or a kernel correlates
/// with it.
#[test]
fn launches_are_proven_where_the_referee_joins_them() {
    let Some(path) = shared_profile() else { return };
    let want = referee(&path);
    let device = want["device"].as_array().unwrap();
    let proven = device.iter().filter(|d| d[9].as_bool().unwrap()).count();
    let carried: std::collections::HashSet<i64> =
        device.iter().filter_map(|d| d[6].as_i64()).collect();
    let launches = want["launches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| {
            let name = l[3].as_str().unwrap();
            name.contains("LaunchKernel") || carried.contains(&int(&l[6]))
        })
        .count();
    for options in [ModelOptions::new(), ModelOptions::launches_only()] {
        let model = model(&path, &options);
        let region = launch_region(&model, 5);
        assert_eq!(region.kernel_count, device.len() as u64);
        assert_eq!(region.correlated_kernel_count, proven as u64);
        assert_eq!(region.direct_launch_count, launches as u64);
        assert_eq!((region.kernel_count, launches), (235, 234));
        let coverage = &region.coverage;
        assert!(coverage.correlation_ids_present && coverage.host_to_device_correlation_proven);
        assert_eq!(
            coverage.namespace,
            "xla:(artifact, host process, correlation_id)"
        );
        assert_eq!(coverage.disagreement, None);
        let kernel_ns: i64 = device.iter().map(|d| int(&d[8])).sum();
        assert_eq!(region.kernel_duration_ns, kernel_ns);
    }
    let host_only = model(&path, &ModelOptions::launches_only());
    assert!(host_only
        .slices()
        .iter()
        .all(|s| s.class.is_device() || s.class.is_runtime()));
}

/// Two host planes (the profile's own, written twice, as a merge of two
/// processes would): every correlation id is carried by both processes'
/// calls, so no kernel's process, and no launch, can be established. The
/// ids stay present.
#[test]
fn a_file_with_two_hosts_proves_nothing_it_cannot_place() {
    let Some(path) = shared_profile() else { return };
    let bytes = std::fs::read(&path).unwrap();
    let (start, end) = top_level_fields(&bytes)
        .into_iter()
        .find(|&(start, end)| {
            bytes[start] == 0x0a && bytes[start..end].windows(9).any(|w| w == b"/host:CPU")
        })
        .unwrap();
    let mut merged = bytes.clone();
    merged.extend_from_slice(&bytes[start..end]);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("two_hosts.xplane.pb");
    std::fs::write(&copy, &merged).unwrap();

    let model = model(&copy, &ModelOptions::launches_only());
    let region = launch_region(&model, 5);
    assert_eq!(region.kernel_count, 235);
    assert_eq!(region.correlated_kernel_count, 0);
    assert!(model
        .slices()
        .iter()
        .filter(|s| s.class.is_device())
        .all(|s| s.process.is_none() && s.correlation.is_some()));
    let processes: std::collections::HashSet<_> = model
        .slices()
        .iter()
        .filter(|s| s.class.is_runtime())
        .map(|s| s.process)
        .collect();
    assert_eq!(processes.len(), 2);
}

/// The project's JAX run: its process and version as the XSpace states
/// them, its XLA ops with the HLO names that make them XLA ops in a
/// profile, JAX's end markers and Python frames named as in its JSON.
#[test]
fn the_committed_jax_run_states_its_process_producer_and_xla_ops() {
    let path = opguard_testdata::producer_trace("jax_tensorboard.xplane.pb");
    let want = referee(&path);
    let planes = want["planes"].as_array().unwrap();
    let stats = |name: &str| &planes.iter().find(|p| p["name"] == name).unwrap()["stats"];
    let version = stats("/host:metadata")["jax_version"].as_str().unwrap();
    let pid = int(&stats("/host:CPU")["process_id"]);

    let model = model(&path, &ModelOptions::new());
    assert_eq!(
        model.artifact().producer.as_deref(),
        Some(format!("jax {version}").as_str())
    );
    assert_eq!(version, "0.10.2");
    let metadata = model.summary().metadata.get_json("host_metadata").unwrap();
    assert_eq!(metadata["jax_version"], version);
    assert_eq!(model.summary().metadata.get("hostnames"), Some("[\"vm\"]"));
    assert!(model
        .slices()
        .iter()
        .all(|s| s.process == Some(IdValue::Int(pid)) && s.pid == Some(IdValue::Int(pid))));

    let events = referee_events(&want);
    let mut xla: HashMap<String, (String, String)> = HashMap::new();
    for (i, s) in model.slices().iter().enumerate() {
        assert_eq!(s.class, SliceClass::Other);
        let name = model.name(s.name);
        assert_eq!(name, events[&s.index][3].as_str().unwrap());
        if model.host_kind(i) == HostKind::XlaOp {
            let d = model.host_detail(i).unwrap();
            let text = |id: Option<opguard_model::NameId>| model.name(id.unwrap()).to_owned();
            xla.insert(name.to_owned(), (text(d.hlo_op), text(d.hlo_module)));
        }
    }
    // Every host event is the kind it is in the JSON the run wrote beside
    // the XSpace (read by opguard's JSON reader, provider `jax`).
    let json = opguard_trace::read_model(
        opguard_testdata::producer_trace("jax_tensorboard.trace.json.gz"),
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(json.artifact().provider, Provider::Jax);
    let xspace_kinds = host_kinds(&model);
    assert_eq!(xspace_kinds, host_kinds(&json));
    let python = events
        .values()
        .filter(|e| {
            let name = e[3].as_str().unwrap();
            name.starts_with('$') || name.starts_with("PjitFunction(")
        })
        .count() as u64;
    let kind_count = |k: HostKind| xspace_kinds.iter().filter(|(_, x)| *x == k).count() as u64;
    assert_eq!(kind_count(HostKind::PythonFunction), python);
    assert_eq!(
        [
            HostKind::XlaOp,
            HostKind::Marker,
            HostKind::PythonFunction,
            HostKind::Unclassified
        ]
        .map(kind_count),
        [6, 6, 13, 47]
    );
    assert_eq!(
        xla["ynn_fusion"],
        ("ynn_fusion".to_owned(), "jit_layer".to_owned())
    );
    assert_eq!(xla.len(), 2);
}

/// `(name, start, duration)` of every host slice with its kind, sorted.
fn host_kinds(model: &TraceModel) -> Vec<((String, i64, i64), HostKind)> {
    let mut out: Vec<_> = (0..model.slices().len())
        .map(|i| {
            let s = &model.slices()[i];
            let key = (model.name(s.name).to_owned(), s.ts_ns, s.dur_ns);
            (key, model.host_kind(i))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// What the options leave out is not read into slices: host totals add up
/// the host events, launches only keeps no host event.
#[test]
fn options_keep_what_they_ask_for() {
    let path = opguard_testdata::producer_trace("jax_tensorboard.xplane.pb");
    let launches = model(&path, &ModelOptions::launches_only());
    assert!(launches.slices().is_empty());
    assert_eq!(launches.summary().events, 72);
    let totals = model(&path, &ModelOptions::launches_and_host_totals());
    assert!(totals.slices().is_empty());
    let counted: u64 = totals.host_totals().iter().map(|t| t.count).sum();
    assert_eq!(counted, 72);
    let builder = opguard_model::ModelBuilder::new(&ModelOptions::launches_and_host_totals());
    assert_eq!(builder.keeps(SliceClass::Other), Kept::Total);
}
