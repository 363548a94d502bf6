//! What the tests share: a seeded generator, noisy runs, written traces.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use opguard_compare::{Cost, EntityKey, EntityKind, RunSamples};
use opguard_testdata::kineto_writer::KinetoTrace;

/// SplitMix64: a seeded generator, so every draw of every test is the same
/// on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `ns` with uniform noise of ±`noise` (0.05: ±5%), rounded to ns.
    pub fn noisy(&mut self, ns: i64, noise: f64) -> i64 {
        let factor = 1.0 + noise * (2.0 * self.uniform() - 1.0);
        (ns as f64 * factor).round() as i64
    }
}

/// One kernel of a simulated workload: its display name and its time per
/// step, ns.
pub struct Kernel {
    pub name: String,
    pub ns: i64,
}

/// `n` kernels of different sizes (1 us to about 60 us).
pub fn workload(n: usize) -> Vec<Kernel> {
    (0..n)
        .map(|i| Kernel {
            name: format!("kernel_{i:02}<float>"),
            ns: 1_000 + 3_000 * i as i64,
        })
        .collect()
}

/// One run of `steps` steps of `kernels`, each with ±`noise` per step;
/// `slow` makes one kernel (by position) that many times slower.
pub fn simulated_run(
    rng: &mut Rng,
    file: &str,
    kernels: &[Kernel],
    steps: usize,
    noise: f64,
    slow: Option<(usize, f64)>,
) -> RunSamples {
    let mut run = RunSamples::new(file);
    for step in 0..steps {
        let costs: Vec<_> = kernels
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let scale = match slow {
                    Some((slow, factor)) if slow == i => factor,
                    _ => 1.0,
                };
                let ns = rng.noisy((k.ns as f64 * scale).round() as i64, noise);
                (
                    EntityKey::new(EntityKind::Kernel, k.name.clone()),
                    k.name.clone(),
                    Cost { ns, calls: 1 },
                )
            })
            .collect();
        run.push_step(format!("ProfilerStep#{step}"), costs);
    }
    run
}

/// A kernel a written step launches: its name as the trace spells it, and
/// its duration, ns.
pub struct Launched<'a> {
    pub name: &'a str,
    pub ns: i64,
}

/// A Kineto trace of `steps` (one `ProfilerStep#N` range each, holding an
/// `aten::mm` operator, and per kernel a `cudaLaunchKernel` and the kernel
/// it launched, proven by correlation), written gzipped to `path`.
/// `per_step(step)` gives each step's kernels.
pub fn write_training_trace(
    path: &Path,
    steps: usize,
    per_step: &mut dyn FnMut(usize) -> Vec<(String, i64)>,
) -> PathBuf {
    let mut t = KinetoTrace::new();
    let host = (100, 100);
    let mut ts = 1_000_000;
    let mut correlation = 1;
    for step in 0..steps {
        let kernels = per_step(step);
        let device_ns: i64 = kernels.iter().map(|(_, ns)| ns + 2_000).sum();
        let step_ns = 10_000 + 5_000 * kernels.len() as i64 + device_ns;
        let step_start = ts;
        t.user_annotation(host, &format!("ProfilerStep#{step}"), ts, step_ns, None);
        t.cpu_op(host, "aten::mm", ts + 1_000, 2_000, None);
        let mut host_ts = ts + 5_000;
        let mut device_ts = ts + 6_000;
        for (name, ns) in kernels {
            t.launch(host, "cudaLaunchKernel", host_ts, 3_000, correlation, None)
                .kernel(0, 7, &name, device_ts, ns);
            correlation += 1;
            host_ts += 5_000;
            device_ts += ns + 2_000;
        }
        ts = step_start + step_ns + 1_000;
    }
    std::fs::write(path, t.to_gzip().expect("the trace is written")).expect("the file is written");
    path.to_owned()
}
