//! What the XSpace benchmark times on opguard's side
//! (benches/peers/xspace_readers.py): read an `.xplane.pb` with
//! opguard-xplane, visit every event (names resolved, exact times, stats
//! looked up), and print the counters every peer must agree on as one JSON
//! line: events, events and summed picosecond durations per plane, host
//! runtime calls, and device events whose `correlation_id` exactly one host
//! call carries.
//!
//! With `--model`, what `opguard trace launches` and `opguard job` do
//! instead: the file read into opguard-model (runtime calls and device
//! events kept, `ModelOptions::launches_only`) and its launch region; it
//! prints the device events and the proven launches.
//!
//! Usage: xspace_summary [--model] FILE

use std::collections::HashMap;

use opguard_xplane::{
    Activity, Error, EventView, KnownStat, ReadOptions, StatValue, Visitor, XSpaceFile,
};

#[derive(Default)]
struct Summary {
    events: u64,
    planes: Vec<(String, u64, i128)>,
    host_calls: HashMap<u64, u32>,
    device_correlations: Vec<Option<u64>>,
    name_bytes: u64,
}

impl Visitor for Summary {
    fn plane(&mut self, plane: &opguard_xplane::Plane<'_>) -> Result<(), Error> {
        self.planes.push((plane.name.to_owned(), 0, 0));
        Ok(())
    }

    fn event(&mut self, e: &EventView<'_>) -> Result<(), Error> {
        self.events += 1;
        self.name_bytes += e.name().len() as u64;
        let ts = e.ts_ps().unwrap_or(0);
        std::hint::black_box(ts);
        if let Some(p) = self.planes.last_mut() {
            p.1 += 1;
            p.2 += i128::from(e.dur_ps());
        }
        let correlation = match e.stat(KnownStat::CorrelationId) {
            Some(StatValue::Uint(v)) => Some(v),
            Some(StatValue::Int(v)) => Some(v as u64),
            _ => None,
        };
        match Activity::of(e) {
            Activity::RuntimeCall => {
                if let Some(c) = correlation {
                    *self.host_calls.entry(c).or_default() += 1;
                }
            }
            Activity::Kernel | Activity::Memcpy | Activity::Memset => {
                self.device_correlations.push(correlation)
            }
            _ => {}
        }
        Ok(())
    }
}

/// The launch region of the file read into the model.
fn model(path: &str) {
    use opguard_model::{analysis::launch_region, ArtifactSpec, ModelOptions};
    let started = std::time::Instant::now();
    let read = opguard_xplane::read_model(
        path,
        ArtifactSpec::new(),
        &ModelOptions::launches_only(),
        &ReadOptions::default(),
    );
    let model = match read {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error[{}]: {e}", e.code());
            std::process::exit(2);
        }
    };
    let region = launch_region(&model, 10);
    let out = serde_json::json!({
        "seconds": started.elapsed().as_secs_f64(),
        "device_events": region.kernel_count + region.memory_op_count,
        "proven": model
            .slices()
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                s.class.is_device()
                    && matches!(model.launch_proof(*i), opguard_model::LaunchProof::Proven(_))
            })
            .count(),
        "slices": model.slices().len(),
    });
    println!("{out}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, as_model) = match args.as_slice() {
        [flag, path] if flag == "--model" => (path.clone(), true),
        [path] => (path.clone(), false),
        _ => {
            eprintln!("usage: xspace_summary [--model] FILE");
            std::process::exit(64);
        }
    };
    if as_model {
        model(&path);
        return;
    }
    let started = std::time::Instant::now();
    let result = XSpaceFile::open(path.as_ref(), &ReadOptions::default()).and_then(|space| {
        let mut summary = Summary::default();
        space.visit(&mut summary)?;
        Ok(summary)
    });
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error[{}]: {e}", e.code());
            std::process::exit(2);
        }
    };
    let proven = summary
        .device_correlations
        .iter()
        .filter(|c| c.is_some_and(|c| summary.host_calls.get(&c) == Some(&1)))
        .count();
    let planes: Vec<serde_json::Value> = summary
        .planes
        .iter()
        .map(|(name, n, dur)| serde_json::json!([name, n, dur.to_string()]))
        .collect();
    let out = serde_json::json!({
        "seconds": started.elapsed().as_secs_f64(),
        "events": summary.events,
        "name_bytes": summary.name_bytes,
        "host_calls": summary.host_calls.values().map(|&n| u64::from(n)).sum::<u64>(),
        "device_events": summary.device_correlations.len(),
        "proven": proven,
        "planes": planes,
    });
    println!("{out}");
}
