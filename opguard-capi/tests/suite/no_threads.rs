//! `opguard-capi/README.md` promises that the library starts no thread: a
//! host embedding it decides about threads. `tests/c/opguard_no_threads.c`
//! counts `pthread_create` calls (it defines the function, so the shared
//! library's calls bind to it) while every entry point that reads or writes
//! files runs on real traces, with gzip inputs and outputs.

use std::process::Command;

use crate::suite::support::{artifact_dir, crate_dir, fixtures, shared_lib_name};

#[test]
#[cfg(target_os = "linux")]
fn no_entry_point_starts_a_thread() {
    let (Some(a), Some(b)) = (
        opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz"),
        opguard_testdata::shared_file("traces/hta/trace_compare__test__test.json.gz"),
    ) else {
        return;
    };
    let dir = artifact_dir();
    assert!(
        dir.join(shared_lib_name()).is_file(),
        "shared library not built"
    );
    let build = tempfile::tempdir().expect("build dir");
    let exe = build.path().join("opguard_no_threads");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let output = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(crate_dir().join("include"))
        .arg("-o")
        .arg(&exe)
        .arg(crate_dir().join("tests/c/opguard_no_threads.c"))
        .arg(format!("-L{}", dir.display()))
        .arg("-lopguard_capi")
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .args(["-ldl", "-lpthread"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
    assert!(
        output.status.success(),
        "building opguard_no_threads.c failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let scratch = tempfile::tempdir().expect("scratch dir");
    let run = Command::new(&exe)
        .arg(fixtures())
        .arg(scratch.path())
        .arg(&a)
        .arg(&b)
        .output()
        .expect("run opguard_no_threads");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "an entry point failed or started a thread:\n{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Every file-based entry point ran (a skipped call cannot pass).
    for entry in [
        "opguard_trace_info",
        "opguard_profile_top_n",
        "opguard_trace_launch_regions",
        "opguard_export_build(from_profile)",
        "opguard_export_build(records)",
        "opguard_alignment_map_apply",
        "opguard_seam_verdict",
        "opguard_scaling_correlate",
    ] {
        let line = format!("ok {entry} threads=0");
        assert!(
            stdout.lines().any(|l| l == line),
            "no `{line}` in:\n{stdout}"
        );
    }
}
