//! What the tests share: the shared exports, the referee, derived exports,
//! and the facts the reader gives for a file.

use std::path::{Path, PathBuf};

use opguard_nsys::{CallIndex, Calls, Error, Export, ReadOptions};
use serde_json::Value;

/// The exports under `../shared/data/nsys/`, each with the product version
/// that wrote it (README there): `(file, product version, schema)`.
pub const SHARED_EXPORTS: [(&str, &str, &str); 3] = [
    ("nsys/nsys-ai_mock.sqlite", "2026.1.1.204", "3.24.14"),
    (
        "nsys/pipit_perlmutter-cloverleaf-cuda.sqlite",
        "2024.5.1.113",
        "3.13.2",
    ),
    ("nsys/test-cuda_report1.sqlite", "2026.1.1.204", "3.24.14"),
];

/// Cloverleaf on 4× A100, Nsight Systems 2024.5.1 (schema 3.13.2): the
/// largest shared export, the source of the derived ones.
pub const CLOVERLEAF: &str = "nsys/pipit_perlmutter-cloverleaf-cuda.sqlite";
/// test-cuda on an RTX 4060 Ti, Nsight Systems 2026.1.1 (schema 3.24.14).
pub const TEST_CUDA: &str = "nsys/test-cuda_report1.sqlite";

/// The referee's answer for `export` (tests/referee.py, Python's sqlite3).
pub fn referee(export: &Path) -> Value {
    opguard_testdata::nsys_referee(export)
}

/// Writes `dst`, derived from the real export `src` by
/// tests/derive_export.py with `args`.
pub fn derive(src: &Path, dst: &Path, args: &[&str]) {
    opguard_testdata::derive_nsys_export(src, dst, args)
}

/// What the reader gives for an export, in the referee's terms.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub kernels: (u64, i64),
    pub memcpy: (u64, i64),
    pub memset: (u64, i64),
    pub syncs: (u64, i64),
    pub runtime_rows: u64,
    pub calls: u64,
    pub calls_ns: i64,
    pub backtrace_rows: u64,
    /// Kernels whose (process, correlation id) names exactly one call.
    pub proven_kernels: u64,
    /// Kernels whose (process, correlation id) names several calls.
    pub ambiguous_kernels: u64,
    pub nvtx_rows: u64,
    pub nvtx_ranges: u64,
    pub nvtx_ranges_ns: i64,
    pub processes: u64,
    pub threads: u64,
    pub gpus: u64,
}

impl Facts {
    /// The referee's JSON in the same terms.
    pub fn from_referee(v: &Value) -> Facts {
        let n = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
        let i = |k: &str| v[k].as_i64().unwrap_or_else(|| panic!("{k} in {v}"));
        let pair = |k: &str| (v[k][0].as_u64().expect(k), v[k][1].as_i64().expect(k));
        Facts {
            kernels: pair("kernels"),
            memcpy: pair("memcpy"),
            memset: pair("memset"),
            syncs: pair("syncs"),
            runtime_rows: n("runtime_rows"),
            calls: n("calls"),
            calls_ns: i("calls_ns"),
            backtrace_rows: n("backtrace_rows"),
            proven_kernels: n("proven_kernels"),
            ambiguous_kernels: n("ambiguous_kernels"),
            nvtx_rows: n("nvtx_rows"),
            nvtx_ranges: n("nvtx_ranges"),
            nvtx_ranges_ns: i("nvtx_ranges_ns"),
            processes: n("processes"),
            threads: n("threads"),
            gpus: n("gpus"),
        }
    }

    /// Reads every row of `export` through the reader.
    pub fn read(export: &Export) -> Result<Facts, Error> {
        let mut f = Facts::default();
        let mut calls = CallIndex::new();
        f.runtime_rows = export.api_calls(|c| {
            if !c.is_call() {
                f.backtrace_rows += 1;
                return Ok::<_, Error>(());
            }
            f.calls += 1;
            f.calls_ns += c.end - c.start;
            if let (Some(t), Some(id)) = (c.global_tid, c.correlation_id) {
                calls.insert(t.process(), id);
            }
            Ok(())
        })?;
        export.kernels(|k| {
            f.kernels.0 += 1;
            f.kernels.1 += k.end - k.start;
            if let (Some(p), Some(id)) = (k.global_pid, k.correlation_id) {
                match calls.calls(p.process(), id) {
                    Calls::One => f.proven_kernels += 1,
                    Calls::Several => f.ambiguous_kernels += 1,
                    Calls::None => {}
                }
            }
            Ok::<_, Error>(())
        })?;
        export.memory_ops(|m| {
            let slot = match m.kind {
                opguard_nsys::MemoryKind::Copy { .. } => &mut f.memcpy,
                opguard_nsys::MemoryKind::Set { .. } => &mut f.memset,
            };
            slot.0 += 1;
            slot.1 += m.end - m.start;
            Ok::<_, Error>(())
        })?;
        export.syncs(|s| {
            f.syncs.0 += 1;
            f.syncs.1 += s.end - s.start;
            Ok::<_, Error>(())
        })?;
        f.nvtx_rows = export.nvtx(|n| {
            if n.kind.is_range() {
                f.nvtx_ranges += 1;
                f.nvtx_ranges_ns += n.end.map_or(0, |end| end - n.start);
            }
            Ok::<_, Error>(())
        })?;
        f.processes = export.processes(|_| Ok::<_, Error>(()))?;
        f.threads = export.thread_names(|_| Ok::<_, Error>(()))?;
        f.gpus = export.gpus()?.len() as u64;
        Ok(f)
    }
}

/// Opens with default options, panicking with the error's message.
pub fn open(path: &Path) -> Export {
    Export::open(path, &ReadOptions::new())
        .unwrap_or_else(|e| panic!("{}: error[{}] {e}", path.display(), e.code()))
}

/// Where the proposed real exports are: `OPGUARD_PROPOSED_NSYS=DIR`, else
/// the shared data's `nsys/` folder. They were found for this reader (the
/// sources each test names) but are not in `../shared/data`, which this
/// project cannot write to; so no CI run has them until they are added
/// there, and each test saying so when it skips.
fn proposed_folder() -> Option<PathBuf> {
    match std::env::var_os("OPGUARD_PROPOSED_NSYS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => opguard_testdata::shared_data().map(|d| d.join("nsys")),
    }
}

/// A real export proposed for the shared data but not yet in it: `None`
/// (with a message) until it is there. `source` says where it comes from.
pub fn proposed_export(name: &str, source: &str) -> Option<std::path::PathBuf> {
    let path = proposed_folder()?.join(name);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "skipping: nsys/{name} is a proposed real export ({source}) that is not in \
             ../shared/data, which is read-only to this project, so CI does not have it; \
             OPGUARD_PROPOSED_NSYS=DIR reads it from DIR"
        );
        None
    }
}

/// The folder of proposed exports, only when `OPGUARD_PROPOSED_NSYS` names
/// it (see [`proposed_export`]).
pub fn proposed_dir() -> Option<PathBuf> {
    match std::env::var_os("OPGUARD_PROPOSED_NSYS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!(
                "skipping: the proposed real exports (/work/lanes/data/nsys when this was \
                 written) are not in ../shared/data, which is read-only to this project, so \
                 CI does not have them; OPGUARD_PROPOSED_NSYS=DIR reads them from DIR"
            );
            None
        }
    }
}
