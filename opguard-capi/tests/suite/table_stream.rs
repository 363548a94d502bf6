//! The Arrow C stream from C under AddressSanitizer: `tests/c/opguard_table_stream.c`,
//! built with `-fsanitize=address` against the static library, reads each
//! table of real captures (every batch, and consumers that stop early) and
//! prints the rows and the summed `dur_ns`, held here against an
//! independent referee (opguard-arrow/tests/referee.py: Python's json over
//! the same trace). LeakSanitizer fails the run when anything the stream
//! handed out, or kept, is not released.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::suite::support::{artifact_dir, crate_dir, native_static_libs};

/// The C consumer, built once per test binary.
fn consumer() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let lib = artifact_dir().join("libopguard_capi.a");
            assert!(lib.is_file(), "static library not built");
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opguard-capi-c");
            std::fs::create_dir_all(&dir).expect("create the C build dir");
            let exe = dir.join("opguard_table_stream");
            let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
            let out = Command::new(&cc)
                .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
                .args(["-fsanitize=address", "-fno-omit-frame-pointer", "-g"])
                .arg("-I")
                .arg(crate_dir().join("include"))
                .arg("-o")
                .arg(&exe)
                .arg(crate_dir().join("tests/c/opguard_table_stream.c"))
                .arg(&lib)
                .args(native_static_libs())
                .output()
                .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
            assert!(
                out.status.success(),
                "building opguard_table_stream.c with AddressSanitizer failed:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            exe
        })
        .clone()
}

/// Runs the consumer on one table; returns (rows, dur_ns).
fn consume(trace: &Path, table: &str, batch_rows: usize) -> (u64, i64) {
    let out = Command::new(consumer())
        .arg(trace)
        .arg(table)
        .arg(batch_rows.to_string())
        .env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        .output()
        .expect("run the C consumer");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} {table}: the C consumer failed (exit {:?}):\n{}\n{}",
        trace.display(),
        out.status.code(),
        stdout
            .lines()
            .filter(|l| !l.starts_with("ok "))
            .collect::<Vec<_>>()
            .join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    let full = stdout
        .lines()
        .find_map(|l| l.strip_prefix("full "))
        .expect("a `full` line");
    if table != "metadata" {
        // opguard_table_streams reads the same table, beside the metadata.
        let several = stdout
            .lines()
            .find_map(|l| l.strip_prefix("several "))
            .expect("a `several` line");
        assert_eq!(
            several,
            full,
            "{} {table}: one table or several",
            trace.display()
        );
    }
    let field = |name: &str| {
        full.split(' ')
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or_else(|| panic!("no {name} in {full:?}"))
    };
    let batches = field("batches");
    let rows = field("rows");
    // Metadata is one small batch; the record tables are cut as asked.
    assert!(
        table == "metadata" || batches >= (rows + batch_rows as i64 - 1) / batch_rows as i64,
        "{full}: batches of at most {batch_rows} rows"
    );
    (rows as u64, field("dur_ns"))
}

fn referee(trace: &Path) -> serde_json::Value {
    let script = crate_dir().join("../opguard-arrow/tests/referee.py");
    let out = opguard_testdata::python3([script.as_os_str(), trace.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

#[test]
fn every_table_of_the_shared_traces_streams_to_c_as_the_referee_counts() {
    // The 87 MB MTIA trace is left to opguard-arrow's own tests: here every
    // table is read four times over by a sanitized program.
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    let traces: Vec<PathBuf> = traces
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("mtia"))
        .collect();
    for trace in &traces {
        let want = referee(trace);
        for table in ["device", "host", "launches"] {
            let (rows, dur) = consume(trace, table, 7);
            let name = format!("{} {table}", trace.display());
            assert_eq!(rows, want[table]["rows"].as_u64().unwrap(), "{name} rows");
            assert_eq!(
                dur,
                want[table]["dur_ns"].as_i64().unwrap(),
                "{name} dur_ns"
            );
        }
        // The metadata table has no durations; it streams and releases too.
        let (rows, _) = consume(trace, "metadata", 7);
        assert!(rows >= 7, "{}: metadata rows", trace.display());
    }
}

/// A native capture streams the same way: the shared rocprofv3 CSV's 1,128
/// dispatches and 5 API calls (its own README's counts).
#[test]
fn a_rocprof_capture_streams_to_c() {
    let Some(kernels) = opguard_testdata::shared_file("rocprof/prefill_kernel_trace.csv") else {
        return;
    };
    assert_eq!(consume(&kernels, "device", 100).0, 1128);
    assert_eq!(consume(&kernels, "launches", 1).0, 5);
}
