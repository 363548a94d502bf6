//! A job of Nsight Systems exports: the directory's captures picked by
//! content, each rank's launch region held against the SQL referee.

use opguard_job::{job_inputs, run_job, SkipReason, SummaryOptions};
use opguard_testdata::{nsys_referee as referee, shared_file};

#[test]
fn a_directory_of_exports_is_a_job_whatever_the_names() {
    let (Some(clover), Some(cuda), Some(report), Some(trace)) = (
        shared_file("nsys/pipit_perlmutter-cloverleaf-cuda.sqlite"),
        shared_file("nsys/test-cuda_report1.sqlite"),
        shared_file("nsys/test-cuda_report1.nsys-rep"),
        shared_file("traces/hta/trace_filter__sampled_rank-0.json.gz"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Exports named any way; the binary report beside its export is not a
    // rank (it is skipped, and said so); a log named like a trace is, as
    // before, by its name.
    let rank0 = dir.path().join("rank0.db");
    let rank1 = dir.path().join("rank1");
    let kineto = dir.path().join("rank2.json.gz");
    let rep = dir.path().join("rank1.nsys-rep");
    let log = dir.path().join("train.log");
    std::fs::copy(&clover, &rank0).unwrap();
    std::fs::copy(&cuda, &rank1).unwrap();
    std::fs::copy(&trace, &kineto).unwrap();
    std::fs::copy(&report, &rep).unwrap();
    std::fs::write(&log, "step 1\n").unwrap();
    let inputs = job_inputs(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(inputs.ranks, [rank0.clone(), rank1.clone(), kineto]);
    let skipped: Vec<_> = inputs
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.reason.clone()))
        .collect();
    assert_eq!(
        skipped,
        [
            (rep, SkipReason::NsightReport),
            (log, SkipReason::NotACapture)
        ]
    );

    let job = run_job(&inputs.ranks, 1, &SummaryOptions::new(), &|_, _| {}).unwrap();
    assert_eq!(job.unreadable().count(), 0);
    for (path, source) in [(&rank0, &clover), (&rank1, &cuda)] {
        let rank = job
            .ranks
            .iter()
            .find(|r| r.file == path.display().to_string())
            .expect("a rank per export");
        assert_eq!(rank.provider.as_deref(), Some("nsight_systems"));
        let launch = rank.launch.as_ref().expect("a launch region");
        let answer = referee(source);
        assert_eq!(launch.kernel_count, answer["kernels"][0].as_u64().unwrap());
        assert_eq!(
            launch.kernel_duration_ns,
            answer["kernels"][1].as_i64().unwrap()
        );
        assert_eq!(
            launch.correlated_kernel_count,
            answer["proven_kernels"].as_u64().unwrap()
        );
        assert_eq!(
            launch.direct_launch_count,
            answer["launches"]["direct"].as_u64().unwrap()
        );
    }
}
