//! Every real trace in ../shared/data/traces/hta is read, and what the reader
//! saw is checked against an independent oracle: serde_json over the whole
//! decoded file, and the system's sha256sum over the file.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::Command;

use opguard_trace::trace_info;
use opguard_trace::{Compression, ReaderOptions, TraceReader};

type Counts = BTreeMap<(Option<String>, Option<String>), u64>;

fn oracle(path: &std::path::Path) -> (Counts, usize, serde_json::Value) {
    let raw = std::fs::read(path).expect("readable");
    let decoded = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .expect("oracle inflates");
        out
    } else {
        raw
    };
    let doc: serde_json::Value = serde_json::from_slice(&decoded).expect("oracle parses");
    let events = doc
        .get("traceEvents")
        .or(Some(&doc))
        .and_then(|v| v.as_array())
        .expect("events array");
    let mut counts = Counts::new();
    for e in events {
        let field = |k: &str| e.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        *counts.entry((field("ph"), field("cat"))).or_default() += 1;
    }
    (counts, decoded.len(), doc)
}

fn sha256sum(path: &std::path::Path) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("ascii")[..64].to_owned()
}

#[test]
fn every_hta_trace_matches_the_oracle() {
    let Some(traces) = opguard_testdata::hta_traces() else {
        return;
    };
    for path in &traces {
        let name = path.file_name().unwrap().to_string_lossy();
        let mut reader = TraceReader::open(path).expect("opens");
        let mut counts = Counts::new();
        let mut expected_index = 0;
        while let Some(e) = reader
            .next_event()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
        {
            assert_eq!(e.index(), expected_index, "{name}: indexes are file order");
            expected_index += 1;
            let s = |v: Option<opguard_trace::Str<'_>>| v.map(|s| s.as_cow().into_owned());
            *counts.entry((s(e.ph()), s(e.cat()))).or_default() += 1;
            // Every timestamp converts exactly.
            e.ts_ns().unwrap_or_else(|err| panic!("{name}: {err}"));
            e.dur_ns().unwrap_or_else(|err| panic!("{name}: {err}"));
        }
        let summary = reader.finish().expect("finishes");
        let (want, decoded_len, doc) = oracle(path);
        assert_eq!(counts, want, "{name}: events per (ph, cat)");
        // The same counts from `trace_info`, whose counting skips interning
        // for an event written like the one before, read with the decode
        // thread scanning events ahead.
        let threaded = ReaderOptions::new().decode_thread(true);
        let info = trace_info(TraceReader::open_with(path, threaded).unwrap(), &mut |_| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let info_counts: Counts = info
            .counts
            .iter()
            .map(|c| ((c.ph.clone(), c.cat.clone()), c.count))
            .collect();
        assert_eq!(info_counts, want, "{name}: trace_info per (ph, cat)");
        assert_eq!(summary.events, want.values().sum::<u64>(), "{name}");
        assert_eq!(summary.decoded_bytes, decoded_len as u64, "{name}");
        assert_eq!(
            summary.encoded_bytes,
            std::fs::metadata(path).unwrap().len(),
            "{name}"
        );
        assert_eq!(summary.sha256.to_hex(), sha256sum(path), "{name}");
        let gz = name.ends_with(".gz");
        assert_eq!(summary.compression == Compression::Gzip, gz, "{name}");
        // Every other top-level key is kept, with the oracle's value.
        if let Some(obj) = doc.as_object() {
            for (k, v) in obj.iter().filter(|(k, _)| *k != "traceEvents") {
                assert_eq!(
                    summary.metadata.get_json(k).as_ref(),
                    Some(v),
                    "{name}: {k}"
                );
            }
            assert_eq!(summary.metadata.entries().len(), obj.len() - 1, "{name}");
        }
        eprintln!(
            "{name}: {} events, {} decoded bytes",
            summary.events, decoded_len
        );
    }
}

#[test]
fn comms_ids_beyond_i64_stay_exact() {
    let Some(path) =
        opguard_testdata::shared_file("traces/hta/large_integer_trace__rank-70.pt.trace.json.gz")
    else {
        return;
    };
    let mut reader = TraceReader::open(&path).unwrap();
    let mut big = Vec::new();
    while let Some(e) = reader.next_event().unwrap() {
        if let Some(v) = e.arg("Comms Id").and_then(|v| v.as_number()) {
            if v.as_i64().is_none() {
                big.push(v.as_str().to_owned());
                assert_eq!(
                    v.as_u64().map(|u| u.to_string()).as_deref(),
                    Some(v.as_str())
                );
            }
        }
    }
    assert!(
        big.iter().any(|v| v == "10159970886766084423"),
        "the Comms Id that broke a C JSON backend is read exactly: {big:?}"
    );
}

#[test]
fn string_pids_and_tids_are_read() {
    let Some(path) = opguard_testdata::shared_file(
        "traces/hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
    ) else {
        return;
    };
    let mut reader = TraceReader::open(&path).unwrap();
    let (mut numeric, mut textual) = (0, 0);
    while let Some(e) = reader.next_event().unwrap() {
        match e.pid() {
            Some(opguard_trace::Scalar::Number(_)) => numeric += 1,
            Some(opguard_trace::Scalar::String(_)) => textual += 1,
            None => {}
        }
    }
    assert!(numeric > 0);
    eprintln!("numeric pids: {numeric}, string pids: {textual}");
}

/// Defect 9 of issue 15: the MTIA trace's 310,046 metadata events carry ts 0,
/// which made the span 41.7 days. The figures are Python's (json with
/// `parse_float=Decimal`, min ts and max ts+dur over events whose ph is not
/// "M", times 1000), not ours.
#[test]
fn metadata_events_do_not_stretch_the_time_span() {
    let Some(path) =
        opguard_testdata::shared_file("traces/hta/mtia_trace_single_rank__mtia_rank_0.json.gz")
    else {
        return;
    };
    let reader = TraceReader::open(path).unwrap();
    let info = trace_info(reader, &mut |_| {}).unwrap();
    let span = info.time_span.expect("timed events");
    assert_eq!(span.start_ns, 3_605_054_728_338_344);
    assert_eq!(span.end_ns, 3_605_068_349_996_792);
    assert_eq!(
        span.duration_ns, 13_621_658_448,
        "about 14 s, not 41.7 days"
    );
    assert_eq!(span.timed_events, 145_693);
}
