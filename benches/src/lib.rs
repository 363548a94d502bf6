//! Shared inputs for the opguard benchmarks: the real traces under
//! `../shared/data`, and large traces generated deterministically (cached
//! under the cargo target directory, never committed).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use opguard_trace::{OwnedEvent, RawJson, ScalarKey, TraceWriter};

/// The 87 MB (decoded) MTIA trace, if the shared data is present.
pub fn mtia_trace() -> Option<PathBuf> {
    opguard_testdata::shared_file("traces/hta/mtia_trace_single_rank__mtia_rank_0.json.gz")
}

/// Decoded bytes of a trace file (inflated when gzip).
pub fn decoded(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let raw = std::fs::read(path).expect("readable bench input");
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .expect("valid gzip bench input");
        out
    } else {
        raw
    }
}

fn cache_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("opguard-bench-data");
    std::fs::create_dir_all(&dir).expect("bench cache directory");
    dir
}

/// A Kineto-shaped gzip trace of about `approx_decoded_bytes`, generated
/// once and cached: host operators, launches with correlation and External
/// id, kernels with realistic template-heavy names, ac2g flows.
pub fn generated_trace(approx_decoded_bytes: u64) -> PathBuf {
    let path = cache_dir().join(format!(
        "generated_{}MB.json.gz",
        approx_decoded_bytes >> 20
    ));
    if path.exists() {
        return path;
    }
    let tmp = path.with_extension("partial");
    let file = BufWriter::new(File::create(&tmp).expect("create bench input"));
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let mut w = TraceWriter::new(gz).expect("writer");
    let kernels = [
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3>)",
        "ampere_sgemm_128x64_tn",
        "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
        "Cijk_Alik_Bljk_SB_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1",
    ];
    let ops = ["aten::linear", "aten::add", "aten::mm", "aten::softmax"];
    let mut written = 0u64;
    let mut i: i64 = 0;
    let num = |v: i64| Some(ScalarKey::Number(v.to_string()));
    while written < approx_decoded_bytes {
        let ts = i * 10_000;
        let args = |v: serde_json::Value| Some(RawJson::from_value(&v));
        let events = [
            OwnedEvent {
                ph: Some("X".into()),
                cat: Some("cpu_op".into()),
                name: Some(ops[i as usize % ops.len()].into()),
                pid: num(4242),
                tid: num(4242),
                ts_ns: Some(ts + 4_203_669_604_595_407),
                dur_ns: Some(8_123),
                args: args(
                    serde_json::json!({"External id": i, "Sequence number": i, "Fwd thread id": 0, "Input Dims": [[64, 1024], [1024, 1024]], "Input type": ["float", "float"]}),
                ),
                ..OwnedEvent::default()
            },
            OwnedEvent {
                ph: Some("X".into()),
                cat: Some("cuda_runtime".into()),
                name: Some("cudaLaunchKernel".into()),
                pid: num(4242),
                tid: num(4242),
                ts_ns: Some(ts + 4_203_669_604_597_001),
                dur_ns: Some(4_321),
                args: args(
                    serde_json::json!({"External id": i, "cbid": 211, "correlation": i + 1000}),
                ),
                ..OwnedEvent::default()
            },
            OwnedEvent {
                ph: Some("X".into()),
                cat: Some("kernel".into()),
                name: Some(kernels[i as usize % kernels.len()].into()),
                pid: num(0),
                tid: num(7),
                ts_ns: Some(ts + 4_203_669_604_603_333),
                dur_ns: Some(2_048),
                args: args(
                    serde_json::json!({"External id": i, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": i + 1000, "registers per thread": 32, "shared memory": 0, "grid": [128, 1, 1], "block": [256, 1, 1]}),
                ),
                ..OwnedEvent::default()
            },
            OwnedEvent {
                ph: Some("s".into()),
                cat: Some("ac2g".into()),
                name: Some("ac2g".into()),
                pid: num(4242),
                tid: num(4242),
                ts_ns: Some(ts + 4_203_669_604_597_001),
                id: num(i + 1000),
                ..OwnedEvent::default()
            },
            OwnedEvent {
                ph: Some("f".into()),
                cat: Some("ac2g".into()),
                name: Some("ac2g".into()),
                pid: num(0),
                tid: num(7),
                ts_ns: Some(ts + 4_203_669_604_603_333),
                id: num(i + 1000),
                bp: Some("e".into()),
                ..OwnedEvent::default()
            },
        ];
        for e in &events {
            w.write_event(e).expect("write bench event");
        }
        // Approximate decoded size: measured once per event kind.
        written += 1_200;
        i += 1;
    }
    let gz = w.finish(&[]).expect("finish bench trace");
    gz.finish()
        .expect("finish gzip")
        .flush()
        .expect("flush bench trace");
    std::fs::rename(&tmp, &path).expect("publish bench input");
    path
}
