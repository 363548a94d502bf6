//! Every shared export, read whole, against the SQL referee.

use opguard_nsys::{Export, KnownTable, ReadOptions};
use opguard_testdata::shared_file;

use crate::support::{open, referee, Facts, CLOVERLEAF, SHARED_EXPORTS, TEST_CUDA};

#[test]
fn every_shared_export_agrees_with_the_referee() {
    for (file, product, schema) in SHARED_EXPORTS {
        let Some(path) = shared_file(file) else {
            return;
        };
        let export = open(&path);
        assert_eq!(export.meta().product_version, product, "{file}");
        assert_eq!(export.meta().schema.to_string(), schema, "{file}");
        assert!(export.meta().schema_verified, "{file}");
        let answer = referee(&path);
        assert_eq!(answer["product_version"], product, "{file}");
        assert_eq!(answer["schema"], schema, "{file}");
        let expected = Facts::from_referee(&answer);
        let got = Facts::read(&export).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(got, expected, "{file}");
    }
}

/// The numbers of the largest shared export, as its README and the
/// referee give them: a regression here is visible without Python.
#[test]
fn cloverleaf_counts_and_joins_are_pinned() {
    let Some(path) = shared_file(CLOVERLEAF) else {
        return;
    };
    let export = open(&path);
    let facts = Facts::read(&export).expect("reads");
    assert_eq!(facts.kernels, (1312, 294_404_540));
    assert_eq!(facts.runtime_rows, 3048);
    assert_eq!(facts.calls, 3048);
    assert_eq!(facts.proven_kernels, 1312);
    assert_eq!(facts.memcpy, (279, 9_390_923));
    assert_eq!(facts.gpus, 4);
    for (table, rows) in [
        (KnownTable::Kernel, 1312),
        (KnownTable::Runtime, 3048),
        (KnownTable::Memset, 0),
        (KnownTable::Nvtx, 0),
    ] {
        assert_eq!(
            export.row_count(table).expect("counts"),
            rows,
            "{}",
            table.name()
        );
    }
}

#[test]
fn kernels_carry_names_grids_and_tracks() {
    let Some(path) = shared_file(TEST_CUDA) else {
        return;
    };
    let export = open(&path);
    let mut strings = export.strings().expect("StringIds");
    let mut seen = Vec::new();
    export
        .kernels(|k| {
            let demangled = strings.get(k.demangled_name)?.to_owned();
            let short = strings.get(k.short_name)?.to_owned();
            let mangled = k
                .mangled_name
                .map(|m| strings.get(m).map(str::to_owned))
                .transpose()?;
            seen.push((demangled, short, mangled, k.grid, k.block, k.track.stream));
            Ok::<_, opguard_nsys::Error>(())
        })
        .expect("reads");
    assert_eq!(seen.len(), 4);
    // sqlite3 test-cuda_report1.sqlite: the first kernel's names, grid and
    // stream as written.
    let (demangled, short, mangled, grid, block, stream) = &seen[0];
    assert!(
        demangled.contains(short.as_str()),
        "{demangled:?} names {short:?}"
    );
    assert!(
        mangled.as_deref().is_some_and(|m| m.starts_with("_Z")),
        "{mangled:?}"
    );
    assert_eq!(*grid, [97657, 1, 1]);
    assert_eq!(*block, [256, 1, 1]);
    assert_eq!(*stream, 13);
    assert!(strings.cached() <= 3, "names are looked up once each");
    let mut names = Vec::new();
    export
        .kernels(|k| {
            names.push(strings.kernel_name(k)?.to_owned());
            Ok::<_, opguard_nsys::Error>(())
        })
        .expect("reads");
    // The mangled symbol demangled as Kineto demangles it, not Nsight's
    // own demangled text (const float * against float const*).
    assert_eq!(
        names[0],
        "add_parallel(float const*, float const*, float*, int)"
    );
    assert_ne!(names[0], seen[0].0);
}

#[test]
fn api_calls_say_runtime_or_driver_and_carry_their_thread() {
    let Some(path) = shared_file(CLOVERLEAF) else {
        return;
    };
    let export = open(&path);
    let mut strings = export.strings().expect("StringIds");
    let mut first = None;
    let mut launches = 0;
    export
        .api_calls(|c| {
            let name = opguard_nsys::api_name(strings.get(c.name)?).to_owned();
            if first.is_none() {
                first = Some((
                    c.api,
                    name.clone(),
                    c.global_tid.map(|t| (t.pid(), t.tid())),
                ));
            }
            launches += u32::from(name == "cudaLaunchKernel");
            Ok::<_, opguard_nsys::Error>(())
        })
        .expect("reads");
    // The first row is a driver call (eventClass 1) on the main thread of
    // pid 1701896 (sqlite3: SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1).
    let (api, name, thread) = first.expect("rows");
    assert_eq!(api, opguard_nsys::Api::CudaDriver, "{name}");
    assert_eq!(thread, Some((1_701_896, 1_701_896)));
    assert_eq!(launches, 1312);
}

#[test]
fn gpus_and_processes_come_from_the_target_info() {
    let Some(path) = shared_file(CLOVERLEAF) else {
        return;
    };
    let export = open(&path);
    let gpus = export.gpus().expect("reads");
    assert_eq!(gpus.len(), 4);
    assert!(gpus
        .iter()
        .all(|g| g.name.as_deref() == Some("NVIDIA A100-SXM4-80GB")));
    assert_eq!(gpus[0].compute_capability, Some((8, 0)));
    let mut app = None;
    export
        .processes(|p| {
            if p.name == Some("cuda-cloverleaf") {
                app = Some((p.pid, p.global_pid.process()));
            }
            Ok::<_, opguard_nsys::Error>(())
        })
        .expect("reads");
    let (pid, process) = app.expect("the application's process is named");
    assert_eq!(pid, 1_701_896);
    // Its kernels carry the same process.
    let mut kernel_process = None;
    export
        .kernels(|k| {
            kernel_process.get_or_insert(k.global_pid.map(|g| g.process()));
            Ok::<_, opguard_nsys::Error>(())
        })
        .expect("reads");
    assert_eq!(kernel_process, Some(Some(process)));
}

#[test]
fn metadata_gives_product_and_schema_and_keeps_no_host_or_user() {
    let Some(path) = shared_file(TEST_CUDA) else {
        return;
    };
    let export = Export::open(&path, &ReadOptions::new()).expect("opens");
    let meta = serde_json::to_value(export.meta()).expect("serializes");
    assert_eq!(meta["product_name"], "NVIDIA Nsight Systems");
    assert_eq!(meta["product_version"], "2026.1.1.204");
    assert_eq!(meta["schema"], "3.24.14");
    assert_eq!(meta["metadata_table"], "META_DATA_EXPORT");
    let text = meta.to_string();
    assert!(!text.contains("hangyudu"), "no user name: {text}");
    assert!(!text.contains("/home/"), "no path: {text}");
    assert!(export.kernels_have_graph_id(), "schema 3.24 writes graphId");
}

/// `trace info`'s facts: counts per table and the span, against sqlite3's
/// own aggregates over the same file.
#[test]
fn info_counts_tables_and_spans_the_timed_rows() {
    let Some(path) = shared_file(CLOVERLEAF) else {
        return;
    };
    let info = open(&path).info().expect("reads");
    assert_eq!(info.meta.schema.to_string(), "3.13.2");
    assert_eq!(info.bytes, std::fs::metadata(&path).expect("stat").len());
    assert_eq!(info.sha256.to_hex().len(), 64);
    assert_eq!(
        info.clock_domain,
        format!("artifact:{}", info.sha256.to_hex())
    );
    let rows = |name: &str| info.tables.iter().find(|t| t.table == name).map(|t| t.rows);
    assert_eq!(rows("CUPTI_ACTIVITY_KIND_KERNEL"), Some(1312));
    assert_eq!(rows("CUPTI_ACTIVITY_KIND_RUNTIME"), Some(3048));
    assert_eq!(rows("NVTX_EVENTS"), None, "no NVTX table in this export");
    // python3 -c: SELECT MIN(start), MAX(end) over the timed tables.
    let referee = opguard_testdata::python3([
        "-c",
        "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); \
         t=['CUPTI_ACTIVITY_KIND_KERNEL','CUPTI_ACTIVITY_KIND_MEMCPY','CUPTI_ACTIVITY_KIND_SYNCHRONIZATION','CUPTI_ACTIVITY_KIND_RUNTIME']; \
         print(min(db.execute(f'select min(start) from {x}').fetchone()[0] for x in t), \
               max(db.execute(f'select max(end) from {x}').fetchone()[0] for x in t))",
        path.to_str().expect("UTF-8 path"),
    ]);
    let span = info.span.expect("timed rows");
    assert_eq!(
        String::from_utf8(referee).expect("UTF-8").trim(),
        format!("{} {}", span.start_ns, span.end_ns)
    );
    assert_eq!(span.duration_ns, span.end_ns - span.start_ns);
    assert_eq!(info.gpus.len(), 4);
}

/// NVTX ranges of a real export: push/pop ranges on their thread, text
/// inline or by `textId` (GindaChen/nsys-ai @ ab196ea:
/// tests/fixtures/mfu_2gpu_before.sqlite, Nsight Systems 2026.2.1.210).
#[test]
fn nvtx_ranges_carry_text_inline_or_by_id() {
    let Some(path) = crate::support::proposed_export(
        "nsys-ai_mfu_2gpu_before.sqlite",
        "GindaChen/nsys-ai @ ab196ea: tests/fixtures/mfu_2gpu_before.sqlite",
    ) else {
        return;
    };
    let export = open(&path);
    let mut strings = export.strings().expect("StringIds");
    let (mut inline, mut by_id, mut unnamed, mut on_thread) = (0, 0, 0, 0);
    export
        .nvtx(|n| {
            assert_eq!(n.kind, opguard_nsys::NvtxKind::PushPop);
            match (n.text, n.text_id) {
                (Some(_), _) => inline += 1,
                (None, Some(_)) => by_id += 1,
                (None, None) => unnamed += 1,
            }
            if strings.nvtx_text(n)?.is_some_and(|t| !t.is_empty()) && n.global_tid.is_some() {
                on_thread += 1;
            }
            Ok::<_, opguard_nsys::Error>(())
        })
        .expect("reads");
    // sqlite3: SELECT count(text), count(textId) FROM NVTX_EVENTS.
    assert_eq!((inline, by_id, unnamed), (18656, 462, 0));
    assert_eq!(on_thread, 19118);
}
