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
    /// The XSpace reader's options: the same limits (an XSpace is not
    /// compressed: its size is held against both; stats it inflates count
    /// against the decoded limit).
    #[cfg(feature = "xplane")]
    pub(crate) fn xplane(&self) -> opguard_xplane::ReadOptions {
        opguard_xplane::ReadOptions::default()
            .max_encoded_bytes(self.reader.max_encoded_bytes)
            .max_decoded_bytes(self.reader.max_decoded_bytes)
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
    let json = |spec, progress: Progress<'_>, storage| {
        opguard_trace::read_model_reusing(
            path,
            spec,
            &options.model,
            &options.reader,
            progress,
            storage,
        )
        .map_err(|e| Error::from(e).in_file(path))
    };
    match detect(path)? {
        Detected::ChromeJson => json(spec, progress, storage),
        #[cfg(feature = "xplane")]
        Detected::Xspace => {
            let model = opguard_xplane::read_model_reusing(
                path,
                spec,
                &options.model,
                &options.xplane(),
                storage,
            )
            .map_err(|e| Error::from(e).in_file(path))?;
            let summary = model.summary();
            progress(summary.encoded_bytes, summary.decoded_bytes);
            Ok(model)
        }
        // Not detected without the feature.
        #[cfg(not(feature = "xplane"))]
        Detected::Xspace => json(spec, progress, storage),
        Detected::NsightReport => Err(Error::new(ErrorKind::NsightReport).in_file(path)),
        Detected::Sqlite => Err(unsupported_database(path)),
    }
}

/// An SQLite database no reader of this build claims.
pub(crate) fn unsupported_database(path: &Path) -> Error {
    Error::new(ErrorKind::UnsupportedDatabase {
        detail: "an SQLite database: this build reads no SQLite capture (Nsight Systems \
                 exports and rocpd databases are read by builds with the `nsys` and \
                 `rocprof` features)"
            .into(),
    })
    .in_file(path)
}
