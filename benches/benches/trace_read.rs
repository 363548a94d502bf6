//! Reading traces: opguard-trace against serde_json and flate2 in one run.
//!
//! `cargo bench -p opguard-benches --bench trace_read`
//! Throughput is decoded JSON bytes per second, gzip included unless the
//! benchmark name says `plain`.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opguard_trace::{ReaderOptions, TraceReader};

/// Reads every event and touches the typed fields an analysis needs.
fn read_typed(path: &Path, threaded: bool) -> u64 {
    let options = ReaderOptions::new().decode_thread(threaded);
    let mut r = TraceReader::open_with(path, options).expect("open");
    let mut acc = 0u64;
    while let Some(e) = r.next_event().expect("event") {
        acc += e.ph().map_or(0, |p| p.raw().len() as u64);
        acc += e.name().map_or(0, |n| n.raw().len() as u64);
        acc += e.cat().map_or(0, |c| c.raw().len() as u64);
        acc += e.ts_ns().expect("ts").unwrap_or(0) as u64 & 1;
        acc += e.dur_ns().expect("dur").unwrap_or(0) as u64 & 1;
        acc += e.pid().is_some() as u64 + e.tid().is_some() as u64;
        acc += e.correlation().is_some() as u64 + e.external_id().is_some() as u64;
    }
    acc + r.finish().expect("finish").events
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct BorrowedEvent<'a> {
    ph: Option<&'a str>,
    #[serde(borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
    cat: Option<&'a str>,
    ts: Option<f64>,
    dur: Option<f64>,
    args: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct BorrowedTrace<'a> {
    #[serde(borrow, rename = "traceEvents")]
    events: Vec<BorrowedEvent<'a>>,
}

fn bench_file(c: &mut Criterion, label: &str, path: &Path, peers: bool) {
    let decoded = opguard_benches::decoded(path);
    let mut g = c.benchmark_group(label);
    g.sample_size(10);
    g.throughput(Throughput::Bytes(decoded.len() as u64));
    g.bench_function("opguard_trace", |b| {
        b.iter(|| black_box(read_typed(path, false)))
    });
    g.bench_function("opguard_trace_decode_thread", |b| {
        b.iter(|| black_box(read_typed(path, true)))
    });
    if peers {
        let raw = std::fs::read(path).expect("read");
        g.bench_function("flate2_inflate_only", |b| {
            b.iter(|| {
                use std::io::Read;
                let mut d = flate2::read::MultiGzDecoder::new(&raw[..]);
                let mut sink = vec![0u8; 1 << 16];
                let mut n = 0;
                while let Ok(k) = d.read(&mut sink) {
                    if k == 0 {
                        break;
                    }
                    n += k;
                }
                black_box(n)
            })
        });
        let plain = std::env::temp_dir().join(format!("opguard-bench-{label}.json"));
        std::fs::write(&plain, &decoded).expect("write plain copy");
        g.bench_function("opguard_trace_plain", |b| {
            b.iter(|| black_box(read_typed(&plain, false)))
        });
        g.bench_function("opguard_trace_plain_decode_thread", |b| {
            b.iter(|| black_box(read_typed(&plain, true)))
        });
        g.bench_function("serde_json_borrowed_from_slice_plain", |b| {
            b.iter(|| {
                let t: BorrowedTrace<'_> = serde_json::from_slice(&decoded).expect("parse");
                black_box(t.events.len())
            })
        });
        g.bench_function("serde_json_value_from_slice_plain", |b| {
            b.iter(|| {
                let v: serde_json::Value = serde_json::from_slice(&decoded).expect("parse");
                black_box(v["traceEvents"].as_array().map(Vec::len))
            })
        });
        std::fs::remove_file(&plain).ok();
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    if let Some(mtia) = opguard_benches::mtia_trace() {
        bench_file(c, "mtia_87MB", &mtia, true);
    }
    let generated = opguard_benches::generated_trace(250 << 20);
    bench_file(c, "generated_250MB", &generated, false);
}

criterion_group!(trace_read, benches);
criterion_main!(trace_read);
