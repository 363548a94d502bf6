//! Builders for real-Kineto-shaped capture traces and requests.
//!
//! Traces are written with `opguard_testdata::kineto_writer::KinetoTrace` to
//! gzip files in a temp dir and read back through the real reader by the
//! verdict itself.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use opguard_select::{verdict_from_request_file, Verdict};
use opguard_testdata::kineto_writer::{KinetoTrace, Thread};
use serde_json::{json, Value};

pub const PREFIX: &str = "opguard.seam::";

/// The 0802 attention chain: the outer wrapper and the launcher under it.
pub const WRAPPER: &str = "vllm.attention.layer:unified_attention_with_output";
pub const LAUNCHER: &str = "vllm.attention.ops.rocm_attn:chunked_prefill_paged_decode";
/// The Triton kernel the launcher issues (correlation, no External id).
pub const PAGED: &str = "kernel_paged_attention_2d";
/// An at::native kernel launched by an aten op inside the wrapper, outside
/// the launcher.
pub const FILL: &str = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";

pub fn marker(spec: &str) -> String {
    format!("{PREFIX}{spec}")
}

/// Hands out correlation and External ids, like one profiler session.
#[derive(Debug)]
pub struct Ids {
    pub correlation: i64,
    pub external: i64,
}

impl Ids {
    pub fn new() -> Ids {
        Ids {
            correlation: 1,
            external: 1,
        }
    }
    pub fn starting_at(correlation: i64, external: i64) -> Ids {
        Ids {
            correlation,
            external,
        }
    }
    pub fn corr(&mut self) -> i64 {
        self.correlation += 1;
        self.correlation
    }
    pub fn ext(&mut self) -> i64 {
        self.external += 1;
        self.external
    }
}

/// A host thread of process `pid`.
pub fn thread(pid: i64, tid: i64) -> Thread {
    (pid, tid)
}

/// Options for one attention call.
#[derive(Debug, Clone, Copy)]
pub struct AttentionCall {
    /// Mark the wrapper.
    pub wrapper_marked: bool,
    /// Mark the launcher.
    pub launcher_marked: bool,
    /// Re-emit both markers on the device timeline, the wrapper's copy
    /// landing inside the launcher's (as the profiler does).
    pub device_projection: bool,
}

impl Default for AttentionCall {
    fn default() -> Self {
        AttentionCall {
            wrapper_marked: true,
            launcher_marked: true,
            device_projection: false,
        }
    }
}

/// One decode call at `base` ns on `host`: wrapper > (aten::fill_ launching
/// FILL) then launcher > cuLaunchKernel of the Triton PAGED kernel.
/// The device rows run after the host spans end, so only edges can place
/// them.
pub fn attention_call(
    t: &mut KinetoTrace,
    host: Thread,
    base: i64,
    ids: &mut Ids,
    call: AttentionCall,
) {
    if call.wrapper_marked {
        t.user_annotation(host, &marker(WRAPPER), base, 50_000, Some(ids.ext()));
    }
    let fill = ids.ext();
    t.cpu_op(host, "aten::fill_", base + 1_000, 2_000, Some(fill));
    t.launch(
        host,
        "cudaLaunchKernel",
        base + 1_500,
        300,
        ids.corr(),
        Some(fill),
    )
    .kernel(0, 7, FILL, base + 60_000, 1_000);
    if call.launcher_marked {
        t.user_annotation(
            host,
            &marker(LAUNCHER),
            base + 5_000,
            35_000,
            Some(ids.ext()),
        );
    }
    t.launch(host, "cuLaunchKernel", base + 6_000, 500, ids.corr(), None)
        .kernel(0, 7, PAGED, base + 62_000, 20_000);
    if call.device_projection {
        // The device copies: the launcher's starts with its first kernel,
        // the wrapper's short span lands inside it, shifted by 1 ns.
        if call.launcher_marked {
            t.gpu_user_annotation(0, 7, &marker(LAUNCHER), base + 60_000, 22_000, None);
        }
        if call.wrapper_marked {
            t.gpu_user_annotation(0, 7, &marker(WRAPPER), base + 60_001, 1_000, None);
        }
    }
}

/// `calls` attention calls on one thread, 100 µs apart.
pub fn attention_trace(host: Thread, calls: usize, call: AttentionCall) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    t.process_name(host.0, "python3");
    t.thread_name(host, "MainThread");
    let mut ids = Ids::new();
    for i in 0..calls as i64 {
        attention_call(&mut t, host, 1_000_000 + i * 100_000, &mut ids, call);
    }
    t
}

/// A temp folder holding traces and one request.
pub struct Capture {
    pub dir: tempfile::TempDir,
}

impl Capture {
    pub fn new() -> Capture {
        Capture {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `t` gzip-compressed as `name`; returns `name`.
    pub fn trace(&self, name: &str, t: &KinetoTrace) -> String {
        std::fs::write(self.path(name), t.to_gzip().expect("gzip")).expect("write trace");
        name.to_owned()
    }

    /// Writes `request` as request.json and returns its path.
    pub fn request(&self, request: &Value) -> PathBuf {
        let path = self.path("request.json");
        std::fs::write(&path, serde_json::to_vec_pretty(request).expect("json"))
            .expect("write request");
        path
    }

    /// Writes and evaluates `request`.
    pub fn verdict(&self, request: &Value) -> Verdict {
        let path = self.request(request);
        verdict_from_request_file(&path).unwrap_or_else(|e| panic!("{} {e}", e.code()))
    }
}

/// A request body.
pub fn request(
    target: &str,
    kernel: &str,
    candidates: &[(&str, Option<i64>)],
    processes: Vec<Value>,
) -> Value {
    let candidates: Vec<Value> = candidates
        .iter()
        .map(|(spec, depth)| json!({"spec": spec, "declared_depth": depth, "marker": null}))
        .collect();
    json!({
        "protocol_version": 1,
        "target": target,
        "device_kernel": kernel,
        "capture_target": target,
        "marker_prefix": PREFIX,
        "candidates": candidates,
        "processes": processes,
    })
}

/// A process entry with every given spec installed.
pub fn process(name: &str, trace: Option<&str>, installed: &[&str]) -> Value {
    json!({"name": name, "trace": trace, "installed": installed, "refused": []})
}

/// The JSON a verdict serializes to (what the CLI prints).
pub fn to_json(v: &Verdict) -> Value {
    serde_json::to_value(v).expect("verdict serializes")
}

/// The evidence row of `spec` in process `p`.
pub fn candidate<'v>(
    v: &'v Verdict,
    p: usize,
    spec: &str,
) -> &'v opguard_select::CandidateEvidence {
    v.processes[p]
        .candidates
        .iter()
        .find(|c| c.spec == spec)
        .unwrap_or_else(|| panic!("no evidence row for {spec}"))
}

pub fn codes(v: &Verdict) -> Vec<&'static str> {
    v.failed.iter().map(|f| f.code()).collect()
}

/// The shared data folder's file, or None (skip) outside CI.
#[track_caller]
pub fn shared(relative: &str) -> Option<PathBuf> {
    opguard_testdata::shared_file(relative)
}

/// Decodes a (gzip or plain) trace with serde_json: the independent oracle.
pub fn decode(path: &Path) -> Value {
    use std::io::Read;
    let raw = std::fs::read(path).expect("readable");
    let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .expect("inflates");
        out
    } else {
        raw
    };
    serde_json::from_slice(&bytes).expect("oracle parses")
}
