//! Shared test support: records copied out of the sink, the summary the
//! Python referee also computes, and the generated JSON and rocpd captures.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use opguard_rocprof::{CaptureSummary, ReadOptions, Record};
use serde_json::{json, Value};

/// One record, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub kind: &'static str,
    pub index: u64,
    pub process: Option<i64>,
    pub thread: Option<i64>,
    pub correlation: Option<u64>,
    pub start: i64,
    pub end: i64,
    /// Kernel name, API function, roctx message or copy direction.
    pub name: String,
    pub domain: String,
    /// The device label and the agent's display name, for dispatches.
    pub device: Option<(String, Option<String>)>,
}

pub fn rows_of(
    read: impl FnOnce(&mut dyn opguard_rocprof::Sink) -> Result<CaptureSummary, opguard_rocprof::Error>,
) -> Result<(Vec<Row>, CaptureSummary), opguard_rocprof::Error> {
    let mut rows = Vec::new();
    let mut sink = |r: &Record<'_>| {
        let b = r.base();
        let (kind, name, domain, device) = match r {
            Record::Dispatch(d) => (
                "dispatch",
                d.kernel_name.to_owned(),
                String::new(),
                Some((
                    d.device.label.to_owned(),
                    d.device.agent.map(|a| a.display_name().to_owned()),
                )),
            ),
            Record::Api(a) => ("api", a.function.to_owned(), a.domain.to_owned(), None),
            Record::Marker(m) => ("marker", m.message.to_owned(), m.domain.to_owned(), None),
            Record::MemoryCopy(c) => ("copy", c.direction.to_owned(), String::new(), None),
            _ => ("other", String::new(), String::new(), None),
        };
        rows.push(Row {
            kind,
            index: b.index,
            process: b.process,
            thread: b.thread,
            correlation: b.correlation,
            start: b.span.start_ns,
            end: b.span.end_ns,
            name,
            domain,
            device,
        });
    };
    let summary = read(&mut sink)?;
    Ok((rows, summary))
}

/// Reads any capture by content, with default limits.
pub fn read(path: &Path) -> (Vec<Row>, CaptureSummary) {
    read_with(path, &ReadOptions::new()).unwrap_or_else(|e| panic!("{e}"))
}

pub fn read_with(
    path: &Path,
    options: &ReadOptions,
) -> Result<(Vec<Row>, CaptureSummary), opguard_rocprof::Error> {
    rows_of(|sink| opguard_rocprof::read_capture(path, options, sink))
}

/// The referee's summary, computed from the reader's records.
pub fn summarize(rows: &[Row]) -> Value {
    let dispatches: Vec<&Row> = rows.iter().filter(|r| r.kind == "dispatch").collect();
    let apis: Vec<&Row> = rows.iter().filter(|r| r.kind == "api").collect();
    let mut calls: HashMap<(i64, u64), Vec<&str>> = HashMap::new();
    for a in &apis {
        if let (Some(p), Some(c)) = (a.process, a.correlation) {
            calls.entry((p, c)).or_default().push(&a.name);
        }
    }
    let mut joined: BTreeMap<String, u64> = BTreeMap::new();
    let (mut unjoined, mut ambiguous) = (0u64, 0u64);
    for d in &dispatches {
        let found = d.process.zip(d.correlation).and_then(|key| calls.get(&key));
        match found.map(Vec::as_slice) {
            Some([one]) => *joined.entry((*one).to_owned()).or_default() += 1,
            Some(_) => ambiguous += 1,
            None => unjoined += 1,
        }
    }
    let top = |counts: HashMap<Value, u64>| -> Vec<Value> {
        let mut v: Vec<(Value, u64)> = counts.into_iter().collect();
        v.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then_with(|| {
                    a.0.as_str()
                        .map(str::to_owned)
                        .cmp(&b.0.as_str().map(str::to_owned))
                })
                .then_with(|| a.0.as_u64().cmp(&b.0.as_u64()))
        });
        v.into_iter().take(3).map(|(k, n)| json!([k, n])).collect()
    };
    let mut names: HashMap<Value, u64> = HashMap::new();
    let mut fanout: HashMap<Value, u64> = HashMap::new();
    for d in &dispatches {
        *names.entry(json!(d.name)).or_default() += 1;
        *fanout.entry(json!(d.correlation)).or_default() += 1;
    }
    json!({
        "dispatches": dispatches.len(),
        "dispatch_ns": dispatches.iter().map(|d| d.end - d.start).sum::<i64>(),
        "first_start": dispatches.iter().map(|d| d.start).min(),
        "last_end": dispatches.iter().map(|d| d.end).max(),
        "kernel_names": names.len(),
        "top_names": top(names),
        "api_calls": apis.len(),
        "markers": rows.iter().filter(|r| r.kind == "marker").count(),
        "joined": joined,
        "unjoined": unjoined,
        "ambiguous": ambiguous,
        "top_fanout": top(fanout),
    })
}

/// What tests/referee.py says of a capture.
pub fn referee(format: &str, path: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/referee.py");
    let out = opguard_testdata::python3([script.as_os_str(), format.as_ref(), path.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

/// The shared real CSV capture's kernel trace, or `None` (skipping) when
/// the shared data is absent.
pub fn prefill_kernel_trace() -> Option<PathBuf> {
    opguard_testdata::shared_file("rocprof/prefill_kernel_trace.csv")
}

/// The JSON document and rocpd database made from the shared CSV capture
/// by tests/data/make_captures.py (the rows of the real capture in the
/// producer's layouts; see the script for what the CSV does not carry).
pub struct Generated {
    pub dir: tempfile::TempDir,
    pub json: PathBuf,
    pub rocpd: PathBuf,
}

pub fn generate(kernel_trace: &Path, flags: &[&str]) -> Generated {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/make_captures.py");
    let mut args = vec![
        script.into_os_string(),
        kernel_trace.as_os_str().to_owned(),
        dir.path().as_os_str().to_owned(),
    ];
    args.extend(flags.iter().map(Into::into));
    let out = opguard_testdata::python3(args);
    let text = String::from_utf8(out).expect("paths are UTF-8");
    let mut lines = text.lines();
    let json = PathBuf::from(lines.next().expect("the JSON path"));
    let rocpd = PathBuf::from(lines.next().expect("the database path"));
    Generated { dir, json, rocpd }
}
