//! Prints every record of a rocprofv3 capture, one line each (for looking
//! at a capture, not for parsing).
//!
//! `cargo run -p opguard-rocprof --example rocprof_dump -- CAPTURE`

use opguard_rocprof::{read_capture, ReadOptions, Record};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: dump CAPTURE")?;
    let summary = read_capture(path.as_ref(), &ReadOptions::new(), &mut |r: &Record<'_>| {
        let b = r.base();
        let what = match r {
            Record::Dispatch(d) => format!(
                "dispatch {} on {} ({})",
                d.kernel_name,
                d.device.label,
                d.device
                    .agent
                    .map_or("no agent record", |a| a.display_name())
            ),
            Record::Api(a) => format!("api {}::{}", a.domain, a.function),
            Record::Marker(m) => format!(
                "{} {:?} ({})",
                if m.is_range() { "range" } else { "mark" },
                m.message,
                m.domain
            ),
            Record::MemoryCopy(c) => {
                format!(
                    "copy {} {} -> {}",
                    c.direction, c.source.label, c.destination.label
                )
            }
            _ => "other".to_owned(),
        };
        println!(
            "#{} pid={:?} tid={:?} corr={:?} [{}, {}] {what}",
            b.index, b.process, b.thread, b.correlation, b.span.start_ns, b.span.end_ns
        );
    })?;
    for w in &summary.warnings {
        eprintln!("warning: {w}");
    }
    Ok(())
}
