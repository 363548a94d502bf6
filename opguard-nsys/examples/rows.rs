//! Reads every row of each export given and prints what it found: the
//! export's versions, rows per kind with their summed durations, and kernels
//! whose launch is proven by (process, correlation id) or ambiguous.
//!
//! `cargo run --release -p opguard-nsys --example rows -- [--launches] EXPORT.sqlite...`

use opguard_nsys::{CallIndex, Calls, Export, ReadOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = ReadOptions::new()
        .max_encoded_bytes(u64::MAX)
        .max_decoded_bytes(u64::MAX)
        .unverified_schema(std::env::var_os("UNVERIFIED").is_some());
    // --launches: only what a launch region needs (calls, kernels, memory
    // operations), as the peers of benches/peers/nsys_readers.py read.
    let launches_only = std::env::args().any(|a| a == "--launches");
    for path in std::env::args().skip(1).filter(|a| a != "--launches") {
        let export = match Export::open(&path, &options) {
            Ok(export) => export,
            Err(e) => {
                println!("{path}: error[{}] {e}", e.code());
                continue;
            }
        };
        let meta = export.meta();
        println!(
            "{path}: {} {} schema {} ({})",
            meta.product_name, meta.product_version, meta.schema, meta.metadata_table
        );
        // Calls by (process, correlation id); kernels checked after.
        let mut index = CallIndex::new();
        let (mut calls, mut backtraces, mut call_ns) = (0u64, 0u64, 0i64);
        export.api_calls(|c| {
            if !c.is_call() {
                backtraces += 1;
                return Ok::<_, opguard_nsys::Error>(());
            }
            calls += 1;
            call_ns += c.end - c.start;
            if let (Some(t), Some(id)) = (c.global_tid, c.correlation_id) {
                index.insert(t.process(), id);
            }
            Ok(())
        })?;
        let (mut kernels, mut kernel_ns, mut proven, mut ambiguous) = (0u64, 0i64, 0u64, 0u64);
        let mut strings = export.strings()?;
        let mut names = 0usize;
        export.kernels(|k| {
            kernels += 1;
            kernel_ns += k.end - k.start;
            names += strings.get(k.demangled_name)?.len();
            if let (Some(p), Some(id)) = (k.global_pid, k.correlation_id) {
                match index.calls(p.process(), id) {
                    Calls::One => proven += 1,
                    Calls::Several => ambiguous += 1,
                    Calls::None => {}
                }
            }
            Ok::<_, opguard_nsys::Error>(())
        })?;
        let mut memory = (0u64, 0i64);
        export.memory_ops(|m| {
            memory.0 += 1;
            memory.1 += m.end - m.start;
            Ok::<_, opguard_nsys::Error>(())
        })?;
        let mut syncs = 0u64;
        let mut nvtx = (0u64, 0u64);
        let mut gpus = Vec::new();
        if !launches_only {
            export.syncs(|_| {
                syncs += 1;
                Ok::<_, opguard_nsys::Error>(())
            })?;
            export.nvtx(|n| {
                nvtx.0 += 1;
                nvtx.1 += u64::from(n.kind.is_range());
                Ok::<_, opguard_nsys::Error>(())
            })?;
            gpus = export.gpus()?;
        }
        println!(
            "  kernels {kernels} ({kernel_ns} ns, {names} name bytes), proven {proven}, ambiguous {ambiguous}; \
             calls {calls} ({call_ns} ns), backtrace rows {backtraces}; memory ops {} ({} ns); \
             syncs {syncs}; nvtx {} ({} ranges); gpus {}; call index {} KiB",
            memory.0,
            memory.1,
            nvtx.0,
            nvtx.1,
            gpus.len(),
            index.chunk_bytes() / 1024
        );
    }
    Ok(())
}
