//! Test support for opguard's tests, doc examples and examples: locates
//! `../shared/data`, the real traces and captures the tests read, reads the
//! committed `fixtures/` case files through one header check ([`fixture`]),
//! and builds Kineto-shaped traces ([`kineto_writer`]).
//!
//! The folder sits beside the workspace (CI has it too); nothing from it is
//! copied into the repository. When it is missing, tests skip with a message,
//! except under `CI=true`, where a missing folder must fail the run loudly.

use std::path::PathBuf;

pub mod fixture;
pub mod kineto_writer;

pub use fixture::{check_fixture_header, fixtures_dir, load_fixture, FixtureHeaderError};

/// Where the real data comes from, for a skip message: the folder, what it
/// holds and its description.
pub const SHARED_DATA_ORIGIN: &str = "the shared/data folder beside the checkout: real \
profiler traces (HolisticTraceAnalysis's test data, PyTorch captures, ...) kept outside \
the repository, each file's source in its README.md";

/// `../shared/data` relative to the workspace root, if it exists.
///
/// When it does not, the calling test is skipped: one line naming the test
/// and where the data comes from is written to stderr past the test
/// harness's capture (so `cargo test` shows it), and appended to the file
/// `$OPGUARD_SKIP_LOG` when that is set (`scripts/test` lists them at the
/// end).
///
/// # Panics
/// When the folder is missing and the environment has `CI=true`.
#[track_caller]
pub fn shared_data() -> Option<PathBuf> {
    // The workspace is this crate's parent; the folder sits beside it.
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default();
    let dir = workspace.parent().map_or_else(
        || PathBuf::from("../shared/data"),
        |p| p.join("shared/data"),
    );
    if dir.is_dir() {
        return dir.canonicalize().ok();
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "CI=true but the shared data folder {} is missing: the real-data tests cannot run",
            dir.display()
        );
    }
    skipped(&format!(
        "needs {SHARED_DATA_ORIGIN}; {} is not there",
        dir.display()
    ));
    None
}

/// Says that the calling test skips, and why: on stderr past the test
/// harness's capture, and in `$OPGUARD_SKIP_LOG` when set (one line:
/// test, place, reason, tab-separated).
#[track_caller]
pub fn skipped(reason: &str) {
    use std::io::Write;
    let place = std::panic::Location::caller();
    let thread = std::thread::current();
    // libtest runs each test on a thread named after it.
    let test = thread.name().unwrap_or("?");
    let place = format!("{}:{}", place.file(), place.line());
    thread_local!(static SAID: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    // A test that asks for several files skips once.
    if SAID.with(|s| s.replace(true)) {
        return;
    }
    // Written to the handle, not with eprintln!: the harness captures only
    // the print macros, and a skip must be seen.
    let _ = writeln!(
        std::io::stderr().lock(),
        "skipped {test} ({place}): {reason}"
    );
    if let Some(log) = std::env::var_os("OPGUARD_SKIP_LOG") {
        let line = format!("{test}\t{place}\t{reason}\n");
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut f| f.write_all(line.as_bytes()));
    }
}

/// A file under the shared data folder; `None` when the folder is missing
/// (see [`shared_data`]).
///
/// # Panics
/// When the folder exists but the file does not: the data set is incomplete.
#[track_caller]
pub fn shared_file(relative: &str) -> Option<PathBuf> {
    let path = shared_data()?.join(relative);
    assert!(
        path.is_file(),
        "{} is missing from the shared data",
        path.display()
    );
    Some(path)
}

/// Every trace under `traces/hta/`, sorted by name; `None` when the shared
/// data folder is missing (see [`shared_data`]), so a test that counts what
/// it read says it skipped instead of failing on zero.
///
/// # Panics
/// When the folder exists but holds no traces.
#[track_caller]
pub fn hta_traces() -> Option<Vec<PathBuf>> {
    let dir = shared_data()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("traces/hta"))
        .expect("traces/hta is readable")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "traces/hta holds no traces");
    Some(files)
}

/// Orders `traces` by file size, the largest first (ties keep their order):
/// a test that reads traces one after another into reused buffers reads the
/// one that grows them most first.
pub fn largest_first(traces: &mut [PathBuf]) {
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    traces.sort_by_key(|p| std::cmp::Reverse(size(p)));
}

/// Writes the first two thirds of `src`'s bytes to `dst`: a trace cut off
/// the way a killed job leaves it (for a `.gz`, a gzip stream without its
/// end).
pub fn write_cut_copy(src: &std::path::Path, dst: &std::path::Path) {
    let bytes = std::fs::read(src).expect("the trace to cut is readable");
    std::fs::write(dst, &bytes[..bytes.len() * 2 / 3]).expect("the cut copy is written");
}

/// Runs an independent referee in Python, `python3 ARGS...`, and returns
/// what it printed on stdout.
///
/// # Panics
/// When python3 cannot run, or the referee exits non-zero (it disagrees):
/// the message is what it printed on stdout and stderr.
pub fn python3<A: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = A>) -> Vec<u8> {
    let out = std::process::Command::new("python3")
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The SQL referee of Nsight Systems exports
/// (`opguard-nsys/tests/referee.py`: Python's sqlite3 over the same file,
/// no code shared with the reader): its JSON answer for `export`.
///
/// # Panics
/// As [`python3`], or when the referee prints no JSON.
pub fn nsys_referee(export: &std::path::Path) -> serde_json::Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../opguard-nsys/tests/referee.py");
    let out = python3([script.as_os_str(), export.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

/// Writes `dst`, an Nsight Systems export derived from the real export
/// `src` by `opguard-nsys/tests/derive_export.py` with `args` (its
/// docstring lists them: more processes, a graph launch, repeated runtime
/// rows...).
///
/// # Panics
/// As [`python3`].
pub fn derive_nsys_export(src: &std::path::Path, dst: &std::path::Path, args: &[&str]) {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../opguard-nsys/tests/derive_export.py");
    let mut all = vec![script.into_os_string(), src.into(), dst.into()];
    all.extend(args.iter().map(std::ffi::OsString::from));
    python3(all);
}

/// A real-producer trace committed under `fixtures/producers/traces/`
/// (recorded by `fixtures/producers/record.sh`; always present).
///
/// # Panics
/// When the file is not there: the committed fixture set is incomplete.
pub fn producer_trace(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/producers/traces")
        .join(name);
    assert!(path.is_file(), "{} is not committed", path.display());
    path
}

/// The decoded bytes of a trace file, plain or gzip (by magic bytes).
///
/// # Panics
/// When the file cannot be read or its gzip stream is broken.
pub fn decoded(path: &std::path::Path) -> Vec<u8> {
    use std::io::Read;
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return raw;
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&raw[..])
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    out
}

/// `bytes` gzip-compressed (fast level).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).expect("writing to memory");
    e.finish().expect("writing to memory")
}

/// Writes to `dst` (gzip) a copy of the real rank trace `src` with
/// `distributedInfo.rank` set to `rank` and every `kernel` event's `dur`
/// multiplied by `kernel_scale` (rounded to whole microseconds; 1.0 leaves
/// durations as written): the same program, one rank really slower. Nothing
/// else changes, so each copy is still the producer's own output apart from
/// those fields.
///
/// # Panics
/// When `src` is not a readable JSON trace object.
pub fn rank_copy(src: &std::path::Path, dst: &std::path::Path, rank: i64, kernel_scale: f64) {
    let mut doc: serde_json::Value =
        serde_json::from_slice(&decoded(src)).expect("the source trace is JSON");
    doc["distributedInfo"]["rank"] = rank.into();
    if kernel_scale != 1.0 {
        let events = doc["traceEvents"].as_array_mut().expect("traceEvents");
        for e in events.iter_mut().filter(|e| e["cat"] == "kernel") {
            if let Some(d) = e["dur"].as_f64() {
                e["dur"] = serde_json::json!((d * kernel_scale).round());
            }
        }
    }
    let text = serde_json::to_vec(&doc).expect("a JSON value serialises");
    std::fs::write(dst, gzip(&text)).unwrap_or_else(|e| panic!("{}: {e}", dst.display()));
}
