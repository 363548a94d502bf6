//! Analysis through the door: a capture's launch region, streamed where
//! its format allows.

use std::path::Path;

use opguard_model::analysis::{launch_region as model_region, LaunchRegion};
use opguard_model::{ArtifactSpec, ModelStorage, Progress, ReadWarning};

use crate::detect::{detect, Detected};
use crate::error::Error;
use crate::read::{read_reusing, ReadOptions};

/// A capture's launch region and what its reader accepted that a strict
/// reader would not.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RegionRead {
    /// The region.
    pub region: LaunchRegion,
    /// The reader's warnings.
    pub warnings: Vec<ReadWarning>,
}

/// The launch region of the capture at `path`, with its `top` kernels.
/// An Nsight Systems export is read row by row in time order into
/// opguard-model's streaming region builder (`opguard_nsys::launch_region`:
/// memory follows its threads, streams and kernel names, not its rows);
/// any other capture is read into a model keeping launches and device
/// activity (`options.model` is not consulted) and its region computed
/// from it. The figures are the same either way.
///
/// ```
/// use opguard_formats::{launch_region, ReadOptions};
/// use opguard_model::ArtifactSpec;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("decode.json");
/// std::fs::write(&path, br#"{"traceEvents":[
///   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":7,"ts":1,"dur":1,"args":{"correlation":5}},
///   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":3,"ts":2,"dur":4,"args":{"correlation":5}}]}"#)?;
/// let read = launch_region(&path, ArtifactSpec::new(), &ReadOptions::default(), 10, &mut |_, _| {})?;
/// assert_eq!(read.region.correlated_kernel_count, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn launch_region(
    path: impl AsRef<Path>,
    spec: ArtifactSpec,
    options: &ReadOptions,
    top: usize,
    progress: Progress<'_>,
) -> Result<RegionRead, Error> {
    let path = path.as_ref();
    match detect(path)? {
        #[cfg(feature = "nsys")]
        Detected::NsysSqlite => {
            let region = opguard_nsys::launch_region(path, spec, &options.nsys(), top)
                .map_err(|e| Error::from(e).in_file(path))?;
            let size = std::fs::metadata(path).map_or(0, |m| m.len());
            progress(size, size);
            Ok(RegionRead {
                region,
                warnings: Vec::new(),
            })
        }
        _ => {
            let mut launches = options.clone();
            launches.model = opguard_model::ModelOptions::launches_only();
            let model = read_reusing(path, spec, &launches, progress, &mut ModelStorage::new())?;
            Ok(RegionRead {
                region: model_region(&model, top),
                warnings: model.summary().warnings.clone(),
            })
        }
    }
}
