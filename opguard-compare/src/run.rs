//! Reader: traces named on each side (files, directories) → their
//! samples → the comparison.

use std::path::PathBuf;

use opguard_formats::{ReadOptions, SkippedFile};
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
    /// One trace per run: every argument that is not a directory, and the
    /// captures directly inside each directory, recognised by content
    /// ([`opguard_formats::captures_in`], as `opguard job` finds ranks:
    /// Chrome JSON plain or gzip, an XSpace, an Nsight Systems export, a
    /// rocprofv3 capture), sorted by name. A JSON view JAX wrote beside its
    /// XSpace is not a second run.
    pub traces: Vec<PathBuf>,
    /// The other regular files directly inside the directories, and why
    /// each is not read. Hidden files are neither.
    pub skipped: Vec<SkippedFile>,
}

/// The traces `args` name for `side` ([`SideInputs`]). A file argument is
/// a trace whatever it holds (reading it says what is wrong); a directory
/// that cannot be listed is an error.
pub fn side_inputs(side: &'static str, args: &[PathBuf]) -> Result<SideInputs, Error> {
    let found = opguard_formats::captures_in(args)
        .map_err(|e| Error::input(side, &e.directory, e.source))?;
    Ok(SideInputs {
        traces: found.captures,
        skipped: found.skipped,
    })
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
    let mut runs: Vec<RunSamples> = Vec::with_capacity(traces.len());
    // A file named twice is refused before it is read a second time (the
    // comparison refuses any artifact given twice, by its SHA-256; this
    // spares a large trace a whole second read to learn it).
    let mut read_at: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    for path in traces {
        if let Ok(canonical) = std::fs::canonicalize(path) {
            if let Some(&earlier) = read_at.get(&canonical) {
                return Err(ErrorKind::ArtifactReused {
                    side,
                    file: path.display().to_string(),
                    artifact: runs[earlier].run.artifact.clone(),
                }
                .into());
            }
            read_at.insert(canonical, runs.len());
        }
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
