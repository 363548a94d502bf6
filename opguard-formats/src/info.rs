//! Analysis: the facts `opguard trace info` prints, by each format's own
//! streaming pass (no model is built, so memory does not grow with the
//! records).

use std::path::Path;

use crate::detect::detect;
use crate::error::Error;
use crate::read::ReadOptions;

/// One capture's facts, in its format's terms.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Info {
    /// A Chrome trace: `(ph, cat)` counts, time span, warnings.
    ChromeJson(Box<opguard_trace::TraceInfo>),
    /// A rocprofv3 capture: its files, records by kind and category, time
    /// span, processes and agents.
    #[cfg(feature = "rocprof")]
    Rocprof(Box<opguard_rocprof::CaptureInfo>),
}

/// Reads the capture at `path` and says what it holds ([`Info`]).
pub fn info(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Info, Error> {
    let path = path.as_ref();
    let detected = detect(path)?;
    #[cfg(feature = "rocprof")]
    if crate::read::rocprof_reads(path, detected) {
        let limits = opguard_rocprof::ReadOptions::from_reader(&options.reader);
        return opguard_rocprof::capture_info(path, &limits)
            .map(|i| Info::Rocprof(Box::new(i)))
            .map_err(|e| Error::from(e).in_file(path));
    }
    let _ = detected;
    opguard_trace::TraceReader::open_with(path, options.reader.clone())
        .and_then(|reader| opguard_trace::trace_info(reader, &mut |_| {}))
        .map(|i| Info::ChromeJson(Box::new(i)))
        .map_err(|e| Error::from(e).in_file(path))
}
