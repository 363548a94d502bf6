//! Reader stage: a capture of any format into the provider-neutral model.

use std::path::Path;

use opguard_model::{ArtifactSpec, ModelOptions, ModelStorage, Progress, TraceModel};
use opguard_trace::ReaderOptions;

use crate::detect::{detect, Detected};
use crate::error::{Error, ErrorKind};

/// What to keep ([`ModelOptions`]) and how to read ([`ReaderOptions`]: the
/// limits every reader honours — `max_encoded_bytes` on the bytes read from
/// storage, `max_decoded_bytes` on the bytes parsed after decompression;
/// for an SQLite export, which is not compressed, both are its size — and
/// the Chrome JSON reader's own tolerance and threading switches).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// What the model keeps.
    pub model: ModelOptions,
    /// Limits and reader switches.
    pub reader: ReaderOptions,
    /// Read a native export whose schema version is outside the versions
    /// its reader was checked against (Nsight Systems:
    /// `opguard_nsys::VERIFIED_SCHEMAS`); every table and column read is
    /// still checked by name and type. Off by default: such an export is
    /// refused with `schema_unverified`.
    pub unverified_schema: bool,
}

impl ReadOptions {
    /// Keep what `model` asks for, with the default limits.
    pub fn new(model: ModelOptions) -> Self {
        ReadOptions {
            model,
            reader: ReaderOptions::default(),
            unverified_schema: false,
        }
    }
    /// Sets the reader options.
    pub fn reader(mut self, reader: ReaderOptions) -> Self {
        self.reader = reader;
        self
    }
    /// Sets [`ReadOptions::unverified_schema`].
    pub fn unverified_schema(mut self, on: bool) -> Self {
        self.unverified_schema = on;
        self
    }
    /// The Nsight Systems reader's options: the same limits.
    #[cfg(feature = "nsys")]
    pub(crate) fn nsys(&self) -> opguard_nsys::ReadOptions {
        opguard_nsys::ReadOptions::new()
            .max_encoded_bytes(self.reader.max_encoded_bytes)
            .max_decoded_bytes(self.reader.max_decoded_bytes)
            .unverified_schema(self.unverified_schema)
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
        #[cfg(feature = "nsys")]
        Detected::NsysSqlite => {
            let read = opguard_nsys::read_model_reusing(
                path,
                spec,
                &options.model,
                &options.nsys(),
                storage,
            )
            .map_err(|e| Error::from(e).in_file(path))?;
            let size = read.summary().encoded_bytes;
            progress(size, size);
            Ok(read)
        }
        #[cfg(not(feature = "nsys"))]
        Detected::NsysSqlite => Err(unsupported_database(path)),
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
        Detected::Xspace => Err(Error::new(ErrorKind::UnsupportedDatabase {
            detail: "an XSpace: this build does not read it (builds with the `xplane` feature do)"
                .into(),
        })
        .in_file(path)),
        Detected::NsightReport => Err(Error::new(ErrorKind::NsightReport).in_file(path)),
        Detected::Sqlite => Err(unsupported_database(path)),
        Detected::RocprofCsv | Detected::RocprofJson | Detected::RocpdSqlite => {
            Err(unsupported_rocprof(path))
        }
    }
}

/// An SQLite database no reader of this build claims.
pub(crate) fn unsupported_database(path: &Path) -> Error {
    let detail = match (cfg!(feature = "nsys"), cfg!(feature = "rocprof")) {
        (true, true) => {
            "an SQLite database that is not a capture this build reads: neither an Nsight \
             Systems export (no META_DATA_EXPORT or EXPORT_META_DATA table) nor a rocpd \
             database (no rocpd_* tables)"
        }
        _ => {
            "an SQLite database this build does not read (Nsight Systems exports and rocpd \
             databases are read by builds with the `nsys` and `rocprof` features)"
        }
    };
    Error::new(ErrorKind::UnsupportedDatabase {
        detail: detail.into(),
    })
    .in_file(path)
}

/// rocprofv3 output in a build without its reader.
pub(crate) fn unsupported_rocprof(path: &Path) -> Error {
    Error::new(ErrorKind::UnsupportedDatabase {
        detail: "rocprofv3 output: this build does not read it (builds with the `rocprof` \
                 feature do)"
            .into(),
    })
    .in_file(path)
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

    /// Whether the capture is rocprofv3's: its CSV, JSON or rocpd database by
    /// content, or a `.csv` the content does not
    /// name (then the CSV reader says which column is not rocprofv3's,
    /// instead of the JSON reader saying it is not JSON).
    pub(crate) fn reads(path: &Path, detected: Detected) -> bool {
        match detected {
            Detected::RocprofCsv | Detected::RocprofJson | Detected::RocpdSqlite => true,
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
