//! opguard-arrow's tests: tables of real captures of every format held
//! against independent referees (Python over the same files) and against
//! the model the same readers build; the writers' files read back.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use opguard_arrow::{read_tables, write_tables, FileFormat, Table, TableOptions, Tables};
use opguard_formats::ReadOptions;
use opguard_model::{ArtifactSpec, IdValue, LaunchProof, ModelOptions, SliceClass, TraceModel};
use serde_json::Value;

fn tables_of(path: &Path) -> Tables {
    read_tables(path, ArtifactSpec::new(), &TableOptions::new())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn model_of(path: &Path) -> TraceModel {
    opguard_formats::read(
        path,
        ArtifactSpec::new(),
        &ReadOptions::new(ModelOptions::new()),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A column of every batch of `table`, as `i64`s (nulls as `None`).
fn ints(tables: &Tables, table: Table, column: &str) -> Vec<Option<i64>> {
    batches(tables, table)
        .iter()
        .flat_map(|b| {
            let c = b.column_by_name(column).expect("the column");
            c.as_primitive::<Int64Type>().iter().collect::<Vec<_>>()
        })
        .collect()
}

fn u64s(tables: &Tables, table: Table, column: &str) -> Vec<Option<u64>> {
    batches(tables, table)
        .iter()
        .flat_map(|b| {
            let c = b.column_by_name(column).expect("the column");
            c.as_primitive::<UInt64Type>().iter().collect::<Vec<_>>()
        })
        .collect()
}

/// A dictionary column's values, row by row.
fn strings(tables: &Tables, table: Table, column: &str) -> Vec<Option<String>> {
    batches(tables, table)
        .iter()
        .flat_map(|b| {
            let c = b.column_by_name(column).expect("the column");
            let d = c.as_dictionary::<Int32Type>();
            let values = d.values().as_string::<i32>().clone();
            d.keys()
                .iter()
                .map(|k| k.map(|k| values.value(k as usize).to_owned()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn batches(tables: &Tables, table: Table) -> &[RecordBatch] {
    tables.batches(table).expect("the table was read")
}

fn sum(values: &[Option<i64>]) -> i64 {
    values.iter().flatten().sum()
}

fn referee(trace: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/referee.py");
    let out = opguard_testdata::python3([script.as_os_str(), trace.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

/// Rows and duration sums of every table of every shared Kineto trace, and
/// the proven device rows, as the referee counts them from the JSON.
#[test]
fn chrome_traces_against_the_referee() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for trace in &traces {
        let tables = tables_of(trace);
        let want = referee(trace);
        for table in [Table::Device, Table::Host, Table::Launches] {
            let w = &want[table.as_str()];
            let name = format!("{}: {table}", trace.display());
            assert_eq!(
                tables.rows(table) as u64,
                w["rows"].as_u64().unwrap(),
                "{name} rows"
            );
            let dur = sum(&ints(&tables, table, "dur_ns"));
            assert_eq!(dur, w["dur_ns"].as_i64().unwrap(), "{name} dur_ns");
        }
        if let Some(proven) = want["device"]["proven"].as_u64() {
            let launch = strings(&tables, Table::Device, "launch");
            let got = launch
                .iter()
                .filter(|l| l.as_deref() == Some("proven"))
                .count();
            assert_eq!(
                got as u64,
                proven,
                "{}: proven device rows",
                trace.display()
            );
        }
    }
    if !traces.is_empty() {
        eprintln!("{} traces held against the referee", traces.len());
    }
}

/// The whole-trace columns are the model's own answers: owning process,
/// launch proof and launch, a runtime call's class, self time, and the
/// device rows of each launch, row for row, on every shared Kineto trace.
#[test]
fn whole_trace_columns_are_the_models() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for trace in traces {
        check_against_model(&trace);
    }
}

fn check_against_model(trace: &Path) {
    let tables = tables_of(trace);
    let model = model_of(trace);
    let name = trace.display();
    let slices = model.slices();
    let position: std::collections::HashMap<u64, usize> = slices
        .iter()
        .enumerate()
        .map(|(i, s)| (s.index, i))
        .collect();
    let id = |v: Option<IdValue>| match v {
        Some(IdValue::Int(i)) => Some(i),
        _ => None,
    };
    // Device rows.
    let index = u64s(&tables, Table::Device, "index");
    let process = ints(&tables, Table::Device, "process");
    let launch = strings(&tables, Table::Device, "launch");
    let launch_index = u64s(&tables, Table::Device, "launch_index");
    let device_in_model = slices
        .iter()
        .filter(|s| s.class.is_device() || s.class == SliceClass::GpuUserAnnotation)
        .count();
    assert_eq!(index.len(), device_in_model, "{name}: device rows");
    for (k, i) in index.iter().enumerate() {
        let p = position[&i.unwrap()];
        assert_eq!(
            process[k],
            id(slices[p].process),
            "{name}: process of {i:?}"
        );
        let proof = model.launch_proof(p);
        let want = match proof {
            LaunchProof::Proven(_) => "proven",
            LaunchProof::Ambiguous(_) => "ambiguous",
            LaunchProof::Unproven(_) => "",
        };
        if !want.is_empty() {
            assert_eq!(launch[k].as_deref(), Some(want), "{name}: launch of {i:?}");
        } else {
            let got = launch[k].as_deref().unwrap_or("");
            assert!(
                !["proven", "ambiguous"].contains(&got),
                "{name}: {i:?} is {got}"
            );
        }
        let want_launch = proof.launch().map(|l| slices[l].index);
        assert_eq!(
            launch_index[k], want_launch,
            "{name}: launch_index of {i:?}"
        );
    }
    // Runtime calls: class as settled, and the device rows each proves.
    let index = u64s(&tables, Table::Launches, "index");
    let class = strings(&tables, Table::Launches, "class");
    let launched: Vec<Vec<u64>> = batches(&tables, Table::Launches)
        .iter()
        .flat_map(|b| {
            let list = b
                .column_by_name("device_rows")
                .unwrap()
                .as_list::<i32>()
                .clone();
            (0..list.len())
                .map(|r| list.value(r).as_primitive::<UInt64Type>().values().to_vec())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut proves: std::collections::HashMap<u64, Vec<u64>> = Default::default();
    for (p, s) in slices.iter().enumerate() {
        if let Some(l) = model.launch_proof(p).launch() {
            proves.entry(slices[l].index).or_default().push(s.index);
        }
    }
    for (k, i) in index.iter().enumerate() {
        let s = &slices[position[&i.unwrap()]];
        let want = match s.class {
            SliceClass::Launch(opguard_model::LaunchKind::Direct) => "launch_direct",
            SliceClass::Launch(opguard_model::LaunchKind::Graph) => "launch_graph",
            _ => "runtime",
        };
        assert_eq!(class[k].as_deref(), Some(want), "{name}: class of {i:?}");
        let want = proves.remove(&i.unwrap()).unwrap_or_default();
        assert_eq!(launched[k], want, "{name}: device rows of launch {i:?}");
    }
    // Host rows: self time.
    let index = u64s(&tables, Table::Host, "index");
    let own = ints(&tables, Table::Host, "self_ns");
    let self_times = model.host_self_times();
    for (k, i) in index.iter().enumerate() {
        let p = position[&i.unwrap()];
        assert_eq!(own[k], Some(self_times[p]), "{name}: self_ns of {i:?}");
    }
}

/// rocprofv3's three outputs (the shared CSV capture, and the JSON document
/// and rocpd database its rows make) against opguard-rocprof's own
/// referee, which reads them with Python's csv, json and sqlite3.
#[test]
fn rocprof_captures_against_the_referee() {
    let Some(csv) = opguard_testdata::shared_file("rocprof/prefill_kernel_trace.csv") else {
        return;
    };
    let rocprof = Path::new(env!("CARGO_MANIFEST_DIR")).join("../opguard-rocprof/tests");
    let dir = tempfile::tempdir().unwrap();
    let made = opguard_testdata::python3([
        rocprof.join("data/make_captures.py").into_os_string(),
        csv.clone().into_os_string(),
        dir.path().as_os_str().to_owned(),
    ]);
    let made = String::from_utf8(made).unwrap();
    let mut lines = made.lines();
    let json = PathBuf::from(lines.next().unwrap());
    let rocpd = PathBuf::from(lines.next().unwrap());
    for (format, path) in [("csv", csv), ("json", json), ("rocpd", rocpd)] {
        let out = opguard_testdata::python3([
            rocprof.join("referee.py").into_os_string(),
            format.into(),
            path.clone().into_os_string(),
        ]);
        let want: Value = serde_json::from_slice(&out).unwrap();
        let tables = tables_of(&path);
        let name = format!("{format} {}", path.display());
        let kernels = strings(&tables, Table::Device, "class")
            .iter()
            .filter(|c| c.as_deref() == Some("kernel"))
            .count();
        assert_eq!(
            kernels as u64,
            want["dispatches"].as_u64().unwrap(),
            "{name}"
        );
        let dur = sum(&ints(&tables, Table::Device, "dur_ns"));
        assert_eq!(dur, want["dispatch_ns"].as_i64().unwrap(), "{name}");
        assert_eq!(
            tables.rows(Table::Launches) as u64,
            want["api_calls"].as_u64().unwrap(),
            "{name}"
        );
        let joined: u64 = want["joined"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        let proven = strings(&tables, Table::Device, "launch")
            .iter()
            .filter(|l| l.as_deref() == Some("proven"))
            .count();
        assert_eq!(proven as u64, joined, "{name}: proven");
        check_against_model(&path);
    }
}

/// A referee of another crate (Python over the same file), as JSON.
fn referee_of(krate: &str, capture: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("tests/referee.py");
    let out = opguard_testdata::python3([script.as_os_str(), capture.as_os_str()]);
    serde_json::from_slice(&out).expect("the referee prints JSON")
}

fn proven(tables: &Tables) -> usize {
    strings(tables, Table::Device, "launch")
        .iter()
        .filter(|l| l.as_deref() == Some("proven"))
        .count()
}

/// Nsight Systems SQLite exports (every shared one) against opguard-nsys'
/// referee, SQL run by Python's own sqlite3: device rows are the kernels,
/// copies and sets; launches the API calls and the synchronizations (the
/// runtime rows of the model); each kernel's launch proven where the
/// referee's (process, correlation id) join names exactly one call.
#[test]
fn nsys_exports_against_the_referee() {
    for name in [
        "nsys/nsys-ai_mock.sqlite",
        "nsys/pipit_perlmutter-cloverleaf-cuda.sqlite",
        "nsys/test-cuda_report1.sqlite",
    ] {
        let Some(export) = opguard_testdata::shared_file(name) else {
            return;
        };
        let want = referee_of("opguard-nsys", &export);
        let tables = tables_of(&export);
        let pair = |key: &str| {
            (
                want[key][0].as_u64().unwrap(),
                want[key][1].as_i64().unwrap(),
            )
        };
        let (kernels, memcpy, memset) = (pair("kernels"), pair("memcpy"), pair("memset"));
        let syncs = pair("syncs");
        assert_eq!(tables.artifact().format.as_str(), "nsys_sqlite", "{name}");
        assert_eq!(
            tables.rows(Table::Device) as u64,
            kernels.0 + memcpy.0 + memset.0,
            "{name}: device rows"
        );
        assert_eq!(
            sum(&ints(&tables, Table::Device, "dur_ns")),
            kernels.1 + memcpy.1 + memset.1,
            "{name}: device dur_ns"
        );
        assert_eq!(
            tables.rows(Table::Launches) as u64,
            want["calls"].as_u64().unwrap() + syncs.0,
            "{name}: launches rows"
        );
        assert_eq!(
            sum(&ints(&tables, Table::Launches, "dur_ns")),
            want["calls_ns"].as_i64().unwrap() + syncs.1,
            "{name}: launches dur_ns"
        );
        let classes = strings(&tables, Table::Device, "class");
        let launch = strings(&tables, Table::Device, "launch");
        let proven_kernels = classes
            .iter()
            .zip(&launch)
            .filter(|(c, l)| c.as_deref() == Some("kernel") && l.as_deref() == Some("proven"))
            .count();
        assert_eq!(
            proven_kernels as u64,
            want["proven_kernels"].as_u64().unwrap(),
            "{name}: proven kernels"
        );
        check_against_model(&export);
    }
}

/// The shared XSpace (JAX 0.8 on MI300) against opguard-xplane's referee,
/// which decodes the protobuf by hand with the standard library: its GPU
/// stream events are the device rows (same occurrence indexes, durations,
/// and launch proven exactly where one host event carries the
/// correlation_id), its host events with a correlation_id the launches,
/// every other event a host row.
#[test]
fn xspace_against_the_referee() {
    let Some(xspace) =
        opguard_testdata::shared_file("xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb")
    else {
        return;
    };
    let want = referee_of("opguard-xplane", &xspace);
    let tables = tables_of(&xspace);
    assert_eq!(tables.artifact().format.as_str(), "xspace");
    let column = |rows: &Value, i: usize| -> Vec<i64> {
        let mut v: Vec<i64> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[i].as_i64().unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    let sorted_u64 = |t: Table| {
        let mut v: Vec<i64> = u64s(&tables, t, "index")
            .into_iter()
            .map(|i| i.unwrap() as i64)
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(sorted_u64(Table::Device), column(&want["device"], 0));
    assert_eq!(sorted_u64(Table::Launches), column(&want["launches"], 0));
    assert_eq!(
        sum(&ints(&tables, Table::Device, "dur_ns")),
        column(&want["device"], 8).iter().sum::<i64>()
    );
    assert_eq!(
        sum(&ints(&tables, Table::Launches, "dur_ns")),
        column(&want["launches"], 8).iter().sum::<i64>()
    );
    let events = want["events"].as_array().unwrap().len();
    assert_eq!(
        tables.rows(Table::Host) + tables.rows(Table::Device) + tables.rows(Table::Launches),
        events
    );
    let referee_proven = want["device"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d[9] == true)
        .count();
    assert_eq!(proven(&tables), referee_proven);
    check_against_model(&xspace);
}

/// Small batches split the same rows: every column equal whatever the
/// batch size, and each batch at most that size.
#[test]
fn batch_size_changes_only_the_split() {
    let Some(trace) = opguard_testdata::shared_file(
        "traces/hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
    ) else {
        return;
    };
    let whole = tables_of(&trace);
    let options = TableOptions::new().batch_rows(7);
    let split = read_tables(&trace, ArtifactSpec::new(), &options).unwrap();
    for table in [Table::Device, Table::Host, Table::Launches] {
        assert!(batches(&split, table).len() > 1, "{table} is split");
        assert!(batches(&split, table).iter().all(|b| b.num_rows() <= 7));
        assert_eq!(u64s(&split, table, "index"), u64s(&whole, table, "index"));
        assert_eq!(ints(&split, table, "dur_ns"), ints(&whole, table, "dur_ns"));
        assert_eq!(
            strings(&split, table, "name"),
            strings(&whole, table, "name")
        );
    }
    assert_eq!(
        ints(&split, Table::Host, "self_ns"),
        ints(&whole, Table::Host, "self_ns")
    );
    assert_eq!(
        strings(&split, Table::Device, "launch"),
        strings(&whole, Table::Device, "launch")
    );
}

/// A host row's details (shapes, types, strides) arrive after the row: the
/// last row of a full batch keeps them too, whatever the batch size (HTA's
/// frame check, examples/hta_frames.py, found them lost there).
#[test]
fn host_details_survive_any_batch_split() {
    let Some(trace) =
        opguard_testdata::shared_file("traces/hta/trace_filter__sampled_rank-0.json.gz")
    else {
        return;
    };
    let whole = tables_of(&trace);
    for rows in [1, 7, 64] {
        let options = TableOptions::new().batch_rows(rows);
        let split = read_tables(&trace, ArtifactSpec::new(), &options).unwrap();
        for column in ["input_dims", "input_type", "input_strides"] {
            let got = strings(&split, Table::Host, column);
            assert_eq!(
                got,
                strings(&whole, Table::Host, column),
                "{column}, {rows} rows a batch"
            );
        }
    }
    // Counted with Python's json: 2,011 cpu_op and 10 user_annotation
    // events carry `Input Dims` in their args.
    let dims = strings(&whole, Table::Host, "input_dims");
    assert_eq!(dims.iter().flatten().count(), 2021);
}

/// Asking for one table reads only what it needs, and gives the same rows.
#[test]
fn one_table_alone() {
    let Some(trace) = opguard_testdata::shared_file(
        "traces/hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
    ) else {
        return;
    };
    let all = tables_of(&trace);
    for table in [Table::Device, Table::Host, Table::Launches] {
        let options = TableOptions::new().tables(&[table]);
        let one = read_tables(&trace, ArtifactSpec::new(), &options).unwrap();
        assert_eq!(one.names().collect::<Vec<_>>(), [table]);
        assert_eq!(u64s(&one, table, "index"), u64s(&all, table, "index"));
    }
    let launches = TableOptions::new().tables(&[Table::Launches]);
    let one = read_tables(&trace, ArtifactSpec::new(), &launches).unwrap();
    let rows = |t: &Tables| {
        batches(t, Table::Launches)[0]
            .column_by_name("device_rows")
            .unwrap()
            .to_data()
    };
    assert_eq!(
        rows(&one),
        rows(&all),
        "device rows of launches without the device table"
    );
}

/// Both writers' files read back to the same rows; an existing output is
/// refused and left as it was; a failed write leaves nothing behind.
#[test]
fn files_read_back_and_outputs_are_exclusive() {
    let Some(trace) =
        opguard_testdata::shared_file("traces/hta/trace_filter__sampled_rank-0.json.gz")
    else {
        return;
    };
    let tables = tables_of(&trace);
    let dir = tempfile::tempdir().unwrap();
    for format in [FileFormat::ArrowIpc, FileFormat::Parquet] {
        let out = dir.path().join(format.extension());
        let files = write_tables(&tables, &out, format).unwrap();
        assert_eq!(files.len(), 4);
        for table in Table::ALL {
            let path = out.join(format!("{table}.{}", format.extension()));
            let back = read_back(&path, format);
            let rows: usize = back.iter().map(RecordBatch::num_rows).sum();
            assert_eq!(rows, tables.rows(table), "{}", path.display());
            assert_eq!(back[0].schema(), table.schema());
            let want: Vec<_> = batches(&tables, table)
                .iter()
                .map(|b| b.column(0).to_data())
                .collect();
            let got: Vec<_> = back.iter().map(|b| b.column(0).to_data()).collect();
            if format == FileFormat::ArrowIpc {
                assert_eq!(got, want, "{}", path.display());
            }
        }
        let again = write_tables(&tables, &out, format).unwrap_err();
        assert_eq!(again.code(), "output_exists");
        assert_eq!(
            std::fs::read_dir(&out).unwrap().count(),
            4,
            "the first output is untouched"
        );
    }
    // A directory under a file cannot be made: nothing is left behind.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"").unwrap();
    let err = write_tables(&tables, &blocker.join("out"), FileFormat::Parquet).unwrap_err();
    assert_eq!(err.code(), "io");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left.len(),
        3,
        "only arrow/, parquet/ and the blocker: {left:?}"
    );
}

fn read_back(path: &Path, format: FileFormat) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    match format {
        FileFormat::ArrowIpc => arrow_ipc::reader::FileReader::try_new(file, None)
            .unwrap()
            .map(|b| b.unwrap())
            .collect(),
        _ => parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap()
            .map(|b| b.unwrap())
            .collect(),
    }
}

/// A reader's error passes through with its code.
#[test]
fn a_bad_capture_keeps_its_readers_code() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.json");
    std::fs::write(
        &path,
        br#"{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"#,
    )
    .unwrap();
    let err = read_tables(&path, ArtifactSpec::new(), &TableOptions::new()).unwrap_err();
    assert_eq!(err.code(), "json_truncated");
}

#[test]
fn error_codes_are_listed_once() {
    opguard_document::check_error_codes(opguard_arrow::ERROR_CODES).unwrap();
}
