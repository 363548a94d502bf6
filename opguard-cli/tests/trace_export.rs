//! `opguard trace export`: the files it writes, read back by arrow-rs' own
//! Parquet and IPC readers, hold the rows and duration sums an independent
//! referee (opguard-arrow/tests/referee.py, Python's json over the same
//! trace) counts; OUT is created exclusively and a failed run leaves nothing.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::RecordBatch;

use crate::common::{opguard, run, run_bytes};

fn referee(trace: &Path) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../opguard-arrow/tests/referee.py");
    let out = opguard_testdata::python3([script.as_os_str(), trace.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

/// Every batch of one table file, read by arrow-rs' reader for `format`.
fn read_back(file: &Path, format: &str) -> Vec<RecordBatch> {
    let f = File::open(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    match format {
        "parquet" => parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
            .and_then(|b| b.build())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .map(|b| b.expect("a Parquet batch"))
            .collect(),
        _ => arrow_ipc::reader::FileReader::try_new(f, None)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .map(|b| b.expect("an IPC batch"))
            .collect(),
    }
}

/// The names in `dir`.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn rows_and_duration(batches: &[RecordBatch]) -> (u64, i64) {
    let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
    let dur = batches
        .iter()
        .flat_map(|b| {
            let c = b.column_by_name("dur_ns").expect("a dur_ns column");
            c.as_primitive::<Int64Type>()
                .iter()
                .flatten()
                .collect::<Vec<_>>()
        })
        .sum();
    (rows, dur)
}

fn export(trace: &Path, format: &str, out: &Path, more: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "trace",
        "export",
        "--json",
        "--format",
        format,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    args.push(trace.to_str().unwrap());
    let r = run(&args);
    assert_eq!(r.status, 0, "{}: {}", trace.display(), r.stderr);
    r.json_lines().remove(0)
}

/// The shared Kineto traces but the 87 MB MTIA one (opguard-arrow's own
/// tests hold it; here each trace is written twice by a debug build).
fn small_traces() -> Vec<PathBuf> {
    opguard_testdata::hta_traces()
        .into_iter()
        .flatten()
        .filter(|p| !p.to_string_lossy().contains("mtia"))
        .collect()
}

#[test]
fn both_formats_hold_the_referees_rows_and_durations() {
    let traces = small_traces();
    let dir = tempfile::tempdir().unwrap();
    for (i, trace) in traces.iter().enumerate() {
        let want = referee(trace);
        for format in ["parquet", "arrow"] {
            let out = dir.path().join(format!("{i}-{format}"));
            let answer = export(trace, format, &out, &[]);
            let listed: Vec<&str> = answer["tables"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["table"].as_str().unwrap())
                .collect();
            assert_eq!(listed, ["device", "host", "launches", "metadata"]);
            for table in ["device", "host", "launches"] {
                let file = out.join(format!("{table}.{format}"));
                let (rows, dur) = rows_and_duration(&read_back(&file, format));
                let name = format!("{} {format} {table}", trace.display());
                assert_eq!(rows, want[table]["rows"].as_u64().unwrap(), "{name} rows");
                assert_eq!(
                    dur,
                    want[table]["dur_ns"].as_i64().unwrap(),
                    "{name} dur_ns"
                );
                let said = answer["tables"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|t| t["table"] == table)
                    .unwrap();
                assert_eq!(said["rows"].as_u64(), Some(rows), "{name}: --json rows");
            }
            let ext = |t: &str| format!("{t}.{format}");
            let want: Vec<String> = ["device", "host", "launches", "metadata"].map(ext).into();
            assert_eq!(
                names_in(&out),
                want,
                "{}: the four tables only",
                out.display()
            );
        }
    }
    // Nothing but the outputs: no staging directory is left beside them.
    let left: Vec<_> = names_in(dir.path())
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The shared rocprofv3 CSV capture: its 1,128 dispatches, 1,124 with a
/// proven launch (as `trace launches` counts them), 1,123 of them by the
/// one `hipGraphLaunch`, and its 5 API calls.
#[test]
fn a_rocprof_capture_exports_its_dispatches_and_their_launch() {
    let Some(kernels) = opguard_testdata::shared_file("rocprof/prefill_kernel_trace.csv") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let answer = export(&kernels, "parquet", &out, &["--tables", "device,launches"]);
    assert_eq!(answer["provider"], "rocprofv3");
    let device = read_back(&out.join("device.parquet"), "parquet");
    assert_eq!(rows_and_duration(&device).0, 1128);
    let launch: usize = device
        .iter()
        .map(|b| {
            let c = b.column_by_name("launch").unwrap();
            let d = c.as_dictionary::<arrow_array::types::Int32Type>();
            let values = d.values().as_string::<i32>();
            d.keys()
                .iter()
                .filter(|k| k.is_some_and(|k| values.value(k as usize) == "proven"))
                .count()
        })
        .sum();
    assert_eq!(launch, 1124, "proven dispatches");
    let launches = read_back(&out.join("launches.parquet"), "parquet");
    assert_eq!(rows_and_duration(&launches).0, 5);
    let mut launched: Vec<(String, usize)> = launches
        .iter()
        .flat_map(|b| {
            let names = b.column_by_name("name").unwrap();
            let names = names.as_dictionary::<arrow_array::types::Int32Type>();
            let values = names.values().as_string::<i32>().clone();
            let rows = b
                .column_by_name("device_rows")
                .unwrap()
                .as_list::<i32>()
                .clone();
            (0..b.num_rows())
                .map(|i| {
                    let name = values.value(names.keys().value(i) as usize).to_owned();
                    (name, rows.value(i).len())
                })
                .collect::<Vec<_>>()
        })
        .collect();
    launched.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    assert_eq!(launched[0], ("hipGraphLaunch".to_owned(), 1123));
    assert!(
        !out.join("host.parquet").exists(),
        "--tables limits the files"
    );
}

#[test]
fn stdin_gives_the_same_tables_as_the_file() {
    let Some(trace) = small_traces()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("trace_filter__sampled_rank-0"))
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let from_file = export(&trace, "arrow", &dir.path().join("file"), &[]);
    let out = dir.path().join("stdin");
    let mut cmd = opguard(&[
        "trace",
        "export",
        "--json",
        "--format",
        "arrow",
        "--out",
        out.to_str().unwrap(),
        "-",
    ]);
    cmd.env("TMPDIR", dir.path());
    let r = run_bytes(cmd, &std::fs::read(&trace).unwrap());
    assert_eq!(r.status, 0, "{}", r.stderr);
    let from_stdin = r.json_lines().remove(0);
    assert_eq!(from_stdin["artifact"], from_file["artifact"]);
    for (a, b) in from_stdin["tables"]
        .as_array()
        .unwrap()
        .iter()
        .zip(from_file["tables"].as_array().unwrap())
    {
        assert_eq!(a["rows"], b["rows"], "{}", a["table"]);
    }
    // The scratch copy of stdin went with the run.
    let left: Vec<_> = names_in(dir.path())
        .into_iter()
        .filter(|n| n.starts_with("opguard-"))
        .collect();
    assert!(left.is_empty(), "scratch left behind: {left:?}");
}

#[test]
fn an_existing_output_is_refused_and_left_as_it_was() {
    let Some(trace) = small_traces().into_iter().next() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("taken");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("device.parquet"), b"mine").unwrap();
    let r = run(&[
        "trace",
        "export",
        "--json",
        "--format",
        "parquet",
        "--out",
        out.to_str().unwrap(),
        trace.to_str().unwrap(),
    ]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert_eq!(r.json_error()["code"], "output_exists");
    assert_eq!(std::fs::read(out.join("device.parquet")).unwrap(), b"mine");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
}

#[test]
fn a_trace_cut_short_fails_and_leaves_nothing() {
    let Some(trace) = small_traces()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("nccl"))
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.json.gz");
    opguard_testdata::write_cut_copy(&trace, &cut);
    let out = dir.path().join("out");
    let r = run(&[
        "trace",
        "export",
        "--json",
        "--format",
        "parquet",
        "--out",
        out.to_str().unwrap(),
        cut.to_str().unwrap(),
    ]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let e = r.json_error();
    assert_eq!(e["code"], "gzip_truncated", "{e}");
    assert_eq!(e["input"], cut.to_str().unwrap());
    assert_eq!(
        names_in(dir.path()),
        ["cut.json.gz"],
        "a failed run leaves nothing"
    );
}

#[test]
fn an_unknown_table_is_a_usage_error() {
    let r = run(&[
        "trace",
        "export",
        "--format",
        "arrow",
        "--tables",
        "device,kernels",
        "--out",
        "x",
        "t",
    ]);
    assert_eq!(r.status, 64, "{}", r.stderr);
    assert!(
        r.stderr.contains("no table named \"kernels\""),
        "{}",
        r.stderr
    );
}

/// The native captures export too: an Nsight Systems export (2 kernels and a
/// copy; 9 calls and a synchronization, by opguard-nsys' referee) and the
/// XSpace of a JAX run (235 GPU stream events, 234 launching host events,
/// by opguard-xplane's), as Arrow IPC.
#[test]
fn nsight_and_xspace_captures_export() {
    let dir = tempfile::tempdir().unwrap();
    for (name, provider, device, launches) in [
        ("nsys/nsys-ai_mock.sqlite", "nsight_systems", 3, 10),
        (
            "xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb",
            "xla",
            235,
            234,
        ),
    ] {
        let Some(capture) = opguard_testdata::shared_file(name) else {
            return;
        };
        let out = dir.path().join(provider);
        let answer = export(&capture, "arrow", &out, &[]);
        assert_eq!(answer["provider"], provider, "{name}");
        let device_file = out.join("device.arrow");
        assert_eq!(
            rows_and_duration(&read_back(&device_file, "arrow")).0,
            device,
            "{name}"
        );
        let launches_file = out.join("launches.arrow");
        assert_eq!(
            rows_and_duration(&read_back(&launches_file, "arrow")).0,
            launches,
            "{name}"
        );
    }
}
