//! Device time told once and right (issue 35): busy and idle over all
//! devices and per device, and communication against computation, held to
//! an independent Python referee over the raw events of every shared trace
//! and every committed producer trace.

use opguard_formats::ReadOptions;
use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions};

fn traces() -> Vec<std::path::PathBuf> {
    // Without the shared data (the skip is said) the committed traces still run.
    let mut all = opguard_testdata::hta_traces().unwrap_or_default();
    let producers = opguard_testdata::fixtures_dir().join("producers/traces");
    let mut committed: Vec<_> = std::fs::read_dir(&producers)
        .expect("the committed producer traces")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            name.ends_with(".json") || name.ends_with(".json.gz")
        })
        .collect();
    committed.sort();
    all.extend(committed);
    all
}

#[test]
fn device_busy_idle_and_communication_agree_with_a_referee_over_the_raw_events() {
    let referee = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/referees/device_time.py");
    let mut with_collectives = 0;
    let mut several_streams = 0;
    for path in traces() {
        let name = path.display().to_string();
        let options = ReadOptions::new(ModelOptions::launches_only());
        let model = opguard_formats::read(&path, ArtifactSpec::new(), &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = launch_region(&model, 5);
        let want: serde_json::Value =
            serde_json::from_slice(&opguard_testdata::python3([referee, name.as_str()])).unwrap();
        assert_eq!(
            r.device_busy_ns,
            want["device_busy_ns"].as_i64().unwrap(),
            "{name}"
        );
        assert_eq!(
            r.device_idle_ns,
            r.region_duration_ns.unwrap_or(0) - r.device_busy_ns,
            "{name}"
        );
        let got = serde_json::to_value(r.communication).unwrap();
        assert_eq!(got, want["communication"], "{name}");
        // Per device: every Kineto trace here is one process, so a device is
        // its label.
        let per_device: serde_json::Map<String, serde_json::Value> = r
            .devices
            .iter()
            .map(|d| {
                let v = serde_json::json!({"busy_ns": d.busy_ns, "communication": d.communication});
                (d.device.clone(), v)
            })
            .collect();
        assert_eq!(
            serde_json::Value::Object(per_device),
            want["devices"],
            "{name}"
        );
        // The stream figures are per stream; the device figure is their union.
        let summed: i64 = r.streams.iter().map(|s| s.busy_ns).sum();
        assert!(r.device_busy_ns <= summed, "{name}");
        with_collectives += usize::from(r.communication.kernel_count > 0);
        several_streams += usize::from(r.streams.len() > 1);
    }
    if opguard_testdata::shared_data().is_some() {
        assert!(
            with_collectives >= 2,
            "traces with collectives: {with_collectives}"
        );
        assert!(
            several_streams >= 3,
            "traces with several streams: {several_streams}"
        );
    }
}
