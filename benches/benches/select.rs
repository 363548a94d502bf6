//! The seam verdict against merely reading the same trace.
//!
//! `cargo bench -p opguard-benches --bench select`
//!
//! Input: the 87 MB (decoded) MTIA trace, with two of its existing
//! `user_annotation` markers as candidates: the optimizer step
//! `Optimizer.step#CombinedOptimizer.step` as the target and
//! `Optimizer.step#Adam.step` nested inside it. Goal: the whole verdict
//! (request, read, model, analysis) within 1.5x of reading the trace with
//! `TraceReader` alone. Throughput is decoded JSON bytes per second.

use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opguard_model::{ArtifactSpec, ModelOptions};
use opguard_select::{verdict_for_models, verdict_from_request_file, Request};
use opguard_trace::TraceReader;

/// The MTIA trace under `../shared/data`, if present (this bench depends on
/// nothing but the crates it measures).
fn mtia_trace() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/traces/hta/mtia_trace_single_rank__mtia_rank_0.json.gz");
    path.is_file().then_some(path)
}

/// Decoded (inflated) size of a gzip trace.
fn decoded_len(path: &Path) -> u64 {
    let raw = std::fs::read(path).expect("readable bench input");
    let mut sink = Vec::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_end(&mut sink)
        .expect("valid gzip bench input") as u64
}

/// Reads every event and nothing more.
fn read_only(path: &Path) -> u64 {
    let mut r = TraceReader::open(path).expect("open");
    while r.next_event().expect("event").is_some() {}
    r.finish().expect("finish").events
}

fn request_json(trace: &Path) -> String {
    serde_json::json!({
        "protocol_version": 1,
        "target": "torchrec.optim:CombinedOptimizer.step",
        "device_kernel": "aten::mul.out-dtype_Float",
        "capture_target": "torchrec.optim:CombinedOptimizer.step",
        "candidates": [
            {"spec": "torchrec.optim:CombinedOptimizer.step",
             "marker": "Optimizer.step#CombinedOptimizer.step"},
            {"spec": "torch.optim.adam:Adam.step", "marker": "Optimizer.step#Adam.step"}
        ],
        "processes": [{
            "name": "rank-0",
            "trace": trace.to_str().expect("utf-8 path"),
            "installed": ["torchrec.optim:CombinedOptimizer.step", "torch.optim.adam:Adam.step"]
        }]
    })
    .to_string()
}

fn bench(c: &mut Criterion) {
    let Some(path) = mtia_trace() else {
        eprintln!("skipping: the MTIA trace is not available");
        return;
    };
    let decoded = decoded_len(&path);
    let dir = std::env::temp_dir().join(format!("opguard-bench-select-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench temp dir");
    let request_path = dir.join("request.json");
    let json = request_json(&path);
    std::fs::write(&request_path, &json).expect("write request");

    // The verdict is real: the target runs, Adam.step nested in it launches.
    let v = verdict_from_request_file(&request_path).expect("verdict");
    assert!(v.matched_kernel_calls > 0 && !v.deeper_live_candidates.is_empty());

    let mut g = c.benchmark_group("select_mtia_87MB");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(decoded));
    g.bench_function("trace_reader_read_only", |b| {
        b.iter(|| black_box(read_only(&path)))
    });
    g.bench_function("trace_model_read", |b| {
        b.iter(|| {
            let m = opguard_formats::read(
                &path,
                ArtifactSpec::new(),
                &opguard_formats::ReadOptions::new(ModelOptions::new()),
            )
            .expect("model");
            black_box(m.slices().len())
        })
    });
    g.bench_function("verdict_from_request_file", |b| {
        b.iter(|| {
            black_box(
                verdict_from_request_file(&request_path)
                    .expect("verdict")
                    .ok,
            )
        })
    });
    g.finish();

    let model = opguard_formats::read(
        &path,
        ArtifactSpec::new(),
        &opguard_formats::ReadOptions::new(ModelOptions::new()),
    )
    .expect("model");
    let request = Request::from_json(json.as_bytes(), "bench request").expect("request");
    let mut g = c.benchmark_group("select_mtia_87MB_analysis");
    g.sample_size(20);
    g.bench_function("verdict_for_models", |b| {
        b.iter(|| {
            let v = verdict_for_models(request.clone(), &[Some(&model)]).expect("verdict");
            black_box(v.matched_kernel_calls)
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
