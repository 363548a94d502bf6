//! Seed 002 and 003 acceptance: correlation and timing never cross an
//! artifact, and frame identity separates occurrence from meaning.

use opguard_model::analysis::{aggregate, launch_region, LaunchRegion};
use opguard_model::{
    ArtifactSpec, FrameIdentity, LaunchProof, ModelOptions, Provider, TraceModel, Unproven,
};
use opguard_testdata::kineto_writer::KinetoTrace;

fn model(trace: &KinetoTrace, spec: ArtifactSpec) -> TraceModel {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json.gz");
    std::fs::write(&path, trace.to_gzip().unwrap()).unwrap();
    opguard_trace::read_model(
        &path,
        spec,
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap()
}

fn region(trace: &KinetoTrace) -> LaunchRegion {
    launch_region(&model(trace, ArtifactSpec::new()), 10)
}

/// Seed 002's trace A: a runtime launch with correlation 7 and no kernel.
fn trace_a() -> KinetoTrace {
    let mut a = KinetoTrace::new();
    a.runtime((1, 1), "cudaLaunchKernel", 1000, 10, Some(7), None);
    a
}

/// Seed 002's trace B: a kernel with correlation 7 and no launch.
fn trace_b() -> KinetoTrace {
    let mut b = KinetoTrace::new();
    b.kernel(1, 9, "projection_kernel", 0, 5, Some(7), None);
    b
}

#[test]
fn the_a_runtime_b_kernel_counterexample_correlates_nothing() {
    let (a, b) = (region(&trace_a()), region(&trace_b()));
    assert_eq!(a.correlated_kernel_count + b.correlated_kernel_count, 0);
    assert!(!b.coverage.host_to_device_correlation_proven);
    // The ids are present; the correlation is not proven.
    assert!(b.coverage.correlation_ids_present);
    let total = aggregate(&[a, b]).unwrap();
    assert_eq!(total.correlated_kernel_count, 0);
    assert_eq!(total.kernel_count, 1);
    assert_eq!(total.direct_launch_count, 1);
}

#[test]
fn one_valid_same_session_correlation_is_proven() {
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 1000, 10, 7, None)
        .kernel(1, 9, "projection_kernel", 1020, 5);
    let r = region(&t);
    assert_eq!(r.correlated_kernel_count, 1);
    assert!(r.coverage.host_to_device_correlation_proven);
    assert_eq!(r.coverage.flow_correlated_kernel_count, 1);
    assert_eq!(r.coverage.disagreement, None);
}

/// Seed 002 in one merged file: two host processes launch (a merge of
/// ranks). Correlation ids are unique per process only, and nothing in a
/// Kineto device row says which process it belongs to, so no kernel is
/// proven: not the one whose id both processes used, and not the one whose
/// id survives in one process's launch rows only.
#[test]
fn in_a_file_with_two_launching_processes_no_kernel_is_proven_by_its_id() {
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 1000, 10, 7, None)
        .kernel(0, 7, "projection_kernel", 1020, 5);
    t.runtime((2, 2), "cudaLaunchKernel", 1100, 10, Some(7), None);
    t.launch((1, 1), "cudaLaunchKernel", 2000, 10, 8, None)
        .kernel(1, 7, "gemm_kernel", 2020, 5);
    let m = model(&t, ArtifactSpec::new());
    assert_eq!(m.launching_processes(), 2);
    let kernel = |name: &str| {
        m.slices()
            .iter()
            .position(|s| m.name(s.name) == name)
            .unwrap()
    };
    for name in ["projection_kernel", "gemm_kernel"] {
        assert_eq!(
            m.launch_proof(kernel(name)),
            LaunchProof::Unproven(Unproven::OwnerUnknown),
            "{name}"
        );
    }
    let r = launch_region(&m, 10);
    assert_eq!(r.kernel_count, 2);
    assert_eq!(r.correlated_kernel_count, 0);
    assert_eq!(r.coverage.owner_unknown_kernel_count, 2);
    assert_eq!(r.coverage.ambiguous_correlation_kernel_count, 0);
    assert!(r.coverage.correlation_ids_present);
    assert!(!r.coverage.host_to_device_correlation_proven);
    assert!(
        r.coverage
            .disagreement
            .as_deref()
            .is_some_and(|d| d.contains("present, not proven")),
        "{:?}",
        r.coverage.disagreement
    );
    assert_eq!(aggregate(&[r]).unwrap().correlated_kernel_count, 0);
}

/// A merge that prefixes ids per rank (seed 001's merged traces): no id is
/// carried by two processes' launch rows, so an id names its process, and
/// each kernel is proven by its own process's launch.
#[test]
fn in_a_merge_with_ids_prefixed_per_rank_each_kernel_has_its_process() {
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 1000, 10, 7, None)
        .kernel(0, 7, "projection_kernel", 1020, 5);
    t.launch((2, 2), "cudaLaunchKernel", 1100, 10, (1 << 40) + 7, None)
        .kernel(1, 7, "gemm_kernel", 1120, 5);
    let m = model(&t, ArtifactSpec::new());
    assert_eq!(m.launching_processes(), 2);
    let r = launch_region(&m, 10);
    assert_eq!((r.kernel_count, r.correlated_kernel_count), (2, 2));
    assert_eq!(r.coverage.owner_unknown_kernel_count, 0);
    let owners: Vec<String> = m
        .slices()
        .iter()
        .filter(|s| s.class.is_device())
        .map(|s| m.id_text(s.process.unwrap()))
        .collect();
    assert_eq!(owners, ["1", "2"]);
}

/// Inside one process, an id two launch rows carry proves nothing for its
/// kernels (ambiguous); an id one launch row carries proves its kernel.
#[test]
fn an_id_two_launches_of_one_process_carry_is_ambiguous() {
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 1000, 10, 7, None)
        .kernel(0, 7, "projection_kernel", 1020, 5);
    t.runtime((1, 2), "cudaLaunchKernel", 1100, 10, Some(7), None);
    t.launch((1, 1), "cudaLaunchKernel", 2000, 10, 8, None)
        .kernel(0, 7, "gemm_kernel", 2020, 5);
    let m = model(&t, ArtifactSpec::new());
    assert_eq!(m.launching_processes(), 1);
    let kernel = |name: &str| {
        m.slices()
            .iter()
            .position(|s| m.name(s.name) == name)
            .unwrap()
    };
    assert!(matches!(
        m.launch_proof(kernel("projection_kernel")),
        LaunchProof::Ambiguous(l) if l.len() == 2
    ));
    assert!(m.launch_proof(kernel("gemm_kernel")).launch().is_some());
    let r = launch_region(&m, 10);
    assert_eq!((r.kernel_count, r.correlated_kernel_count), (2, 1));
    assert_eq!(r.coverage.ambiguous_correlation_kernel_count, 1);
    assert_eq!(r.coverage.owner_unknown_kernel_count, 0);
    assert!(r.coverage.host_to_device_correlation_proven);
}

/// Seed 002: two processes whose kernels share a (device, stream) label in
/// one file are two streams: the idle between one process's kernels is not
/// filled by the other's.
#[test]
fn two_processes_kernels_on_one_stream_label_are_not_fused() {
    use opguard_model::{
        Format, IdValue, ModelBuilder, Provider, ReadSummary, Sha256Digest, SliceClass, SliceRecord,
    };
    let mut b = ModelBuilder::new(&ModelOptions::launches_only());
    let kernel = |index, process, ts_ns| SliceRecord {
        class: SliceClass::Kernel,
        name: "k",
        category: "kernel",
        pid: Some(IdValue::Int(0)),
        tid: Some(IdValue::Int(7)),
        process: Some(IdValue::Int(process)),
        device: Some(IdValue::Int(0)),
        stream: Some(IdValue::Int(7)),
        ts_ns,
        dur_ns: 10,
        ..SliceRecord::new(index)
    };
    // Process 1 runs at 0 and 100; process 2 at 50: fused, the stream
    // would show two 40 ns gaps instead of one 90 ns gap.
    b.push_slice(&kernel(0, 1, 0));
    b.push_slice(&kernel(1, 2, 50));
    b.push_slice(&kernel(2, 1, 100));
    let summary = ReadSummary::new(
        Sha256Digest::of(b"x"),
        Format::NsysSqlite,
        Provider::NsightSystems,
    );
    let r = launch_region(&b.finish(summary, ArtifactSpec::new()), 10);
    let mut streams: Vec<_> = r
        .streams
        .iter()
        .map(|s| (s.process.clone(), s.activities, s.idle_gap_total_ns))
        .collect();
    streams.sort();
    assert_eq!(
        streams,
        [(Some("1".into()), 2, 90), (Some("2".into()), 1, 0)]
    );
}

#[test]
fn independent_clocks_make_no_cross_file_region_or_gap() {
    let (a, b) = (region(&trace_a()), region(&trace_b()));
    assert_eq!(a.region_duration_ns, Some(10));
    assert_eq!(b.region_duration_ns, Some(5));
    assert_ne!(a.clock_domain, b.clock_domain);
    let total = aggregate(&[a, b]).unwrap();
    // Durations add; the 1,010 ns span between two clock origins is
    // nowhere, because the aggregate has no start or end.
    assert_eq!(total.summed_region_duration_ns, 15);
    let json = serde_json::to_value(&total).unwrap();
    for forbidden in ["region_start_ns", "region_end_ns", "region_duration_ns"] {
        assert!(json.get(forbidden).is_none(), "{forbidden}");
    }
    assert!(!json.to_string().contains("1010"));
}

#[test]
fn the_same_stream_labels_in_two_artifacts_are_two_streams() {
    let mut a = KinetoTrace::new();
    a.kernel(0, 7, "kernel_alpha_one", 0, 10, None, None);
    a.kernel(0, 7, "kernel_alpha_two", 100, 10, None, None);
    let mut b = KinetoTrace::new();
    b.kernel(0, 7, "kernel_beta_one", 40, 10, None, None);
    let (ra, rb) = (region(&a), region(&b));
    // One gap of 90 ns in A; B's kernel does not fill it or split it.
    assert_eq!(ra.idle_gap_total_ns, 90);
    assert_eq!(ra.streams.len(), 1);
    assert_eq!(rb.idle_gap_total_ns, 0);
    assert_eq!(aggregate(&[ra, rb]).unwrap().idle_gap_total_ns, 90);
}

#[test]
fn a_stream_is_busy_once_under_nested_activities_and_idle_only_between_them() {
    // [0, 100) holds [10, 20) inside it; [150, 160) follows a 50 ns gap.
    // Host launches 5 ns apart on one thread leave gaps of 0 (not counted)
    // and 20.
    let mut t = KinetoTrace::new();
    t.kernel(0, 7, "kernel_outer_long", 0, 100, None, None);
    t.kernel(0, 7, "kernel_nested_short", 10, 10, None, None);
    t.kernel(0, 7, "kernel_after_gap", 150, 10, None, None);
    t.runtime((1, 1), "cudaLaunchKernel", 0, 5, None, None);
    t.runtime((1, 1), "cudaLaunchKernel", 5, 5, None, None);
    t.runtime((1, 1), "cudaLaunchKernel", 30, 5, None, None);
    let r = region(&t);
    let s = &r.streams[0];
    assert_eq!((s.activities, s.busy_ns), (3, 110));
    assert_eq!(
        (s.idle_gap_count, s.idle_gap_total_ns, s.idle_gap_max_ns),
        (1, 50, 50)
    );
    let g = &r.launch_gaps[0];
    assert_eq!(
        (g.launches, g.gap_count, g.gap_total_ns, g.gap_max_ns),
        (3, 1, 20, 20)
    );
    assert_eq!((r.region_start_ns, r.region_end_ns), (Some(0), Some(160)));
}

#[test]
fn identical_content_in_two_files_is_still_two_namespaces() {
    // The second file carries the same kernel with the same correlation 7,
    // but its launch is in the first file: it stays unproven.
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 1000, 10, 7, None)
        .kernel(0, 7, "projection_kernel", 1020, 5);
    let first = model(&t, ArtifactSpec::new().stage("prefill"));
    let mut other = KinetoTrace::new();
    other.kernel(0, 7, "projection_kernel", 1020, 5, Some(7), None);
    let second = model(&other, ArtifactSpec::new().stage("prefill"));
    assert_eq!(launch_region(&first, 5).correlated_kernel_count, 1);
    assert_eq!(launch_region(&second, 5).correlated_kernel_count, 0);
}

#[test]
fn external_ids_are_qualified_by_the_host_process() {
    // Two host processes in one file reuse External id 5. The kernel's
    // External id resolves through its proven launch to pid 1 only.
    let mut t = KinetoTrace::new();
    t.cpu_op((1, 1), "aten::mm", 0, 100, Some(5));
    t.cpu_op((2, 2), "aten::add", 0, 100, Some(5));
    t.launch((1, 1), "cudaLaunchKernel", 10, 5, 70, Some(5))
        .kernel(0, 7, "gemm_kernel_one", 50, 5);
    let m = model(&t, ArtifactSpec::new());
    let kernel = m
        .slices()
        .iter()
        .position(|s| s.class == opguard_model::SliceClass::Kernel)
        .unwrap();
    let hosts: Vec<&str> = m
        .host_slices_for_external_id(kernel)
        .iter()
        .map(|&i| m.name(m.slices()[i].name))
        .collect();
    assert_eq!(hosts, ["aten::mm", "cudaLaunchKernel"]);
    // Without a proven launch and with two host processes, the External id
    // cannot be placed: no edge at all.
    let mut u = KinetoTrace::new();
    u.cpu_op((1, 1), "aten::mm", 0, 100, Some(5));
    u.cpu_op((2, 2), "aten::add", 0, 100, Some(5));
    u.kernel(0, 7, "gemm_kernel_one", 50, 5, None, Some(5));
    let m = model(&u, ArtifactSpec::new());
    let kernel = m.slices().len() - 1;
    assert!(m.external_id_key(kernel).is_none());
    assert!(m.host_slices_for_external_id(kernel).is_empty());
}

#[test]
fn prefill_and_decode_traces_stay_separate_regions() {
    let mut p = KinetoTrace::new();
    p.launch((1, 1), "cudaLaunchKernel", 0, 10, 1, None).kernel(
        0,
        7,
        "prefill_attention_kernel",
        20,
        100,
    );
    let mut d = KinetoTrace::new();
    d.launch((1, 1), "cudaLaunchKernel", 0, 10, 1, None).kernel(
        0,
        7,
        "decode_attention_kernel",
        20,
        5,
    );
    let rp = launch_region(
        &model(
            &p,
            ArtifactSpec::new()
                .role("inference_profile")
                .stage("prefill"),
        ),
        5,
    );
    let rd = launch_region(
        &model(
            &d,
            ArtifactSpec::new()
                .role("inference_profile")
                .stage("decode"),
        ),
        5,
    );
    assert_eq!(rp.stage.as_deref(), Some("prefill"));
    assert_eq!(rd.stage.as_deref(), Some("decode"));
    assert_eq!(rp.kernel_duration_ns, 100);
    assert_eq!(rd.kernel_duration_ns, 5);
    assert_eq!(rp.top_kernels[0].short_name, "prefill_attention_kernel");
    let both = aggregate(&[rp, rd]).unwrap();
    assert_eq!(both.provenance.len(), 2);
    assert_eq!(both.correlated_kernel_count, 2);
}

#[test]
fn unknown_providers_cannot_claim_correlation() {
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 1000, 10, 7, None)
        .kernel(0, 7, "projection_kernel", 1020, 5);
    let m = model(&t, ArtifactSpec::new().provider(Provider::Unknown));
    let r = launch_region(&m, 5);
    assert_eq!(r.correlated_kernel_count, 0);
    assert!(r.coverage.correlation_ids_present);
    assert!(!r.coverage.host_to_device_correlation_proven);
    assert!(r
        .coverage
        .disagreement
        .unwrap()
        .contains("no qualified namespace"));
}

#[test]
fn a_graph_launch_correlates_with_many_kernels_and_new_apis_do_not_orphan() {
    let mut t = KinetoTrace::new();
    t.runtime((1, 1), "cudaGraphLaunch", 0, 50, Some(3), None);
    for i in 0..4 {
        t.kernel(0, 7, "graph_node_kernel", 100 + i * 10, 5, Some(3), None);
    }
    // An API the name list does not know still launches what correlates.
    t.runtime((1, 1), "cudaLaunchKernelExC_v11060", 60, 5, Some(4), None);
    t.kernel(0, 7, "new_api_kernel", 200, 5, Some(4), None);
    t.runtime((1, 1), "cudaStreamSynchronize", 70, 5, Some(5), None);
    let r = region(&t);
    assert_eq!(r.graph_launch_count, 1);
    assert_eq!(r.direct_launch_count, 1);
    assert_eq!(r.kernel_count, 5);
    assert_eq!(r.correlated_kernel_count, 5);
}

#[test]
fn one_operator_in_three_files_has_one_semantic_id_and_three_occurrences() {
    let models: Vec<TraceModel> = (1..=3)
        .map(|i| {
            let mut t = KinetoTrace::new();
            t.cpu_op((1, 1), "aten::reverse_scan", 1000 * i, 10 * i, Some(i));
            // Content differs, so the artifacts differ.
            t.cpu_op((1, 1), "aten::other", 5000, i, None);
            model(&t, ArtifactSpec::new())
        })
        .collect();
    let frames: Vec<_> = models
        .iter()
        .map(|m| {
            let s = &m.slices()[0];
            (m.semantic_frame(s).id.unwrap(), m.occurrence(s))
        })
        .collect();
    assert_eq!(frames[0].0, frames[1].0);
    assert_eq!(frames[1].0, frames[2].0);
    assert_ne!(frames[0].1, frames[1].1);
    assert_ne!(frames[1].1, frames[2].1);
    assert!(frames[0].0.as_str().starts_with("sf3:"));
}

#[test]
fn different_complete_template_arguments_never_share_a_semantic_id() {
    let mut t = KinetoTrace::new();
    let names = [
        "void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, std::array<char*, 2> >(int, at::native::AbsFunctor<float>, std::array<char*, 2>)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::NegFunctor<float>, std::array<char*, 2> >(int, at::native::NegFunctor<float>, std::array<char*, 2>)",
        "void at::native::vectorized_elementwise_kernel<2, at::native::AbsFunctor<float>, std::array<char*, 2> >(int, at::native::AbsFunctor<float>, std::array<char*, 2>)",
    ];
    for (i, n) in names.iter().enumerate() {
        t.kernel(0, 7, n, i as i64 * 10, 5, None, None);
    }
    let m = model(&t, ArtifactSpec::new());
    let ids: std::collections::HashSet<_> = m
        .slices()
        .iter()
        .map(|s| m.semantic_frame(s).id.unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
}

#[test]
fn partial_identities_are_marked_not_guessed() {
    let mut t = KinetoTrace::new();
    t.kernel(0, 7, "void", 0, 5, None, None);
    t.kernel(0, 7, "void gemm_kernel<128, 4, ...", 10, 5, None, None);
    t.cpu_op((1, 1), "", 0, 5, None);
    let m = model(&t, ArtifactSpec::new());
    for s in m.slices() {
        let f = m.semantic_frame(s);
        assert!(f.id.is_none(), "{f:?}");
        assert!(matches!(f.identity, FrameIdentity::Partial(_)), "{f:?}");
    }
}

/// For every real trace: the correlated-kernel count equals an independent
/// count (kernel rows whose correlation has a runtime call in the same file),
/// and the ac2g cross-check is reported where the two disagree.
#[test]
fn real_traces_correlate_only_what_an_independent_count_finds() {
    use std::io::Read;
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for path in traces {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let m = opguard_trace::read_model(
            &path,
            ArtifactSpec::new(),
            &ModelOptions::launches_only(),
            &opguard_trace::ReaderOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = launch_region(&m, 5);
        // Independent oracle with serde_json.
        let mut raw = Vec::new();
        let file = std::fs::File::open(&path).unwrap();
        if name.ends_with(".gz") {
            flate2::read::MultiGzDecoder::new(file)
                .read_to_end(&mut raw)
                .unwrap();
        } else {
            std::io::BufReader::new(file).read_to_end(&mut raw).unwrap();
        }
        let doc: serde_json::Value = serde_json::from_slice(&raw).unwrap();
        let events = doc["traceEvents"].as_array().unwrap();
        // Older Kineto wrote `Runtime` and `Kernel` (trace_file_list).
        let runtime = [
            "cuda_runtime",
            "cuda_driver",
            "hip_runtime",
            "mtia_runtime",
            "Runtime",
        ];
        let mut host: std::collections::HashMap<String, u64> = Default::default();
        for e in events
            .iter()
            .filter(|e| e["ph"] == "X" && runtime.contains(&e["cat"].as_str().unwrap_or("")))
        {
            if let Some(c) = e["args"].get("correlation") {
                *host.entry(c.to_string()).or_default() += 1;
            }
        }
        // Launches per kernel: exactly one proves it, several prove nothing.
        // MTIA's command-processor events are compute jobs, except its DMA
        // transfers.
        let kernel = |e: &serde_json::Value| {
            e["cat"] == "kernel"
                || e["cat"] == "Kernel"
                || (e["cat"] == "mtia_ccp_events" && e["name"] != "dma_request")
        };
        let launches: Vec<u64> = events
            .iter()
            .filter(|e| e["ph"] == "X" && kernel(e))
            .filter_map(|e| e["args"].get("correlation"))
            .map(|c| host.get(&c.to_string()).copied().unwrap_or(0))
            .collect();
        let expected = launches.iter().filter(|&&n| n == 1).count() as u64;
        let ambiguous = launches.iter().filter(|&&n| n > 1).count() as u64;
        if m.artifact().provider.is_kineto() {
            assert_eq!(r.correlated_kernel_count, expected, "{name}");
            assert_eq!(
                r.coverage.ambiguous_correlation_kernel_count, ambiguous,
                "{name}"
            );
        } else {
            assert_eq!(
                r.correlated_kernel_count, 0,
                "{name}: unknown provider claims nothing"
            );
        }
        eprintln!(
            "{name}: provider={} kernels={} correlated={} ambiguous={} flow_correlated={} disagreement={:?}",
            m.artifact().provider.as_str(),
            r.kernel_count,
            r.correlated_kernel_count,
            r.coverage.ambiguous_correlation_kernel_count,
            r.coverage.flow_correlated_kernel_count,
            r.coverage.disagreement
        );
    }
}

#[test]
fn trace_info_warns_about_valid_but_odd_input() {
    use opguard_trace::trace_info;
    let doc = br#"{"traceEvents":[
        {"ph":"M","name":"process_name","pid":1,"ts":0},
        {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":10,"dur":-2},
        {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":5,"dur":1},
        {"ph":"f","cat":"ac2g","id":9,"pid":0,"tid":7,"ts":6,"bp":"e"},
        {"ph":"s","cat":"ac2g","id":8,"pid":1,"tid":1,"ts":6},
        {"ph":"f","cat":"ac2g","id":8,"pid":0,"tid":7,"ts":7,"bp":"e"}
    ]}"#;
    let reader = opguard_trace::TraceReader::new(&doc[..]).unwrap();
    let info = trace_info(reader, &mut |_| {}).unwrap();
    let codes: Vec<(&str, u64, Option<u64>)> = info
        .warnings
        .iter()
        .map(|w| (w.code, w.count, w.first_event_index))
        .collect();
    assert_eq!(
        codes,
        [
            ("negative_duration", 1, Some(1)),
            ("flow_end_without_start", 1, Some(3)),
            ("timestamps_out_of_order", 1, Some(2)),
        ]
    );
    let span = info.time_span.unwrap();
    // The metadata event's ts 0 is a convention, not a time (issue 15 defect 9).
    assert_eq!((span.start_ns, span.end_ns), (5_000, 8_000));
    assert_eq!(info.counts[0].count, 2);
    assert_eq!(info.provider, Provider::KinetoOther);
}

#[test]
fn a_kernel_spelled_two_ways_and_a_cpu_only_trial_keep_one_semantic_id() {
    // The same kernel, demangled in one file and with extra whitespace in
    // another; and the same operator in a CPU-only file (kineto_other).
    let mut cuda = KinetoTrace::new();
    cuda.cpu_op((1, 1), "aten::mm", 0, 10, None);
    cuda.launch((1, 1), "cudaLaunchKernel", 1, 2, 5, None)
        .kernel(0, 7, "void gemm_kernel<128, 4>(float*, int)", 5, 5);
    let mut other = KinetoTrace::new();
    other.kernel(
        0,
        7,
        "void  gemm_kernel<128,4>(float *, int)",
        5,
        5,
        None,
        None,
    );
    let mut cpu = KinetoTrace::new();
    cpu.cpu_op((1, 1), "aten::mm", 0, 10, None);
    let (a, b, c) = (
        model(&cuda, ArtifactSpec::new()),
        model(&other, ArtifactSpec::new()),
        model(&cpu, ArtifactSpec::new()),
    );
    assert_eq!(a.artifact().provider, Provider::KinetoCuda);
    assert_eq!(c.artifact().provider, Provider::KinetoOther);
    let id = |m: &TraceModel, class| {
        let s = m.slices().iter().find(|s| s.class == class).unwrap();
        m.semantic_frame(s).id.unwrap()
    };
    use opguard_model::SliceClass;
    assert_eq!(id(&a, SliceClass::Kernel), id(&b, SliceClass::Kernel));
    assert_eq!(id(&a, SliceClass::CpuOp), id(&c, SliceClass::CpuOp));
    assert_ne!(id(&a, SliceClass::CpuOp), id(&a, SliceClass::Kernel));
}

#[test]
fn extreme_and_negative_times_saturate_and_are_counted_never_wrap() {
    // Seed-free hostile input from the fuzzer: durations at the i64 limit and
    // launches at both ends of the range, plus a kernel ending before it
    // starts. Debug builds used to panic on overflow; release ones wrapped.
    let max = i64::MAX;
    let mut t = KinetoTrace::new();
    t.kernel(0, 7, "huge_kernel_one", 0, max, None, None);
    t.kernel(0, 7, "huge_kernel_two", 1, max, None, None);
    t.runtime((1, 1), "cudaLaunchKernel", i64::MIN + 1, 1, Some(1), None);
    t.runtime((1, 1), "cudaLaunchKernel", max - 1, 1, Some(2), None);
    t.kernel(0, 8, "backwards_kernel", 100, -50, None, None);
    let r = region(&t);
    assert_eq!(r.kernel_duration_ns, max);
    assert_eq!(r.region_duration_ns, Some(max));
    assert_eq!(r.coverage.negative_duration_slices, 1);
    assert!(r.launch_gaps[0].gap_total_ns >= 0);
    let mut other = r.clone();
    other.artifact = opguard_model::Sha256Digest::of(b"another capture");
    let total = aggregate(&[r, other]).unwrap();
    assert_eq!(total.kernel_duration_ns, max);
    assert_eq!(total.summed_region_duration_ns, max);
}

/// The launch region of some records (one step's, as `opguard-compare`
/// asks for) is the region of those records alone: over every record it is
/// the whole region but for the artifact-wide `ac2g` cross-check, and two
/// disjoint halves split the launches and kernels between them.
#[test]
fn a_region_of_some_records_is_theirs_alone() {
    use opguard_model::analysis::launch_region_of;
    let Some(path) = opguard_testdata::shared_file("traces/hta/trace_compare__base__base.json.gz")
    else {
        return;
    };
    let m = opguard_trace::read_model(
        &path,
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap();
    let all: Vec<usize> = (0..m.slices().len()).collect();
    let mut whole = launch_region(&m, 10);
    let of_all = launch_region_of(&m, &all, 10);
    assert_eq!(of_all.coverage.flow_correlated_kernel_count, 0);
    whole.coverage.flow_correlated_kernel_count = 0;
    whole.coverage.disagreement = None;
    assert_eq!(of_all, whole);
    let (first, second) = all.split_at(all.len() / 2);
    let (a, b) = (
        launch_region_of(&m, first, 10),
        launch_region_of(&m, second, 10),
    );
    assert!(a.kernel_count > 0 && b.kernel_count > 0);
    assert_eq!(a.kernel_count + b.kernel_count, whole.kernel_count);
    assert_eq!(
        a.direct_launch_count + b.direct_launch_count,
        whole.direct_launch_count
    );
    assert!(a.device_busy_ns + b.device_busy_ns >= whole.device_busy_ns);
    // Positions out of range and repeated ones are ignored.
    let odd = [0, 0, usize::MAX];
    assert_eq!(
        launch_region_of(&m, &odd, 10),
        launch_region_of(&m, &[0], 10)
    );
}
