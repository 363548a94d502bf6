//! The trace model and the launch-region analysis on generated Kineto-like traces.

use arbitrary::{Arbitrary, Unstructured};
use opguard_trace::TraceReader;

use crate::trace::fuzz_options;

/// One generated trace event (structured fuzzing of the model).
#[derive(Debug, Arbitrary)]
struct GenEvent {
    ph: u8,
    cat: u8,
    name: u8,
    pid: GenId,
    tid: GenId,
    ts: GenTime,
    dur: Option<GenTime>,
    correlation: Option<GenId>,
    external_id: Option<GenId>,
    device: Option<GenId>,
    stream: Option<GenId>,
    flow_id: GenId,
}

#[derive(Debug, Arbitrary)]
enum GenId {
    Small(u8),
    Big(u64),
    Text(u8),
    Huge,
}

#[derive(Debug, Arbitrary)]
enum GenTime {
    Micros(i32),
    Fraction(i64, u16),
    Extreme(u8),
}

const PHASES: [&str; 8] = ["X", "X", "X", "s", "f", "i", "M", "B"];
const CATS: [&str; 12] = [
    "kernel",
    "cuda_runtime",
    "cuda_driver",
    "hip_runtime",
    "gpu_memcpy",
    "gpu_memset",
    "cpu_op",
    "user_annotation",
    "gpu_user_annotation",
    "python_function",
    "ac2g",
    "Runtime",
];
const NAMES: [&str; 10] = [
    "cudaLaunchKernel",
    "cudaGraphLaunch",
    "hipModuleLaunchKernel",
    "cudaMemcpyAsync",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    "ampere_sgemm_128x64_tn",
    "Memcpy DtoD (Device -> Device)",
    "aten::mm",
    "_ZN2at6native18elementwise_kernelILi128ELi4EEEviT1_",
    "main_kernel[prefill]",
];

impl GenId {
    fn json(&self) -> String {
        match self {
            GenId::Small(v) => (v % 4).to_string(),
            GenId::Big(v) => v.to_string(),
            GenId::Text(v) => format!("\"stream {}\"", v % 3),
            GenId::Huge => "123456789012345678901234567890".into(),
        }
    }
}

impl GenTime {
    fn json(&self) -> String {
        // Microseconds: i64::MAX and i64::MIN nanoseconds exactly, half of
        // them, one past (refused), and small odd forms.
        const EXTREMES: [&str; 10] = [
            "9223372036854775.807",
            "-9223372036854775.808",
            "4611686018427387.904",
            "-4611686018427387.904",
            "9223372036854775.808",
            "9223372036854.775807",
            "0.0005",
            "1e3",
            "-0",
            "-9223372036854",
        ];
        match self {
            GenTime::Micros(v) => v.to_string(),
            GenTime::Fraction(v, f) => format!("{v}.{f:03}"),
            GenTime::Extreme(i) => EXTREMES[*i as usize % EXTREMES.len()].into(),
        }
    }
}

fn gen_trace(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let events: Vec<GenEvent> = u.arbitrary()?;
    let mut out = String::from("{\"traceEvents\":[\n");
    for (i, e) in events.iter().take(256).enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        let ph = PHASES[e.ph as usize % PHASES.len()];
        let cat = CATS[e.cat as usize % CATS.len()];
        let name = NAMES[e.name as usize % NAMES.len()];
        out.push_str(&format!(
            "{{\"ph\":\"{ph}\",\"cat\":\"{cat}\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{}",
            serde_json::to_string(name).expect("string"),
            e.pid.json(),
            e.tid.json(),
            e.ts.json()
        ));
        if let Some(d) = &e.dur {
            out.push_str(&format!(",\"dur\":{}", d.json()));
        }
        if matches!(ph, "s" | "f") {
            out.push_str(&format!(",\"id\":{},\"bp\":\"e\"", e.flow_id.json()));
        }
        let mut args = Vec::new();
        if let Some(c) = &e.correlation {
            args.push(format!("\"correlation\":{}", c.json()));
        }
        if let Some(x) = &e.external_id {
            args.push(format!("\"External id\":{}", x.json()));
        }
        if let Some(d) = &e.device {
            args.push(format!("\"device\":{}", d.json()));
        }
        if let Some(s) = &e.stream {
            args.push(format!("\"stream\":{}", s.json()));
        }
        if !args.is_empty() {
            out.push_str(&format!(",\"args\":{{{}}}", args.join(",")));
        }
        out.push('}');
    }
    out.push_str("\n],\"schemaVersion\":1,\"deviceProperties\":[]}");
    Ok(out)
}

/// Generated Kineto-like traces through the model, its joins, its frames
/// and the launch-region analysis.
pub fn trace_model(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(text) = gen_trace(&mut u) else { return };
    model_of(text.as_bytes());
}

/// Runs the model and the analysis over one trace's bytes.
pub fn model_of(bytes: &[u8]) {
    use opguard_model::analysis::{aggregate, launch_region};
    use opguard_model::{ArtifactSpec, ModelOptions};
    let reader = match TraceReader::with_options(bytes, fuzz_options()) {
        Ok(r) => r,
        Err(_) => return,
    };
    let Ok(model) = opguard_trace::model_from_reader(
        reader,
        ArtifactSpec::new().stage("fuzz"),
        &ModelOptions::new(),
        &mut |_, _| {},
    ) else {
        return;
    };
    for (i, s) in model.slices().iter().enumerate() {
        let _ = model.occurrence(s).to_string();
        let _ = model.semantic_frame(s);
        let _ = model.correlation_key(s);
        let _ = model.external_id_key(i);
        for &l in model.launches_for(i) {
            assert!(l < model.slices().len());
            assert!(model.slices()[l].class.is_runtime());
        }
        for &h in model.host_slices_for_external_id(i) {
            assert!(h < model.slices().len());
        }
        let _ = s.end_ns();
    }
    let region = launch_region(&model, 3);
    assert!(region.correlated_kernel_count <= region.kernel_count);
    assert!(region.top_kernels.len() <= 3);
    serde_json::to_string(&region).expect("a region serializes");
    // The same artifact twice is refused; another with the same figures
    // sums them.
    assert!(aggregate(&[region.clone(), region.clone()]).is_err());
    let mut other = region.clone();
    other.artifact = opguard_model::Sha256Digest::of(b"another capture");
    let total = aggregate(&[region, other]).expect("two artifacts aggregate");
    serde_json::to_string(&total).expect("an aggregate serializes");
}
