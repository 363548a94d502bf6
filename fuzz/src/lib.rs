//! Harness functions for the opguard fuzz targets.
//!
//! Every fuzz target in `fuzz_targets/` is one line that calls a function
//! here, so the same oracle runs under libFuzzer (`cargo fuzz run <target>`)
//! and in `cargo test` over the committed seeds and regression inputs
//! (`tests/regressions.rs`), on stable Rust.
//!
//! A harness panics when an oracle is violated: besides "no panic, no hang,
//! bounded memory" (which libFuzzer checks with `-timeout` and
//! `-rss_limit_mb`), each one checks an answer against an independent
//! implementation or a second path through the library:
//!
//! - [`trace_reader`]: a document the reader accepts is accepted by
//!   `serde_json` too, with the same number of events and, event by event,
//!   the same JSON value; reading it through the decode thread and through
//!   gzip gives the same events and the same error code; `ts`/`dur`
//!   nanoseconds agree with an `f64` reading within its precision.
//! - [`trace_gzip`]: arbitrary bytes behind the gzip magic never panic and
//!   fail with a gzip or JSON code; JSON split into several gzip members
//!   reads exactly as the plain JSON.
//! - [`trace_model`]: structured Kineto-like events (extreme times included)
//!   go through the model, every qualified join, the semantic frames and
//!   the launch-region analysis without panicking; overflow is a panic here
//!   because the fuzz build keeps debug assertions.
//! - [`kernel_name`]: canonicalization, short names and the matcher on two
//!   arbitrary strings; short names stay within the display limit, the
//!   verdict is self-consistent and canonicalization is deterministic.
//! - [`census_capture`]: arbitrary bytes as a capture, a family table and a
//!   declared host-resolution set; an accepted capture goes through the
//!   census, its serialization and the two-width comparison.

use std::io::{Read, Write};

use arbitrary::{Arbitrary, Unstructured};
use opguard_trace::{ReaderOptions, TraceReader};

/// Limits small enough that a fuzz iteration stays fast; the real defaults
/// are exercised by the boundary tests in the crates.
fn fuzz_options() -> ReaderOptions {
    ReaderOptions::new()
        .max_encoded_bytes(1 << 20)
        .max_decoded_bytes(4 << 20)
        // Below serde_json's own recursion limit (128), so the differential
        // check never disagrees because of the oracle's limit.
        .max_depth(64)
        .max_value_bytes(1 << 20)
}

/// What one read established: the raw text of every event, in order, and
/// how the read ended (event count or error code).
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Raw JSON text of each event read before the end or the error.
    pub events: Vec<String>,
    /// What the typed getters of each of those events return: the decode
    /// thread scans events ahead and hands their field spans over.
    pub fields: Vec<String>,
    /// `Ok(event count)` or `Err(code)`.
    pub end: Result<u64, &'static str>,
}

/// Reads `input` to the end, touching every typed accessor of every event.
pub fn read_outcome<R: Read>(input: R, options: ReaderOptions) -> Outcome {
    match TraceReader::with_options(input, options) {
        Ok(reader) => drain(reader),
        Err(e) => Outcome {
            events: Vec::new(),
            fields: Vec::new(),
            end: Err(e.code()),
        },
    }
}

/// Like [`read_outcome`], through the reader's decode thread.
pub fn read_outcome_threaded(input: Vec<u8>, options: ReaderOptions) -> Outcome {
    match TraceReader::with_thread(std::io::Cursor::new(input), options.decode_thread(true)) {
        Ok(reader) => drain(reader),
        Err(e) => Outcome {
            events: Vec::new(),
            fields: Vec::new(),
            end: Err(e.code()),
        },
    }
}

fn drain<R: Read>(mut reader: TraceReader<R>) -> Outcome {
    let mut events = Vec::new();
    let mut fields = Vec::new();
    loop {
        match reader.next_event() {
            Ok(Some(e)) => {
                touch_event(&e);
                events.push(e.raw().to_owned());
                fields.push(typed_fields(&e));
            }
            Ok(None) => break,
            Err(e) => {
                // After an error the reader is finished.
                assert!(matches!(reader.next_event(), Ok(None)));
                return Outcome {
                    events,
                    fields,
                    end: Err(e.code()),
                };
            }
        }
    }
    let end = match reader.finish() {
        Ok(s) => {
            assert_eq!(s.events, events.len() as u64, "summary event count");
            Ok(s.events)
        }
        Err(e) => Err(e.code()),
    };
    Outcome {
        events,
        fields,
        end,
    }
}

/// The typed getters of `e`, as text.
fn typed_fields(e: &opguard_trace::Event<'_>) -> String {
    let text = |s: Option<&dyn std::fmt::Display>| s.map(|s| s.to_string());
    let value = |v: Option<opguard_trace::Value<'_>>| v.map(|v| v.raw().to_owned());
    format!(
        "{:?}",
        [
            text(e.ph().as_ref().map(|v| v as _)),
            text(e.name().as_ref().map(|v| v as _)),
            text(e.cat().as_ref().map(|v| v as _)),
            text(e.bp().as_ref().map(|v| v as _)),
            text(e.scope().as_ref().map(|v| v as _)),
            text(e.pid().as_ref().map(|v| v as _)),
            text(e.tid().as_ref().map(|v| v as _)),
            text(e.id().as_ref().map(|v| v as _)),
            text(e.bind_id().as_ref().map(|v| v as _)),
            text(e.ts().as_ref().map(|v| v as _)),
            text(e.dur().as_ref().map(|v| v as _)),
            e.args().map(|a| a.raw().to_owned()),
            text(e.external_id().as_ref().map(|v| v as _)),
            text(e.correlation().as_ref().map(|v| v as _)),
            text(e.device().as_ref().map(|v| v as _)),
            text(e.stream().as_ref().map(|v| v as _)),
            text(e.context().as_ref().map(|v| v as _)),
            text(e.sequence_number().as_ref().map(|v| v as _)),
            value(e.input_dims()),
            value(e.input_type()),
            value(e.arg("hlo_op")),
            value(e.arg("hlo_module")),
        ]
    )
}

/// Calls every accessor of an event and checks the time conversions.
fn touch_event(e: &opguard_trace::Event<'_>) {
    let _ = (e.index(), e.offset());
    for s in [e.ph(), e.name(), e.cat(), e.bp(), e.scope()]
        .into_iter()
        .flatten()
    {
        let _ = s.as_cow();
        let _ = s.eq_str("X");
    }
    for s in [
        e.pid(),
        e.tid(),
        e.id(),
        e.bind_id(),
        e.external_id(),
        e.correlation(),
        e.device(),
        e.stream(),
        e.context(),
        e.sequence_number(),
    ]
    .into_iter()
    .flatten()
    {
        let _ = (s.to_key(), s.as_i64());
    }
    if let Some(args) = e.args() {
        for (k, v) in args.iter().take(64) {
            let _ = k.as_cow();
            touch_value(v, 0);
        }
        let _ = args.get("correlation");
    }
    for v in [e.input_dims(), e.input_type()].into_iter().flatten() {
        touch_value(v, 0);
    }
    check_micros(e.ts(), e.ts_ns());
    check_micros(e.dur(), e.dur_ns());
}

fn touch_value(v: opguard_trace::Value<'_>, depth: usize) {
    let _ = v.raw();
    if depth > 8 {
        return;
    }
    if let Some(items) = v.as_array() {
        for item in items.take(16) {
            touch_value(item, depth + 1);
        }
    }
    if let Some(obj) = v.as_object() {
        for (k, item) in obj.iter().take(16) {
            let _ = k.as_cow();
            touch_value(item, depth + 1);
        }
    }
}

/// Exact microsecond-to-nanosecond conversion agrees with `f64` within
/// `f64`'s precision, and refuses only values out of `i64` range.
fn check_micros(
    number: Option<opguard_trace::Number<'_>>,
    nanos: Result<Option<i64>, opguard_trace::NumberError>,
) {
    let Some(number) = number else {
        assert!(matches!(nanos, Ok(None)), "{nanos:?}");
        return;
    };
    let text = number.as_str();
    let approx: f64 = text.parse::<f64>().expect("a JSON number parses as f64") * 1000.0;
    match nanos {
        Ok(Some(n)) => {
            let tolerance = approx.abs() * 1e-14 + 1.0;
            assert!(
                (n as f64 - approx).abs() <= tolerance,
                "{text} us read as {n} ns, f64 says {approx}"
            );
        }
        Ok(None) => panic!("{text} present but read as absent"),
        Err(err) => assert!(
            !approx.is_finite() || approx.abs() >= 9.223e18,
            "{text} us refused ({err}) though f64 puts it at {approx} ns"
        ),
    }
}

fn assert_same(a: &Outcome, b: &Outcome, what: &str) {
    assert_eq!(a, b, "{what}");
}

/// A reader that returns one byte per `read` call.
pub struct OneByte<'a>(pub &'a [u8]);

impl Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

fn gzip_members(bytes: &[u8], cuts: &[usize], level: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.sort_unstable();
    points.push(bytes.len());
    for end in points {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        enc.write_all(&bytes[start..end]).expect("in memory");
        out.extend(enc.finish().expect("in memory"));
        start = end;
    }
    out
}

fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data)
}

/// The trace reader on arbitrary bytes, checked against `serde_json`, the
/// decode thread and gzip.
pub fn trace_reader(data: &[u8]) {
    let plain = read_outcome(data, fuzz_options());

    // Buffer boundaries must not change the answer: the same bytes
    // delivered one byte per read end the same way.
    let trickle = read_outcome(OneByte(data), fuzz_options());
    assert_same(&plain, &trickle, "one-byte reads disagree with one slice");

    // The decode thread is a different path through the same contract.
    let threaded = read_outcome_threaded(data.to_vec(), fuzz_options());
    assert_eq!(plain, threaded, "decode thread disagrees");

    // Plain JSON (not already gzip) read through gzip gives the same events
    // and the same end, except for limits counted in encoded bytes.
    if !data.starts_with(&[0x1f, 0x8b]) {
        let cut = data.len() / 2;
        let gz = gzip_members(data, &[cut], 6);
        let through_gzip = read_outcome(gz.as_slice(), fuzz_options());
        if plain.end != Err("limit_exceeded") && through_gzip.end != Err("limit_exceeded") {
            assert_same(&plain, &through_gzip, "gzip disagrees with plain");
        }
    }

    // What the reader accepts is JSON, with the same events.
    let Ok(count) = plain.end else { return };
    if data.starts_with(&[0x1f, 0x8b]) {
        return;
    }
    let doc: serde_json::Value = match serde_json::from_slice(strip_bom(data)) {
        Ok(v) => v,
        // RFC 8259's grammar allows lone surrogates in escapes; the reader
        // keeps them (as U+FFFD when decoded), serde_json refuses them.
        Err(_) if has_surrogate_escape(data) => return,
        Err(e) => panic!("the reader accepted a document serde_json refuses: {e}"),
    };
    let events = match &doc {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => match o.get("traceEvents") {
            Some(serde_json::Value::Array(a)) => a,
            other => panic!("accepted an object whose traceEvents is {other:?}"),
        },
        other => panic!("accepted a top-level {other:?}"),
    };
    assert_eq!(
        events.len() as u64,
        count,
        "event count differs from serde_json"
    );
    for (raw, want) in plain.events.iter().zip(events) {
        let got: serde_json::Value =
            serde_json::from_str(raw).expect("an event's raw text is JSON");
        assert_eq!(&got, want, "event text differs from serde_json's element");
    }
}

/// Whether the bytes contain a `\\uD800`-`\\uDFFF` escape.
fn has_surrogate_escape(data: &[u8]) -> bool {
    data.windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && (w[2] == b'd' || w[2] == b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    })
}

/// Hostile gzip streams: arbitrary bytes after the gzip magic, and
/// arbitrary JSON split into several members.
pub fn trace_gzip(data: &[u8]) {
    // 1. Whatever follows the magic, the reader ends with a code.
    let mut hostile = vec![0x1f, 0x8b];
    hostile.extend_from_slice(data);
    let out = read_outcome(hostile.as_slice(), fuzz_options());
    if let Err(code) = out.end {
        assert!(
            [
                "gzip_invalid",
                "gzip_truncated",
                "limit_exceeded",
                "invalid_utf8",
                "empty_input",
                "json_truncated",
                "json_syntax",
                "unescaped_quote",
                "non_finite_number",
                "event_not_object",
                "trace_events_not_array",
                "top_level_not_container",
                "missing_trace_events",
                "duplicate_key",
                "wrong_type",
                "trailing_data",
            ]
            .contains(&code),
            "unexpected code {code}"
        );
    }

    // 2. The bytes as JSON, split into members at points taken from the
    //    input itself, read exactly as the plain bytes.
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let cuts: Vec<usize> = body
        .iter()
        .take(4)
        .map(|&b| b as usize * 7 + selector as usize)
        .collect();
    let members = gzip_members(body, &cuts, u32::from(selector % 10));
    let plain = read_outcome(body, fuzz_options());
    let zipped = read_outcome(members.as_slice(), fuzz_options());
    if plain.end != Err("limit_exceeded") && zipped.end != Err("limit_exceeded") {
        assert_same(&plain, &zipped, "multi-member gzip disagrees with plain");
    }
    // 3. Truncating a valid stream is never a success with fewer events.
    if plain.end.is_ok() && members.len() > 1 {
        let cut = members.len() - 1 - (selector as usize % members.len().min(24));
        let truncated = read_outcome(&members[..cut], fuzz_options());
        if let Ok(n) = truncated.end {
            // Only a cut exactly between members can still be a whole
            // document, and then it is the same document's prefix members.
            assert!(n <= plain.end.unwrap_or(0));
            let decoded = decode_members(&members[..cut]);
            let direct = read_outcome(decoded.as_slice(), fuzz_options());
            assert_eq!(
                direct.end, truncated.end,
                "truncated gzip read as a different document"
            );
        }
    }
}

fn decode_members(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("the reader accepted it, so flate2 decodes it");
    out
}

/// One generated trace event (structured fuzzing of the model).
#[derive(Debug, Arbitrary)]
struct GenEvent {
    ph: u8,
    cat: u8,
    name: u8,
    pid: GenId,
    tid: GenId,
    ts: GenTime,
    dur: Option<GenTime>,
    correlation: Option<GenId>,
    external_id: Option<GenId>,
    device: Option<GenId>,
    stream: Option<GenId>,
    flow_id: GenId,
}

#[derive(Debug, Arbitrary)]
enum GenId {
    Small(u8),
    Big(u64),
    Text(u8),
    Huge,
}

#[derive(Debug, Arbitrary)]
enum GenTime {
    Micros(i32),
    Fraction(i64, u16),
    Extreme(u8),
}

const PHASES: [&str; 8] = ["X", "X", "X", "s", "f", "i", "M", "B"];
const CATS: [&str; 12] = [
    "kernel",
    "cuda_runtime",
    "cuda_driver",
    "hip_runtime",
    "gpu_memcpy",
    "gpu_memset",
    "cpu_op",
    "user_annotation",
    "gpu_user_annotation",
    "python_function",
    "ac2g",
    "Runtime",
];
const NAMES: [&str; 10] = [
    "cudaLaunchKernel",
    "cudaGraphLaunch",
    "hipModuleLaunchKernel",
    "cudaMemcpyAsync",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    "ampere_sgemm_128x64_tn",
    "Memcpy DtoD (Device -> Device)",
    "aten::mm",
    "_ZN2at6native18elementwise_kernelILi128ELi4EEEviT1_",
    "main_kernel[prefill]",
];

impl GenId {
    fn json(&self) -> String {
        match self {
            GenId::Small(v) => (v % 4).to_string(),
            GenId::Big(v) => v.to_string(),
            GenId::Text(v) => format!("\"stream {}\"", v % 3),
            GenId::Huge => "123456789012345678901234567890".into(),
        }
    }
}

impl GenTime {
    fn json(&self) -> String {
        // Microseconds: i64::MAX and i64::MIN nanoseconds exactly, half of
        // them, one past (refused), and small odd forms.
        const EXTREMES: [&str; 10] = [
            "9223372036854775.807",
            "-9223372036854775.808",
            "4611686018427387.904",
            "-4611686018427387.904",
            "9223372036854775.808",
            "9223372036854.775807",
            "0.0005",
            "1e3",
            "-0",
            "-9223372036854",
        ];
        match self {
            GenTime::Micros(v) => v.to_string(),
            GenTime::Fraction(v, f) => format!("{v}.{f:03}"),
            GenTime::Extreme(i) => EXTREMES[*i as usize % EXTREMES.len()].into(),
        }
    }
}

fn gen_trace(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let events: Vec<GenEvent> = u.arbitrary()?;
    let mut out = String::from("{\"traceEvents\":[\n");
    for (i, e) in events.iter().take(256).enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        let ph = PHASES[e.ph as usize % PHASES.len()];
        let cat = CATS[e.cat as usize % CATS.len()];
        let name = NAMES[e.name as usize % NAMES.len()];
        out.push_str(&format!(
            "{{\"ph\":\"{ph}\",\"cat\":\"{cat}\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{}",
            serde_json::to_string(name).expect("string"),
            e.pid.json(),
            e.tid.json(),
            e.ts.json()
        ));
        if let Some(d) = &e.dur {
            out.push_str(&format!(",\"dur\":{}", d.json()));
        }
        if matches!(ph, "s" | "f") {
            out.push_str(&format!(",\"id\":{},\"bp\":\"e\"", e.flow_id.json()));
        }
        let mut args = Vec::new();
        if let Some(c) = &e.correlation {
            args.push(format!("\"correlation\":{}", c.json()));
        }
        if let Some(x) = &e.external_id {
            args.push(format!("\"External id\":{}", x.json()));
        }
        if let Some(d) = &e.device {
            args.push(format!("\"device\":{}", d.json()));
        }
        if let Some(s) = &e.stream {
            args.push(format!("\"stream\":{}", s.json()));
        }
        if !args.is_empty() {
            out.push_str(&format!(",\"args\":{{{}}}", args.join(",")));
        }
        out.push('}');
    }
    out.push_str("\n],\"schemaVersion\":1,\"deviceProperties\":[]}");
    Ok(out)
}

/// Generated Kineto-like traces through the model, its joins, its frames
/// and the launch-region analysis.
pub fn trace_model(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(text) = gen_trace(&mut u) else { return };
    model_of(text.as_bytes());
}

/// Runs the model and the analysis over one trace's bytes.
pub fn model_of(bytes: &[u8]) {
    use opguard_model::analysis::{aggregate, launch_region};
    use opguard_model::{ArtifactSpec, ModelOptions};
    let reader = match TraceReader::with_options(bytes, fuzz_options()) {
        Ok(r) => r,
        Err(_) => return,
    };
    let Ok(model) = opguard_trace::model_from_reader(
        reader,
        ArtifactSpec::new().stage("fuzz"),
        &ModelOptions::new(),
        &mut |_, _| {},
    ) else {
        return;
    };
    for (i, s) in model.slices().iter().enumerate() {
        let _ = model.occurrence(s).to_string();
        let _ = model.semantic_frame(s);
        let _ = model.correlation_key(s);
        let _ = model.external_id_key(i);
        for &l in model.launches_for(i) {
            assert!(l < model.slices().len());
            assert!(model.slices()[l].class.is_runtime());
        }
        for &h in model.host_slices_for_external_id(i) {
            assert!(h < model.slices().len());
        }
        let _ = s.end_ns();
    }
    let region = launch_region(&model, 3);
    assert!(region.correlated_kernel_count <= region.kernel_count);
    assert!(region.top_kernels.len() <= 3);
    serde_json::to_string(&region).expect("a region serializes");
    // The same artifact twice is refused; another with the same figures
    // sums them.
    assert!(aggregate(&[region.clone(), region.clone()]).is_err());
    let mut other = region.clone();
    other.artifact = opguard_model::Sha256Digest::of(b"another capture");
    let total = aggregate(&[region, other]).expect("two artifacts aggregate");
    serde_json::to_string(&total).expect("an aggregate serializes");
}

/// Splits the input into two strings at the first `0xFF` byte.
fn two_strings(data: &[u8]) -> (String, String) {
    match data.iter().position(|&b| b == 0xFF) {
        Some(p) => (
            String::from_utf8_lossy(&data[..p]).into_owned(),
            String::from_utf8_lossy(&data[p + 1..]).into_owned(),
        ),
        None => (String::from_utf8_lossy(data).into_owned(), String::new()),
    }
}

/// Canonicalization, short names and the matcher on two arbitrary strings.
pub fn kernel_name(data: &[u8]) {
    use opguard_kernel_name::{canonicalize, is_match, matches, short_name, SHORT_NAME_LIMIT};
    let (a, b) = two_strings(data);
    for s in [&a, &b] {
        let c = canonicalize(s);
        let identity = c.identity();
        assert_eq!(identity, canonicalize(s).identity(), "not deterministic");
        let _ = (c.qualified_identity(), c.strict_identity(), c.base());
        let _ = (
            c.annotation(),
            c.demangled(),
            c.is_truncated(),
            c.is_degenerate(),
        );
        let _ = c.template().args_normalized();
        let _ = serde_json::to_string(&c);
        let short = short_name(s);
        if c.memory_op().is_none() {
            assert!(
                short.chars().count() <= SHORT_NAME_LIMIT,
                "short name {short:?} longer than the limit"
            );
        }
        if let Ok(strict) = c.strict_identity() {
            assert!(
                !c.is_degenerate(),
                "degenerate name got a strict identity {strict}"
            );
        }
    }
    let v = matches(&a, &b);
    assert_eq!(v.is_match, is_match(&a, &b));
    assert_eq!(v.is_match, v.reason.is_none(), "{v:?}");
    let same = matches(&a, &a);
    assert_eq!(same.is_match, same.reason.is_none(), "{same:?}");
    // The Canonical-level matcher is the same matcher.
    assert_eq!(
        canonicalize(&a).matches(&canonicalize(&b)).is_match,
        v.is_match
    );
}

/// Arbitrary bytes as a capture, a family table and a declared
/// host-resolution set.
pub fn census_capture(data: &[u8]) {
    use opguard_census::{Capture, Census, DeclaredHostResolutions, FamilyTable, WidthComparison};
    let table = FamilyTable::default();
    if let Ok(custom) = FamilyTable::from_slice(data) {
        for (name, _) in custom.families() {
            let _ = custom.family_of(name);
        }
    }
    let declared = DeclaredHostResolutions::from_slice(data).ok();
    let Ok(capture) = Capture::from_slice(data) else {
        return;
    };
    let census = Census::compute(&capture, &table);
    serde_json::to_string(&census).expect("a census serializes");
    let _ = census.require_classified();
    let _ = census.concrete_dims_map();
    if let Some(d) = &declared {
        let diff = census.host_resolution_diff(d);
        let _ = diff.summary();
        let _ = census.require_host_resolutions(d);
    }
    // The comparison with itself is refused (same width) or reported.
    if let Ok(cmp) = WidthComparison::compare(&capture, &capture, Some(&capture)) {
        serde_json::to_string(&cmp).expect("a comparison serializes");
    }
}

/// The export every `align_map` input is applied to, made once per process
/// from `fixtures/align/two_runs.records.jsonl`: (directory, view path,
/// view SHA-256, view bytes).
pub fn align_view() -> &'static AlignView {
    use std::sync::OnceLock;
    static VIEW: OnceLock<AlignView> = OnceLock::new();
    VIEW.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = std::env::temp_dir().join(format!("opguard-fuzz-align-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let view = dir.join("view.json");
        let summary = opguard_align::export_records(
            &root.join("fixtures/align/two_runs.records.jsonl"),
            &view,
        )
        .expect("the fixture exports");
        let bytes = std::fs::read(&view).expect("view readable");
        let doc: serde_json::Value = serde_json::from_slice(&bytes).expect("view is JSON");
        let mut ops: Vec<(String, usize)> = doc["traceEvents"]
            .as_array()
            .expect("events")
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((e["args"]["op"]["record_id"].as_str()?.to_owned(), i)))
            .collect();
        // Longest ids first, so `@a/0/10` is never replaced as `@a/0/1`.
        ops.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        AlignView {
            dir,
            view,
            sha: summary.output_sha256.to_string(),
            bytes,
            ops,
        }
    })
}

/// The export the `align_map` target applies maps to.
#[derive(Debug)]
pub struct AlignView {
    /// Scratch directory for maps and outputs.
    pub dir: std::path::PathBuf,
    /// The export.
    pub view: std::path::PathBuf,
    /// Its SHA-256.
    pub sha: String,
    /// Its bytes (to prove apply never changes it).
    pub bytes: Vec<u8>,
    /// Operation record ids and their event indices.
    pub ops: Vec<(String, usize)>,
}

/// Resolves the placeholders of `fixtures/align/map_cases.json`:
/// `$ARTIFACT` (the export digest), `"@<record id>"` (that operation's
/// event reference) and `"#<index>"` (a reference to any event index).
pub fn resolve_map_placeholders(text: &str, v: &AlignView) -> String {
    let mut out = text.replace("$ARTIFACT", &v.sha);
    for (id, index) in &v.ops {
        out = out.replace(&format!("\"@{id}\""), &format!("\"{}:{index}\"", v.sha));
    }
    let mut resolved = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(p) = rest.find("\"#") {
        resolved.push_str(&rest[..p]);
        let tail = &rest[p + 2..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail.as_bytes().get(digits) == Some(&b'"') {
            resolved.push_str(&format!("\"{}:{}\"", v.sha, &tail[..digits]));
            rest = &tail[digits + 1..];
        } else {
            resolved.push_str("\"#");
            rest = tail;
        }
    }
    resolved.push_str(rest);
    resolved
}

/// An alignment map (arbitrary bytes, with `$ARTIFACT` replaced by the
/// export's digest so reviews can get past the stale-hash check) applied to
/// a fixed export. Whatever happens: the export is unchanged; on error the
/// output does not exist; on success it validates and says
/// `verdict: not_evaluated`.
pub fn align_map(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let v = align_view();
    let (dir, view, original) = (&v.dir, &v.view, &v.bytes);
    let text = resolve_map_placeholders(&String::from_utf8_lossy(data), v);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let map = dir.join(format!("map-{n}.json"));
    let out = dir.join(format!("out-{n}.json"));
    std::fs::write(&map, text.as_bytes()).expect("write map");
    let result = opguard_align::apply(view, &map, &out);
    match &result {
        Ok(response) => {
            assert_eq!(response.verdict, "not_evaluated");
            let report = opguard_align::validate_export(&out).expect("the output reads back");
            assert!(report.is_valid(), "apply wrote an invalid view: {report:?}");
        }
        Err(e) => {
            let _ = e.code();
            assert!(
                !out.exists(),
                "{}: output written though apply failed",
                e.code()
            );
        }
    }
    assert_eq!(
        &std::fs::read(view).expect("view"),
        original,
        "apply changed the original export"
    );
    let _ = std::fs::remove_file(&map);
    let _ = std::fs::remove_file(&out);
}

type JsonEntry = unsafe extern "C" fn(*const std::ffi::c_char) -> *mut std::ffi::c_char;

/// The C ABI JSON entry points fuzzed here: those whose requests can be
/// answered from inline text. Entry points that read or write files by
/// path are left out (a fuzzer must not write files where an input says).
/// The seeds index this array by position: append new entries at the end.
pub const CAPI_ENTRIES: [(&str, JsonEntry); 9] = [
    (
        "opguard_kernel_canonicalize",
        opguard_capi::ffi::opguard_kernel_canonicalize,
    ),
    (
        "opguard_kernel_canonicalize_batch",
        opguard_capi::ffi::opguard_kernel_canonicalize_batch,
    ),
    (
        "opguard_kernel_short_name",
        opguard_capi::ffi::opguard_kernel_short_name,
    ),
    (
        "opguard_kernel_match_json",
        opguard_capi::ffi::opguard_kernel_match_json,
    ),
    (
        "opguard_kernel_match_batch",
        opguard_capi::ffi::opguard_kernel_match_batch,
    ),
    ("opguard_trace_info", opguard_capi::ffi::opguard_trace_info),
    ("opguard_census", opguard_capi::ffi::opguard_census),
    (
        "opguard_census_compare_widths",
        opguard_capi::ffi::opguard_census_compare_widths,
    ),
    (
        "opguard_trace_launch_regions",
        opguard_capi::ffi::opguard_trace_launch_regions,
    ),
];

/// Whether a request (as `serde_json` decodes it) has a key that could name
/// a file: such requests are not sent.
fn names_a_file(body: &[u8]) -> bool {
    fn walk(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::Object(m) => m.iter().any(|(k, v)| {
                let k = k.to_ascii_lowercase();
                [
                    "path", "output", "records", "profile", "request", "trials", "base", "artifact",
                ]
                .iter()
                .any(|w| k.contains(w))
                    || walk(v)
            }),
            serde_json::Value::Array(a) => a.iter().any(walk),
            _ => false,
        }
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(v) => walk(&v),
        // Not JSON to serde_json: the library (serde_json too) refuses it
        // before looking at any field.
        Err(_) => false,
    }
}

/// One C ABI call: the first byte picks the entry point, the rest is the
/// request. Through the real `extern "C"` symbols: a non-NULL UTF-8 JSON
/// envelope comes back, is freed by `opguard_string_free`, never reports
/// an internal panic, and equals what the Rust dispatcher `call` returns.
pub fn capi_json(data: &[u8]) {
    use std::ffi::{CStr, CString};
    let Some((&selector, body)) = data.split_first() else {
        // NULL is reported, never dereferenced.
        let out = unsafe { opguard_capi::ffi::opguard_kernel_canonicalize(std::ptr::null()) };
        assert!(!out.is_null());
        unsafe { opguard_capi::ffi::opguard_string_free(out) };
        return;
    };
    if names_a_file(body) {
        return;
    }
    let (name, entry) = CAPI_ENTRIES[selector as usize % CAPI_ENTRIES.len()];
    let Ok(request) = CString::new(body) else {
        return;
    };
    // SAFETY: `request` is a NUL-terminated string alive for the call.
    let out = unsafe { entry(request.as_ptr()) };
    assert!(!out.is_null(), "{name} returned NULL");
    // SAFETY: the library returns a NUL-terminated string it owns.
    let text = unsafe { CStr::from_ptr(out) }
        .to_str()
        .expect("the envelope is UTF-8")
        .to_owned();
    // SAFETY: returned by the library, freed once.
    unsafe { opguard_capi::ffi::opguard_string_free(out) };
    let envelope: serde_json::Value = serde_json::from_str(&text).expect("the envelope is JSON");
    assert!(envelope.is_object(), "{name}: {text}");
    // The envelope's code, not its text: an error message may echo the
    // request, and a request can spell anything.
    assert_ne!(
        envelope["error"]["code"].as_str(),
        Some("capi.internal_panic"),
        "{name}: a panic reached the boundary: {text}"
    );
    if let Ok(s) = std::str::from_utf8(body) {
        assert_eq!(
            opguard_capi::call(name, s).as_deref(),
            Some(text.as_str()),
            "{name}"
        );
    }
    // The direct matcher agrees with the JSON one on the same two strings.
    if name == "opguard_kernel_match_json" {
        if let Some((w, g)) = envelope_pair(body) {
            let (cw, cg) = (CString::new(w.clone()), CString::new(g.clone()));
            if let (Ok(cw), Ok(cg)) = (cw, cg) {
                // SAFETY: both NUL-terminated and alive for the call.
                let direct =
                    unsafe { opguard_capi::ffi::opguard_kernel_match(cw.as_ptr(), cg.as_ptr()) };
                assert_eq!(direct, i32::from(opguard_kernel_name::is_match(&w, &g)));
            }
        }
    }
}

fn envelope_pair(body: &[u8]) -> Option<(String, String)> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    Some((
        v.get("want")?.as_str()?.to_owned(),
        v.get("got")?.as_str()?.to_owned(),
    ))
}
