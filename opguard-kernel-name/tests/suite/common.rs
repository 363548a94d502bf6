//! Paths to the shared data, and a small trace reader.

use std::io::Read;
use std::path::PathBuf;

/// `traces/hta` of the shared data, or `None` (the test skips, saying so)
/// when the folder is missing outside CI; see
/// [`opguard_testdata::shared_data`].
#[track_caller]
pub fn hta_dir() -> Option<PathBuf> {
    opguard_testdata::shared_data().map(|d| d.join("traces/hta"))
}

/// Event categories whose `name` is a device kernel or memory-operation symbol:
/// Kineto's `kernel`/`gpu_memcpy`/`gpu_memset`, the older `Kernel`, CUPTI
/// profiler ranges (named after the kernel they measure), and MTIA's device
/// ops (`mtia_ccp_events`: `aten::mul.out-dtype_Float`, `dma_request`).
pub const KERNEL_CATEGORIES: &[&str] = &[
    "kernel",
    "Kernel",
    "gpu_memcpy",
    "gpu_memset",
    "cuda_profiler_range",
    "mtia_ccp_events",
];

#[derive(serde::Deserialize)]
struct Event {
    #[serde(default)]
    cat: Option<serde_json::Value>,
    #[serde(default)]
    name: Option<serde_json::Value>,
}

/// Distinct symbols, each with the trace files it occurs in.
pub type Names = Vec<(String, Vec<String>)>;

/// Every distinct kernel/memory symbol in the trace folder, in first-seen
/// order, with the files it occurs in (read once per test binary).
pub fn trace_names(dir: &std::path::Path) -> Names {
    static CACHE: std::sync::OnceLock<(PathBuf, Names)> = std::sync::OnceLock::new();
    let (cached_dir, names) = CACHE.get_or_init(|| (dir.to_path_buf(), read_trace_names(dir)));
    assert_eq!(cached_dir, dir, "one trace folder per test binary");
    names.clone()
}

fn read_trace_names(dir: &std::path::Path) -> Names {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read trace dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    let mut order: Vec<String> = Vec::new();
    let mut files: std::collections::HashMap<String, Vec<String>> = Default::default();
    for path in entries {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let raw = std::fs::read(&path).expect("read trace");
        let mut bytes = Vec::new();
        if raw.starts_with(&[0x1f, 0x8b]) {
            flate2::read::GzDecoder::new(&raw[..])
                .read_to_end(&mut bytes)
                .expect("gunzip trace");
        } else {
            bytes = raw;
        }
        // Real traces may carry invalid UTF-8; names are compared as text.
        let text = String::from_utf8_lossy(&bytes);
        for event in events_of(&text) {
            let (Some(serde_json::Value::String(cat)), Some(serde_json::Value::String(name))) =
                (event.cat, event.name)
            else {
                continue;
            };
            if !KERNEL_CATEGORIES.contains(&cat.as_str()) {
                continue;
            }
            let seen = files.entry(name.clone()).or_default();
            if seen.is_empty() {
                order.push(name);
            }
            if !seen.contains(&file) {
                seen.push(file.clone());
            }
        }
    }
    order
        .into_iter()
        .map(|n| {
            let f = files.remove(&n).unwrap_or_default();
            (n, f)
        })
        .collect()
}

/// Only `cat` and `name` of each event are kept (no DOM of the whole file).
fn events_of(text: &str) -> Vec<Event> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Doc {
        Object {
            #[serde(rename = "traceEvents", default)]
            trace_events: Vec<Event>,
        },
        Array(Vec<Event>),
    }
    match serde_json::from_str::<Doc>(text).expect("trace JSON") {
        Doc::Object { trace_events } | Doc::Array(trace_events) => trace_events,
    }
}
