//! Analysis: what `opguard trace info` says of a rocprofv3 capture, in one
//! streaming pass (memory does not grow with the records).

use std::path::Path;

use crate::error::Error;
use crate::record::{
    Agent, CaptureFile, CaptureFormat, CaptureSummary, ProcessInfo, ReadOptions, Record,
    RecordCounts,
};

/// How many records of one kind and category a capture holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KindCount {
    /// `dispatch`, `api`, `marker` or `memory_copy`.
    pub kind: &'static str,
    /// The domain or category as written (`KERNEL_DISPATCH`,
    /// `HIP_RUNTIME_API_EXT`, `MARKER_CORE_API`, the copy direction...).
    pub category: String,
    /// Records.
    pub count: u64,
}

/// The first start and last end of a capture's records, in its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CaptureSpan {
    /// Earliest start, ns.
    pub start_ns: i64,
    /// Latest end, ns.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub duration_ns: i64,
    /// Records counted.
    pub records: u64,
}

/// The facts of one capture: its summary, the records by kind and category,
/// its time span, and the records whose end precedes their start.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct CaptureInfo {
    /// The format as opguard names it everywhere (`Format::as_str`):
    /// `rocprofv3_csv`, `rocprofv3_json` or `rocpd_sqlite`.
    pub format: &'static str,
    /// The same, as rocprofv3's own capture format.
    #[serde(skip)]
    pub capture_format: CaptureFormat,
    /// The capture's identity (see [`CaptureSummary::sha256`]).
    pub sha256: String,
    /// Always `rocprofv3`.
    pub provider: &'static str,
    /// What the capture says of its producer.
    pub producer: String,
    /// Each capture is its own clock domain: `artifact:<sha256>`.
    pub clock_domain: String,
    /// The files read.
    pub files: Vec<CaptureFile>,
    /// Bytes of the files.
    pub encoded_bytes: u64,
    /// Bytes parsed after decompression.
    pub decoded_bytes: u64,
    /// Records by kind.
    pub records: RecordCounts,
    /// Records by kind and category, most first.
    pub counts: Vec<KindCount>,
    /// First start to last end; `None` for a capture without records.
    pub time_span: Option<CaptureSpan>,
    /// Records whose end precedes their start.
    pub negative_duration_records: u64,
    /// The processes the capture describes.
    pub processes: Vec<ProcessInfo>,
    /// The agents its agent records describe.
    pub agents: Vec<Agent>,
    /// What the read noted.
    pub warnings: Vec<String>,
}

/// Reads the capture at `path` (any rocprofv3 format, by content) and says
/// what it holds.
pub fn capture_info(path: &Path, options: &ReadOptions) -> Result<CaptureInfo, Error> {
    let mut counts: Vec<KindCount> = Vec::new();
    let mut span: Option<CaptureSpan> = None;
    let mut negative = 0u64;
    let summary: CaptureSummary =
        crate::detect::read_capture(path, options, &mut |r: &Record<'_>| {
            let (kind, category) = match r {
                Record::Dispatch(_) => ("dispatch", crate::model::DISPATCH_CATEGORY),
                Record::Api(a) => ("api", a.domain),
                Record::Marker(m) => ("marker", m.domain),
                Record::MemoryCopy(c) => ("memory_copy", c.direction),
            };
            // Few distinct (kind, category) pairs: the last one is usually
            // the one again.
            match counts
                .iter_mut()
                .rev()
                .find(|c| c.kind == kind && c.category == category)
            {
                Some(c) => c.count += 1,
                None => counts.push(KindCount {
                    kind,
                    category: category.to_owned(),
                    count: 1,
                }),
            }
            let s = r.base().span;
            if s.end_ns < s.start_ns {
                negative += 1;
            }
            span = Some(match span {
                None => CaptureSpan {
                    start_ns: s.start_ns,
                    end_ns: s.end_ns,
                    duration_ns: 0,
                    records: 1,
                },
                Some(t) => CaptureSpan {
                    start_ns: t.start_ns.min(s.start_ns),
                    end_ns: t.end_ns.max(s.end_ns),
                    duration_ns: 0,
                    records: t.records + 1,
                },
            });
        })?;
    counts.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (a.kind, &a.category).cmp(&(b.kind, &b.category)))
    });
    let sha256 = summary.sha256.to_string();
    Ok(CaptureInfo {
        format: summary.format.model_format().as_str(),
        capture_format: summary.format,
        clock_domain: format!("artifact:{sha256}"),
        sha256,
        provider: "rocprofv3",
        producer: summary.producer,
        files: summary.files,
        encoded_bytes: summary.encoded_bytes,
        decoded_bytes: summary.decoded_bytes,
        records: summary.records,
        counts,
        time_span: span.map(|s| CaptureSpan {
            duration_ns: s.end_ns.saturating_sub(s.start_ns),
            ..s
        }),
        negative_duration_records: negative,
        processes: summary.processes,
        agents: summary.agents,
        warnings: summary.warnings,
    })
}
