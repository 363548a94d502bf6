//! Reader stage: the plain facts of a capture, whatever its format — what
//! `opguard trace info` and the C ABI's `opguard_trace_info` report.

use std::path::Path;

use opguard_model::{Format, Provider};
use opguard_trace::TraceReader;

use crate::detect::{detect, Detected};
use crate::error::{Error, ErrorKind};
use crate::read::ReadOptions;

/// The facts of one capture, by format. In JSON, the format's own facts
/// with `"format"` naming it (`chrome_json`, `xspace`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "format", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Info {
    /// A Chrome trace's facts (`opguard_trace::trace_info`): provider,
    /// `(ph, cat)` counts, time span, warnings.
    ChromeJson(opguard_trace::TraceInfo),
    /// An XSpace's facts (`opguard_xplane::XSpaceInfo`): planes and their
    /// lines with event counts by what opguard makes of them, what is not
    /// modeled named, time span.
    #[cfg(feature = "xplane")]
    Xspace(opguard_xplane::XSpaceInfo),
}

impl Info {
    /// The format the facts were read from.
    pub fn format(&self) -> Format {
        match self {
            Info::ChromeJson(_) => Format::ChromeJson,
            #[cfg(feature = "xplane")]
            Info::Xspace(_) => Format::Xspace,
        }
    }

    /// The provider: detected, or set by [`Info::set_provider`].
    pub fn provider(&self) -> Provider {
        match self {
            Info::ChromeJson(i) => i.provider,
            #[cfg(feature = "xplane")]
            Info::Xspace(i) => i.provider,
        }
    }

    /// Replaces the provider (a caller's `--provider`).
    pub fn set_provider(&mut self, provider: Provider) {
        match self {
            Info::ChromeJson(i) => i.provider = provider,
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
    let json = |progress: &mut dyn FnMut(u64)| {
        TraceReader::open_with(path, options.reader.clone())
            .and_then(|reader| opguard_trace::trace_info(reader, progress))
            .map(Info::ChromeJson)
            .map_err(|e| Error::from(e).in_file(path))
    };
    match detect(path)? {
        Detected::ChromeJson => json(progress),
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
        Detected::Xspace => json(progress),
        Detected::NsightReport => Err(Error::new(ErrorKind::NsightReport).in_file(path)),
        Detected::Sqlite => Err(crate::read::unsupported_database(path)),
    }
}
