//! Reader: traces named on each side (files, directories) → their
//! samples → the comparison.

use std::path::{Path, PathBuf};

use opguard_formats::{Detected, ReadOptions};
use opguard_model::{ArtifactSpec, ModelOptions, ModelStorage};

use crate::compare::compare;
use crate::error::{Error, ErrorKind};
use crate::options::CompareOptions;
use crate::report::Comparison;
use crate::samples::{run_samples, RunSamples};

/// What one side's arguments name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SideInputs {
    /// One trace per run: every argument that is not a directory, a
    /// directory that is itself one capture (rocprofv3's CSV files), and
    /// the traces directly inside other directories (by name: `*.json`,
    /// `*.json.gz`, `*.sqlite`, `*.db`, `*.rocpd`, `*.pb`, and
    /// subdirectories that are rocprofv3 captures), sorted by name.
    pub traces: Vec<PathBuf>,
    /// The other regular files directly inside the directories, not read.
    /// Hidden files are neither.
    pub skipped: Vec<PathBuf>,
}

/// Names of files a directory's traces have, by the formats opguard reads.
const TRACE_SUFFIXES: [&str; 6] = [".json", ".json.gz", ".sqlite", ".db", ".rocpd", ".pb"];

fn is_trace_name(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    TRACE_SUFFIXES.iter().any(|s| name.ends_with(s))
}

fn is_capture_dir(path: &Path) -> bool {
    matches!(opguard_formats::detect(path), Ok(Detected::RocprofCsv))
}

/// The traces `args` name for `side` ([`SideInputs`]). A file argument is
/// a trace whatever its name; a directory that cannot be listed is an
/// error.
pub fn side_inputs(side: &'static str, args: &[PathBuf]) -> Result<SideInputs, Error> {
    let mut out = SideInputs::default();
    for arg in args {
        let is_dir = std::fs::metadata(arg).is_ok_and(|m| m.is_dir());
        if !is_dir || is_capture_dir(arg) {
            out.traces.push(arg.clone());
            continue;
        }
        let mut entries: Vec<PathBuf> = Vec::new();
        for entry in std::fs::read_dir(arg).map_err(|e| Error::input(side, arg, e))? {
            let entry = entry.map_err(|e| Error::input(side, arg, e))?;
            if !entry.file_name().to_string_lossy().starts_with('.') {
                entries.push(entry.path());
            }
        }
        entries.sort();
        for path in entries {
            let meta = std::fs::metadata(&path);
            if meta.as_ref().is_ok_and(|m| m.is_dir()) {
                if is_capture_dir(&path) {
                    out.traces.push(path);
                }
            } else if meta.is_ok_and(|m| m.is_file()) {
                if is_trace_name(&path) {
                    out.traces.push(path);
                } else {
                    out.skipped.push(path);
                }
            }
        }
    }
    Ok(out)
}

/// What a run's model keeps: everything but flow points (only the launch
/// region's `ac2g` cross-check reads them, which a comparison does not
/// report).
fn read_options(options: &CompareOptions) -> ReadOptions {
    ReadOptions::new(ModelOptions::new().flows(false)).reader(options.reader.clone())
}

/// Reads each trace (any format opguard reads, one at a time) into its
/// samples; `side` names the side in errors.
pub fn read_side(
    side: &'static str,
    traces: &[PathBuf],
    options: &CompareOptions,
) -> Result<Vec<RunSamples>, Error> {
    let read_options = read_options(options);
    let mut storage = ModelStorage::new();
    let mut runs = Vec::with_capacity(traces.len());
    for path in traces {
        let model = opguard_formats::read_reusing(
            path,
            ArtifactSpec::new().role(side),
            &read_options,
            &mut |_, _| {},
            &mut storage,
        )
        .map_err(|source| ErrorKind::TraceUnreadable {
            side,
            path: path.clone(),
            source,
        })?;
        runs.push(run_samples(path.display().to_string(), &model, options)?);
        storage = model.into_storage();
    }
    Ok(runs)
}

/// Compares the traces `baseline` names with those `candidate` names
/// (files or directories, [`side_inputs`]): read, sampled, compared.
pub fn compare_paths(
    baseline: &[PathBuf],
    candidate: &[PathBuf],
    options: &CompareOptions,
) -> Result<Comparison, Error> {
    options.check()?;
    let mut sides = Vec::new();
    for (side, args) in [("baseline", baseline), ("candidate", candidate)] {
        let inputs = side_inputs(side, args)?;
        if inputs.traces.is_empty() {
            return Err(ErrorKind::NoRuns { side }.into());
        }
        sides.push(read_side(side, &inputs.traces, options)?);
    }
    compare(&sides[0], &sides[1], options)
}
