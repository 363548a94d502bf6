//! opguard-kernel-name throughput over every distinct real kernel/memory
//! symbol in the shared HTA traces (collected at bench start).
//!
//! `cargo bench -p opguard-benches --bench kernel_name`
//! Peer: `benches/peers/run_kernel_name_reference.sh` (the same rules in Python).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, Criterion, Throughput,
};
use opguard_kernel_name::{canonicalize, matches, short_name, Canonical, Field, Memo};
use opguard_trace::TraceReader;

/// Categories whose event names are kernel or memory-operation symbols.
const CATEGORIES: &[&str] = &[
    "kernel",
    "Kernel",
    "gpu_memcpy",
    "gpu_memset",
    "cuda_profiler_range",
];

/// Distinct names of kernel/memory events, read with opguard-trace's streaming reader.
fn real_names() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/traces/hta");
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(err) => {
            eprintln!("kernel_name bench: no traces at {} ({err})", dir.display());
            return Vec::new();
        }
    };
    paths.sort();
    let mut seen = std::collections::HashSet::new();
    let mut names = Vec::new();
    for path in paths {
        let read = std::fs::File::open(&path)
            .map_err(|e| e.to_string())
            .and_then(|file| {
                let mut reader =
                    TraceReader::new(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
                while let Some(event) = reader.next_event().map_err(|e| e.to_string())? {
                    let is_kernel = event
                        .cat()
                        .is_some_and(|c| CATEGORIES.iter().any(|k| c.eq_str(k)));
                    if let (true, Some(name)) = (is_kernel, event.name()) {
                        let name = name.as_cow().into_owned();
                        if seen.insert(name.clone()) {
                            names.push(name);
                        }
                    }
                }
                Ok(())
            });
        if let Err(err) = read {
            eprintln!("kernel_name bench: skipped {}: {err}", path.display());
        }
    }
    names
}

fn bench(c: &mut Criterion) {
    let names = real_names();
    if names.is_empty() {
        return;
    }
    let plain: Vec<&String> = names.iter().filter(|n| !n.starts_with("_Z")).collect();
    let mangled: Vec<&String> = names.iter().filter(|n| n.starts_with("_Z")).collect();
    eprintln!(
        "kernel_name bench: {} distinct names ({} `_Z` mangled), mean length {} bytes",
        names.len(),
        mangled.len(),
        names.iter().map(String::len).sum::<usize>() / names.len()
    );
    // Pairs: each name against a different one (mostly non-matching) and itself.
    let n = names.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| [(i, (i * 7 + 3) % n), (i, i)])
        .collect();
    let canon: Vec<Canonical<'_>> = names.iter().map(|s| canonicalize(s)).collect();

    let mut group = c.benchmark_group("kernel_name");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));

    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("canonicalize/all_distinct_names", |b| {
        b.iter(|| {
            for s in &names {
                black_box(canonicalize(black_box(s)));
            }
        })
    });
    group.throughput(Throughput::Elements(plain.len() as u64));
    group.bench_function("canonicalize/without_mangled", |b| {
        b.iter(|| {
            for s in &plain {
                black_box(canonicalize(black_box(s)));
            }
        })
    });
    group.throughput(Throughput::Elements(mangled.len() as u64));
    group.bench_function("canonicalize/mangled_only", |b| {
        b.iter(|| {
            for s in &mangled {
                black_box(canonicalize(black_box(s)));
            }
        })
    });
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("short_name/all_distinct_names", |b| {
        b.iter(|| {
            for s in &names {
                black_box(short_name(black_box(s)));
            }
        })
    });
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.bench_function("match/canonicalized_pairs", |b| {
        b.iter(|| {
            for &(i, j) in &pairs {
                black_box(canon[i].matches(black_box(&canon[j])));
            }
        })
    });
    group.bench_function("match/from_symbols", |b| {
        b.iter(|| {
            for &(i, j) in &pairs {
                black_box(matches(black_box(&names[i]), black_box(&names[j])));
            }
        })
    });
    group.finish();
}

/// The issue-18 corpus ("Kernel names at event rate"): the distinct HTA names
/// above plus the TraceLens names of `fixtures/kernel-name/real-names/`, the
/// same list `benches/peers/kernel_name_batch.py` writes for the CLI batch
/// (names holding a line break left out, as a batch line cannot carry them).
fn event_rate_corpus() -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/kernel-name/real-names/tracelens.json");
    let list: serde_json::Value = match std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
    {
        Ok(list) => list,
        Err(err) => {
            eprintln!(
                "kernel_name bench: no TraceLens names at {}: {err}",
                path.display()
            );
            return Vec::new();
        }
    };
    let tracelens = list["names"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["name"].as_str().map(str::to_owned));
    let mut seen = std::collections::HashSet::new();
    real_names()
        .into_iter()
        .chain(tracelens)
        .filter(|n| !n.contains(['\n', '\r']) && seen.insert(n.clone()))
        .collect()
}

fn event_rate_group(c: &mut Criterion) -> BenchmarkGroup<'_, WallTime> {
    let mut group = c.benchmark_group("event_rate");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    group
}

/// Without a memo: each distinct name canonicalized (and answered as JSON) once.
fn event_rate(c: &mut Criterion) {
    let names = event_rate_corpus();
    if names.is_empty() {
        return;
    }
    let mangled: Vec<&String> = names
        .iter()
        .filter(|n| n.trim().starts_with("_Z"))
        .collect();
    eprintln!(
        "event_rate corpus: {} distinct names ({} `_Z` mangled)",
        names.len(),
        mangled.len()
    );
    let mut group = event_rate_group(c);
    group.throughput(Throughput::Elements(names.len() as u64));
    group.bench_function("cold/canonicalize", |b| {
        b.iter(|| {
            for s in &names {
                black_box(canonicalize(black_box(s)));
            }
        })
    });
    group.bench_function("cold/full_json", |b| {
        let mut out = Vec::with_capacity(1 << 20);
        b.iter(|| {
            out.clear();
            for s in &names {
                serde_json::to_writer(&mut out, &canonicalize(black_box(s))).ok();
                out.push(b'\n');
            }
            black_box(out.len())
        })
    });
    group.throughput(Throughput::Elements(mangled.len() as u64));
    group.bench_function("cold/canonicalize_mangled_only", |b| {
        b.iter(|| {
            for s in &mangled {
                black_box(canonicalize(black_box(s)));
            }
        })
    });
    group.finish();
}

/// With the memo, as a plugin naming kernels per event sees the names: every
/// name again and again. `first_pass` is a fresh memo over the corpus (each
/// name canonicalized, each mangled one demangled, once); `warm` is the
/// steady state; `warm_compact_json` serializes the lent canonical form,
/// `warm_write_json` copies the kept answer (the CLI batch's path).
fn event_rate_memo(c: &mut Criterion) {
    let names = event_rate_corpus();
    if names.is_empty() {
        return;
    }
    let mut group = event_rate_group(c);
    group.throughput(Throughput::Elements(names.len() as u64));
    group.bench_function("memo/first_pass", |b| {
        b.iter_batched(
            Memo::new,
            |mut memo| {
                for s in &names {
                    black_box(&*memo.canonicalize(black_box(s)));
                }
                memo
            },
            BatchSize::PerIteration,
        )
    });
    let mut memo = Memo::new();
    group.bench_function("memo/warm", |b| {
        b.iter(|| {
            for s in &names {
                black_box(&*memo.canonicalize(black_box(s)));
            }
        })
    });
    group.bench_function("memo/warm_compact_json", |b| {
        let mut out = Vec::with_capacity(1 << 20);
        b.iter(|| {
            out.clear();
            for s in &names {
                let c = memo.canonicalize(black_box(s));
                serde_json::to_writer(&mut out, &c.project(&Field::COMPACT)).ok();
                out.push(b'\n');
            }
            black_box(out.len())
        })
    });
    // The CLI batch's path: the kept compact answer copied out.
    group.bench_function("memo/warm_write_json", |b| {
        let mut out = String::with_capacity(1 << 20);
        b.iter(|| {
            out.clear();
            for s in &names {
                memo.write_json(black_box(s), &Field::COMPACT, &mut out);
                out.push('\n');
            }
            black_box(out.len())
        })
    });
    group.finish();
}

/// The C ABI's batch entry (`opguard_kernel_canonicalize_batch`, through
/// `opguard_capi::call`: the same handler and panic guard as the C symbol)
/// over the corpus from 1 and 2 threads at once. Each thread has its own memo
/// (a thread-local in opguard-capi), warmed by one call before the clock
/// starts; the time of a sample is the slowest thread's. Throughput counts
/// the names of every thread, so per-thread memos that never wait for each
/// other show as 2 threads answering about twice the names of 1 (on 2 free
/// cores).
fn capi_batch_threads(c: &mut Criterion) {
    let names = event_rate_corpus();
    if names.is_empty() {
        return;
    }
    let compact: Vec<&str> = Field::COMPACT.iter().map(|f| f.name()).collect();
    let request = serde_json::json!({"symbols": names, "fields": compact}).to_string();
    let batch = |request: &str| {
        let answer = opguard_capi::call("opguard_kernel_canonicalize_batch", request);
        assert!(
            answer
                .as_deref()
                .is_some_and(|a| a.starts_with(r#"{"ok":true"#)),
            "the batch entry refused the corpus"
        );
        answer
    };
    let mut group = event_rate_group(c);
    for threads in [1usize, 2] {
        group.throughput(Throughput::Elements((names.len() * threads) as u64));
        group.bench_function(format!("capi_batch/threads/{threads}"), |b| {
            b.iter_custom(|calls| {
                let start = std::sync::Barrier::new(threads);
                std::thread::scope(|scope| {
                    let workers: Vec<_> = (0..threads)
                        .map(|_| {
                            scope.spawn(|| {
                                black_box(batch(&request));
                                start.wait();
                                let clock = std::time::Instant::now();
                                for _ in 0..calls {
                                    black_box(batch(black_box(&request)));
                                }
                                clock.elapsed()
                            })
                        })
                        .collect();
                    workers
                        .into_iter()
                        .map(|w| w.join().expect("a bench thread panicked"))
                        .max()
                        .unwrap_or_default()
                })
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench,
    event_rate,
    event_rate_memo,
    capi_batch_threads
);
criterion_main!(benches);
