//! `opguard trace info`: what the reader established about each file.
//!
//! Everything printed is computed by [`opguard_formats::info`], by format:
//! for a Chrome trace ([`opguard_trace::trace_info`]) the summary of the
//! read, the provider, the `(ph, cat)` event counts, the time span in the
//! file's clock domain and warnings about odd input; for an Nsight Systems
//! export (`opguard_nsys::Export::info`) the product and schema versions,
//! the rows of each table, the time span and the GPUs; for a rocprofv3
//! capture its files, records by kind, processes and agents; for an XSpace
//! ([`opguard_xplane::XSpaceInfo`]) its planes and lines with their events
//! by what opguard makes of them, and what it does not model.

use std::io::Read;
use std::path::Path;

use opguard_formats::{Info, ReadOptions};
use opguard_model::Provider;
use opguard_nsys::ExportInfo;
use opguard_trace::{trace_info, TraceInfo};
use opguard_trace::{Compression, TopLevelForm, TraceReader};
use opguard_xplane::XSpaceInfo;
use serde::Serialize;

use crate::cli::TraceInfoArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::Out;
use crate::progress::Progress;
use crate::style::{facts as facts_block, Align, Style, Table};

/// One file's facts: the `--json` line. The facts are the library's
/// [`Info`] (`"format"` says which); the CLI adds only the path it was
/// given.
#[derive(Debug, Serialize)]
pub struct FileInfo {
    /// The path as given (`-` for stdin).
    pub file: String,
    /// What the read established (its `provider` is `--provider`'s when
    /// given).
    #[serde(flatten)]
    pub info: Info,
    /// The detected provider, when `--provider` overrode it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_detected: Option<Provider>,
}

/// Runs `opguard trace info`. Every file is read; a file that fails is
/// reported on stderr and the status is 2, the others are still printed.
pub fn run(args: &TraceInfoArgs) -> Result<u8, CliError> {
    let mut out = Out::new();
    let style = Style::for_stdout();
    let mut status = exit::OK;
    // The command owns the process: inflating on a second thread while this
    // one scans is what makes a gzip trace read at the inflate floor.
    let options = args
        .reader
        .read_options(opguard_model::ModelOptions::launches_only(), true);
    crate::read::at_most_one_stdin(args.files.iter().map(|p| p.as_path()))?;
    for (i, file) in args.files.iter().enumerate() {
        match info(file, &options) {
            Ok(mut info) => {
                if let Some(given) = args.provider.provider {
                    info.provider_detected = Some(info.info.provider());
                    info.info.set_provider(given);
                }
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

/// A rocprofv3 capture's facts (CSV, JSON or rocpd), as text.
fn rocprof_human(file: &str, info: &opguard_rocprof::CaptureInfo, style: Style) -> String {
    let mut facts = vec![
        ("file", file.to_owned()),
        ("sha256", info.sha256.clone()),
        (
            "provider",
            if info.producer == info.provider {
                info.provider.to_owned()
            } else {
                format!("{} ({})", info.provider, info.producer)
            },
        ),
        ("format", info.format.to_owned()),
        ("clock domain", info.clock_domain.clone()),
        ("encoded bytes", info.encoded_bytes.to_string()),
        ("decoded bytes", info.decoded_bytes.to_string()),
        (
            "records",
            format!(
                "{} dispatches, {} API calls, {} roctx markers, {} memory copies",
                info.records.dispatches,
                info.records.api_calls,
                info.records.markers,
                info.records.memory_copies
            ),
        ),
        (
            "time span",
            match info.time_span {
                Some(s) => format!(
                    "{} .. {} ns ({}, {} records)",
                    s.start_ns,
                    s.end_ns,
                    duration(s.duration_ns),
                    s.records
                ),
                None => "(no records)".to_owned(),
            },
        ),
    ];
    for f in &info.files {
        facts.push((
            "file read",
            format!("{} ({}, {} bytes)", f.path, f.kind, f.bytes),
        ));
    }
    for p in &info.processes {
        let pid = p.pid.map_or("(not stated)".to_owned(), |p| p.to_string());
        facts.push(("process", pid));
    }
    for a in &info.agents {
        let label = a.device_label().unwrap_or_else(|| "agent".to_owned());
        facts.push(("agent", format!("{label}: {}", a.display_name())));
    }
    if info.negative_duration_records > 0 {
        facts.push((
            "negative",
            format!(
                "{} records end before they start",
                info.negative_duration_records
            ),
        ));
    }
    for w in &info.warnings {
        facts.push(("warning", w.clone()));
    }
    let mut out = facts_block(&facts, style, "");
    out.push('\n');
    let mut table = Table::new(&[
        ("count", Align::Right),
        ("kind", Align::Left),
        ("category", Align::Left),
    ]);
    for c in &info.counts {
        table.row(vec![
            c.count.to_string(),
            c.kind.to_owned(),
            c.category.clone(),
        ]);
    }
    out.push_str(&table.render(style, "  "));
    out
}

/// Reads one file (`-` is stdin, a Chrome trace) to the end.
pub fn info(path: &Path, options: &ReadOptions) -> Result<FileInfo, CliError> {
    let label = path.display().to_string();
    if crate::read::is_stdin(path) {
        let (reader, total) = crate::read::open(path, options.reader.clone())?;
        return read(reader, label, total);
    }
    let total = std::fs::metadata(path).ok().map(|m| m.len());
    let mut progress = Progress::new(&label, total);
    let info = opguard_formats::info_with_progress(path, options, &mut |encoded| {
        progress.update(encoded)
    })?;
    progress.finish();
    Ok(FileInfo {
        file: label,
        info,
        provider_detected: None,
    })
}

fn read<R: Read>(
    reader: TraceReader<R>,
    label: String,
    total: Option<u64>,
) -> Result<FileInfo, CliError> {
    let mut progress = Progress::new(&label, total);
    let info = trace_info(reader, &mut |encoded| progress.update(encoded))?;
    progress.finish();
    Ok(FileInfo {
        file: label,
        info: Info::ChromeJson(info),
        provider_detected: None,
    })
}

/// The provider line: detected, or given with the detected one beside it.
fn provider_line(file: &FileInfo) -> String {
    let provider = file.info.provider();
    match file.provider_detected {
        Some(detected) => format!(
            "{} (given; detected {})",
            provider.as_str(),
            detected.as_str()
        ),
        None => provider.as_str().to_owned(),
    }
}

fn human(file: &FileInfo, style: Style) -> String {
    match &file.info {
        Info::ChromeJson(info) => human_json(file, info, style),
        Info::NsysSqlite(info) => human_nsys(file, info, style),
        Info::Rocprof(info) => rocprof_human(&file.file, info, style),
        Info::Xspace(info) => human_xspace(file, info, style),
        other => format!("{}: format {}\n", file.file, other.format().as_str()),
    }
}

fn human_nsys(file: &FileInfo, info: &ExportInfo, style: Style) -> String {
    let meta = &info.meta;
    let mut facts = vec![
        ("file", file.file.clone()),
        ("sha256", info.sha256.to_hex()),
        ("format", "Nsight Systems SQLite export".to_owned()),
        ("provider", provider_line(file)),
        ("clock domain", info.clock_domain.clone()),
        (
            "product",
            format!("{} {}", meta.product_name, meta.product_version),
        ),
        (
            "schema",
            format!(
                "{} ({}, {})",
                meta.schema,
                meta.metadata_table,
                if meta.schema_verified {
                    "verified"
                } else {
                    "unverified: read with --unverified-schema"
                }
            ),
        ),
        ("bytes", info.bytes.to_string()),
        (
            "time span",
            match info.span {
                Some(s) => format!(
                    "{} .. {} ns ({})",
                    s.start_ns,
                    s.end_ns,
                    duration(s.duration_ns)
                ),
                None => "(no timed row)".to_owned(),
            },
        ),
    ];
    if let Some(platform) = &meta.platform {
        facts.push(("platform", platform.clone()));
    }
    for gpu in &info.gpus {
        facts.push((
            "gpu",
            format!("{}: {}", gpu.id, gpu.name.as_deref().unwrap_or("(unnamed)")),
        ));
    }
    let mut out = facts_block(&facts, style, "");
    out.push('\n');
    let mut table = Table::new(&[("rows", Align::Right), ("table", Align::Left)]);
    for t in &info.tables {
        table.row(vec![t.rows.to_string(), t.table.to_owned()]);
    }
    out.push_str(&table.render(style, "  "));
    out
}

fn human_json(file: &FileInfo, info: &TraceInfo, style: Style) -> String {
    let compression = match info.compression {
        Compression::Gzip => "gzip",
        _ => "none",
    };
    let form = match info.form {
        TopLevelForm::Array => "array",
        _ => "object",
    };
    let mut facts = vec![
        ("file", file.file.clone()),
        ("sha256", info.sha256.to_hex()),
        ("provider", provider_line(file)),
        ("clock domain", info.clock_domain.clone()),
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
    for w in &info.warnings {
        facts.push(("warning", format!("{} x{}: {}", w.code, w.count, w.message)));
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

/// An XSpace's facts, then one table of its planes and lines: what each
/// holds, by what opguard makes of it, and what it does not model.
fn human_xspace(file: &FileInfo, info: &XSpaceInfo, style: Style) -> String {
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_owned()
        } else {
            v.join(", ")
        }
    };
    let mut facts = vec![
        ("file", file.file.clone()),
        ("format", "xspace".to_owned()),
        ("sha256", info.sha256.to_hex()),
        ("provider", provider_line(file)),
        (
            "producer",
            info.producer
                .clone()
                .unwrap_or_else(|| "(not stated)".into()),
        ),
        ("clock domain", info.clock_domain.clone()),
        ("encoded bytes", info.encoded_bytes.to_string()),
        ("hostnames", list(&info.hostnames)),
        ("events", info.events.to_string()),
        (
            "not modeled",
            format!(
                "{} events (TPU and other planes, lines XLA derives from the GPU streams)",
                info.events_not_modeled
            ),
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
                None => "(no timed event)".to_owned(),
            },
        ),
    ];
    for e in &info.errors {
        facts.push(("profiler error", e.clone()));
    }
    for w in &info.warnings {
        facts.push(("profiler warning", w.clone()));
    }
    let mut out = facts_block(&facts, style, "");
    out.push('\n');
    let mut table = Table::new(&[
        ("events", Align::Right),
        ("plane / line", Align::Left),
        ("kind", Align::Left),
        ("what opguard makes of its events", Align::Left),
    ]);
    for plane in &info.planes {
        let activities: Vec<String> = plane
            .activities
            .iter()
            .map(|(a, n)| format!("{n} {}", a.as_str()))
            .collect();
        table.row(vec![
            plane.events.to_string(),
            plane.name.clone(),
            plane.kind.as_str().to_owned(),
            activities.join(", "),
        ]);
        for line in &plane.lines {
            let what = if line.kind.is_modeled() {
                ""
            } else {
                "not modeled"
            };
            table.row(vec![
                line.events.to_string(),
                format!("  {}", line.name),
                line.kind.as_str().to_owned(),
                what.to_owned(),
            ]);
        }
    }
    out.push_str(&table.render(style, "  "));
    out
}

/// A duration in the largest unit that keeps it readable.
pub(crate) fn duration(ns: i64) -> String {
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
        let reader = TraceReader::new(&json[..]).unwrap();
        let Info::ChromeJson(info) = read(reader, "mem".into(), None).unwrap().info else {
            panic!("a Chrome trace's facts");
        };
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
        // The `M` event's ts is a convention, not a time: neither in the
        // span nor out of range.
        assert_eq!(info.time_out_of_range_events, 0);
    }

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(duration(999), "999 ns");
        assert_eq!(duration(1_500), "1.500 us");
        assert_eq!(duration(103_010_000), "103.010 ms");
        assert_eq!(duration(2_000_000_000), "2.000 s");
    }
}
