//! Exports read into the provider-neutral model, held against the SQL
//! referee through the model's own launch-region analysis: counts,
//! durations and proven joins.

use std::path::Path;

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, IdValue, ModelOptions, SliceClass, TraceModel};
use opguard_nsys::{occurrence_row, read_model, KnownTable, ReadOptions};
use opguard_testdata::shared_file;
use serde_json::Value;

use crate::support::{derive, proposed_export, referee, CLOVERLEAF, SHARED_EXPORTS, TEST_CUDA};

fn model(path: &Path, options: &ModelOptions) -> TraceModel {
    read_model(path, ArtifactSpec::new(), options, &ReadOptions::new())
        .unwrap_or_else(|e| panic!("{}: error[{}] {e}", path.display(), e.code()))
}

/// The launch region and the model's slices agree with the referee.
fn agrees_with_referee(path: &Path) -> Value {
    let answer = referee(path);
    let n = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("{v} in {answer}"));
    let i = |v: &Value| v.as_i64().unwrap_or_else(|| panic!("{v} in {answer}"));
    let file = path.display();
    let model = model(path, &ModelOptions::new());
    let region = launch_region(&model, 10);
    assert_eq!(region.kernel_count, n(&answer["kernels"][0]), "{file}");
    assert_eq!(
        region.kernel_duration_ns,
        i(&answer["kernels"][1]),
        "{file}"
    );
    assert_eq!(
        region.correlated_kernel_count,
        n(&answer["proven_kernels"]),
        "{file}"
    );
    assert_eq!(
        region.coverage.ambiguous_correlation_kernel_count,
        n(&answer["ambiguous_kernels"]),
        "{file}"
    );
    assert_eq!(region.coverage.owner_unknown_kernel_count, 0, "{file}");
    // The provider defines a namespace: nothing to explain.
    assert_eq!(region.coverage.disagreement, None, "{file}");
    assert_eq!(
        region.memory_op_count,
        n(&answer["memcpy"][0]) + n(&answer["memset"][0]),
        "{file}"
    );
    let launches = &answer["launches"];
    assert_eq!(
        (region.direct_launch_count, region.direct_launch_duration_ns),
        (n(&launches["direct"]), i(&launches["direct_ns"])),
        "{file}"
    );
    assert_eq!(
        (region.graph_launch_count, region.graph_launch_duration_ns),
        (n(&launches["graph"]), i(&launches["graph_ns"])),
        "{file}"
    );
    let slices = model.slices();
    let count =
        |f: &dyn Fn(SliceClass) -> bool| slices.iter().filter(|s| f(s.class)).count() as u64;
    assert_eq!(
        count(&|c| c.is_runtime()),
        n(&answer["calls"]) + n(&answer["syncs"][0]),
        "{file}: API calls and synchronizations"
    );
    let ranges: Vec<_> = slices
        .iter()
        .filter(|s| s.class == SliceClass::UserAnnotation)
        .collect();
    assert_eq!(
        ranges.len() as u64,
        n(&answer["nvtx_closed_ranges"]),
        "{file}"
    );
    assert_eq!(
        ranges.iter().map(|s| s.dur_ns).sum::<i64>(),
        i(&answer["nvtx_ranges_ns"]),
        "{file}"
    );
    answer
}

#[test]
fn every_shared_export_gives_the_referees_region() {
    for (file, product, _) in SHARED_EXPORTS {
        let Some(path) = shared_file(file) else {
            return;
        };
        agrees_with_referee(&path);
        let model = model(&path, &ModelOptions::launches_only());
        let artifact = model.artifact();
        assert_eq!(artifact.format.as_str(), "nsys_sqlite");
        assert_eq!(artifact.provider.as_str(), "nsight_systems");
        assert_eq!(
            artifact.producer.as_deref(),
            Some(format!("Nsight Systems {product}").as_str())
        );
        let export = model.summary().metadata.get_json("export").expect("export");
        assert!(export["schema"].is_string(), "{export}");
    }
}

#[test]
fn every_slice_says_which_row_it_is_and_which_process_owns_it() {
    let Some(path) = shared_file(CLOVERLEAF) else {
        return;
    };
    let model = model(&path, &ModelOptions::new());
    let mut kernels = 0;
    for s in model.slices() {
        let (table, rowid) = occurrence_row(s.index).expect("an occurrence index");
        assert!(rowid > 0);
        let expected = match s.class {
            SliceClass::Kernel => KnownTable::Kernel,
            SliceClass::Memcpy => KnownTable::Memcpy,
            SliceClass::Memset => KnownTable::Memset,
            _ => table,
        };
        assert_eq!(table, expected);
        // Every row of this export names its process: the process is set
        // from the row, never settled from the file's launching processes.
        assert!(matches!(s.process, Some(IdValue::Int(_))), "{s:?}");
        if s.class == SliceClass::Kernel {
            kernels += 1;
            assert!(s.device.is_some() && s.context.is_some() && s.stream.is_some());
            assert_eq!(s.tid, s.stream);
        }
    }
    assert_eq!(kernels, 1312);
    // sqlite3: SELECT DISTINCT globalPid >> 24 FROM CUPTI_ACTIVITY_KIND_KERNEL
    // gives one process, 18479112 (hardware id 1 above OS pid 1701896,
    // cuda-cloverleaf in PROCESSES): the namespace, while pid is the OS's.
    let mut tracks: Vec<_> = model.slices().iter().map(|s| (s.process, s.pid)).collect();
    tracks.sort();
    tracks.dedup();
    assert_eq!(
        tracks,
        [(
            Some(IdValue::Int(18_479_112)),
            Some(IdValue::Int(1_701_896))
        )]
    );
}

#[test]
fn a_correlation_id_is_proven_only_within_its_process_through_the_model() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let two = dir.path().join("two_processes.sqlite");
    derive(&src, &two, &["--processes", "2"]);
    let answer = agrees_with_referee(&two);
    assert_eq!(answer["proven_kernels"], 2 * 1312);
    assert_eq!(answer["naive_join_rows"], 4 * 1312);
}

#[test]
fn backtrace_rows_are_not_calls_in_the_model() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let with = dir.path().join("with_backtraces.sqlite");
    derive(&src, &with, &["--backtrace-runtime"]);
    let answer = agrees_with_referee(&with);
    assert_eq!(answer["launches"]["direct"], 1312);
    let twice = dir.path().join("runtime_twice.sqlite");
    derive(&src, &twice, &["--repeat-runtime"]);
    let answer = agrees_with_referee(&twice);
    assert_eq!(answer["ambiguous_kernels"], 1312);
}

#[test]
fn launches_only_keeps_no_host_ranges_and_operations_no_device_rows() {
    let Some(path) = shared_file(TEST_CUDA) else {
        return;
    };
    let launches = model(&path, &ModelOptions::launches_only());
    assert!(launches
        .slices()
        .iter()
        .all(|s| s.class != SliceClass::UserAnnotation));
    let operations = model(&path, &ModelOptions::operations());
    assert!(operations
        .slices()
        .iter()
        .all(|s| !s.class.is_device() && !s.class.is_runtime()));
}

/// NVTX ranges of a real export (one second of a 2× H100 run, Nsight
/// Systems 2026.2.1, 16,782 NVTX rows): host ranges on their thread.
#[test]
fn nvtx_ranges_are_host_ranges_on_their_thread() {
    let Some(path) = proposed_export(
        "nsys-ai_h100_2gpu_1s.sqlite",
        "GindaChen/nsys-ai @ ab196ea: tests/fixtures/h100_2gpu_1s.sqlite",
    ) else {
        return;
    };
    let answer = agrees_with_referee(&path);
    assert!(answer["nvtx_closed_ranges"].as_u64().unwrap_or(0) > 0);
    let model = model(&path, &ModelOptions::new());
    for s in model.slices() {
        if s.class == SliceClass::UserAnnotation {
            assert!(s.tid.is_some() && s.pid.is_some() && s.process.is_some());
            assert!(s.device.is_none());
        }
    }
}

/// Files among the proposed ones that are not exports nsys wrote: two
/// hand-made fixtures of nsys-ai (tables without `globalPid`, `contextId`
/// or `eventClass`) and pipit's docs database (no export metadata).
const NOT_EXPORTS: [(&str, &str); 3] = [
    ("nsys-ai_healthy_1pct.sqlite", "columns_missing"),
    ("nsys-ai_healthy_judged_1pct.sqlite", "columns_missing"),
    ("pipit_docs_test.sqlite", "not_nsys_export"),
];

/// The proposed real exports (Nsight Systems 2022.2 to 2026.2, schemas 2.9
/// to 3.25), each against the referee; the files that are not exports are
/// refused with their codes.
#[test]
fn every_proposed_export_gives_the_referees_region() {
    let Some(dir) = crate::support::proposed_dir() else {
        return;
    };
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).expect("lists") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "sqlite") {
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match NOT_EXPORTS.iter().find(|(file, _)| *file == name) {
            Some((_, code)) => {
                let refused = read_model(
                    &path,
                    ArtifactSpec::new(),
                    &ModelOptions::new(),
                    &ReadOptions::new(),
                )
                .expect_err(name);
                assert_eq!(refused.code(), *code, "{name}");
            }
            None => {
                agrees_with_referee(&path);
                read += 1;
            }
        }
    }
    assert!(read >= 15, "{read} exports in {}", dir.display());
}

/// A CUDA graph of ten kernel nodes (derived from a real export: no real
/// export with graphs was found): one `cudaGraphLaunch` row, ten kernels
/// carrying its correlation id, each proven launched by it.
#[test]
fn a_graph_launch_is_one_launch_of_many_kernels() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let graph = dir.path().join("graph.sqlite");
    derive(&src, &graph, &["--graph-launch", "10"]);
    let answer = agrees_with_referee(&graph);
    assert_eq!(answer["launches"]["graph"], 1);
    assert_eq!(answer["launches"]["direct"], 1312 - 10);
    assert_eq!(answer["proven_kernels"], 1312);
    let model = model(&graph, &ModelOptions::launches_only());
    let launch = model
        .slices()
        .iter()
        .position(|s| s.class == SliceClass::Launch(opguard_model::LaunchKind::Graph))
        .expect("the graph launch");
    let launched: Vec<usize> = (0..model.slices().len())
        .filter(|&i| model.launch_proof(i).launch() == Some(launch))
        .collect();
    assert_eq!(launched.len(), 10);
    assert_eq!(model.name(model.slices()[launch].name), "cudaGraphLaunch");
}

/// Copies are named as the PyTorch profiler names the same CUPTI records,
/// from the export's own memory kinds (Nsight Systems numbers them from
/// pageable = 0), so one program's copy has one identity in both.
#[test]
fn memory_ops_carry_kinetos_names() {
    let Some(path) = shared_file(TEST_CUDA) else {
        return;
    };
    let model = model(&path, &ModelOptions::launches_only());
    let mut names: Vec<(&str, usize)> = Vec::new();
    for s in model.slices().iter().filter(|s| s.class.is_device()) {
        let name = model.name(s.name);
        match names.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => names.push((name, 1)),
        }
    }
    names.sort();
    // sqlite3: SELECT copyKind, srcKind, dstKind, COUNT(*) FROM
    // CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1, 2, 3 gives (1, 1, 2) x 8 and
    // (2, 2, 1) x 4; ENUM_CUDA_MEM_KIND: 1 Pinned, 2 Device.
    assert_eq!(
        names,
        [
            ("Memcpy DtoH (Device -> Pinned)", 4),
            ("Memcpy HtoD (Pinned -> Device)", 8),
            ("add_parallel(float const*, float const*, float*, int)", 4),
        ]
    );
    // An export that numbers its memory kinds otherwise is refused.
    let dir = tempfile::tempdir().expect("tempdir");
    let renumbered = dir.path().join("renumbered.sqlite");
    derive(
        &path,
        &renumbered,
        &[
            "--set-enum",
            "ENUM_CUDA_MEM_KIND:0=CUDA_MEMOPR_MEMORY_KIND_UNKNOWN",
        ],
    );
    let refused = read_model(
        &renumbered,
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &ReadOptions::new(),
    )
    .expect_err("a renumbered enum");
    assert_eq!(refused.code(), "enum_mismatch");
}

/// What the PyTorch profiler writes for a kernel whose CUPTI symbol is
/// `mangled`: `__cxa_demangle`'s text, which GNU's `c++filt` shares
/// (libiberty's demangler). `None` when c++filt is not installed.
fn kineto_names(mangled: &[String]) -> Option<Vec<String>> {
    use std::io::Write;
    let mut child = std::process::Command::new("c++filt")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| eprintln!("skipping: c++filt (binutils) is not runnable: {e}"))
        .ok()?;
    let mut input = child.stdin.take().expect("piped");
    input
        .write_all(mangled.join("\n").as_bytes())
        .expect("writes");
    drop(input);
    let out = child.wait_with_output().expect("c++filt runs");
    Some(
        String::from_utf8(out.stdout)
            .expect("UTF-8")
            .lines()
            .map(str::to_owned)
            .collect(),
    )
}

/// A Kineto trace and an Nsight export of one program name a kernel from
/// the same CUPTI symbol; the model's name for it must canonicalize to the
/// identity Kineto's demangling gives. Checked on the shared exports'
/// kernels whose symbols both demanglers spell alike (test-cuda's
/// add_parallel, nsys-ai's reduce_kernel with a local lambda); Nsight's own
/// demangledName gives the latter another identity.
#[test]
fn kernels_get_the_identity_kinetos_demangling_of_their_symbol_gets() {
    let (Some(cuda), Some(mock)) = (
        shared_file(TEST_CUDA),
        shared_file("nsys/nsys-ai_mock.sqlite"),
    ) else {
        return;
    };
    let identity = |name: &str| opguard_kernel_name::canonicalize(name).qualified_identity();
    let mut agree = Vec::new();
    for path in [cuda, mock] {
        let export = crate::support::open(&path);
        let mut strings = export.strings().expect("StringIds");
        let mut mangled = Vec::new();
        export
            .kernels(|k| {
                let symbol = strings.get(k.mangled_name.expect("a mangled name"))?;
                mangled.push(symbol.to_owned());
                Ok::<_, opguard_nsys::Error>(())
            })
            .expect("reads");
        let Some(kineto) = kineto_names(&mangled) else {
            return;
        };
        let model = model(&path, &ModelOptions::launches_only());
        let names: Vec<&str> = model
            .slices()
            .iter()
            .filter(|s| s.class == SliceClass::Kernel)
            .map(|s| model.name(s.name))
            .collect();
        assert_eq!(names.len(), kineto.len());
        for (name, kineto) in names.iter().zip(&kineto) {
            if identity(name) == identity(kineto) {
                agree.push(opguard_kernel_name::short_name(kineto).into_owned());
            }
        }
    }
    agree.sort();
    agree.dedup();
    // The mock's FillFunctor kernel is the one left out: Kineto's demangler
    // writes `std::array<char*, 1ul>`, opguard-kernel-name's
    // `(unsigned long)1`.
    assert_eq!(agree, ["add_parallel", "reduce_kernel"]);
}
