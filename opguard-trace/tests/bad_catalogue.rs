//! The bad-input catalogue (`fixtures/bad-input/`, table in its README):
//! every `trace-*` file read through the reader, the model and the launch
//! analysis, asserting its exact error code, or for inputs that are valid but
//! odd, the documented non-error behaviour. Reading writes nothing: the
//! catalogue directory is byte-for-byte the same afterwards.

use std::path::{Path, PathBuf};

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, FlowPhase, IdValue, ModelOptions, TraceModel};
use opguard_trace::{Compression, ReaderOptions, TraceReader};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/bad-input")
}

fn path(name: &str) -> PathBuf {
    let p = dir().join(name);
    assert!(p.is_file(), "catalogue file {} is missing", p.display());
    p
}

/// Reads every event of a catalogue file; the error code if it fails.
fn read_code(name: &str) -> Result<u64, &'static str> {
    let mut r = TraceReader::open(path(name)).map_err(|e| e.code())?;
    loop {
        match r.next_event() {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return Err(e.code()),
        }
    }
    r.finish().map(|s| s.events).map_err(|e| e.code())
}

fn model(name: &str) -> TraceModel {
    opguard_trace::read_model(
        path(name),
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// (name, bytes) of every file in the catalogue directory.
fn snapshot() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir())
        .expect("catalogue directory")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_refused_file_has_its_exact_code_and_nothing_is_written() {
    let before = snapshot();
    let cases = [
        ("trace-truncated.json.gz", "gzip_truncated"),
        ("trace-trailing-garbage.json.gz", "gzip_invalid"),
        ("trace-truncated.json", "json_truncated"),
        ("trace-invalid-utf8-name.json", "invalid_utf8"),
        ("trace-nan.json", "non_finite_number"),
        ("trace-infinity.json", "non_finite_number"),
        ("trace-unescaped-quote.json", "unescaped_quote"),
        ("trace-duplicate-typed-key.json", "duplicate_key"),
        ("trace-duplicate-trace-events.json", "duplicate_key"),
    ];
    for (name, code) in cases {
        assert_eq!(read_code(name), Err(code), "{name}");
        // The model refuses with the same code.
        let err = opguard_trace::read_model(
            path(name),
            ArtifactSpec::new(),
            &ModelOptions::new(),
            &opguard_trace::ReaderOptions::default(),
        )
        .expect_err(name);
        assert_eq!(err.code(), code, "{name} through the model: {err}");
    }
    assert_eq!(snapshot(), before, "reading the catalogue changed it");
}

#[test]
fn the_catalogue_lists_every_trace_file() {
    let readme = std::fs::read_to_string(dir().join("README.md")).expect("README.md");
    for (name, _) in snapshot() {
        if name.starts_with("trace-") {
            assert!(
                readme.contains(&format!("`{name}`")),
                "{name} is not in the README table"
            );
        }
    }
}

#[test]
fn invalid_utf8_is_read_lossily_only_when_asked() {
    let opts = ReaderOptions::new().lossy_utf8(true);
    let mut r = TraceReader::open_with(path("trace-invalid-utf8-name.json"), opts).unwrap();
    let name = r
        .next_event()
        .unwrap()
        .unwrap()
        .name()
        .unwrap()
        .as_cow()
        .into_owned();
    assert_eq!(name, "fill_\u{FFFD}\u{FFFD}_kernel");
    assert_eq!(r.finish().unwrap().utf8_replacements, 2);
}

#[test]
fn a_multi_member_gzip_is_one_stream() {
    let name = "trace-multi-member.json.gz";
    let mut r = TraceReader::open(path(name)).unwrap();
    let mut names = Vec::new();
    while let Some(e) = r.next_event().unwrap() {
        names.push(e.name().map(|n| n.as_cow().into_owned()));
    }
    let s = r.finish().unwrap();
    assert_eq!(s.compression, Compression::Gzip);
    assert_eq!(s.events, 4);
    assert_eq!(names[2].as_deref(), Some("void fill_kernel<float>(float*)"));
    let region = launch_region(&model(name), 10);
    assert_eq!(
        (region.kernel_count, region.correlated_kernel_count),
        (1, 1)
    );
    assert_eq!(region.coverage.flow_correlated_kernel_count, 1);
}

#[test]
fn untyped_duplicate_keys_are_kept_in_the_raw_text() {
    let name = "trace-duplicate-untyped-key.json";
    let mut r = TraceReader::open(path(name)).unwrap();
    let e = r.next_event().unwrap().unwrap();
    assert!(e.raw().contains(r#""note":"a","note":"b""#), "{}", e.raw());
}

#[test]
fn integers_beyond_u64_stay_exact_as_ids() {
    let name = "trace-integer-beyond-u64-id.json";
    let mut r = TraceReader::open(path(name)).unwrap();
    r.next_event().unwrap();
    let kernel = r.next_event().unwrap().unwrap();
    assert_eq!(
        kernel.arg("Comms Id").unwrap().raw(),
        "123456789012345678901234567890"
    );
    drop(r);
    let m = model(name);
    let k = m.slices().iter().position(|s| s.class.is_device()).unwrap();
    let corr = m.slices()[k].correlation.unwrap();
    assert!(matches!(corr, IdValue::BigNumber(_)), "{corr:?}");
    assert_eq!(m.id_text(corr), "18446744073709551616");
    // The launch is proven through the exact big id.
    assert_eq!(m.launches_for(k).len(), 1);
}

#[test]
fn a_time_beyond_u64_is_refused_when_used() {
    let name = "trace-integer-beyond-u64-ts.json";
    // The reader keeps the number; converting it to nanoseconds fails.
    let mut r = TraceReader::open(path(name)).unwrap();
    let e = r.next_event().unwrap().unwrap();
    assert_eq!(e.ts().unwrap().as_str(), "18446744073709551616");
    assert!(e.ts_ns().is_err());
    drop(r);
    let err = opguard_trace::read_model(
        path(name),
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &opguard_trace::ReaderOptions::default(),
    )
    .expect_err("a kernel whose time does not fit");
    assert_eq!(err.code(), "number_out_of_range");
    assert_eq!(err.event_index(), Some(0));
}

#[test]
fn negative_durations_are_kept_and_summed_as_written() {
    let m = model("trace-negative-duration.json");
    let durs: Vec<i64> = m.slices().iter().map(|s| s.dur_ns).collect();
    assert_eq!(durs, [-5_000, -500]);
    let r = launch_region(&m, 10);
    // Negative durations add nothing to any total (as stream busy time
    // always did) and are counted in coverage instead (fuzz finding 3).
    assert_eq!(r.direct_launch_duration_ns, 0);
    assert_eq!(r.kernel_duration_ns, 0);
    assert_eq!(r.coverage.negative_duration_slices, 2);
    assert_eq!(r.streams[0].busy_ns, 0);
    assert_eq!(r.correlated_kernel_count, 1);
    assert_eq!(r.region_start_ns, Some(100_000));
    assert_eq!(r.region_end_ns, Some(109_500));
}

#[test]
fn events_out_of_time_order_keep_file_order_and_sort_per_stream() {
    let m = model("trace-out-of-order.json");
    let ts: Vec<i64> = m.slices().iter().map(|s| s.ts_ns).collect();
    assert_eq!(ts, [300_000, 100_000, 500_000], "slices stay in file order");
    let idx: Vec<u64> = m.slices().iter().map(|s| s.index).collect();
    assert_eq!(idx, [0, 1, 2]);
    let r = launch_region(&m, 10);
    assert_eq!(r.region_start_ns, Some(100_000));
    assert_eq!(r.region_end_ns, Some(510_000));
    let s = &r.streams[0];
    assert_eq!(
        (s.idle_gap_count, s.idle_gap_total_ns, s.busy_ns),
        (2, 380_000, 30_000)
    );
}

#[test]
fn an_x_event_ending_before_it_starts_is_kept() {
    let m = model("trace-x-end-before-start.json");
    let back = &m.slices()[1];
    assert_eq!(
        (back.ts_ns, back.dur_ns, back.end_ns()),
        (1_000_000, -1_000_500, -500)
    );
    let r = launch_region(&m, 10);
    // The region still starts at the first start and ends at the last end.
    assert_eq!(
        (r.region_start_ns, r.region_end_ns),
        (Some(10_000), Some(15_000))
    );
    // The negative duration adds nothing to the kernel total; it is counted.
    assert_eq!(r.kernel_duration_ns, 5_000);
    assert_eq!(r.coverage.negative_duration_slices, 1);
}

#[test]
fn a_flow_end_without_a_start_proves_nothing() {
    let m = model("trace-flow-end-without-start.json");
    assert_eq!(m.flows().len(), 1);
    assert_eq!(m.flows()[0].phase, FlowPhase::End);
    let r = launch_region(&m, 10);
    assert_eq!(
        r.correlated_kernel_count, 1,
        "correlation still proves the launch"
    );
    assert_eq!(r.coverage.flow_correlated_kernel_count, 0);
    let why = r.coverage.disagreement.expect("the cross-check reports it");
    assert!(why.contains("no ac2g flow pairs"), "{why}");
}
