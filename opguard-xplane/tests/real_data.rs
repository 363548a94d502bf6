//! The shared JAX 0.8 MI300 profile, held against the hand-decoding
//! referee (tests/referee.py): every event, every plane and line.

use std::collections::HashMap;

use opguard_xplane::{Activity, PlaneKind, ReadOptions, XSpaceFile, XSpaceInfo};

use crate::support::{referee, rows, shared_profile};

#[test]
fn every_event_agrees_with_the_referee() {
    let Some(path) = shared_profile() else { return };
    let want = referee(&path);
    let got = rows(&path);
    let events = want["events"].as_array().unwrap();
    assert_eq!(got.len(), events.len());
    assert_eq!(got.len(), 3650);
    for (g, w) in got.iter().zip(events) {
        let w = w.as_array().unwrap();
        let ctx = format!("event {}: {g:?} vs {w:?}", g.index);
        assert_eq!(g.index, w[0].as_u64().unwrap(), "{ctx}");
        assert_eq!(g.plane, w[1].as_str().unwrap(), "{ctx}");
        assert_eq!(g.line, w[2].as_str().unwrap(), "{ctx}");
        assert_eq!(g.name, w[3].as_str().unwrap(), "{ctx}");
        assert_eq!(g.ts_ps, w[4].as_i64().unwrap() as i128, "{ctx}");
        assert_eq!(g.dur_ps, w[5].as_i64().unwrap(), "{ctx}");
        assert_eq!(g.correlation, w[6].as_u64(), "{ctx}");
        assert_eq!(g.ts_ns, w[7].as_i64().unwrap(), "{ctx}");
        assert_eq!(g.dur_ns, w[8].as_i64().unwrap(), "{ctx}");
    }
}

#[test]
fn planes_lines_and_durations_agree_with_the_referee() {
    let Some(path) = shared_profile() else { return };
    let want = referee(&path);
    let space = XSpaceFile::open(&path, &ReadOptions::default()).unwrap();
    assert_eq!(space.hostnames(), ["tw003"]);
    let info = XSpaceInfo::of(&space).unwrap();
    let planes = want["planes"].as_array().unwrap();
    assert_eq!(info.planes.len(), planes.len());
    for (p, (g, w)) in info.planes.iter().zip(planes).enumerate() {
        assert_eq!(g.name, w["name"].as_str().unwrap());
        assert_eq!(g.events, w["events"].as_u64().unwrap(), "{}", g.name);
        let lines = w["lines"].as_array().unwrap();
        assert_eq!(g.lines.len(), lines.len());
        let plane = space.plane(p).unwrap();
        let mut dur: i128 = 0;
        for (l, wl) in lines.iter().enumerate() {
            let line = plane.line(l).unwrap();
            assert_eq!(line.name, wl["name"].as_str().unwrap());
            assert_eq!(line.id, wl["id"].as_i64().unwrap());
            assert_eq!(line.timestamp_ns, wl["timestamp_ns"].as_i64().unwrap());
            assert_eq!(line.event_count, wl["events"].as_u64().unwrap());
            dur += wl["dur_ps"].as_i64().unwrap() as i128;
        }
        assert_eq!(g.duration_ps.values().sum::<i128>(), dur, "{}", g.name);
    }
    // What the file holds, by kind: eight GPUs' kernels, the host's runtime
    // calls and everything else it recorded, nothing left unmodeled.
    let gpus = info
        .planes
        .iter()
        .filter(|p| matches!(p.kind, PlaneKind::Gpu { .. }))
        .count();
    assert_eq!(gpus, 8);
    assert_eq!(info.count(Activity::Kernel), 235);
    assert_eq!(info.count(Activity::RuntimeCall), 234);
    assert_eq!(info.count(Activity::NotModeled), 0);
    assert_eq!(info.events_not_modeled, 0);
    // The span of every event, in rounded nanoseconds as the referee
    // rounds them.
    let events = want["events"].as_array().unwrap();
    let ns = |e: &serde_json::Value, i: usize| e[i].as_i64().unwrap();
    let start = events.iter().map(|e| ns(e, 7)).min().unwrap();
    let end = events.iter().map(|e| ns(e, 7) + ns(e, 8)).max().unwrap();
    let span = info.time_span.unwrap();
    assert_eq!((span.start_ns, span.end_ns), (start, end));
    assert_eq!(span.timed_events, events.len() as u64);
}

/// Every device event carries a correlation id that exactly one host
/// runtime call carries (the referee's join: one host process per file).
#[test]
fn device_events_and_host_calls_share_correlation_ids() {
    let Some(path) = shared_profile() else { return };
    let want = referee(&path);
    let got = rows(&path);
    let mut host: HashMap<u64, usize> = HashMap::new();
    for r in got.iter().filter(|r| r.activity == Activity::RuntimeCall) {
        *host.entry(r.correlation.unwrap()).or_default() += 1;
    }
    let device: Vec<_> = got
        .iter()
        .filter(|r| matches!(r.activity, Activity::Kernel | Activity::Memcpy))
        .collect();
    let referee_device = want["device"].as_array().unwrap();
    assert_eq!(device.len(), referee_device.len());
    for (d, w) in device.iter().zip(referee_device) {
        let proven = d.correlation.is_some_and(|c| host.get(&c) == Some(&1));
        assert_eq!(proven, w[9].as_bool().unwrap(), "{d:?}");
        assert!(proven, "{d:?}");
    }
}

/// Further real XSpace files, read when `OPGUARD_XPLANE_DATA` names a
/// directory of them (not in CI: the lanes' collection, e.g. TensorFlow 2
/// on CUDA, TraceLens's JAX variants, a TPU v6 profile): every device event
/// is proven launched exactly where the referee's join proves it, planes
/// not modeled are a warning naming them, and a file the referee cannot
/// decode is refused.
#[test]
fn further_real_files_agree_with_the_referee() {
    use opguard_model::{ArtifactSpec, LaunchProof, ModelOptions};
    let Some(dir) = std::env::var_os("OPGUARD_XPLANE_DATA") else {
        eprintln!(
            "skipping: OPGUARD_XPLANE_DATA is not set (a directory of further real .xplane.pb \
             files, e.g. the lanes' collection at /work/lanes/data/xplane)"
        );
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".xplane.pb"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{dir:?} holds no .xplane.pb");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/referee.py");
    for file in files {
        let out = std::process::Command::new("python3")
            .arg(&script)
            .arg(&file)
            .output()
            .unwrap();
        let read = opguard_xplane::read_model(
            &file,
            ArtifactSpec::new(),
            &ModelOptions::launches_only(),
            &ReadOptions::default(),
        );
        if !out.status.success() {
            let e = read.expect_err(&format!("{}: the referee cannot decode it", file.display()));
            assert!(e.code().starts_with("protobuf_"), "{}: {e}", file.display());
            continue;
        }
        let want: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let model = read.unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let proven: HashMap<u64, bool> = want["device"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d[0].as_u64().unwrap(), d[9].as_bool().unwrap()))
            .collect();
        let mut device = 0;
        for (i, s) in model.slices().iter().enumerate() {
            if !s.class.is_device() {
                continue;
            }
            device += 1;
            let got = matches!(model.launch_proof(i), LaunchProof::Proven(_));
            assert_eq!(
                Some(&got),
                proven.get(&s.index),
                "{}: {s:?}",
                file.display()
            );
        }
        assert_eq!(device, proven.len(), "{}", file.display());
        let tpu: Vec<String> = want["planes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["name"].as_str().unwrap().starts_with("/device:TPU:"))
            .map(|p| format!("{} ({})", p["name"].as_str().unwrap(), p["events"]))
            .collect();
        let warning = model
            .summary()
            .warnings
            .iter()
            .find(|w| w.code == "not_modeled");
        match warning {
            Some(w) => assert!(
                tpu.iter().all(|t| w.message.contains(t.as_str())) && !tpu.is_empty(),
                "{}: {w:?} vs {tpu:?}",
                file.display()
            ),
            None => assert!(tpu.is_empty(), "{}: {tpu:?}", file.display()),
        }
        eprintln!(
            "{}: {device} device events, {} proven",
            file.display(),
            proven.values().filter(|p| **p).count()
        );
    }
}
