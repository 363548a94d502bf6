//! opguard-kernel-name throughput over every distinct real kernel/memory
//! symbol in the shared HTA traces (collected at bench start).
//!
//! `cargo bench -p opguard-benches --bench kernel_name`
//! Peer: `benches/peers/run_kernel_name_reference.sh` (the same rules in Python).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opguard_kernel_name::{canonicalize, matches, short_name, Canonical};
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

criterion_group!(benches, bench);
criterion_main!(benches);
