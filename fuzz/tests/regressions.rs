//! Every committed seed (`seeds/<target>/`) and every input a fuzz run found
//! (`regressions/<target>/`) goes through its target's harness, on stable.
//! A regression file is committed the moment it is found; once the bug is
//! fixed this test keeps it fixed.

use std::path::{Path, PathBuf};

type Harness = fn(&[u8]);

/// Every fuzz target, by the name of its folders (`fuzz_targets/<name>.rs`
/// calls the same function).
pub const TARGETS: [(&str, Harness); 17] = [
    ("trace_reader", opguard_fuzz::trace_reader),
    ("trace_gzip", opguard_fuzz::trace_gzip),
    ("trace_tolerant", opguard_fuzz::trace_tolerant),
    ("trace_model", opguard_fuzz::trace_model),
    ("kernel_name", opguard_fuzz::kernel_name),
    ("kernel_memo", opguard_fuzz::kernel_memo),
    ("census_capture", opguard_fuzz::census_capture),
    ("align_map", opguard_fuzz::align_map),
    ("job_document", opguard_fuzz::job_document),
    ("seam_request", opguard_fuzz::seam_request),
    ("scaling_trials", opguard_fuzz::scaling_trials),
    ("scaling_correlation", opguard_fuzz::scaling_correlation),
    ("capi_json", opguard_fuzz::capi_json),
    ("xspace_reader", opguard_fuzz::xspace_reader),
    ("rocprof_capture", opguard_fuzz::rocprof_capture),
    ("sqlite_capture", opguard_fuzz::sqlite_capture),
    ("table_stream", opguard_fuzz::table_stream),
];

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    out.sort();
    out
}

fn run(kind: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut ran = 0;
    let mut failed = Vec::new();
    for (target, harness) in TARGETS {
        for file in files(&root.join(kind).join(target)) {
            let data = std::fs::read(&file).expect("readable");
            if std::panic::catch_unwind(|| harness(&data)).is_err() {
                failed.push(format!("{target}: {}", file.display()));
            }
            ran += 1;
        }
    }
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    ran
}

#[test]
fn seeds_pass_every_oracle() {
    let ran = run("seeds");
    assert!(ran >= 20, "only {ran} seed files found");
}

#[test]
fn regressions_stay_fixed() {
    run("regressions");
}
