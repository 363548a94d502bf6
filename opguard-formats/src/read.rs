//! Reader stage: a capture of any format into the provider-neutral model.

use std::path::Path;

use opguard_model::{ArtifactSpec, ModelOptions, ModelStorage, Progress, TraceModel};
use opguard_trace::ReaderOptions;

use crate::detect::{detect, Detected};
use crate::error::{Error, ErrorKind};

/// What to keep ([`ModelOptions`]) and how to read ([`ReaderOptions`]: the
/// limits every reader honours — `max_encoded_bytes` on the bytes read from
/// storage, `max_decoded_bytes` on the bytes parsed after decompression —
/// and the Chrome JSON reader's own tolerance and threading switches).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// What the model keeps.
    pub model: ModelOptions,
    /// Limits and reader switches.
    pub reader: ReaderOptions,
}

impl ReadOptions {
    /// Keep what `model` asks for, with the default limits.
    pub fn new(model: ModelOptions) -> Self {
        ReadOptions {
            model,
            reader: ReaderOptions::default(),
        }
    }
    /// Sets the reader options.
    pub fn reader(mut self, reader: ReaderOptions) -> Self {
        self.reader = reader;
        self
    }
}

/// Reads the capture at `path`, whatever its format, into a model.
///
/// ```
/// use opguard_formats::{read, ReadOptions};
/// use opguard_model::{ArtifactSpec, ModelOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("trace.json");
/// std::fs::write(&path, br#"{"traceEvents":[
///   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1,"dur":2}]}"#)?;
/// let model = read(&path, ArtifactSpec::new(), &ReadOptions::new(ModelOptions::launches_only()))?;
/// assert_eq!(model.slices().len(), 1);
/// assert_eq!(model.artifact().format.as_str(), "chrome_json");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read(
    path: impl AsRef<Path>,
    spec: ArtifactSpec,
    options: &ReadOptions,
) -> Result<TraceModel, Error> {
    read_reusing(
        path,
        spec,
        options,
        &mut |_, _| {},
        &mut ModelStorage::new(),
    )
}

/// [`read`], calling `progress` every few MB, into the buffers of `storage`
/// (taken out of it: [`TraceModel::into_storage`] gives them back; on an
/// error they are back in `storage`, empty).
pub fn read_reusing(
    path: impl AsRef<Path>,
    mut spec: ArtifactSpec,
    options: &ReadOptions,
    progress: Progress<'_>,
    storage: &mut ModelStorage,
) -> Result<TraceModel, Error> {
    let path = path.as_ref();
    if spec.source.is_none() {
        spec.source = Some(path.display().to_string());
    }
    let detected = detect(path)?;
    #[cfg(feature = "rocprof")]
    if rocprof_reads(path, detected) {
        return rocprof::read(path, spec, options, storage);
    }
    match detected {
        Detected::ChromeJson => opguard_trace::read_model_reusing(
            path,
            spec,
            &options.model,
            &options.reader,
            progress,
            storage,
        )
        .map_err(|e| Error::from(e).in_file(path)),
        Detected::NsightReport => Err(Error::new(ErrorKind::NsightReport).in_file(path)),
        Detected::RocprofCsv | Detected::RocprofJson => {
            Err(Error::new(ErrorKind::UnsupportedDatabase {
                detail: "rocprofv3 output: this build does not read it (builds with the `rocprof` \
                     feature do)"
                    .into(),
            })
            .in_file(path))
        }
        Detected::Sqlite => Err(Error::new(ErrorKind::UnsupportedDatabase {
            detail: "an SQLite database: this build reads no SQLite capture (Nsight Systems \
                     exports and rocpd databases are read by builds with the `nsys` and \
                     `rocprof` features)"
                .into(),
        })
        .in_file(path)),
    }
}

#[cfg(feature = "rocprof")]
pub(crate) use rocprof::reads as rocprof_reads;

/// rocprofv3's three outputs, read by opguard-rocprof.
#[cfg(feature = "rocprof")]
mod rocprof {
    use std::path::Path;

    use opguard_model::{ArtifactSpec, ModelStorage, TraceModel};

    use super::ReadOptions;
    use crate::detect::Detected;
    use crate::error::Error;

    /// Whether the capture is rocprofv3's: its CSV or JSON by content, an
    /// SQLite database with rocpd's tables, or a `.csv` the content does not
    /// name (then the CSV reader says which column is not rocprofv3's,
    /// instead of the JSON reader saying it is not JSON).
    pub(crate) fn reads(path: &Path, detected: Detected) -> bool {
        match detected {
            Detected::RocprofCsv | Detected::RocprofJson => true,
            Detected::Sqlite => {
                opguard_rocprof::detect(path) == Some(opguard_rocprof::CaptureFormat::Rocpd)
            }
            Detected::ChromeJson => path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("csv")),
            _ => false,
        }
    }

    pub(super) fn read(
        path: &Path,
        spec: ArtifactSpec,
        options: &ReadOptions,
        storage: &mut ModelStorage,
    ) -> Result<TraceModel, Error> {
        let limits = opguard_rocprof::ReadOptions::from_reader(&options.reader);
        opguard_rocprof::read_model_reusing(path, spec, &options.model, &limits, storage)
            .map_err(|e| Error::from(e).in_file(path))
    }
}
