//! The example that opens the `opguard-trace` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example trace`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_trace::{EventRef, TraceReader};

    let trace = br#"{"traceEvents":[
      {"ph":"X","cat":"kernel","name":"void k<4>(float*)","pid":0,"tid":7,
       "ts":4203669604595.407,"dur":3.25,"args":{"correlation":10159970886766084423}}
    ]}"#;
    let mut reader = TraceReader::new(&trace[..])?;
    let mut kernels = Vec::new();
    while let Some(event) = reader.next_event()? {
        if event.cat().is_some_and(|c| c == "kernel") {
            let start = event.ts_ns()?.unwrap_or_default();
            let correlation = event.correlation().map(|c| c.to_key());
            kernels.push((event.index(), start, correlation));
        }
    }
    let summary = reader.finish()?;
    let first = EventRef { artifact: summary.sha256, index: kernels[0].0 };
    assert_eq!(kernels[0].1, 4_203_669_604_595_407);
    assert_eq!(kernels[0].2.as_ref().unwrap().to_string(), "10159970886766084423");
    assert_eq!(first.to_string().len(), 64 + 2);
    println!("opguard-trace: the documented example ran");
    Ok(())
}
