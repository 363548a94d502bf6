//! `ModelOptions::launches_and_host_totals`: the host slices a full model
//! keeps, added up per (name, category, class) instead, on every real trace;
//! the same failures as a full model.

use std::collections::BTreeMap;
use std::path::PathBuf;

use opguard_model::{ArtifactSpec, ModelOptions, SliceClass, TraceModel};

type Totals = BTreeMap<(String, String, String), (u64, i64)>;

/// The HTA traces and two PyTorch CPU captures; `None` (the test skips)
/// without the shared data.
#[track_caller]
pub fn real_traces() -> Option<Vec<PathBuf>> {
    let mut traces = opguard_testdata::hta_traces()?;
    for name in ["proc_a.json.gz", "threads.json.gz"] {
        traces.extend(opguard_testdata::shared_file(&format!(
            "torch/traces/{name}"
        )));
    }
    Some(traces)
}

pub fn read(path: &std::path::Path, options: &ModelOptions) -> TraceModel {
    opguard_trace::read_model(
        path,
        ArtifactSpec::new(),
        options,
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each kept slice as one line, names and ids as text.
pub fn texts(m: &TraceModel) -> Vec<String> {
    let id = |v: Option<opguard_model::IdValue>| v.map(|v| m.id_text(v));
    m.slices()
        .iter()
        .map(|s| {
            format!(
                "{} {:?} {} {} {:?} {:?} {} {} {:?} {:?} {:?} {:?} {:?}",
                s.index,
                s.class,
                m.name(s.name),
                m.name(s.cat),
                id(s.pid),
                id(s.tid),
                s.ts_ns,
                s.dur_ns,
                id(s.correlation),
                id(s.external_id),
                id(s.device),
                id(s.context),
                id(s.stream)
            )
        })
        .collect()
}

#[test]
fn host_totals_add_up_the_host_slices_a_full_model_keeps() {
    let Some(traces) = real_traces() else {
        return;
    };
    let mut seen_host = 0;
    for path in traces {
        let full = read(&path, &ModelOptions::new());
        let small = read(&path, &ModelOptions::launches_and_host_totals());
        let kept = read(&path, &ModelOptions::launches_only());
        let name = path.display();

        let mut expected = Totals::new();
        for s in full.slices() {
            let host = !(s.class.is_runtime()
                || s.class.is_device()
                || s.class == SliceClass::GpuUserAnnotation);
            if host {
                let key = (
                    format!("{:?}", s.class),
                    full.name(s.name).to_owned(),
                    full.name(s.cat).to_owned(),
                );
                let t = expected.entry(key).or_default();
                t.0 += 1;
                t.1 = t.1.saturating_add(s.counted_dur_ns());
            }
        }
        let mut got = Totals::new();
        for t in small.host_totals() {
            let key = (
                format!("{:?}", t.class),
                small.name(t.name).to_owned(),
                small.name(t.cat).to_owned(),
            );
            assert!(
                got.insert(key, (t.count, t.counted_dur_ns)).is_none(),
                "{name}: one (class, name, category) is one total"
            );
        }
        assert_eq!(got, expected, "{name}");
        seen_host += usize::from(!got.is_empty());

        // Everything else is exactly the launches-only model (names are
        // interned in another order, so slices are compared as text).
        assert_eq!(texts(&small), texts(&kept), "{name}");
        assert_eq!(small.flows().len(), kept.flows().len(), "{name}");
        assert!(kept.host_totals().is_empty() && full.host_totals().is_empty());
        // The source root is inferred from Python frames the small model
        // only has as totals.
        assert_eq!(small.artifact(), full.artifact(), "{name}");
        // A host total's frame is the frame of each of its slices.
        for s in full
            .slices()
            .iter()
            .filter(|s| s.class == SliceClass::PythonFunction)
        {
            let (n, c) = (full.name(s.name), full.name(s.cat));
            let (Some(n2), Some(c2)) = (small.find_name(n), small.find_name(c)) else {
                panic!("{name}: {n} is not in the small model");
            };
            assert_eq!(
                small.semantic_frame_of(s.class, n2, c2),
                full.semantic_frame(s)
            );
        }
    }
    assert!(
        seen_host >= 10,
        "only {seen_host} real traces have host slices"
    );
}

/// A host slice whose `ts` does not fit in i64 nanoseconds fails a full
/// model; it fails the small one at the same place (its time is read to add
/// it up), where a launches-only model never looks at it.
#[test]
fn a_broken_host_time_fails_exactly_as_in_a_full_model() {
    let Some(src) =
        opguard_testdata::shared_file("traces/hta/trace_filter__sampled_rank-0.json.gz")
    else {
        return;
    };
    let text = String::from_utf8(opguard_testdata::decoded(&src)).unwrap();
    let op = text.find("\"cat\": \"cpu_op\"").expect("a cpu_op");
    let ts = op + text[op..].find("\"ts\": ").unwrap() + "\"ts\": ".len();
    let end = ts + text[ts..].find(',').unwrap();
    let broken = format!("{}1e300{}", &text[..ts], &text[end..]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json.gz");
    std::fs::write(&path, opguard_testdata::gzip(broken.as_bytes())).unwrap();

    let error = |options: &ModelOptions| {
        opguard_trace::read_model(
            &path,
            ArtifactSpec::new(),
            options,
            &opguard_trace::ReaderOptions::default(),
        )
        .err()
        .map(|e| (e.code(), e.to_string(), e.offset(), e.event_index()))
    };
    let full = error(&ModelOptions::new()).expect("a full model refuses the time");
    assert!(full.3.is_some(), "{full:?} names the event");
    assert_eq!(error(&ModelOptions::launches_and_host_totals()), Some(full));
    assert_eq!(error(&ModelOptions::launches_only()), None);
}
