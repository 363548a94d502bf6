//! opguard-census: census plus digest of a generated 100,000-operator capture.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-census cargo bench -p opguard-benches --bench census
//! python3 benches/peers/census_reference.py            # the same computation in Python
//! ```
//!
//! The generated capture is written to `$OPGUARD_CENSUS_BENCH_DIR` (default: the
//! system temp dir) as `census-bench-100k.capture.json`, with this crate's census of
//! it beside it as `census-bench-100k.census.json`, so the Python peer measures the
//! same bytes and checks that it computes the same digest and counts.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opguard_census::{Capture, Census, FamilyTable, WidthComparison};
use serde_json::{json, Value};

const OPS: usize = 100_000;

/// A deterministic decoder-like step: layers of attention, MLP and norm operators,
/// the step symbol in most shapes, some `s + 1` / `k*s` expressions, a second
/// symbol for the KV length, profiler markers and host resolutions.
fn generate(width: i64, sym: &str) -> Value {
    let kv = "s1";
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let hidden = [4096i64, 5120, 6144, 8192];
    let mut ops = Vec::with_capacity(OPS);
    while ops.len() < OPS {
        let h = hidden[(next() % 4) as usize];
        let f = h * 4;
        let layer = [
            json!({"name": "profiler._record_function_enter_new.default", "shapes": []}),
            json!({"name": "aten.pow.Tensor_Scalar", "shapes": [[sym, h], [sym, h]]}),
            json!({"name": "aten.mean.dim", "shapes": [[sym, h], [sym, 1]]}),
            json!({"name": "aten.rsqrt.default", "shapes": [[sym, 1], [sym, 1]]}),
            json!({"name": "aten.mul.Tensor", "shapes": [[sym, h], [h], [sym, h]]}),
            json!({"name": "aiter.gemm_a16w16.default", "shapes": [[sym, h], [3 * h, h], [sym, 3 * h]]}),
            json!({"name": "aten.view.default", "shapes": [[sym, 3 * h], [sym, 3, 32, h / 32]]}),
            json!({"name": "aten.slice.Tensor", "shapes": [[sym, 3, 32, h / 32], [sym, 1, 32, h / 32]]}),
            json!({"name": "aten.cat.default", "shapes": [[sym, 32, kv, 128], [sym, 32, 1, 128], [sym, 32, format!("{kv} + 1"), 128]]}),
            json!({"name": "aten._scaled_dot_product_flash_attention_for_cpu.default",
                   "shapes": [[sym, 32, 1, 128], [sym, 32, format!("{kv} + 1"), 128], [sym, 32, format!("{kv} + 1"), 128], [sym, 32, 1, 128], [sym, 32, 1]]}),
            json!({"name": "aten.view.default", "shapes": [[sym, 32, 1, 128], [format!("32*{sym}"), 128]]}),
            json!({"name": "aiter.gemm_a16w16.default", "shapes": [[sym, h], [h, h], [sym, h]]}),
            json!({"name": "aten.add.Tensor", "shapes": [[sym, h], [sym, h], [sym, h]]}),
            json!({"name": "aiter.gemm_a16w16.default", "shapes": [[sym, h], [2 * f, h], [sym, 2 * f]]}),
            json!({"name": "aiter.silu_and_mul.default", "shapes": [[sym, 2 * f], [sym, f]]}),
            json!({"name": "aiter.gemm_a16w16.default", "shapes": [[sym, f], [h, f], [sym, h]]}),
            json!({"name": "aten.add.Tensor", "shapes": [[sym, h], [sym, h], [sym, h]]}),
            json!({"name": "aten.empty.memory_format", "shapes": [[format!("{sym} + 1"), 513]]}),
            json!({"name": "aten.zeros.default", "shapes": [[format!("28*{sym}"), 16384]]}),
            json!({"name": "aten.select.int", "shapes": [[64, 64], [64]]}),
            json!({"name": "profiler._record_function_exit._RecordFunction", "shapes": []}),
        ];
        for op in layer {
            if ops.len() < OPS {
                ops.push(op);
            }
        }
    }
    let host: Vec<Value> = (0..1000)
        .map(|i| {
            json!({"frames": ["engine/runner.py:3254 in run_model",
                              format!("engine/staging.py:{} in prepare", 1100 + i % 16)],
                   "value": width})
        })
        .collect();
    json!({
        "format": "opguard.census/capture-v1",
        "label": format!("bench-100k-w{width}"),
        "step_axis": sym,
        "step_hint": width,
        "ops": ops,
        "guards": [format!("28*{sym} <= 8192"), format!("{sym} < 128"), format!("{sym} + 1 > {width}")],
        "replacements": {"s52": sym},
        "host_resolutions": host,
    })
}

fn out_dir() -> PathBuf {
    std::env::var_os("OPGUARD_CENSUS_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

fn census(c: &mut Criterion) {
    let narrow_json = serde_json::to_vec(&generate(2, "s0")).expect("serialise");
    let wide_json = serde_json::to_vec(&generate(8, "s41")).expect("serialise");
    let narrow = Capture::from_slice(&narrow_json).expect("generated capture parses");
    let wide = Capture::from_slice(&wide_json).expect("generated capture parses");
    let table = FamilyTable::default();

    // Hand the same bytes, and this crate's answer, to the Python peer.
    let dir = out_dir();
    let census = Census::compute(&narrow, &table);
    let _ = std::fs::write(dir.join("census-bench-100k.capture.json"), &narrow_json);
    let _ = std::fs::write(
        dir.join("census-bench-100k.census.json"),
        serde_json::to_vec_pretty(&census).expect("serialise"),
    );
    eprintln!(
        "census bench: {} ops, {} bytes, digest {}, written to {}",
        narrow.op_count(),
        narrow_json.len(),
        census.digest,
        dir.display()
    );

    let mut g = c.benchmark_group("census");
    g.throughput(Throughput::Elements(OPS as u64));
    g.sample_size(20);
    g.bench_function("census_and_digest_100k", |b| {
        b.iter(|| Census::compute(black_box(&narrow), black_box(&table)))
    });
    g.bench_function("parse_census_and_digest_100k", |b| {
        b.iter(|| {
            let cap = Capture::from_slice(black_box(&narrow_json)).expect("parses");
            Census::compute(&cap, &table)
        })
    });
    g.bench_function("two_width_comparison_100k", |b| {
        b.iter(|| WidthComparison::compare(black_box(&narrow), black_box(&wide), None))
    });
    g.finish();
}

criterion_group!(benches, census);
criterion_main!(benches);
