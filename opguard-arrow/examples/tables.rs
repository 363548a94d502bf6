//! Reads a capture into tables and prints each table's rows, batches and
//! Arrow buffer size: `cargo run --release -p opguard-arrow --example tables -- TRACE [TABLE...]`.

use std::time::Instant;

use opguard_arrow::{read_tables, Table, TableOptions};
use opguard_model::ArtifactSpec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: tables TRACE [TABLE...]")?;
    let asked: Vec<Table> = args
        .map(|n| Table::from_name(&n).ok_or(format!("no table {n:?}")))
        .collect::<Result<_, _>>()?;
    let mut options = TableOptions::new();
    if !asked.is_empty() {
        options = options.tables(&asked);
    }
    let mut read = opguard_formats::ReadOptions::default();
    read.reader = read.reader.max_decoded_bytes(u64::MAX);
    options = options.read(read);
    let started = Instant::now();
    let tables = read_tables(&path, ArtifactSpec::new(), &options)?;
    let elapsed = started.elapsed();
    for table in tables.names() {
        let batches = tables.batches(table).unwrap_or_default();
        let bytes: usize = batches.iter().map(|b| b.get_array_memory_size()).sum();
        println!(
            "{table}: {} rows, {} batches, {:.1} MiB",
            tables.rows(table),
            batches.len(),
            bytes as f64 / (1 << 20) as f64
        );
    }
    println!("read in {:.3} s", elapsed.as_secs_f64());
    Ok(())
}
