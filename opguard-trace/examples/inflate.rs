//! The inflate floor: inflates a gzip file with the same flate2 backend and
//! buffer sizes the reader uses, and nothing else (no hash, no scan).
//! `cargo run --release -p opguard-trace --example inflate -- TRACE.json.gz`
use std::io::{BufReader, Read};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: inflate TRACE.json.gz")?;
    let start = Instant::now();
    let file = BufReader::with_capacity(64 << 10, std::fs::File::open(path)?);
    let mut decoder = flate2::bufread::MultiGzDecoder::new(file);
    let mut buf = vec![0u8; 256 << 10];
    let mut decoded = 0u64;
    loop {
        let n = decoder.read(&mut buf)?;
        if n == 0 {
            break;
        }
        decoded += n as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    println!("decoded={decoded} MB/s={:.0}", decoded as f64 / 1e6 / secs);
    Ok(())
}
