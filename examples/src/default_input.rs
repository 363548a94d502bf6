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

/// Ids and clocks that advance while one trace is written.
struct Cursor {
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
    t.cpu_op(host, op, start, 9_000, Some(ext));
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
        t: seed_ns,
        correlation: 1000 * (rank + 1),
        external_id: 10 * (rank + 1),
    };
    for step in 0..3 {
        let step_start = c.t;
        let step_ext = c.next_ids().1;
        // Embedding copy in.
        let (corr, ext) = c.next_ids();
        t.cpu_op(host, "aten::copy_", c.t, 6_000, Some(ext));
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
            t.cpu_op(
                host,
                "vllm::paged_attention_v2",
                outer_start + 8_000,
                20_000,
                Some(ext),
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
        t.cpu_op(host, "vllm::sample", c.t, 12_000, Some(ext));
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
        t.cpu_op(host, "vllm::sample", c.t, 12_000, Some(ext));
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

/// Every file of the default input, in a fixed order.
pub fn generate() -> Result<Vec<DefaultFile>, opguard_trace::Error> {
    let request = serde_json::to_vec_pretty(&seam_request()).unwrap_or_default();
    Ok(vec![
        DefaultFile {
            name: "decode.rank0.json.gz",
            bytes: decode_rank(0, 1001, 1_690_000_000_000).to_gzip()?,
        },
        DefaultFile {
            name: "decode.rank1.json.gz",
            bytes: decode_rank(1, 1002, 1_690_000_003_000).to_gzip()?,
        },
        DefaultFile {
            name: "decode.rocm.json.gz",
            bytes: rocm_run().to_gzip()?,
        },
        DefaultFile {
            name: "seam-request.json",
            bytes: request,
        },
    ])
}
