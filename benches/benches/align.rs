//! opguard-align: build an export from a generated pair of runs and apply a
//! 10,000-entry alignment map, against reading plus writing the same bytes.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-align cargo bench -p opguard-benches --bench align
//! OPGUARD_ALIGN_BENCH_OPS=40000 ...   # a smaller pair (operations per run)
//! ```
//!
//! Setup (not timed) writes, in `$OPGUARD_ALIGN_BENCH_DIR` (default: a
//! fresh temp dir): `runs.records.jsonl` (two runs of 4 ranks; the
//! candidate has inserted, deleted and changed operations), `export.json`
//! (its opguard.export/v1 view, sized to stay under the 256 MiB export
//! limit) and `map.json` (10,000 reviews: confirmations, rejections,
//! undetermined, new slot mappings that displace automatic peers, rejected
//! alternatives). It prints the sizes and the peak resident memory of one
//! export and one apply, measured from `/proc/self/status` (VmHWM, reset
//! through `/proc/self/clear_refs`).
//!
//! Benchmarks (plain JSON, one event per line):
//! - `align/export`: records file → export;
//! - `align/apply_10k_map`: export + map → reviewed view;
//! - `align/read_write_same_bytes`: the baseline — stream the export with
//!   `opguard_trace::TraceReader` (parse, SHA-256) and write every event
//!   back with `TraceWriter` to a new file;
//! - `align/copy_bytes`: the floor — `std::io::copy` of the file.
//!
//! Size: 80,000 operations per run (4 ranks), i.e. a 130 MB pair of records
//! files and a 235 MB export — the largest round size under the 256 MiB
//! export limit that apply has to read (a 250 MB records pair would give an
//! export over the limit). Setup takes about 5 s on 2 cores.
//!
//! Measured on the shared 2-core machine (load average 4–6 from other jobs),
//! criterion medians, sample size 10:
//!
//! | bench | time | vs read+write |
//! |---|---|---|
//! | export (160k operations → 235 MB) | 1.81 s | 2.4× |
//! | apply_10k_map (235 MB view, 10,000 reviews) | 1.51 s | 2.0× |
//! | read_write_same_bytes | 0.75 s | 1× |
//! | copy_bytes | 0.14 s | 0.19× |
//!
//! Peak resident memory (VmHWM after a reset): export 62 MB, apply 87 MB
//! (of which ~20 MB is the map), for the 235 MB view: the operation index,
//! not the file. Both use one helper thread for input and one for output;
//! the baseline is single-threaded.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opguard_align::{
    apply_with, export_with, ApplyOptions, Callsite, ExportOptions, ExportRequest, ExportSummary,
    Frame, Io, Record, RecordsWriter, Response, TensorSummary,
};
use opguard_trace::{ReaderOptions, TraceReader, TraceWriter};
use serde_json::{json, Value};

/// Operations per run: the export of two runs then sits near 240 MB, just
/// under the 256 MiB export limit.
const DEFAULT_OPS_PER_RUN: usize = 80_000;
const RANKS: u32 = 4;
const REVIEWS: usize = 10_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn chance(&mut self, per_mille: u64) -> bool {
        self.next() % 1000 < per_mille
    }
}

const OPS: [&str; 12] = [
    "aten::linear",
    "aten::layer_norm",
    "aten::gelu",
    "aten::add",
    "aten::mul",
    "aten::softmax",
    "aten::matmul",
    "aten::view",
    "aten::transpose",
    "aten::cat",
    "aten::embedding",
    "aten::dropout",
];

fn tensor(rng: &mut Rng, h: i64, dtype: &str, fp: bool) -> TensorSummary {
    TensorSummary {
        shape: vec![8, 512, h],
        dtype: dtype.into(),
        stride: Some(vec![512 * h, h, 1]),
        device: Some("cuda:0".into()),
        fingerprint: fp.then(|| format!("xxh64:{:016x}", rng.next())),
        stats: fp.then(|| {
            [
                ("max".to_owned(), 3.25),
                ("mean".to_owned(), 0.0125),
                ("min".to_owned(), -2.5),
            ]
            .into_iter()
            .collect()
        }),
        ..TensorSummary::default()
    }
}

fn op(run: &str, rank: u32, seq: u64, k: usize, fingerprint_seed: u64, dtype: &str) -> Record {
    let mut rng = Rng(fingerprint_seed | 1);
    let name = OPS[k % OPS.len()];
    let line = 20 + (k % 97) as u32;
    let h = [768, 1024, 3072][k % 3];
    Record {
        record_id: format!("{run}/{rank}/{seq}"),
        run: run.into(),
        rank,
        sequence: seq,
        op: name.into(),
        callsite: Some(Callsite {
            file: format!("model/layer_{}.py", k % 13),
            function: "forward".into(),
            line: Some(line),
        }),
        stack: vec![
            Frame {
                file: Some(format!("model/layer_{}.py", k % 13)),
                function: "forward".into(),
                line: Some(line),
            },
            Frame {
                file: Some("torch/nn/modules/module.py".into()),
                function: "_call_impl".into(),
                line: Some(1791),
            },
            Frame {
                file: None,
                function: format!("nn.Module: Block_{}", k % 24),
                line: None,
            },
            Frame {
                file: Some("train.py".into()),
                function: "step".into(),
                line: Some(88),
            },
        ],
        io: Io {
            inputs: vec![
                tensor(&mut rng, h, "float", false),
                tensor(&mut rng, h, "float", false),
            ],
            outputs: vec![tensor(&mut rng, h, dtype, true)],
        },
        thread: Some("4037/4037".into()),
        ts_ns: Some(1_682_725_898_081_597_000 + seq as i64 * 5_000),
        dur_ns: Some(4_000),
        origin: None,
    }
}

/// Two runs of `n` operations per run over 4 ranks. The candidate inserts
/// (2%), drops (2%) and changes the dtype (0.5%) or the content
/// fingerprint (1%) of operations.
fn generate(path: &Path, n: usize) {
    let mut w = RecordsWriter::new(BufWriter::new(File::create(path).unwrap())).unwrap();
    let per_rank = n / RANKS as usize;
    for rank in 0..RANKS {
        for i in 0..per_rank {
            w.write(&op(
                "original",
                rank,
                i as u64,
                i,
                (rank as u64) << 32 | i as u64,
                "float",
            ))
            .unwrap();
        }
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for rank in 0..RANKS {
        let mut seq = 0u64;
        for i in 0..per_rank {
            if rng.chance(20) {
                w.write(&op("candidate", rank, seq, i + 5, rng.next(), "float"))
                    .unwrap();
                seq += 1;
            }
            if rng.chance(20) {
                continue;
            }
            let dtype = if rng.chance(5) {
                "c10::BFloat16"
            } else {
                "float"
            };
            let seed = if rng.chance(10) {
                rng.next()
            } else {
                (rank as u64) << 32 | i as u64
            };
            w.write(&op("candidate", rank, seq, i, seed, dtype))
                .unwrap();
            seq += 1;
        }
    }
    w.finish().unwrap().flush().unwrap();
}

struct OpInfo {
    run: String,
    rank: u64,
    peer: Option<u64>,
    outputs: usize,
}

/// 10,000 reviews over the export: confirmations, rejections and
/// undetermined candidates, new output-slot mappings (most between
/// unpaired operations, some displacing automatic peers) and rejected
/// alternatives. No operation is in two comparable relations.
fn build_map(export: &Path) -> Value {
    let mut reader = TraceReader::open(export).unwrap();
    let mut ops = Vec::new();
    while let Some(e) = reader.next_event().unwrap() {
        if !e.cat().is_some_and(|c| c == "opguard.op") {
            break;
        }
        let op = e.arg("op").unwrap().as_object().unwrap();
        let corr = e.arg("correspondence").unwrap().as_object().unwrap();
        ops.push(OpInfo {
            run: op.get("run").unwrap().as_str().unwrap().into_owned(),
            rank: op
                .get("rank")
                .unwrap()
                .as_number()
                .unwrap()
                .as_u64()
                .unwrap(),
            peer: corr
                .get("peer")
                .and_then(|p| p.as_object())
                .and_then(|p| p.get("event"))
                .and_then(|v| v.as_number())
                .and_then(|n| n.as_u64()),
            outputs: e
                .arg("io")
                .unwrap()
                .as_object()
                .unwrap()
                .get("outputs")
                .unwrap()
                .as_array()
                .unwrap()
                .count(),
        });
    }
    let sha = reader.finish().unwrap().sha256.to_string();
    let mut used = vec![false; ops.len()];
    let mut reviews = Vec::with_capacity(REVIEWS);
    let r = |l: usize, rr: usize, decision: &str, sel: bool| {
        let (lt, rt) = if sel {
            (json!(["outputs", 0]), json!(["outputs", 0]))
        } else {
            (Value::Null, Value::Null)
        };
        json!({
            "left_ref": format!("{sha}:{l}"), "right_ref": format!("{sha}:{rr}"),
            "left_tensor": lt, "right_tensor": rt, "decision": decision,
            "reason": "benchmark review",
            "evidence": [{"basis": "observed", "reference": "generated"}],
        })
    };
    let pairs: Vec<(usize, usize)> = ops
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            o.peer
                .filter(|&p| (p as usize) > i)
                .map(|p| (i, p as usize))
        })
        .collect();
    let unpaired: Vec<usize> = (0..ops.len())
        .filter(|&i| ops[i].peer.is_none() && ops[i].outputs > 0)
        .collect();
    // Candidates: 4,000 confirmed, 1,500 rejected, 500 undetermined,
    // spread over the whole export.
    let mut take = pairs.iter().step_by((pairs.len() / 6500).max(1));
    for (count, decision) in [
        (4000, "comparable"),
        (1500, "not_comparable"),
        (500, "undetermined"),
    ] {
        for _ in 0..count {
            let &(l, rr) = take.next().unwrap();
            used[l] = true;
            used[rr] = true;
            reviews.push(r(l, rr, decision, false));
        }
    }
    // 2,000 new mappings: unpaired left-run operations onto unpaired
    // right-run operations of the same rank, then onto paired operations
    // (displacing their automatic peers).
    let (mut left, mut right): (Vec<usize>, Vec<usize>) =
        unpaired.iter().partition(|&&i| ops[i].run == ops[0].run);
    let free_paired = pairs
        .iter()
        .filter(|(l, rr)| !used[*l] && !used[*rr])
        .map(|p| p.1);
    right.extend(free_paired.skip(3).step_by(5));
    left.retain(|&i| !used[i]);
    let mut ri = 0;
    for (made, &l) in left.iter().enumerate() {
        while ri < right.len() && (used[right[ri]] || ops[right[ri]].rank != ops[l].rank) {
            ri += 1;
        }
        if ri >= right.len() || made == 2000 {
            break;
        }
        used[l] = true;
        used[right[ri]] = true;
        reviews.push(r(l, right[ri], "comparable", true));
    }
    // Rejected alternatives up to 10,000 (never conflict).
    let mut k = 0;
    while reviews.len() < REVIEWS {
        let (l, _) = pairs[(k * 13) % pairs.len()];
        let (_, other) = pairs[(k * 13 + 1) % pairs.len()];
        if ops[l].run != ops[other].run {
            reviews.push(r(l, other, "not_comparable", false));
        }
        k += 1;
    }
    json!({"version": 1, "artifact_sha256": sha, "reviews": reviews})
}

/// The baseline: read every event of `input` (parse + SHA-256) and write
/// it back to `output`.
fn read_write(input: &Path, output: &Path) -> u64 {
    let mut reader = TraceReader::open(input).unwrap();
    let mut w = TraceWriter::new(BufWriter::with_capacity(
        1 << 20,
        File::create_new(output).unwrap(),
    ))
    .unwrap();
    while let Some(e) = reader.next_event().unwrap() {
        w.write_raw_event(e.raw()).unwrap();
    }
    let summary = reader.finish().unwrap();
    let meta: Vec<(String, opguard_trace::RawJson)> = summary
        .metadata
        .entries()
        .iter()
        .map(|(k, v)| (k.clone(), opguard_trace::RawJson::new(v.clone()).unwrap()))
        .collect();
    let refs: Vec<(&str, &opguard_trace::RawJson)> =
        meta.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut out = w.finish(&refs).unwrap();
    out.flush().unwrap();
    out.into_inner().unwrap().sync_all().unwrap();
    summary.events
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

struct Setup {
    dir: PathBuf,
    /// Remove `dir` when done (it was made here).
    owned: bool,
    records: PathBuf,
    export: PathBuf,
    map: PathBuf,
    export_bytes: u64,
}

fn setup() -> Setup {
    let n: usize = std::env::var("OPGUARD_ALIGN_BENCH_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_OPS_PER_RUN);
    let (dir, owned) = match std::env::var_os("OPGUARD_ALIGN_BENCH_DIR") {
        Some(d) => (PathBuf::from(d), false),
        None => (
            std::env::temp_dir().join(format!("opguard-align-bench-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("runs.records.jsonl");
    let export = dir.join("export.json");
    let map = dir.join("map.json");
    for p in [&records, &export, &map] {
        let _ = std::fs::remove_file(p);
    }
    let t = Instant::now();
    generate(&records, n);
    let records_bytes = std::fs::metadata(&records).unwrap().len();
    eprintln!(
        "setup: {n} operations per run, records {records_bytes} bytes in {:?}",
        t.elapsed()
    );
    let reset = reset_peak_rss();
    let base_rss = peak_rss_kib();
    let t = Instant::now();
    let s = export_records(&records, &export);
    eprintln!(
        "setup: export {} bytes, {} operations, {} pairs, statuses {:?} in {:?}; peak RSS {:?} KiB (before: {:?}, reset {reset})",
        s.output_bytes, s.operations, s.pairs, s.statuses, t.elapsed(), peak_rss_kib(), base_rss
    );
    let t = Instant::now();
    let m = build_map(&export);
    std::fs::write(&map, serde_json::to_vec(&m).unwrap()).unwrap();
    eprintln!(
        "setup: map of {} reviews, {} bytes in {:?}",
        m["reviews"].as_array().unwrap().len(),
        std::fs::metadata(&map).unwrap().len(),
        t.elapsed()
    );
    drop(m);
    let reset = reset_peak_rss();
    let base_rss = peak_rss_kib();
    let t = Instant::now();
    let out = dir.join("reviewed-setup.json");
    let _ = std::fs::remove_file(&out);
    let r = apply(&export, &map, &out);
    eprintln!(
        "setup: apply → {} pairs, decisions {:?}, new {}, displaced {}, statuses {:?} in {:?}; peak RSS {:?} KiB (before: {:?}, reset {reset})",
        r.pairs, r.decisions, r.new_mappings, r.displaced, r.statuses, t.elapsed(), peak_rss_kib(), base_rss
    );
    std::fs::remove_file(&out).unwrap();
    Setup {
        export_bytes: s.output_bytes,
        dir,
        owned,
        records,
        export,
        map,
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Export as the CLI runs it: input and output on helper threads (the
/// library's default starts none).
fn export_records(records: &Path, output: &Path) -> ExportSummary {
    let request = ExportRequest {
        records: Some(records.to_path_buf()),
        from_profile: Vec::new(),
        output: output.to_path_buf(),
    };
    let options = ExportOptions::new()
        .reader(ReaderOptions::new().decode_thread(true))
        .output_thread(true);
    export_with(&request, &options).unwrap()
}

/// Apply as the CLI runs it: input and output on helper threads.
fn apply(export: &Path, map: &Path, output: &Path) -> Response {
    let options = ApplyOptions::new().decode_thread(true).output_thread(true);
    apply_with(export, map, output, &options).unwrap()
}

fn timed(iters: u64, dir: &Path, name: &str, mut f: impl FnMut(&Path)) -> Duration {
    let mut total = Duration::ZERO;
    for i in 0..iters {
        let out = dir.join(format!("{name}-{i}.json"));
        let _ = std::fs::remove_file(&out);
        let t = Instant::now();
        f(&out);
        total += t.elapsed();
        std::fs::remove_file(&out).unwrap();
    }
    total
}

fn bench(c: &mut Criterion) {
    let s = setup();
    let mut g = c.benchmark_group("align");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(30));
    g.throughput(Throughput::Bytes(s.export_bytes));
    g.bench_function("export", |b| {
        b.iter_custom(|iters| {
            timed(iters, &s.dir, "export", |out| {
                black_box(export_records(&s.records, out));
            })
        })
    });
    g.bench_function("apply_10k_map", |b| {
        b.iter_custom(|iters| {
            timed(iters, &s.dir, "reviewed", |out| {
                black_box(apply(&s.export, &s.map, out));
            })
        })
    });
    g.bench_function("read_write_same_bytes", |b| {
        b.iter_custom(|iters| {
            timed(iters, &s.dir, "copy", |out| {
                black_box(read_write(&s.export, out));
            })
        })
    });
    g.bench_function("copy_bytes", |b| {
        b.iter_custom(|iters| {
            timed(iters, &s.dir, "raw", |out| {
                let mut input = File::open(&s.export).unwrap();
                let mut output = File::create_new(out).unwrap();
                black_box(std::io::copy(&mut input, &mut output).unwrap());
                output.sync_all().unwrap();
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
