//! The default input `opguard inspect` runs on when given no trace.
//!
//! Generated, never copied from anyone's capture: a two-rank CUDA decode job
//! (two processes, one file each) and a ROCm run of the same step, in the
//! shape the PyTorch profiler writes (Kineto categories, `External id` and
//! `correlation` args, `ac2g` flows, `gpu_user_annotation` copies of host
//! markers), with direct and graph launches and `opguard.seam::` markers
//! around the attention call chain. Everything is a pure function of the
//! code below, so the bytes are identical on every machine.
//!
//! Regenerate the shipped files with
//! `cargo run -p opguard-examples --example generate_default_input`.

use opguard_testdata::kineto_writer::{KinetoTrace, Thread};
use serde_json::json;

/// One generated file.
pub struct DefaultFile {
    /// File name, e.g. `decode.rank0.json.gz`.
    pub name: &'static str,
    /// Its bytes (gzip, deterministic header).
    pub bytes: Vec<u8>,
}

/// The seam under test: the outer wrapper and the launcher it calls.
pub const OUTER_SEAM: &str = "opguard.seam::demo.attention:Attention.forward";
/// The inner launcher that really issues the attention kernel.
pub const INNER_SEAM: &str = "opguard.seam::demo.kernels:paged_attention";
/// The attention kernel the inner seam launches.
pub const ATTENTION_KERNEL: &str = "void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>(float*, float*, __nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16 const*, int, float, int const*, int const*, int, float const*, int, int, int, float const*, float const*)";

const GEMM: &str = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn";
const RMSNORM: &str = "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)";
const ROPE: &str = "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, int, int, int)";
const ADD: &str = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3>)";
const SAMPLER: &str = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";

/// Which run a host operator's shapes are recorded for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Platform {
    Cuda,
    Rocm,
}

/// `Input Dims` and `Input type` of a host operator, as `record_shapes=True`
/// records them: batch 8, hidden 4096, 32 heads of 128, vocabulary 32000.
/// The two platforms feed the same step the same tensors, except that the
/// ROCm sampler takes its logits in bfloat16 (a difference the alignment
/// shows).
fn shapes(op: &str, platform: Platform) -> (serde_json::Value, serde_json::Value) {
    const BF16: &str = "c10::BFloat16";
    match op {
        "aten::copy_" | "aten::add" => (
            json!([[8, 4096], [8, 4096], []]),
            json!([BF16, BF16, "Scalar"]),
        ),
        "vllm::rms_norm" => (
            json!([[8, 4096], [8, 4096], [4096], []]),
            json!([BF16, BF16, BF16, "Scalar"]),
        ),
        "aten::mm" => (json!([[8, 4096], [4096, 4096]]), json!([BF16, BF16])),
        "vllm::rotary_embedding" => (
            json!([[8], [8, 4096], [8, 1024], [8192, 128], []]),
            json!(["long int", BF16, BF16, BF16, "Scalar"]),
        ),
        "vllm::paged_attention_v2" | "vllm::paged_attention_rocm" => (
            json!([
                [8, 32, 128],
                [8, 32, 128],
                [2048, 8, 16, 16, 8],
                [2048, 8, 128, 16],
                [8]
            ]),
            json!([BF16, BF16, BF16, BF16, "int"]),
        ),
        "vllm::sample" if platform == Platform::Rocm => (json!([[8, 32000]]), json!([BF16])),
        "vllm::sample" => (json!([[8, 32000]]), json!(["float"])),
        _ => (json!([]), json!([])),
    }
}

/// A host operator with its shapes.
fn cpu_op(
    t: &mut KinetoTrace,
    host: Thread,
    op: &str,
    (start, dur): (i64, i64),
    external_id: i64,
    platform: Platform,
) {
    let (dims, types) = shapes(op, platform);
    t.cpu_op_with_shapes(host, op, start, dur, Some(external_id), None, dims, types);
}

/// Ids and clocks that advance while one trace is written.
struct Cursor {
    platform: Platform,
    t: i64,
    correlation: i64,
    external_id: i64,
}

impl Cursor {
    fn next_ids(&mut self) -> (i64, i64) {
        self.correlation += 1;
        self.external_id += 1;
        (self.correlation, self.external_id)
    }
}

/// A host operator that launches one kernel: cpu_op, launch call, kernel,
/// flow. Returns the time the operator ended.
#[allow(clippy::too_many_arguments)]
fn op_with_kernel(
    t: &mut KinetoTrace,
    c: &mut Cursor,
    host: Thread,
    op: &str,
    api: &str,
    kernel: &str,
    device: i64,
    kernel_ns: i64,
) {
    let (corr, ext) = c.next_ids();
    let start = c.t;
    cpu_op(t, host, op, (start, 9_000), ext, c.platform);
    t.launch(host, api, start + 2_000, 4_000, corr, Some(ext))
        .kernel(device, 7, kernel, start + 8_000, kernel_ns);
    c.t = start + 10_000;
}

fn decode_rank(rank: i64, pid: i64, seed_ns: i64) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    t.set_metadata(
        "deviceProperties",
        &json!([{"id": rank, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "totalGlobalMem": 85_100_000_000u64, "numSms": 108}]),
    );
    t.set_metadata(
        "distributedInfo",
        &json!({"backend": "nccl", "rank": rank, "world_size": 2}),
    );
    t.set_metadata(
        "traceName",
        &json!(format!("decode.rank{rank}.pt.trace.json")),
    );
    let host: Thread = (pid, pid);
    t.process_name(pid, &format!("python3 (rank {rank})"));
    t.thread_name(host, "thread 0 (python)");
    t.process_name(rank, &format!("GPU {rank}"));
    let mut c = Cursor {
        platform: Platform::Cuda,
        t: seed_ns,
        correlation: 1000 * (rank + 1),
        external_id: 10 * (rank + 1),
    };
    for step in 0..3 {
        let step_start = c.t;
        let step_ext = c.next_ids().1;
        // Embedding copy in.
        let (corr, ext) = c.next_ids();
        cpu_op(
            &mut t,
            host,
            "aten::copy_",
            (c.t, 6_000),
            ext,
            Platform::Cuda,
        );
        t.runtime(
            host,
            "cudaMemcpyAsync",
            c.t + 1_000,
            3_000,
            Some(corr),
            Some(ext),
        );
        t.device_activity(
            "gpu_memcpy",
            (rank, 7),
            "Memcpy HtoD (Pinned -> Device)",
            c.t + 5_000,
            1_500,
            (Some(corr), Some(ext)),
        );
        c.t += 8_000;
        for layer in 0..2 {
            op_with_kernel(
                &mut t,
                &mut c,
                host,
                "vllm::rms_norm",
                "cudaLaunchKernel",
                RMSNORM,
                rank,
                2_100,
            );
            op_with_kernel(
                &mut t,
                &mut c,
                host,
                "aten::mm",
                "cudaLaunchKernel",
                GEMM,
                rank,
                14_000 + layer * 500,
            );
            op_with_kernel(
                &mut t,
                &mut c,
                host,
                "vllm::rotary_embedding",
                "cuLaunchKernel",
                ROPE,
                rank,
                1_800,
            );
            // The attention call chain: the wrapper calls the launcher,
            // which issues the kernel. Both seams are marked.
            let outer_start = c.t;
            let (corr, ext) = c.next_ids();
            let outer_ext = ext;
            let inner_ext = c.next_ids().1;
            t.user_annotation(host, OUTER_SEAM, outer_start, 40_000, Some(outer_ext));
            t.user_annotation(
                host,
                INNER_SEAM,
                outer_start + 5_000,
                30_000,
                Some(inner_ext),
            );
            cpu_op(
                &mut t,
                host,
                "vllm::paged_attention_v2",
                (outer_start + 8_000, 20_000),
                ext,
                Platform::Cuda,
            );
            t.launch(
                host,
                "cudaLaunchKernel",
                outer_start + 10_000,
                5_000,
                corr,
                Some(ext),
            )
            .kernel(
                rank,
                7,
                ATTENTION_KERNEL,
                outer_start + 16_000,
                22_000 + step * 300,
            );
            // The profiler re-emits markers on the device timeline, shifted:
            // the outer copy lands inside the inner one there.
            t.gpu_user_annotation(
                rank,
                7,
                INNER_SEAM,
                outer_start + 15_999,
                23_000,
                Some(inner_ext),
            );
            t.gpu_user_annotation(
                rank,
                7,
                OUTER_SEAM,
                outer_start + 16_000,
                21_000,
                Some(outer_ext),
            );
            c.t = outer_start + 41_000;
            op_with_kernel(
                &mut t,
                &mut c,
                host,
                "aten::add",
                "cudaLaunchKernel",
                ADD,
                rank,
                1_200,
            );
        }
        // The sampler runs as a captured CUDA graph: one launch, four kernels.
        let (corr, ext) = c.next_ids();
        cpu_op(
            &mut t,
            host,
            "vllm::sample",
            (c.t, 12_000),
            ext,
            Platform::Cuda,
        );
        t.runtime(
            host,
            "cudaGraphLaunch",
            c.t + 1_000,
            6_000,
            Some(corr),
            Some(ext),
        );
        for k in 0..4 {
            let name = if k == 3 { SAMPLER } else { ADD };
            let at = c.t + 9_000 + k * 3_000;
            t.kernel(rank, 7, name, at, 2_500, Some(corr), Some(ext));
            t.flow("ac2g", corr, host, c.t + 1_000, (rank, 7), at);
        }
        c.t += 24_000;
        t.user_annotation(
            host,
            &format!("ProfilerStep#{step}"),
            step_start,
            c.t - step_start,
            Some(step_ext),
        );
        t.gpu_user_annotation(
            rank,
            7,
            &format!("ProfilerStep#{step}"),
            step_start + 5_000,
            c.t - step_start,
            Some(step_ext),
        );
        c.t += 50_000;
    }
    t
}

fn rocm_run() -> KinetoTrace {
    let mut t = KinetoTrace::new();
    t.set_metadata(
        "deviceProperties",
        &json!([{"id": 0, "name": "AMD Instinct MI250X", "gcnArchName": "gfx90a:sramecc+:xnack-", "totalGlobalMem": 68_702_699_520u64}]),
    );
    t.set_metadata("traceName", &json!("decode.rocm.pt.trace.json"));
    let host: Thread = (3003, 3003);
    t.process_name(3003, "python3 (rocm)");
    t.process_name(2, "GPU 2");
    let mut c = Cursor {
        platform: Platform::Rocm,
        t: 1_700_000_000_000,
        correlation: 100,
        external_id: 1,
    };
    let gemm = "Cijk_Alik_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1";
    let norm = "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)";
    let attention = "void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, 16, 128, 256, false, 1>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, int, float, int const*, int const*, int, float const*, int, int, int, float*, float*, __hip_bfloat16*, float const*, float const*)";
    for step in 0..2 {
        let start = c.t;
        let step_ext = c.next_ids().1;
        op_with_kernel(
            &mut t,
            &mut c,
            host,
            "vllm::rms_norm",
            "hipLaunchKernel",
            norm,
            2,
            2_600,
        );
        op_with_kernel(
            &mut t,
            &mut c,
            host,
            "aten::mm",
            "hipExtModuleLaunchKernel",
            gemm,
            2,
            17_000,
        );
        op_with_kernel(
            &mut t,
            &mut c,
            host,
            "vllm::paged_attention_rocm",
            "hipLaunchKernel",
            attention,
            2,
            26_000,
        );
        let (corr, ext) = c.next_ids();
        cpu_op(
            &mut t,
            host,
            "vllm::sample",
            (c.t, 12_000),
            ext,
            Platform::Rocm,
        );
        t.runtime(
            host,
            "hipGraphLaunch",
            c.t + 1_000,
            6_000,
            Some(corr),
            Some(ext),
        );
        for k in 0..3 {
            let at = c.t + 9_000 + k * 3_000;
            t.kernel(2, 0, ADD, at, 2_900, Some(corr), Some(ext));
            t.flow("ac2g", corr, host, c.t + 1_000, (2, 0), at);
        }
        c.t += 24_000;
        t.user_annotation(
            host,
            &format!("ProfilerStep#{step}"),
            start,
            c.t - start,
            Some(step_ext),
        );
        c.t += 40_000;
    }
    t
}

/// The seam request `opguard inspect` evaluates on the two CUDA ranks.
pub fn seam_request() -> serde_json::Value {
    json!({
        "protocol_version": 1,
        "target": "demo.kernels:paged_attention",
        "device_kernel": "paged_attention_v2_kernel",
        "capture_target": "demo.kernels:paged_attention",
        "marker_prefix": "opguard.seam::",
        "candidates": [
            {"spec": "demo.attention:Attention.forward", "declared_depth": null, "marker": null},
            {"spec": "demo.kernels:paged_attention", "declared_depth": null, "marker": null}
        ],
        "processes": [
            {"name": "rank0", "trace": "decode.rank0.json.gz", "installed": ["demo.attention:Attention.forward", "demo.kernels:paged_attention"], "refused": []},
            {"name": "rank1", "trace": "decode.rank1.json.gz", "installed": ["demo.attention:Attention.forward", "demo.kernels:paged_attention"], "refused": []}
        ]
    })
}

/// Every file of the default input, in the order `inspect` reads them:
/// the CUDA run's rank 0 and the ROCm run first (the pair it aligns), then
/// rank 1, then the seam request.
pub fn generate() -> Result<Vec<DefaultFile>, opguard_trace::Error> {
    let request = serde_json::to_vec_pretty(&seam_request()).unwrap_or_default();
    Ok(vec![
        DefaultFile {
            name: "decode.rank0.json.gz",
            bytes: decode_rank(0, 1001, 1_690_000_000_000).to_gzip()?,
        },
        DefaultFile {
            name: "decode.rocm.json.gz",
            bytes: rocm_run().to_gzip()?,
        },
        DefaultFile {
            name: "decode.rank1.json.gz",
            bytes: decode_rank(1, 1002, 1_690_000_003_000).to_gzip()?,
        },
        DefaultFile {
            name: "seam-request.json",
            bytes: request,
        },
    ])
}

/// Where the walkthrough's alignment map lives, relative to the workspace.
pub const REVIEW_MAP_PATH: &str = "opguard-cli/data/attention.map.json";

/// The alignment map the README's walkthrough applies to the view
/// `opguard export --from-profile decode.rank0.json.gz --from-profile
/// decode.rocm.json.gz --out pair.json` writes: one review pairing the
/// first attention call of the two runs, which no automatic candidate
/// pairs (the operators are named differently on each platform), by their
/// query tensors. It names the view by its SHA-256, so it is computed from
/// the view this crate's export writes for the generated traces.
pub fn review_map() -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut inputs = Vec::new();
    for file in generate()?
        .into_iter()
        .filter(|f| matches!(f.name, "decode.rank0.json.gz" | "decode.rocm.json.gz"))
    {
        let path = dir.path().join(file.name);
        std::fs::write(&path, &file.bytes)?;
        inputs.push(opguard_align::ProfileInput::new(path));
    }
    let view = dir.path().join("pair.json");
    let summary = opguard_align::export_profiles(&inputs, &view)?;
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&view)?)?;
    let index_of = |record_id: &str| {
        doc["traceEvents"]
            .as_array()
            .and_then(|events| {
                events
                    .iter()
                    .position(|e| e["args"]["op"]["record_id"] == record_id)
            })
            .ok_or_else(|| format!("the view has no operation {record_id}"))
    };
    let sha = &summary.output_sha256;
    let map = json!({
        "version": 1,
        "artifact_sha256": sha,
        "reviews": [{
            "left_ref": format!("{sha}:{}", index_of("decode.rank0/rank0/op4")?),
            "right_ref": format!("{sha}:{}", index_of("decode.rocm/rank0/op2")?),
            "left_tensor": ["inputs", 1],
            "right_tensor": ["inputs", 1],
            "decision": "comparable",
            "reason": "The first attention call of the decode step on each platform: vllm::paged_attention_v2 on CUDA and vllm::paged_attention_rocm on ROCm take the same query tensor; only the kernel behind them differs.",
            "evidence": [{
                "basis": "source_inference",
                "reference": "examples/src/default_input.rs: shapes() records one query shape for both attention operators"
            }]
        }]
    });
    let mut bytes = serde_json::to_vec_pretty(&map)?;
    bytes.push(b'\n');
    Ok(bytes)
}
