//! `opguard trace info`: what the reader established about each file.
//!
//! Everything printed is a plain fact from [`opguard_trace::TraceReader`]:
//! the summary of the read, the `(ph, cat)` event counts and the time span
//! of the events that carry `ts`.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use opguard_trace::{Compression, TopLevelForm, TraceReader, TraceSummary};
use serde::Serialize;

use crate::cli::TraceInfoArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::Out;
use crate::progress::Progress;
use crate::style::{facts as facts_block, Align, Style, Table};

/// One file's facts: the `--json` line.
#[derive(Debug, Serialize)]
pub struct TraceInfo {
    /// The path as given (`-` for stdin).
    pub file: String,
    /// SHA-256 of the encoded bytes, 64 lowercase hex digits.
    pub sha256: String,
    /// `none` or `gzip`.
    pub compression: Compression,
    /// `object` (`{"traceEvents": [...]}`) or `array`.
    pub form: TopLevelForm,
    /// Bytes read from the file.
    pub encoded_bytes: u64,
    /// Bytes of JSON after decompression.
    pub decoded_bytes: u64,
    /// Number of `traceEvents` elements.
    pub events: u64,
    /// Top-level keys other than `traceEvents`, in file order.
    pub metadata_keys: Vec<String>,
    /// Earliest `ts` and latest `ts + dur` in integer nanoseconds; `null`
    /// when no event has a `ts`.
    pub time_span: Option<TimeSpan>,
    /// Events whose `ts` (or `ts + dur`) does not fit i64 nanoseconds; they
    /// are left out of `time_span`.
    pub time_out_of_range_events: u64,
    /// Events by `(ph, cat)`, by count descending, then `ph`, then `cat`
    /// (absent sorts first).
    pub counts: Vec<Count>,
}

/// The span of the events' timestamps.
#[derive(Debug, Serialize, Clone, Copy, PartialEq, Eq)]
pub struct TimeSpan {
    /// Smallest `ts`, in ns.
    pub start_ns: i64,
    /// Largest `ts + dur` (`dur` 0 when absent), in ns.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub duration_ns: i64,
    /// Events that contributed.
    pub timed_events: u64,
}

/// How many events have one `(ph, cat)`.
#[derive(Debug, Serialize, Clone, PartialEq, Eq)]
pub struct Count {
    /// The phase; `null` when absent.
    pub ph: Option<String>,
    /// The category; `null` when absent.
    pub cat: Option<String>,
    /// Events.
    pub count: u64,
}

/// Runs `opguard trace info`. Every file is read; a file that fails is
/// reported on stderr and the status is 2, the others are still printed.
pub fn run(args: &TraceInfoArgs) -> Result<u8, CliError> {
    let mut out = Out::new();
    let style = Style::for_stdout();
    let mut status = exit::OK;
    for (i, file) in args.files.iter().enumerate() {
        match info(file) {
            Ok(info) => {
                if args.output.json {
                    out.json_line(&info)?;
                } else {
                    if i > 0 {
                        out.text("\n")?;
                    }
                    out.text(&human(&info, style))?;
                }
                out.flush()?;
            }
            Err(e) => {
                out.flush()?;
                e.in_input(file.display().to_string())
                    .report(args.output.json);
                status = exit::ERROR;
            }
        }
    }
    Ok(status)
}

/// Reads one file (`-` is stdin) to the end.
pub fn info(path: &Path) -> Result<TraceInfo, CliError> {
    let label = path.display().to_string();
    if path.as_os_str() == "-" {
        let stdin = std::io::stdin().lock();
        return read(stdin, label, None);
    }
    let file = File::open(path).map_err(|e| CliError::from(opguard_trace::Error::from(e)))?;
    let total = file.metadata().ok().map(|m| m.len());
    read(file, label, total)
}

fn read<R: Read>(input: R, label: String, total: Option<u64>) -> Result<TraceInfo, CliError> {
    let mut progress = Progress::new(&label, total);
    let mut reader = TraceReader::new(input)?;
    let mut counts: Vec<Count> = Vec::new();
    let mut span: Option<TimeSpan> = None;
    let mut out_of_range = 0u64;
    while let Some(event) = reader.next_event()? {
        let ph = event.ph().map(|s| s.as_cow());
        let cat = event.cat().map(|s| s.as_cow());
        match counts
            .iter_mut()
            .find(|c| c.ph.as_deref() == ph.as_deref() && c.cat.as_deref() == cat.as_deref())
        {
            Some(c) => c.count += 1,
            None => counts.push(Count {
                ph: ph.map(|s| s.into_owned()),
                cat: cat.map(|s| s.into_owned()),
                count: 1,
            }),
        }
        if event.ts().is_some() {
            let times = (event.ts_ns(), event.dur_ns());
            match times {
                (Ok(Some(ts)), Ok(dur)) => match ts.checked_add(dur.unwrap_or(0)) {
                    Some(end) => {
                        let s = span.get_or_insert(TimeSpan {
                            start_ns: ts,
                            end_ns: end,
                            duration_ns: 0,
                            timed_events: 0,
                        });
                        s.start_ns = s.start_ns.min(ts);
                        s.end_ns = s.end_ns.max(end);
                        s.timed_events += 1;
                    }
                    None => out_of_range += 1,
                },
                _ => out_of_range += 1,
            }
        }
        let index = event.index();
        if index % 4096 == 0 {
            progress.update(reader.encoded_bytes());
        }
    }
    let summary = reader.finish()?;
    progress.finish();
    if let Some(s) = span.as_mut() {
        // end >= start always holds for non-negative durations; a negative
        // `dur` can make it not, and the subtraction must not overflow.
        s.duration_ns = s.end_ns.saturating_sub(s.start_ns);
    }
    counts.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.ph.cmp(&b.ph))
            .then_with(|| a.cat.cmp(&b.cat))
    });
    Ok(from_summary(label, summary, counts, span, out_of_range))
}

fn from_summary(
    file: String,
    s: TraceSummary,
    counts: Vec<Count>,
    time_span: Option<TimeSpan>,
    time_out_of_range_events: u64,
) -> TraceInfo {
    TraceInfo {
        file,
        sha256: s.sha256.to_hex(),
        compression: s.compression,
        form: s.form,
        encoded_bytes: s.encoded_bytes,
        decoded_bytes: s.decoded_bytes,
        events: s.events,
        metadata_keys: s
            .metadata
            .entries()
            .iter()
            .map(|(k, _)| k.clone())
            .collect(),
        time_span,
        time_out_of_range_events,
        counts,
    }
}

fn human(info: &TraceInfo, style: Style) -> String {
    let compression = match info.compression {
        Compression::Gzip => "gzip",
        _ => "none",
    };
    let form = match info.form {
        TopLevelForm::Array => "array",
        _ => "object",
    };
    let mut facts = vec![
        ("file", info.file.clone()),
        ("sha256", info.sha256.clone()),
        ("compression", compression.to_owned()),
        ("form", form.to_owned()),
        ("encoded bytes", info.encoded_bytes.to_string()),
        ("decoded bytes", info.decoded_bytes.to_string()),
        ("events", info.events.to_string()),
        (
            "metadata keys",
            if info.metadata_keys.is_empty() {
                "(none)".to_owned()
            } else {
                info.metadata_keys.join(", ")
            },
        ),
        (
            "time span",
            match info.time_span {
                Some(s) => format!(
                    "{} .. {} ns ({}, {} timed events)",
                    s.start_ns,
                    s.end_ns,
                    duration(s.duration_ns),
                    s.timed_events
                ),
                None => "(no event has ts)".to_owned(),
            },
        ),
    ];
    if info.time_out_of_range_events > 0 {
        facts.push((
            "out of range",
            format!(
                "{} events with ts/dur beyond i64 ns",
                info.time_out_of_range_events
            ),
        ));
    }
    let mut out = facts_block(&facts, style, "");
    out.push('\n');
    let mut table = Table::new(&[
        ("count", Align::Right),
        ("ph", Align::Left),
        ("cat", Align::Left),
    ]);
    for c in &info.counts {
        table.row(vec![
            c.count.to_string(),
            c.ph.clone().unwrap_or_else(|| "(none)".into()),
            c.cat.clone().unwrap_or_else(|| "(none)".into()),
        ]);
    }
    out.push_str(&table.render(style, "  "));
    out
}

/// A duration in the largest unit that keeps it readable.
fn duration(ns: i64) -> String {
    let v = ns as f64;
    match ns.unsigned_abs() {
        0..1_000 => format!("{ns} ns"),
        1_000..1_000_000 => format!("{:.3} us", v / 1e3),
        1_000_000..1_000_000_000 => format!("{:.3} ms", v / 1e6),
        _ => format!("{:.3} s", v / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_span_and_order() {
        let json = br#"{"traceEvents":[
            {"ph":"X","cat":"kernel","ts":10.5,"dur":2},
            {"ph":"M","name":"process_name"},
            {"ph":"X","cat":"kernel","ts":1,"dur":1},
            {"ph":"X","cat":"cpu_op","ts":3},
            {"ph":"M","ts":1e300}
        ],"traceName":"t"}"#;
        let info = read(&json[..], "mem".into(), None).unwrap();
        assert_eq!(info.events, 5);
        assert_eq!(info.metadata_keys, ["traceName"]);
        let got: Vec<_> = info
            .counts
            .iter()
            .map(|c| (c.ph.as_deref(), c.cat.as_deref(), c.count))
            .collect();
        assert_eq!(
            got,
            [
                (Some("M"), None, 2),
                (Some("X"), Some("kernel"), 2),
                (Some("X"), Some("cpu_op"), 1)
            ]
        );
        let span = info.time_span.unwrap();
        assert_eq!((span.start_ns, span.end_ns), (1_000, 12_500));
        assert_eq!(span.duration_ns, 11_500);
        assert_eq!(span.timed_events, 3);
        assert_eq!(info.time_out_of_range_events, 1);
    }

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(duration(999), "999 ns");
        assert_eq!(duration(1_500), "1.500 us");
        assert_eq!(duration(103_010_000), "103.010 ms");
        assert_eq!(duration(2_000_000_000), "2.000 s");
    }
}
