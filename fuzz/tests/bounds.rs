//! Resource bounds at the shipped defaults, on inputs too large for the
//! crates' own (debug-built) test suites: this package builds its tests with
//! optimizations (see `[profile.dev]` in Cargo.toml), keeps debug assertions
//! and overflow checks, and runs with `cargo test` in `fuzz/`.
//!
//! Timings are printed, never asserted.

use std::io::{self, Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use opguard_trace::{
    ErrorKind, Limit, ReaderOptions, TraceReader, DEFAULT_MAX_DECODED_BYTES, DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ENCODED_BYTES,
};

/// `[` + `fill` bytes of `pad` + `]`, generated as it is read.
struct Padded {
    fill: u64,
    pad: u8,
    state: u8,
}

impl Padded {
    fn new(total: u64, pad: u8) -> Self {
        Padded {
            fill: total - 2,
            pad,
            state: 0,
        }
    }
}

impl Read for Padded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        match self.state {
            0 => {
                buf[0] = b'[';
                self.state = 1;
                Ok(1)
            }
            1 if self.fill > 0 => {
                let n = buf
                    .len()
                    .min(usize::try_from(self.fill).unwrap_or(usize::MAX));
                buf[..n].fill(self.pad);
                self.fill -= n as u64;
                Ok(n)
            }
            1 => {
                buf[0] = b']';
                self.state = 2;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

fn read_all<R: Read>(input: R) -> Result<u64, opguard_trace::Error> {
    let mut r = TraceReader::with_options(input, ReaderOptions::default())?;
    while r.next_event()?.is_some() {}
    Ok(r.finish()?.events)
}

fn limit_of(err: &opguard_trace::Error) -> Option<(Limit, u64)> {
    match err.kind() {
        ErrorKind::LimitExceeded { which, limit } => Some((*which, *limit)),
        _ => None,
    }
}

#[test]
fn default_encoded_limit_plain_at_256_mib() {
    let n = DEFAULT_MAX_ENCODED_BYTES;
    assert_eq!(n, 256 << 20);
    let t = Instant::now();
    assert_eq!(
        read_all(Padded::new(n, b' ')).expect("exactly 256 MiB reads"),
        0
    );
    let err = read_all(Padded::new(n + 1, b' ')).expect_err("256 MiB + 1 is refused");
    // Plain input: the encoded count reaches the limit first.
    assert_eq!(limit_of(&err), Some((Limit::EncodedBytes, n)), "{err}");
    println!("plain 256 MiB at N and N+1: {:?}", t.elapsed());
}

/// A gzip stream of `content` whose header carries a comment sized so the
/// whole stream is exactly `total` bytes.
fn gzip_exactly(content: &[u8], total: u64) -> Vec<u8> {
    let build = |comment: usize| {
        let mut enc = flate2::GzBuilder::new()
            .mtime(0)
            .comment(vec![b'c'; comment])
            .write(Vec::new(), flate2::Compression::fast());
        enc.write_all(content).expect("in memory");
        enc.finish().expect("in memory")
    };
    let bare = build(1).len() as u64;
    assert!(bare <= total, "content too large for {total}");
    let out = build(1 + usize::try_from(total - bare).expect("fits"));
    assert_eq!(out.len() as u64, total);
    out
}

#[test]
fn default_encoded_limit_gzip_counts_compressed_bytes_at_256_mib() {
    let n = DEFAULT_MAX_ENCODED_BYTES;
    // Incompressible-ish content: stored blocks of varied bytes inside a
    // JSON string, so the encoded size is what reaches the limit.
    let mut doc = b"[{\"name\":\"".to_vec();
    // Stored blocks add 5 bytes per 64 KiB (about 20 KiB here): leave room.
    let body = (n - (128 << 10)) as usize;
    doc.extend((0..body).map(|i| b'a' + ((i * 7919) % 26) as u8));
    doc.extend_from_slice(b"\"}]");
    let build = |total: u64| {
        let mut enc = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::none());
        enc.write_all(&doc).expect("in memory");
        let plain = enc.finish().expect("in memory");
        // Pad with empty members carrying a comment: members concatenate,
        // and the comments set the size to the byte (flate2 caps one header
        // field at 64 KiB, so the padding is spread over several members).
        let mut out = plain;
        let mut left = total - out.len() as u64;
        while left > 0 {
            let piece = if left > 60_100 { 60_000 } else { left };
            out.extend(gzip_exactly(b"", piece));
            left -= piece;
        }
        out
    };
    let t = Instant::now();
    let at = build(n);
    assert_eq!(at.len() as u64, n);
    let limits = ReaderOptions::new().max_value_bytes(300 << 20);
    let read = |bytes: &[u8]| -> Result<u64, opguard_trace::Error> {
        let mut r = TraceReader::with_options(bytes, limits.clone())?;
        while r.next_event()?.is_some() {}
        Ok(r.finish()?.events)
    };
    assert_eq!(read(&at).expect("exactly 256 MiB of gzip reads"), 1);
    let over = build(n + 1);
    let err = read(&over).expect_err("256 MiB + 1 of gzip is refused");
    assert_eq!(limit_of(&err), Some((Limit::EncodedBytes, n)), "{err}");
    println!("gzip 256 MiB encoded at N and N+1: {:?}", t.elapsed());
}

#[test]
fn default_decoded_limit_at_256_mib() {
    let n = DEFAULT_MAX_DECODED_BYTES;
    assert_eq!(n, 256 << 20);
    let gz = |total: u64| {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::copy(&mut Padded::new(total, b' '), &mut enc).expect("in memory");
        enc.finish().expect("in memory")
    };
    let t = Instant::now();
    let at = gz(n);
    assert!(at.len() < 4 << 20, "compressed {}", at.len());
    assert_eq!(
        read_all(at.as_slice()).expect("exactly 256 MiB decoded reads"),
        0
    );
    let err = read_all(gz(n + 1).as_slice()).expect_err("256 MiB + 1 decoded is refused");
    assert_eq!(limit_of(&err), Some((Limit::DecodedBytes, n)), "{err}");
    assert_eq!(err.offset(), Some(n));
    println!("gzip 256 MiB decoded at N and N+1: {:?}", t.elapsed());
}

#[test]
fn default_depth_limit_at_n_and_n_plus_one() {
    // Depth: the bare array 1, the event 2, args 3, then `m` arrays.
    let doc = |m: usize| format!(r#"[{{"args":{{"a":{}{}}}}}]"#, "[".repeat(m), "]".repeat(m));
    let at = DEFAULT_MAX_DEPTH - 3;
    assert_eq!(read_all(doc(at).as_bytes()).expect("depth 128 reads"), 1);
    let err = read_all(doc(at + 1).as_bytes()).expect_err("depth 129 is refused");
    assert_eq!(
        limit_of(&err),
        Some((Limit::Depth, DEFAULT_MAX_DEPTH as u64)),
        "{err}"
    );
    // A million openers end with the same error, not a stack overflow.
    let deep = format!(r#"[{{"args":{}"#, "[".repeat(1_000_000));
    assert_eq!(
        read_all(deep.as_bytes()).unwrap_err().code(),
        "limit_exceeded"
    );
}

const STREAM_EVENTS: u64 = 30_000_000;
const STREAM_RSS_BOUND_KIB: u64 = 64 << 10;

/// The peak resident set of this process, from `/proc/self/status`.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs this test binary's `child_*` test in a fresh process, feeding it
/// `input` through a pipe, and returns its `RESULT` line.
fn child(test: &str, env: (&str, &str), input: impl FnOnce(&mut dyn Write) + Send) -> String {
    let exe = std::env::current_exe().expect("test binary");
    let mut c = Command::new(exe)
        .args([
            "--exact",
            test,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(env.0, env.1)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the child");
    let mut stdin = c.stdin.take().expect("piped stdin");
    std::thread::scope(|s| {
        s.spawn(move || input(&mut stdin));
    });
    let out = c.wait_with_output().expect("child output");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "child failed: {text}");
    text.lines()
        .find_map(|l| l.find("RESULT ").map(|at| l[at..].to_owned()))
        .unwrap_or_else(|| panic!("no RESULT line in {text}"))
}

fn field(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{key} missing in {line}"))
}

#[test]
fn thirty_million_tiny_events_stream_in_bounded_memory() {
    let t = Instant::now();
    let line = child(
        "child_streams_stdin",
        ("OPGUARD_FUZZ_CHILD", "stream"),
        |w| {
            // 30 million `{}` events, written in 1 MiB chunks: the stream is
            // never materialized on either side of the pipe.
            let mut chunk = Vec::with_capacity(1 << 20);
            let _ = w.write_all(b"[{}");
            let mut left = STREAM_EVENTS - 1;
            while left > 0 {
                chunk.clear();
                while chunk.len() < (1 << 20) - 3 && left > 0 {
                    chunk.extend_from_slice(b",{}");
                    left -= 1;
                }
                if w.write_all(&chunk).is_err() {
                    return;
                }
            }
            let _ = w.write_all(b"]");
        },
    );
    let events = field(&line, "events");
    let peak = field(&line, "peak_rss_kib");
    println!(
        "{events} events ({} MB) through a pipe in {:?}; child peak RSS {} KiB (bound {} KiB)",
        (STREAM_EVENTS * 3 + 1) / 1_000_000,
        t.elapsed(),
        peak,
        STREAM_RSS_BOUND_KIB
    );
    assert_eq!(events, STREAM_EVENTS);
    assert!(peak < STREAM_RSS_BOUND_KIB, "peak RSS {peak} KiB");
}

/// Child side of the streaming test: reads stdin, reports count and peak RSS.
#[test]
#[ignore = "run by thirty_million_tiny_events_stream_in_bounded_memory in a child process"]
fn child_streams_stdin() {
    if std::env::var("OPGUARD_FUZZ_CHILD").as_deref() != Ok("stream") {
        return;
    }
    let stdin = io::stdin().lock();
    let events = read_all(stdin).expect("the stream reads");
    println!(
        "RESULT events={events} peak_rss_kib={}",
        peak_rss_kib().expect("VmHWM")
    );
}
