//! One answer per trace (issue 35): `select profile` and the launch region
//! read the same device rows from the model, on every shared trace and
//! every committed producer trace.

use opguard_formats::ReadOptions;
use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions};

fn traces() -> Vec<std::path::PathBuf> {
    // Without the shared data (the skip is said) the committed traces still run.
    let mut all = opguard_testdata::hta_traces().unwrap_or_default();
    let producers = opguard_testdata::fixtures_dir().join("producers/traces");
    let mut committed: Vec<_> = std::fs::read_dir(&producers)
        .expect("the committed producer traces")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            name.ends_with(".json") || name.ends_with(".json.gz")
        })
        .collect();
    committed.sort();
    all.extend(committed);
    all
}

/// MTIA, the trace two analyses used to read two ways: its command
/// processor's compute jobs are kernels, its DMA transfers memory
/// operations, and `select profile` and the launch region count the same
/// device rows and time.
#[test]
fn every_analysis_reads_the_same_device_rows() {
    for path in traces() {
        let name = path.display().to_string();
        let model = opguard_formats::read(
            &path,
            ArtifactSpec::new(),
            &ReadOptions::new(ModelOptions::new()),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = launch_region(&model, 5);
        let p = opguard_select::profile_model(&model, 5);
        let stream_rows: u64 = r.streams.iter().map(|s| s.activities).sum();
        assert_eq!(p.device_rows, stream_rows, "{name}");
        assert_eq!(
            p.device_time_ns,
            r.kernel_duration_ns + r.memory_op_duration_ns,
            "{name}"
        );
        if name.contains("mtia_rank_0") {
            assert_eq!(
                (r.kernel_count, r.memory_op_count),
                (3_453, 22_361),
                "{name}"
            );
            assert_eq!(r.correlated_kernel_count, 3_453, "{name}");
            assert_eq!(r.direct_launch_count, 3_453, "{name}");
        }
    }
}
