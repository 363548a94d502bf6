//! Reader stage: the plain facts of a capture, whatever its format — what
//! `opguard trace info` and the C ABI's `opguard_trace_info` report.

use std::path::Path;

use opguard_model::{Format, Provider};
use opguard_trace::TraceReader;

use crate::detect::{detect, Detected};
use crate::error::{Error, ErrorKind};
use crate::read::{unsupported_database, ReadOptions};

/// The facts of one capture, by format. In JSON, the format's own facts
/// with `"format"` naming it as [`Format::as_str`] does (`chrome_json`,
/// `nsys_sqlite`, `rocprofv3_csv`, `rocprofv3_json`, `rocpd_sqlite`,
/// `xspace`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Info {
    /// A Chrome trace's facts (`opguard_trace::trace_info`): provider,
    /// `(ph, cat)` counts, time span, warnings.
    ChromeJson(opguard_trace::TraceInfo),
    /// An Nsight Systems export's facts (`opguard_nsys::Export::info`):
    /// product and schema versions, rows per table, time span, GPUs.
    #[cfg(feature = "nsys")]
    NsysSqlite(opguard_nsys::ExportInfo),
    /// A rocprofv3 capture's facts (`opguard_rocprof::capture_info`, any of
    /// its three formats): its files, records by kind and category, time
    /// span, processes and agents.
    #[cfg(feature = "rocprof")]
    Rocprof(Box<opguard_rocprof::CaptureInfo>),
    /// An XSpace's facts (`opguard_xplane::XSpaceInfo`): planes and their
    /// lines with event counts by what opguard makes of them, what is not
    /// modeled named, time span.
    #[cfg(feature = "xplane")]
    Xspace(opguard_xplane::XSpaceInfo),
}

impl serde::Serialize for Info {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        #[serde(tag = "format", rename_all = "snake_case")]
        enum Tagged<'a> {
            ChromeJson(&'a opguard_trace::TraceInfo),
            #[cfg(feature = "nsys")]
            NsysSqlite(&'a opguard_nsys::ExportInfo),
            #[cfg(feature = "xplane")]
            Xspace(&'a opguard_xplane::XSpaceInfo),
        }
        match self {
            Info::ChromeJson(i) => Tagged::ChromeJson(i).serialize(serializer),
            #[cfg(feature = "nsys")]
            Info::NsysSqlite(i) => Tagged::NsysSqlite(i).serialize(serializer),
            #[cfg(feature = "xplane")]
            Info::Xspace(i) => Tagged::Xspace(i).serialize(serializer),
            // Its facts name their format already (one reader, three formats).
            #[cfg(feature = "rocprof")]
            Info::Rocprof(i) => i.serialize(serializer),
        }
    }
}

impl Info {
    /// The format the facts were read from.
    pub fn format(&self) -> Format {
        match self {
            Info::ChromeJson(_) => Format::ChromeJson,
            #[cfg(feature = "nsys")]
            Info::NsysSqlite(_) => Format::NsysSqlite,
            #[cfg(feature = "rocprof")]
            Info::Rocprof(i) => i.capture_format.model_format(),
            #[cfg(feature = "xplane")]
            Info::Xspace(_) => Format::Xspace,
        }
    }

    /// The provider: detected, or set by [`Info::set_provider`].
    pub fn provider(&self) -> Provider {
        match self {
            Info::ChromeJson(i) => i.provider,
            #[cfg(feature = "nsys")]
            Info::NsysSqlite(i) => i.provider,
            #[cfg(feature = "rocprof")]
            Info::Rocprof(_) => Provider::Rocprofv3,
            #[cfg(feature = "xplane")]
            Info::Xspace(i) => i.provider,
        }
    }

    /// Replaces the provider (a caller's `--provider`); a rocprofv3
    /// capture's is always rocprofv3.
    pub fn set_provider(&mut self, provider: Provider) {
        match self {
            Info::ChromeJson(i) => i.provider = provider,
            #[cfg(feature = "nsys")]
            Info::NsysSqlite(i) => i.provider = provider,
            #[cfg(feature = "rocprof")]
            Info::Rocprof(_) => {}
            #[cfg(feature = "xplane")]
            Info::Xspace(i) => i.provider = provider,
        }
    }
}

/// The facts of the capture at `path`, whatever its format (detected by
/// content, as [`crate::read`] does). The limits of `options.reader`
/// apply; what the model would keep does not matter here.
///
/// ```
/// use opguard_formats::{info, Info, ReadOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("trace.json");
/// std::fs::write(&path, br#"{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}]}"#)?;
/// match info(&path, &ReadOptions::default())? {
///     Info::ChromeJson(facts) => assert_eq!(facts.events, 1),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn info(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Info, Error> {
    info_with_progress(path, options, &mut |_| {})
}

/// [`info`], calling `progress` with the bytes read so far.
pub fn info_with_progress(
    path: impl AsRef<Path>,
    options: &ReadOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Info, Error> {
    let path = path.as_ref();
    let detected = detect(path)?;
    #[cfg(feature = "rocprof")]
    if crate::read::rocprof_reads(path, detected) {
        let limits = opguard_rocprof::ReadOptions::from_reader(&options.reader);
        let facts = opguard_rocprof::capture_info(path, &limits)
            .map_err(|e| Error::from(e).in_file(path))?;
        progress(facts.encoded_bytes);
        return Ok(Info::Rocprof(Box::new(facts)));
    }
    match detected {
        Detected::ChromeJson => TraceReader::open_with(path, options.reader.clone())
            .and_then(|reader| opguard_trace::trace_info(reader, progress))
            .map(Info::ChromeJson)
            .map_err(|e| Error::from(e).in_file(path)),
        #[cfg(feature = "nsys")]
        Detected::NsysSqlite => {
            let facts = opguard_nsys::Export::open(path, &options.nsys())
                .and_then(|export| export.info())
                .map_err(|e| Error::from(e).in_file(path))?;
            progress(facts.bytes);
            Ok(Info::NsysSqlite(facts))
        }
        #[cfg(not(feature = "nsys"))]
        Detected::NsysSqlite => Err(unsupported_database(path)),
        #[cfg(feature = "xplane")]
        Detected::Xspace => {
            let facts = opguard_xplane::XSpaceFile::open(path, &options.xplane())
                .and_then(|space| opguard_xplane::XSpaceInfo::of(&space))
                .map_err(|e| Error::from(e).in_file(path))?;
            progress(facts.encoded_bytes);
            Ok(Info::Xspace(facts))
        }
        // Not detected without the feature.
        #[cfg(not(feature = "xplane"))]
        Detected::Xspace => Err(unsupported_database(path)),
        Detected::NsightReport => Err(Error::new(ErrorKind::NsightReport).in_file(path)),
        Detected::Sqlite => Err(unsupported_database(path)),
        Detected::RocprofCsv | Detected::RocprofJson | Detected::RocpdSqlite => {
            Err(crate::read::unsupported_rocprof(path))
        }
    }
}
