//! Helpers: write real trace files into a temp dir and a trials document
//! beside them, then run the real reader → identity → correlation path.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use opguard_scaling::{run_trials_file, Error, Metric, ScalingReport};
use opguard_testdata::kineto_writer::KinetoTrace;
use serde_json::{json, Value};

/// A folder of trial traces and a trials document.
pub struct Experiment {
    pub dir: tempfile::TempDir,
    trials: Vec<Value>,
}

impl Experiment {
    pub fn new() -> Self {
        Experiment {
            dir: tempfile::tempdir().expect("temp dir"),
            trials: Vec::new(),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `trace` gzip-compressed as `<id>.json.gz` and adds a trial.
    pub fn trial(&mut self, id: &str, input: f64, variant: &str, trace: &KinetoTrace) -> &mut Self {
        let file = format!("{id}.json.gz");
        write_gzip(&self.path(&file), trace);
        self.trials
            .push(json!({"id": id, "input": input, "variant": variant, "traces": [file]}));
        self
    }

    /// Adds a trial entry as given (for extra fields or shared traces).
    pub fn raw_trial(&mut self, trial: Value) -> &mut Self {
        self.trials.push(trial);
        self
    }

    /// Sets a field on the last trial.
    pub fn with(&mut self, key: &str, value: Value) -> &mut Self {
        if let Some(Value::Object(t)) = self.trials.last_mut() {
            t.insert(key.to_owned(), value);
        }
        self
    }

    /// Writes `trials.json` with `extra` top-level fields and returns its path.
    pub fn document(&self, extra: Value) -> PathBuf {
        let mut doc = json!({"trials": self.trials});
        if let (Value::Object(d), Value::Object(e)) = (&mut doc, extra) {
            d.extend(e);
        }
        let path = self.path("trials.json");
        std::fs::write(&path, serde_json::to_vec_pretty(&doc).expect("json"))
            .expect("write trials");
        path
    }

    pub fn run(&self, metric: Option<Metric>) -> Result<ScalingReport, Error> {
        run_trials_file(self.document(json!({})), metric)
    }
}

pub fn write_gzip(path: &Path, trace: &KinetoTrace) {
    std::fs::write(path, trace.to_gzip().expect("gzip trace")).expect("write trace");
}

/// A Kineto trace with a host process `pid` (one thread) and a CUDA launch,
/// so the provider is `kineto_cuda` like the real traces. Timestamps are
/// shifted by `epoch` so every trial is its own artifact.
pub fn cuda_trace(pid: i64, epoch: i64) -> KinetoTrace {
    let mut t = KinetoTrace::new();
    t.process_name(pid, "python");
    t.thread_name((pid, pid), "main");
    t.launch(
        (pid, pid),
        "cudaLaunchKernel",
        epoch + 1_000,
        2_000,
        epoch + 1,
        Some(epoch + 1),
    )
    .kernel(
        0,
        7,
        "void warmup_kernel<float>(float*)",
        epoch + 4_000,
        1_000,
    );
    t
}

pub fn approx(a: f64, b: f64, rel: f64) -> bool {
    a == b || (a - b).abs() <= rel * a.abs().max(b.abs())
}
