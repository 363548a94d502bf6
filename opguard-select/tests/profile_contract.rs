//! The Top-N contract row by row: each row's kind and the basis it rests
//! on, its edge counts, its rank, and every ordering the document promises
//! (rows, host lists, expanded kernels, aggregates), pinned on small traces
//! whose expected values are worked out by hand in the comments.
//!
//! Several orderings are checked over many independent groups: the
//! document is built from hash maps, so an ordering that silently fell back
//! to hash order would pass one group by luck half the time, never eight.

use opguard_select::{profile, EntityKind, NameTime, ProfileDocument};
use opguard_testdata::kineto_writer::KinetoTrace;

use crate::support::*;

const HOST: (i64, i64) = (10, 10);
const GEMM: &str = "void gemm_kernel<128, 4>(float const*, float*)";
const TRITON: &str = "triton_poi_fused_add_0";
const HTOD: &str = "Memcpy HtoD (Pageable -> Device)";
const MEMSET: &str = "Memset (Device)";
/// A copy the runtime reported in the `kernel` category: only its name says
/// what it is.
const DTOD_AS_KERNEL: &str = "Memcpy DtoD (Device -> Device)";
const ORPHAN: &str = "void orphan_kernel<2>(int)";

fn read(t: &KinetoTrace, top: usize) -> ProfileDocument {
    let c = Capture::new();
    let file = c.trace("profile.json.gz", t);
    profile(c.path(&file), top).expect("profile")
}

/// (name, calls, device time) of a host list or an aggregate's kernels.
fn name_times(list: &[NameTime]) -> Vec<(&str, u64, i64)> {
    list.iter()
        .map(|n| (n.name.as_str(), n.calls, n.device_ns))
        .collect()
}

/// One of every kind of row the contract distinguishes.
fn every_kind() -> KinetoTrace {
    let mut t = KinetoTrace::new();
    // aten::mm launches GEMM twice (6 µs + 4 µs): both rows carry External
    // id 1 and a launch correlation.
    t.cpu_op(HOST, "aten::mm", 0, 20_000, Some(1));
    t.launch(HOST, "cudaLaunchKernel", 1_000, 300, 100, Some(1))
        .kernel(0, 7, GEMM, 100_000, 6_000);
    t.launch(HOST, "cudaLaunchKernel", 2_000, 300, 101, Some(1))
        .kernel(0, 7, GEMM, 110_000, 4_000);
    // A Triton launch: correlation only, no External id.
    t.launch(HOST, "cuLaunchKernel", 30_000, 300, 102, None)
        .kernel(0, 7, TRITON, 120_000, 7_000);
    // A copy and a set, each issued by a runtime call (correlated).
    t.runtime(HOST, "cudaMemcpyAsync", 40_000, 300, Some(103), None);
    t.device_activity(
        "gpu_memcpy",
        (0, 7),
        HTOD,
        130_000,
        3_000,
        (Some(103), None),
    );
    t.runtime(HOST, "cudaMemsetAsync", 41_000, 300, Some(104), None);
    t.device_activity(
        "gpu_memset",
        (0, 7),
        MEMSET,
        134_000,
        3_000,
        (Some(104), None),
    );
    // A copy in the kernel category, with no edge.
    t.kernel(0, 7, DTOD_AS_KERNEL, 140_000, 2_500, None, None);
    // Device activity of no kernel category that a runtime call launched.
    t.runtime(HOST, "cudaLaunchKernel", 50_000, 300, Some(105), None);
    t.device_activity(
        "mtia_ccp_events",
        (0, 7),
        "dma_launch",
        150_000,
        2_000,
        (Some(105), None),
    );
    // The same category with no launch.
    t.device_activity(
        "mtia_ccp_events",
        (0, 7),
        "dma_request",
        160_000,
        1_500,
        (None, None),
    );
    // A kernel nobody is seen launching, and one whose name certifies
    // nothing.
    t.kernel(0, 7, ORPHAN, 170_000, 1_200, None, None);
    t.kernel(0, 7, "k", 180_000, 1_000, None, None);
    t
}

#[test]
fn each_row_states_its_kind_the_basis_and_the_edges_it_rests_on() {
    let doc = read(&every_kind(), 20);
    // 2 GEMM rows + 8 single rows.
    assert_eq!(doc.device_rows, 10);
    assert_eq!(
        doc.device_time_ns,
        6_000 + 4_000 + 7_000 + 3_000 + 3_000 + 2_500 + 2_000 + 1_500 + 1_200 + 1_000
    );
    assert_eq!(doc.distinct_entities, 9);
    // (rank, name, kind, basis, category, total, calls, launch edges,
    //  External-id edges, rows without edges). Order: device time, then
    // name (the copy "Memcpy HtoD" before the set "Memset" at 3 µs each).
    type Row<'a> = (
        usize,
        &'a str,
        EntityKind,
        &'a str,
        &'a str,
        i64,
        u64,
        u64,
        u64,
        u64,
    );
    let want: Vec<Row> = vec![
        (
            1,
            GEMM,
            EntityKind::GpuKernel,
            "kernel_category",
            "kernel",
            10_000,
            2,
            2,
            2,
            0,
        ),
        (
            2,
            TRITON,
            EntityKind::GpuKernel,
            "kernel_category",
            "kernel",
            7_000,
            1,
            1,
            0,
            0,
        ),
        (
            3,
            HTOD,
            EntityKind::MemoryOp,
            "memory_category",
            "gpu_memcpy",
            3_000,
            1,
            1,
            0,
            0,
        ),
        (
            4,
            MEMSET,
            EntityKind::MemoryOp,
            "memory_category",
            "gpu_memset",
            3_000,
            1,
            1,
            0,
            0,
        ),
        (
            5,
            DTOD_AS_KERNEL,
            EntityKind::MemoryOp,
            "memory_name",
            "kernel",
            2_500,
            1,
            0,
            0,
            1,
        ),
        (
            6,
            "dma_launch",
            EntityKind::GpuKernel,
            "kernel_category",
            "mtia_ccp_events",
            2_000,
            1,
            1,
            0,
            0,
        ),
        (
            7,
            "dma_request",
            EntityKind::MemoryOp,
            "memory_category",
            "mtia_ccp_events",
            1_500,
            1,
            0,
            0,
            1,
        ),
        (
            8,
            ORPHAN,
            EntityKind::GpuKernel,
            "kernel_category",
            "kernel",
            1_200,
            1,
            0,
            0,
            1,
        ),
        (
            9,
            "k",
            EntityKind::Unresolved,
            "degenerate_name",
            "kernel",
            1_000,
            1,
            0,
            0,
            1,
        ),
    ];
    let got: Vec<Row> = doc
        .rows
        .iter()
        .map(|r| {
            let e = &r.evidence;
            (
                r.rank,
                r.name.as_str(),
                r.entity_kind,
                e.basis,
                e.category.as_str(),
                r.total_device_ns,
                r.calls,
                e.launch_correlation_edges,
                e.external_id_edges,
                e.rows_without_edges,
            )
        })
        .collect();
    assert_eq!(got, want);

    // Only GEMM has a host op behind it: aten::mm, both rows, 10 µs.
    let gemm = &doc.rows[0].evidence;
    let ops = name_times(&gemm.dispatcher_ops);
    assert_eq!(ops, [("aten::mm", 2, 10_000)]);
    assert!(gemm.python_launchers.is_empty());
    assert!(doc.rows[1..]
        .iter()
        .all(|r| r.evidence.dispatcher_ops.is_empty() && r.evidence.python_launchers.is_empty()));

    // aten::mm (10 µs) ties the GEMM row: it would rank first (no row is
    // strictly above it) and stands for GEMM's two rows.
    assert_eq!(doc.expanded_aggregates.len(), 1);
    let mm = &doc.expanded_aggregates[0];
    assert_eq!(
        (
            mm.name.as_str(),
            mm.entity_kind,
            mm.total_device_ns,
            mm.would_rank
        ),
        ("aten::mm", EntityKind::DispatcherOp, 10_000, 1)
    );
    let kernels = name_times(&mm.kernels);
    assert_eq!(kernels, [(GEMM, 2, 10_000)]);

    // Kind counts over the rows: GEMM, TRITON, dma_launch, ORPHAN are
    // kernels; HtoD, Memset, DtoD and MTIA's dma_request are memory; k is
    // unresolved.
    let counts: Vec<(EntityKind, usize)> = doc.entity_kinds.iter().map(|(k, n)| (*k, *n)).collect();
    assert_eq!(
        counts,
        [
            (EntityKind::GpuKernel, 4),
            (EntityKind::MemoryOp, 4),
            (EntityKind::Unresolved, 1)
        ]
    );
    // The document's JSON spells the kinds as the contract does.
    let json = serde_json::to_value(&doc).unwrap();
    let kinds: Vec<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["entity_kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "gpu_kernel",
            "gpu_kernel",
            "memory_op",
            "memory_op",
            "memory_op",
            "gpu_kernel",
            "memory_op",
            "gpu_kernel",
            "unresolved"
        ]
    );
}

#[test]
fn entity_kind_names_are_the_contract_names() {
    let all = [
        (EntityKind::GpuKernel, "gpu_kernel"),
        (EntityKind::MemoryOp, "memory_op"),
        (EntityKind::DispatcherOp, "dispatcher_op"),
        (EntityKind::PythonLauncher, "python_launcher"),
        (EntityKind::Unresolved, "unresolved"),
    ];
    for (kind, name) in all {
        assert_eq!(kind.as_str(), name);
        // as_str and the serialized form never disagree.
        assert_eq!(serde_json::to_value(kind).unwrap(), name);
    }
}

#[test]
fn rows_sharing_name_and_time_are_ordered_by_class() {
    // Eight groups; in each, one name appears as a kernel, a copy and a
    // set, all of the same duration. Groups differ in duration, so group g
    // ranks above group g-1.
    let mut t = KinetoTrace::new();
    let mut at = 0;
    for g in 0..8i64 {
        let name = format!("fused_tile_{g}");
        let dur = 1_000 * (g + 1);
        for cat in ["gpu_memset", "gpu_memcpy", "kernel"] {
            t.device_activity(cat, (0, 7), &name, at, dur, (None, None));
            at += 10_000;
        }
    }
    let doc = read(&t, 100);
    // Class order: kernel, copy, set.
    let mut want: Vec<(String, &str)> = Vec::new();
    for g in (0..8).rev() {
        for cat in ["kernel", "gpu_memcpy", "gpu_memset"] {
            want.push((format!("fused_tile_{g}"), cat));
        }
    }
    let got: Vec<(String, &str)> = doc
        .rows
        .iter()
        .map(|r| (r.name.clone(), r.evidence.category.as_str()))
        .collect();
    assert_eq!(got, want);
    let ranks: Vec<usize> = doc.rows.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, (1..=24).collect::<Vec<_>>());
}

#[test]
fn host_lists_and_expanded_kernels_are_ordered_by_device_time_then_name() {
    let mut t = KinetoTrace::new();
    let mut corr = 100;
    let mut dev = 1_000_000;
    let mut launch = |t: &mut KinetoTrace, at: i64, ext: i64, kernel: &str, dur: i64| {
        corr += 1;
        t.launch(HOST, "cudaLaunchKernel", at, 100, corr, Some(ext))
            .kernel(0, 7, kernel, dev, dur);
        dev += 100_000;
    };
    // aten::bmm (External id 1) launches six kernels; bmm_kernel_0 twice.
    t.cpu_op(HOST, "aten::bmm", 0, 50_000, Some(1));
    let bmm = [
        ("bmm_kernel_0", 2_500),
        ("bmm_kernel_0", 2_500),
        ("bmm_kernel_1", 3_000),
        ("bmm_kernel_2", 3_000),
        ("bmm_kernel_3", 4_000),
        ("bmm_kernel_4", 1_000),
        ("bmm_kernel_5", 2_000),
    ];
    for (i, (k, dur)) in bmm.iter().enumerate() {
        launch(&mut t, 1_000 + i as i64 * 1_000, 1, k, *dur);
    }
    // One kernel launched once under each of four ops.
    let shared = "void shared_kernel<1>(float*)";
    for (i, (op, dur)) in [
        ("aten::add", 700),
        ("aten::mul", 900),
        ("aten::sub", 900),
        ("aten::div", 300),
    ]
    .iter()
    .enumerate()
    {
        let ext = 2 + i as i64;
        let at = 100_000 + i as i64 * 10_000;
        t.cpu_op(HOST, op, at, 5_000, Some(ext));
        launch(&mut t, at + 1_000, ext, shared, *dur);
    }
    let doc = read(&t, 100);

    let bmm_agg = doc
        .expanded_aggregates
        .iter()
        .find(|a| a.name == "aten::bmm")
        .expect("aten::bmm (18 µs) is expanded");
    assert_eq!(
        bmm_agg.total_device_ns,
        2 * 2_500 + 2 * 3_000 + 4_000 + 1_000 + 2_000
    );
    let kernels = name_times(&bmm_agg.kernels);
    assert_eq!(
        kernels,
        [
            ("bmm_kernel_0", 2, 5_000),
            ("bmm_kernel_3", 1, 4_000),
            ("bmm_kernel_1", 1, 3_000),
            ("bmm_kernel_2", 1, 3_000),
            ("bmm_kernel_5", 1, 2_000),
            ("bmm_kernel_4", 1, 1_000),
        ]
    );

    let row = doc
        .rows
        .iter()
        .find(|r| r.name == shared)
        .expect("the shared kernel is a row");
    assert_eq!((row.calls, row.total_device_ns), (4, 2_800));
    let ops = name_times(&row.evidence.dispatcher_ops);
    assert_eq!(
        ops,
        [
            ("aten::mul", 1, 900),
            ("aten::sub", 1, 900),
            ("aten::add", 1, 700),
            ("aten::div", 1, 300),
        ]
    );
}

#[test]
fn a_dispatcher_op_ranks_before_a_launcher_annotation_of_the_same_name_and_time() {
    // Eight pairs: an operator and an annotation named alike, each
    // launching its own kernel of the same duration.
    let mut t = KinetoTrace::new();
    let mut corr = 100;
    for g in 0..8i64 {
        let name = format!("block_{g}");
        let dur = 10_000 * (g + 1);
        let at = g * 100_000;
        for (j, annotation) in [false, true].into_iter().enumerate() {
            let ext = 2 * g + 1 + j as i64;
            let start = at + j as i64 * 40_000;
            if annotation {
                t.user_annotation(HOST, &name, start, 20_000, Some(ext));
            } else {
                t.cpu_op(HOST, &name, start, 20_000, Some(ext));
            }
            corr += 1;
            let kernel = format!("{}_kernel_{g}", if annotation { "ann" } else { "op" });
            t.launch(
                HOST,
                "cudaLaunchKernel",
                start + 1_000,
                100,
                corr,
                Some(ext),
            )
            .kernel(0, 7, &kernel, 10_000_000 + corr * 100_000, dur);
        }
    }
    let doc = read(&t, 100);
    let got: Vec<(&str, EntityKind)> = doc
        .expanded_aggregates
        .iter()
        .map(|a| (a.name.as_str(), a.entity_kind))
        .collect();
    let names: Vec<String> = (0..8).rev().map(|g| format!("block_{g}")).collect();
    let want: Vec<(&str, EntityKind)> = names
        .iter()
        .flat_map(|n| {
            [
                (n.as_str(), EntityKind::DispatcherOp),
                (n.as_str(), EntityKind::PythonLauncher),
            ]
        })
        .collect();
    assert_eq!(got, want);
    // Group g (from the top, k = 7 - g) has 2k rows and 2k aggregates above
    // it: its operator would rank 4k + 1, its annotation 4k + 2.
    let ranks: Vec<usize> = doc
        .expanded_aggregates
        .iter()
        .map(|a| a.would_rank)
        .collect();
    let want_ranks: Vec<usize> = (0..8).flat_map(|k| [4 * k + 1, 4 * k + 2]).collect();
    assert_eq!(ranks, want_ranks);
}

#[test]
fn an_aggregate_tied_with_a_row_ranks_after_it_and_rank_top_is_kept() {
    // A Triton kernel of 9 µs (no host op), and aten::relu standing for one
    // 8 µs kernel: the aggregate ties its own kernel's row.
    let relu = "void relu_kernel<4>(float*)";
    let mut t = KinetoTrace::new();
    t.launch(HOST, "cuLaunchKernel", 0, 100, 1, None).kernel(
        0,
        7,
        "triton_red_fused_sum_0",
        100_000,
        9_000,
    );
    t.cpu_op(HOST, "aten::relu", 10_000, 5_000, Some(1));
    t.launch(HOST, "cudaLaunchKernel", 11_000, 100, 2, Some(1))
        .kernel(0, 7, relu, 120_000, 8_000);

    let rank_of_relu = |top: usize| -> Option<usize> {
        let doc = read(&t, top);
        assert_eq!(doc.rows.len(), top.min(2));
        doc.expanded_aggregates
            .iter()
            .find(|a| a.name == "aten::relu")
            .map(|a| a.would_rank)
    };
    // Only the 9 µs row is strictly above it: it would rank 2nd.
    assert_eq!(rank_of_relu(3), Some(2));
    // At top 2 it is still in (rank 2 of 2) ...
    assert_eq!(rank_of_relu(2), Some(2));
    // ... at top 1 it is not.
    assert_eq!(rank_of_relu(1), None);
}
