//! Export from profiler traces spills each trace's records to a temporary
//! records file beside the output: the bytes must be those of the
//! in-memory path ([`export_profile_records`] over [`records_from_profile`]),
//! on real traces, and the spill must never outlive the export.

use std::path::{Path, PathBuf};

use opguard_align::{
    export_profile_records, export_profile_streams, export_profiles, records_from_profile,
    ExportOptions, ProfileInput, ProfileStream,
};
use opguard_trace::ReaderOptions;

use crate::{listing as entries, sha256sum};

fn producer(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/producers/traces")
        .join(name)
}

/// Exports `inputs` both ways into `dir` and checks the bytes agree;
/// returns the spilled view's digest.
fn both_ways(dir: &Path, inputs: &[ProfileInput], label: &str) -> String {
    let spilled = dir.join(format!("{label}.spilled.json"));
    let in_memory = dir.join(format!("{label}.memory.json"));
    let a = export_profiles(inputs, &spilled).unwrap_or_else(|e| panic!("{label}: {e}"));
    let records = inputs
        .iter()
        .map(|i| records_from_profile(i, &ReaderOptions::new()).unwrap())
        .collect();
    let b = export_profile_records(records, &in_memory, &ExportOptions::default()).unwrap();
    assert!(a.operations > 0, "{label}");
    let (sa, sb) = (sha256sum(&spilled), sha256sum(&in_memory));
    assert_eq!(sa, sb, "{label}: spilled and in-memory views differ");
    assert_eq!(a.output_sha256, sa);
    assert_eq!(a.sources, b.sources, "{label}");
    assert_eq!(a.statuses, b.statuses, "{label}");
    sa
}

#[test]
fn spilled_export_equals_in_memory_on_real_traces() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs: Vec<(String, Vec<ProfileInput>)> = Vec::new();
    for (a, b) in [
        ("trace_compare__base__base", "trace_compare__test__test"),
        (
            "trace_filter__sampled_rank-0",
            "trace_filter__sampled_rank-1",
        ),
    ] {
        let (Some(a), Some(b)) = (
            opguard_testdata::shared_file(&format!("traces/hta/{a}.json.gz")),
            opguard_testdata::shared_file(&format!("traces/hta/{b}.json.gz")),
        ) else {
            continue;
        };
        pairs.push((
            format!("{}", pairs.len()),
            vec![ProfileInput::new(a), ProfileInput::new(b)],
        ));
    }
    // Python stacks (with_stack): the frames go through the spill too.
    if let Some(p) = opguard_testdata::shared_file("torch/traces/proc_a.json.gz") {
        let labelled = |run: &str| ProfileInput {
            path: p.clone(),
            run: Some(run.into()),
            rank: None,
        };
        pairs.push(("proc_a".into(), vec![labelled("x"), labelled("y")]));
    }
    // Committed producer traces (torch.profiler on CPU, inductor).
    pairs.push((
        "producers".into(),
        vec![
            ProfileInput::new(producer("torch_cpu.json.gz")),
            ProfileInput::new(producer("torch_inductor.json.gz")),
        ],
    ));
    pairs.push((
        "inductor".into(),
        vec![
            ProfileInput::new(producer("torch_inductor.json.gz")),
            ProfileInput::new(producer("torch_inductor_kernel_profile.json.gz")),
        ],
    ));
    for (label, inputs) in &pairs {
        both_ways(dir.path(), inputs, label);
    }
    // Only the views remain: no spill left beside them.
    let left = entries(dir.path());
    assert_eq!(left.len(), 2 * pairs.len(), "{left:?}");
    assert!(left.iter().all(|n| !n.starts_with('.')), "{left:?}");
}

#[test]
fn a_failed_export_leaves_neither_spill_nor_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("view.json");
    // The second trace is refused after the first was spilled (no shapes).
    let err = export_profiles(
        &[
            ProfileInput::new(producer("torch_cpu.json.gz")),
            ProfileInput::new(producer("torch_cpu_noshapes.json.gz")),
        ],
        &out,
    )
    .unwrap_err();
    assert_eq!(err.code(), "recorded_without_shapes");
    assert_eq!(entries(dir.path()), Vec::<String>::new());
    // The view's own limit refuses after both traces were spilled and read.
    let options = ExportOptions::new().max_export_bytes(4096);
    let err = export_profile_streams(
        vec![
            ProfileStream::file(ProfileInput::new(producer("torch_cpu.json.gz"))),
            ProfileStream::file(ProfileInput::new(producer("torch_inductor.json.gz"))),
        ],
        &out,
        &options,
    )
    .unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_stream_exports_as_its_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        producer("torch_cpu.json.gz"),
        producer("torch_inductor.json.gz"),
    );
    let from_files = export_profiles(
        &[ProfileInput::new(&a), ProfileInput::new(&b)],
        &dir.path().join("files.json"),
    )
    .unwrap();
    let stream = std::fs::File::open(&a).unwrap();
    let from_stream = export_profile_streams(
        vec![
            ProfileStream::reader(ProfileInput::new(&a), Box::new(stream)),
            ProfileStream::file(ProfileInput::new(&b)),
        ],
        &dir.path().join("stream.json"),
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(from_stream.output_sha256, from_files.output_sha256);
}
