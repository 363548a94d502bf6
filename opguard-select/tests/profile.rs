//! Profile Top-N: entity kinds, the evidence they rest on, and dispatcher
//! aggregates expanded into their kernels.

use std::collections::HashMap;

use opguard_select::{profile, EntityKind, ProfileDocument};
use opguard_testdata::kineto_writer::KinetoTrace;
use opguard_trace::{OwnedEvent, RawJson, ScalarKey};
use serde_json::json;

use crate::support::*;

const GEMM_A: &str = "void gemm_kernel_a<128, 4>(float const*, float*)";
const GEMM_B: &str = "void gemm_kernel_b<64, 2>(float const*, float*)";
const EXT_KERNEL: &str = "void my_extension::rotary_kernel<float>(float*)";

fn constructed() -> KinetoTrace {
    let host = (10, 10);
    let mut t = KinetoTrace::new();
    // A dispatcher op standing for three kernels: 25 µs in all, more than
    // any one kernel it launched.
    t.cpu_op(host, "aten::mm", 0, 50_000, Some(1));
    t.launch(host, "cudaLaunchKernel", 1_000, 500, 100, Some(1))
        .kernel(0, 7, GEMM_A, 100_000, 10_000);
    t.launch(host, "cudaLaunchKernel", 2_000, 500, 101, Some(1))
        .kernel(0, 7, GEMM_A, 110_000, 10_000);
    t.launch(host, "cudaLaunchKernel", 3_000, 500, 102, Some(1))
        .kernel(0, 7, GEMM_B, 120_000, 5_000);
    // A record_function launcher issuing its kernel directly.
    t.user_annotation(host, "my_extension.rotary", 60_000, 10_000, Some(2));
    t.launch(host, "cudaLaunchKernel", 61_000, 500, 103, Some(2))
        .kernel(0, 7, EXT_KERNEL, 130_000, 8_000);
    // A copy.
    t.runtime(host, "cudaMemcpyAsync", 70_000, 500, Some(104), Some(3));
    t.device_activity(
        "gpu_memcpy",
        (0, 7),
        "Memcpy HtoD (Pageable -> Device)",
        140_000,
        3_000,
        (Some(104), Some(3)),
    );
    // Device activity with no kernel category and no launch.
    t.push(OwnedEvent {
        ph: Some("X".into()),
        cat: Some("mtia_ccp_events".into()),
        name: Some("dma_request".into()),
        pid: Some(ScalarKey::Number("9".into())),
        tid: Some(ScalarKey::Number("801".into())),
        ts_ns: Some(150_000),
        dur_ns: Some(2_000),
        args: Some(RawJson::from_value(&json!({"size": 16}))),
        ..OwnedEvent::default()
    });
    // A kernel whose name certifies nothing.
    t.kernel(0, 7, "k", 160_000, 1_000, None, None);
    t
}

fn read(c: &Capture, name: &str, t: &KinetoTrace, top: usize) -> ProfileDocument {
    let file = c.trace(name, t);
    profile(c.path(&file), top).expect("profile")
}

#[test]
fn rows_declare_their_kind_and_aggregates_never_hide_kernels() {
    let c = Capture::new();
    let doc = read(&c, "p.json.gz", &constructed(), 10);
    assert_eq!(doc.entity_kind_contract, "v1");
    assert_eq!(doc.device_rows, 7);
    assert_eq!(
        doc.device_time_ns,
        10_000 + 10_000 + 5_000 + 8_000 + 3_000 + 2_000 + 1_000
    );
    let rows: Vec<(&str, EntityKind, i64, u64)> = doc
        .rows
        .iter()
        .map(|r| (r.name.as_str(), r.entity_kind, r.total_device_ns, r.calls))
        .collect();
    assert_eq!(
        rows,
        [
            (GEMM_A, EntityKind::GpuKernel, 20_000, 2),
            (EXT_KERNEL, EntityKind::GpuKernel, 8_000, 1),
            (GEMM_B, EntityKind::GpuKernel, 5_000, 1),
            (
                "Memcpy HtoD (Pageable -> Device)",
                EntityKind::MemoryOp,
                3_000,
                1
            ),
            ("dma_request", EntityKind::MemoryOp, 2_000, 1),
            ("k", EntityKind::Unresolved, 1_000, 1),
        ]
    );
    for r in &doc.rows {
        assert_eq!(r.short_name, opguard_kernel_name::short_name(&r.name));
    }
    assert_eq!(doc.rows[0].short_name, "gemm_kernel_a");
    let a = &doc.rows[0].evidence;
    assert_eq!(
        (a.category.as_str(), a.basis),
        ("kernel", "kernel_category")
    );
    assert_eq!((a.launch_correlation_edges, a.external_id_edges), (2, 2));
    assert_eq!(a.dispatcher_ops.len(), 1);
    assert_eq!(
        (a.dispatcher_ops[0].name.as_str(), a.dispatcher_ops[0].calls),
        ("aten::mm", 2)
    );
    assert_eq!(
        doc.rows[1].evidence.python_launchers[0].name,
        "my_extension.rotary"
    );
    let dma = &doc.rows[4].evidence;
    assert_eq!((dma.basis, dma.rows_without_edges), ("memory_category", 1));
    assert_eq!(doc.rows[5].evidence.basis, "degenerate_name");
    // aten::mm (25 µs) would have been the head; it is expanded instead.
    assert!(doc.rows.iter().all(|r| !matches!(
        r.entity_kind,
        EntityKind::DispatcherOp | EntityKind::PythonLauncher
    )));
    let mm = &doc.expanded_aggregates[0];
    assert_eq!(
        (
            mm.name.as_str(),
            mm.entity_kind,
            mm.total_device_ns,
            mm.would_rank
        ),
        ("aten::mm", EntityKind::DispatcherOp, 25_000, 1)
    );
    let kernels: Vec<&str> = mm.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(kernels, [GEMM_A, GEMM_B]);
    let rotary = doc
        .expanded_aggregates
        .iter()
        .find(|a| a.name == "my_extension.rotary")
        .expect("the launcher annotation is expanded too");
    assert_eq!(rotary.entity_kind, EntityKind::PythonLauncher);
    let json = serde_json::to_value(&doc).unwrap();
    assert_eq!(json["entity_kind_contract"], "v1");
    assert_eq!(json["rows"][0]["entity_kind"], "gpu_kernel");
    assert_eq!(json["rows"][0]["short_name"], "gemm_kernel_a");
    assert_eq!(
        json["expanded_aggregates"][0]["entity_kind"],
        "dispatcher_op"
    );
    assert_eq!(
        json["entity_kinds"],
        json!({"gpu_kernel": 3, "memory_op": 2, "unresolved": 1})
    );
}

#[test]
fn top_n_cuts_rows_and_aggregates_alike() {
    let c = Capture::new();
    let doc = read(&c, "p.json.gz", &constructed(), 2);
    assert_eq!(doc.rows.len(), 2);
    assert_eq!(doc.distinct_entities, 6);
    assert!(doc.expanded_aggregates.iter().all(|a| a.would_rank <= 2));
    assert_eq!(doc.expanded_aggregates.len(), 1);
    let none = read(&c, "p0.json.gz", &constructed(), 0);
    assert!(none.rows.is_empty() && none.expanded_aggregates.is_empty());
}

#[test]
fn real_trace_rows_match_an_independent_device_time_count() {
    for file in [
        "traces/hta/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
        "traces/hta/nccl_parser_config__nccl_data.json.gz",
        "traces/hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
    ] {
        let Some(path) = shared(file) else { return };
        let doc = profile(&path, 25).unwrap();
        let raw = decode(&path);
        let mut by: HashMap<(String, String), (i64, u64)> = HashMap::new();
        let mut total = 0i64;
        for e in raw["traceEvents"].as_array().unwrap() {
            let cat = e["cat"].as_str().unwrap_or("");
            if e["ph"] != "X" || !matches!(cat, "kernel" | "gpu_memcpy" | "gpu_memset") {
                continue;
            }
            let dur = (e["dur"].as_f64().unwrap() * 1000.0).round() as i64;
            let slot = by
                .entry((e["name"].as_str().unwrap().to_owned(), cat.to_owned()))
                .or_default();
            slot.0 += dur;
            slot.1 += 1;
            total += dur;
        }
        let mut want: Vec<(i64, String)> = by.iter().map(|((n, _), v)| (v.0, n.clone())).collect();
        want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        want.truncate(25);
        let got: Vec<(i64, String)> = doc
            .rows
            .iter()
            .map(|r| (r.total_device_ns, r.name.clone()))
            .collect();
        // Durations are summed in exact nanoseconds by the reader; the oracle
        // rounds each f64 duration, which agrees on these traces.
        assert_eq!(got, want, "{file}");
        assert_eq!(doc.device_time_ns, total, "{file}");
        for r in &doc.rows {
            let (_, calls) = by[&(r.name.clone(), r.evidence.category.clone())];
            assert_eq!(r.calls, calls, "{file} {}", r.name);
            let expected = if r.evidence.category == "kernel" {
                EntityKind::GpuKernel
            } else {
                EntityKind::MemoryOp
            };
            assert_eq!(r.entity_kind, expected, "{file} {}", r.name);
            assert_eq!(r.short_name, opguard_kernel_name::short_name(&r.name));
        }
        // Every aggregate that would have ranked is a host op whose kernels
        // are device rows of the trace.
        for a in &doc.expanded_aggregates {
            assert!(!a.kernels.is_empty());
            assert!(a
                .kernels
                .iter()
                .all(|k| by.keys().any(|(n, _)| *n == k.name)));
            let sum: i64 = a.kernels.iter().map(|k| k.device_ns).sum();
            assert_eq!(sum, a.total_device_ns, "{file} {}", a.name);
        }
    }
}

#[test]
fn cpu_only_traces_have_no_rows() {
    let Some(path) = shared("torch/traces/proc_a.json.gz") else {
        return;
    };
    let doc = profile(&path, 10).unwrap();
    assert_eq!(doc.device_rows, 0);
    assert!(doc.rows.is_empty());
    assert!(doc.expanded_aggregates.is_empty());
}

#[test]
fn an_unreadable_trace_is_an_error() {
    let c = Capture::new();
    std::fs::write(c.path("bad.json"), b"{\"traceEvents\": [").unwrap();
    let e = profile(c.path("bad.json"), 5).unwrap_err();
    assert_eq!(e.code(), "trace_unreadable");
    assert_eq!(e.trace_code(), Some("json_truncated"));
    let e = profile(c.path("absent.json"), 5).unwrap_err();
    assert_eq!(e.code(), "trace_unreadable");
}

/// "Launched" is proven, never merely claimed: a row's
/// `launch_correlation_edges` counts the device rows whose correlation id
/// names exactly one host runtime call of its process. Checked against
/// serde_json over real traces: the two real ranks of one job merged into
/// one file (two host processes that numbered their correlation ids each
/// from its own start, so they reuse ids and no id proves anything), a
/// capture whose device rows mostly carry no launch correlation (MTIA), and
/// one whose kernels carry ids no runtime call has (trace_compare).
#[test]
fn launched_rows_are_the_proven_ones_on_real_traces() {
    let (Some(r0), Some(r1)) = (
        shared("traces/hta/trace_filter__sampled_rank-0.json.gz"),
        shared("traces/hta/trace_filter__sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let c = Capture::new();
    let mut merged = decode(&r0);
    let rank1 = decode(&r1);
    let events = merged["traceEvents"].as_array_mut().unwrap();
    events.extend(rank1["traceEvents"].as_array().unwrap().iter().cloned());
    let merged_path = c.path("two_ranks_merged.json.gz");
    std::fs::write(
        &merged_path,
        opguard_testdata::gzip(&serde_json::to_vec(&merged).unwrap()),
    )
    .unwrap();
    let mut ambiguous_in_merged = 0;
    let mut traces = vec![merged_path.clone()];
    traces.extend(shared(
        "traces/hta/mtia_trace_single_rank__mtia_rank_0.json.gz",
    ));
    traces.extend(shared("traces/hta/trace_compare__base__base.json.gz"));
    for path in traces {
        let raw = decode(&path);
        let events = raw["traceEvents"].as_array().unwrap();
        let runtime = ["cuda_runtime", "cuda_driver", "mtia_runtime"];
        let device = ["kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events"];
        let x = |e: &&serde_json::Value, cats: &[&str]| {
            e["ph"] == "X" && cats.contains(&e["cat"].as_str().unwrap_or(""))
        };
        // Launch rows per id, and whether two processes' launch rows share
        // an id: then ids are per process and prove nothing in this file.
        let mut carriers: HashMap<String, u64> = HashMap::new();
        let mut processes: HashMap<String, std::collections::HashSet<String>> = HashMap::new();
        for e in events.iter().filter(|e| x(e, &runtime)) {
            if let Some(id) = e["args"].get("correlation") {
                *carriers.entry(id.to_string()).or_default() += 1;
                processes
                    .entry(id.to_string())
                    .or_default()
                    .insert(e["pid"].to_string());
            }
        }
        let launching: std::collections::HashSet<&String> = processes.values().flatten().collect();
        let ids_per_process = launching.len() > 1 && processes.values().any(|p| p.len() > 1);
        // (proven, claimed by one launch or more) per (name, category).
        let mut want: HashMap<(String, String), (u64, u64)> = HashMap::new();
        for e in events.iter().filter(|e| x(e, &device)) {
            let n = e["args"]
                .get("correlation")
                .and_then(|id| carriers.get(&id.to_string()))
                .copied()
                .unwrap_or(0);
            let key = (
                e["name"].as_str().unwrap().to_owned(),
                e["cat"].as_str().unwrap().to_owned(),
            );
            let slot = want.entry(key).or_default();
            slot.0 += u64::from(n == 1 && !ids_per_process);
            slot.1 += u64::from(n >= 1);
        }
        let doc = profile(&path, usize::MAX).unwrap();
        assert_eq!(doc.rows.len(), want.len(), "{}", path.display());
        for r in &doc.rows {
            let (proven, claimed) = want[&(r.name.clone(), r.evidence.category.clone())];
            assert_eq!(r.evidence.launch_correlation_edges, proven, "{}", r.name);
            if path == merged_path {
                ambiguous_in_merged += claimed - proven;
            }
            if r.evidence.category == "mtia_ccp_events" {
                // MTIA's DMA transfers are memory operations, its other
                // command-processor events kernels.
                let want = if r.name == "dma_request" {
                    EntityKind::MemoryOp
                } else {
                    EntityKind::GpuKernel
                };
                assert_eq!(r.entity_kind, want, "{}", r.name);
            }
        }
    }
    assert!(
        ambiguous_in_merged > 0,
        "the merged ranks' launch rows claim no kernel: the test proves nothing"
    );
}
