//! The seed's evidence tables as constructed traces: a seam with N live
//! marker spans, M matched launches and E External-id edges reproduces
//! exactly those counts.
//!
//! The seed's span counts were taken when the capture's own target marker
//! and the seam marker nested one inside the other for every call (review
//! point 3), so each logical call shows two same-name spans: the verdict
//! reports both the raw spans (`target_marker_spans`, the seed's figure) and
//! the logical calls (`target_marker_calls`, each call once).

use opguard_select::Verdict;
use opguard_testdata::kineto_writer::KinetoTrace;
use serde_json::json;

use crate::support::*;

/// How the target kernel is launched.
#[derive(Clone, Copy)]
enum Launch {
    /// A Triton launcher: `cuLaunchKernel` with a correlation, the kernel row
    /// without External id.
    Triton,
    /// Under a host op with its own External id (the CK/aiter path).
    UnderOp(&'static str),
}

struct Shape {
    target: &'static str,
    kernel_row: &'static str,
    device_kernel: &'static str,
    launch: Launch,
    /// Logical calls of the target.
    calls: usize,
    /// Same-name nested copies of the marker per call.
    copies: usize,
    /// The first `launching` calls launch the kernel.
    launching: usize,
    /// Other aten ops inside the target: one entry per op, the number of
    /// kernels it launches (all sharing its External id).
    ops: Vec<usize>,
    /// Enclosing live candidates, outermost first.
    outer: &'static [&'static str],
    /// Installed candidates that never fire.
    never_live: &'static [&'static str],
}

struct Built {
    other_kernel_rows: u64,
    ops: u64,
    capture: Capture,
    trace: String,
    specs: Vec<&'static str>,
    device_kernel: &'static str,
}

impl Built {
    /// The same capture, another selection.
    fn select(&self, target: &str) -> Verdict {
        let candidates: Vec<(&str, Option<i64>)> = self.specs.iter().map(|s| (*s, None)).collect();
        self.capture.verdict(&request(
            target,
            self.device_kernel,
            &candidates,
            vec![process("pid-31337", Some(&self.trace), &self.specs)],
        ))
    }
}

fn build(shape: &Shape) -> Built {
    let host = (31337, 31337);
    let mut t = KinetoTrace::new();
    let mut ids = Ids::new();
    let span = 5_000_000;
    let mut op_iter = shape.ops.iter().copied().enumerate();
    let ops_per_call = shape.ops.len().div_ceil(shape.calls);
    let mut other_rows = 0u64;
    let mut ops = 0u64;
    for call in 0..shape.calls {
        let base = 10_000_000 + call as i64 * 2 * span;
        for (depth, spec) in shape.outer.iter().enumerate() {
            let d = depth as i64 * 1_000;
            t.user_annotation(
                host,
                &marker(spec),
                base - 10_000 + d,
                span + 20_000 - 2 * d,
                Some(ids.ext()),
            );
        }
        for copy in 0..shape.copies as i64 {
            t.user_annotation(
                host,
                &marker(shape.target),
                base + copy * 10,
                span - copy * 20,
                Some(ids.ext()),
            );
        }
        let mut at = base + 1_000;
        for _ in 0..ops_per_call {
            let Some((_, kernels)) = op_iter.next() else {
                break;
            };
            ops += 1;
            let ext = ids.ext();
            t.cpu_op(
                host,
                "aten::copy_",
                at,
                2_000 + 1_000 * kernels as i64,
                Some(ext),
            );
            for k in 0..kernels as i64 {
                t.launch(
                    host,
                    "cudaLaunchKernel",
                    at + 500 + k * 1_000,
                    300,
                    ids.corr(),
                    Some(ext),
                )
                .kernel(0, 7, FILL, base + span + 100_000 + at - base, 500);
                other_rows += 1;
            }
            at += 3_000 + 1_000 * kernels as i64;
        }
        if call < shape.launching {
            let device_at = base + span + 1_000_000;
            match shape.launch {
                Launch::Triton => {
                    t.launch(host, "cuLaunchKernel", at, 500, ids.corr(), None)
                        .kernel(0, 7, shape.kernel_row, device_at, 50_000);
                }
                Launch::UnderOp(op) => {
                    let ext = ids.ext();
                    ops += 1;
                    t.cpu_op(host, op, at, 3_000, Some(ext));
                    t.launch(
                        host,
                        "hipModuleLaunchKernel",
                        at + 500,
                        500,
                        ids.corr(),
                        Some(ext),
                    )
                    .kernel(0, 7, shape.kernel_row, device_at, 50_000);
                }
            }
        }
    }
    assert!(op_iter.next().is_none(), "every op placed");
    let c = Capture::new();
    let trace = c.trace("trace.pid-31337.json.gz", &t);
    let mut specs: Vec<&'static str> = shape.outer.to_vec();
    specs.push(shape.target);
    specs.extend(shape.never_live);
    Built {
        other_kernel_rows: other_rows,
        ops,
        capture: c,
        trace,
        specs,
        device_kernel: shape.device_kernel,
    }
}

/// `n` ops, of which `twice` launch two kernels and the rest one.
fn ops(n: usize, twice: usize) -> Vec<usize> {
    (0..n).map(|i| if i < twice { 2 } else { 1 }).collect()
}

#[test]
fn moe_seam_reproduces_128_spans_64_launches_514_external_ids() {
    let shape = Shape {
        target: "sglang.kernels.ops.moe.fused_moe_triton_kernels:invoke_fused_moe_kernel",
        kernel_row: "fused_moe_kernel",
        device_kernel: "fused_moe_kernel",
        launch: Launch::Triton,
        calls: 64,
        copies: 2,
        launching: 64,
        ops: ops(514, 0),
        outer: &[
            "sglang.srt.layers.moe.fused_moe_triton.layer:FusedMoE.forward",
            "sglang.srt.layers.moe.moe_runner.triton:TritonRunnerCore.run",
            "sglang.kernels.ops.moe.fused_moe_triton_kernels:fused_experts_impl",
        ],
        never_live: &[
            "sglang.srt.layers.moe.fused_moe_triton.triton_utils:fused_moe",
            "sglang.kernels.ops.moe.fused_moe_triton_kernels:moe_align_block_size",
        ],
    };
    let b = build(&shape);
    let v = &b.select(shape.target);
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    assert_eq!(v.target_marker_spans, 128);
    assert_eq!(v.target_marker_calls, 64);
    assert_eq!(v.matched_kernel_calls, 64);
    assert_eq!(v.correlated_external_ids, 514);
    assert_eq!(v.launch_correlation_edges, b.other_kernel_rows + 64);
    assert_eq!(
        v.candidate_targets_tested.len(),
        6,
        "6 of 6 declared candidates installed"
    );
    assert_eq!(v.live_candidates.len(), 4, "4 of them live");
    assert!(v.deeper_live_candidates.is_empty());
    assert!(v.missing_candidate_markers.is_empty());
    assert_eq!(v.installed_but_never_live_candidates, shape.never_live);
}

#[test]
fn gemm_seam_reproduces_12_spans_3_launches_161_external_ids() {
    // 6 calls with two marker copies each; 3 of them reach the CK kernel.
    let kernel_row = "void ck::kernel_gemm_xdl_cshuffle_v3_multi_d_blockscale_b_preshuffle<ck::GridwiseGemmMultiD_blockscale_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor>, true, (ck::InMemoryDataOperationEnum)0, 1, (ck::TailNumber)2>(ck::GridwiseGemmMultiD_blockscale_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor>::Argument)";
    for (target, external) in [
        (
            "aiter.ops.gemm_op_a8w8:gemm_a8w8_blockscale_bpreshuffle",
            161,
        ),
        (
            "aiter.ops.gemm_op_a8w8:gemm_a8w8_blockscale_bpreshuffle_ck",
            134,
        ),
    ] {
        let shape = Shape {
            target,
            kernel_row,
            device_kernel: "kernel_gemm_xdl_cshuffle_v3_multi_d_blockscale_b_preshuffle",
            launch: Launch::UnderOp("aiter::gemm_a8w8_blockscale_bpreshuffle"),
            calls: 6,
            copies: 2,
            launching: 3,
            // The 3 kernel-launching ops carry External ids too.
            ops: ops(external - 3, 0),
            outer: &["sglang.srt.layers.quantization.fp8_utils:apply_fp8_linear"],
            never_live: &[],
        };
        let b = build(&shape);
        let v = &b.select(shape.target);
        assert!(v.ok && v.deepest_verified, "{target}: {:?}", v.failed);
        assert_eq!(v.target_marker_spans, 12, "{target}");
        assert_eq!(v.target_marker_calls, 6, "{target}");
        assert_eq!(v.matched_kernel_calls, 3, "{target}");
        assert_eq!(v.processes[0].matched_by_external_id, 3, "{target}");
        assert_eq!(v.correlated_external_ids, external as u64, "{target}");
        assert_eq!(b.ops, external as u64);
    }
}

#[test]
fn paged_decode_seam_reproduces_72_spans_36_launches_447_external_ids_714_launch_edges() {
    // 447 aten ops: 231 launch two kernels, 216 one: 678 at::native rows,
    // plus 36 Triton rows = 714 launch-correlation edges.
    let shape = Shape {
        target: "vllm.v1.attention.backends.rocm_attn:chunked_prefill_paged_decode",
        kernel_row: "kernel_paged_attention_2d",
        device_kernel: "kernel_paged_attention_2d",
        launch: Launch::Triton,
        calls: 36,
        copies: 2,
        launching: 36,
        ops: ops(447, 231),
        outer: &["vllm.attention.layer:unified_attention_with_output"],
        never_live: &[],
    };
    let b = build(&shape);
    let v = &b.select(shape.target);
    assert!(v.ok && v.deepest_verified, "{:?}", v.failed);
    assert_eq!(v.target_marker_spans, 72);
    assert_eq!(v.matched_kernel_calls, 36);
    assert_eq!(v.correlated_external_ids, 447);
    assert_eq!(v.launch_correlation_edges, 714);
    assert_eq!(v.processes[0].matched_by_launch_correlation, 36);
    assert_eq!(
        v.processes[0].matched_by_external_id, 0,
        "Triton rows carry no External id"
    );

    // The 0802 selection on the same capture: the wrapper is refused with
    // the launcher observed beneath it, though every launch sits in its span.
    let wrapper = shape.outer[0];
    let v = b.select(wrapper);
    assert!(!v.ok && !v.deepest_verified);
    assert_eq!(v.deeper_live_candidates, [shape.target]);
    assert_eq!(v.matched_kernel_calls, 36);
    assert_eq!(v.target_marker_calls, 36);
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["failed"], json!(["deeper_live_candidate"]));
}
