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
