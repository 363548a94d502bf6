//! Detection: which of rocprofv3's outputs a path is, by its content.

use std::io::Read;
use std::path::Path;

use opguard_trace::{DecodedInput, ReaderOptions};

use crate::error::Error;
use crate::json::TOOL_KEY;
use crate::record::{CaptureFormat, CaptureSummary, ReadOptions, Sink};
use crate::rocpd::SQLITE_MAGIC;

/// Decoded bytes looked at to tell a format.
const PROBE_BYTES: usize = 4096;

/// Which rocprofv3 output `path` is, from its content (never its name):
/// a directory holding a `*_kernel_trace.csv` or a file whose first line is
/// a rocprofv3 CSV header is [`CaptureFormat::Csv`]; a JSON object (plain or
/// gzip) whose first key is `rocprofiler-sdk-tool` is
/// [`CaptureFormat::Json`]; a SQLite database with a
/// `rocpd_kernel_dispatch` table or view is [`CaptureFormat::Rocpd`].
/// `None`: none of them (or unreadable).
pub fn detect(path: &Path) -> Option<CaptureFormat> {
    if path.is_dir() {
        let holds_kernel_trace = std::fs::read_dir(path).ok()?.any(|entry| {
            entry.ok().is_some_and(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.ends_with("kernel_trace.csv"))
            })
        });
        return holds_kernel_trace.then_some(CaptureFormat::Csv);
    }
    let mut head = vec![0u8; PROBE_BYTES];
    let mut file = std::fs::File::open(path).ok()?;
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(_) => return None,
        }
    }
    head.truncate(got);
    if head.starts_with(SQLITE_MAGIC) {
        return is_rocpd(path).then_some(CaptureFormat::Rocpd);
    }
    if head.starts_with(&[0x1f, 0x8b]) {
        head = decoded_head(path)?;
    }
    if json_first_key_is_tool(&head) {
        return Some(CaptureFormat::Json);
    }
    is_csv_header(&head).then_some(CaptureFormat::Csv)
}

/// Reads the capture at `path` in whichever rocprofv3 format its content
/// is ([`detect`]), giving every record to `sink`.
pub fn read_capture(
    path: &Path,
    options: &ReadOptions,
    sink: &mut dyn Sink,
) -> Result<CaptureSummary, Error> {
    match detect(path) {
        Some(CaptureFormat::Csv) => crate::csv::read_csv(path, options, sink),
        Some(CaptureFormat::Json) => crate::json::read_json(path, options, sink),
        Some(CaptureFormat::Rocpd) => crate::rocpd::read_rocpd(path, options, sink),
        None => {
            // Content decides; the name only picks whose words the refusal
            // is in: a `.csv` that is not rocprofv3's gets the CSV reader's
            // (which file, which column).
            let named_csv = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
            if named_csv && path.is_file() {
                return crate::csv::read_csv(path, options, sink);
            }
            if !path.exists() {
                let e = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
                return Err(Error::from(e).in_file(path));
            }
            Err(Error::not_rocprof(
                "neither a rocprofv3 CSV capture, a rocprofv3 JSON document nor a rocpd database",
            )
            .in_file(path))
        }
    }
}

fn decoded_head(path: &Path) -> Option<Vec<u8>> {
    let mut input = DecodedInput::open(path, &ReaderOptions::new()).ok()?;
    let mut head = vec![0u8; PROBE_BYTES];
    let mut got = 0;
    while got < head.len() {
        match input.read_decoded(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(_) => break,
        }
    }
    head.truncate(got);
    Some(head)
}

/// `{` then, after whitespace, the key `"rocprofiler-sdk-tool"`.
fn json_first_key_is_tool(head: &[u8]) -> bool {
    let rest = trim_start(head);
    let Some(rest) = rest.strip_prefix(b"{") else {
        return false;
    };
    let key = format!("\"{TOOL_KEY}\"");
    trim_start(rest).starts_with(key.as_bytes())
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    &bytes[skip..]
}

/// The first line names the columns rocprofv3 starts one of its CSV files
/// with.
fn is_csv_header(head: &[u8]) -> bool {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let columns: Vec<&[u8]> = line
        .split(|&b| b == b',')
        .map(|c| {
            let c = c.strip_suffix(b"\r").unwrap_or(c);
            c.strip_prefix(b"\"")
                .and_then(|c| c.strip_suffix(b"\""))
                .unwrap_or(c)
        })
        .collect();
    let starts = |names: &[&str]| {
        columns.len() >= names.len() && names.iter().zip(&columns).all(|(n, c)| n.as_bytes() == *c)
    };
    let has = |name: &str| columns.contains(&name.as_bytes());
    (starts(&["Kind", "Agent_Id", "Queue_Id"]) && has("Kernel_Name"))
        || (starts(&["Kind", "Direction"]) && has("Correlation_Id"))
        || starts(&[
            "Domain",
            "Function",
            "Process_Id",
            "Thread_Id",
            "Correlation_Id",
        ])
        || starts(&["Node_Id", "Logical_Node_Id", "Agent_Type"])
}

fn is_rocpd(path: &Path) -> bool {
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let Ok(db) = rusqlite::Connection::open_with_flags(path, flags) else {
        return false;
    };
    db.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') \
         AND name = 'rocpd_kernel_dispatch'",
        [],
        |row| row.get::<_, i64>(0),
    )
    .is_ok_and(|n| n > 0)
}
