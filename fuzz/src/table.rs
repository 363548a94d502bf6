//! The C ABI's Arrow C streams (`opguard_table_stream`,
//! `opguard_table_streams`), through the real `extern "C"` symbols, read by
//! a consumer that may stop early.

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;

use crate::sandbox::scratch;

/// The table names an input picks from: the four tables, and one that is
/// none of them (an `invalid_request`).
const TABLES: [&str; 5] = ["device", "host", "launches", "metadata", "kernels"];

/// What the consumer does with one stream.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Call `get_schema` (and release the schema) before any batch.
    schema: bool,
    /// Batches to read before releasing the stream; `None`: to the end.
    batches: Option<usize>,
    /// Keep the first batch read past the stream's release (and past the
    /// release of every stream of the call), then release it.
    keep: bool,
}

/// Releases a schema through its own callback, which must mark it released.
fn release_schema(mut schema: FFI_ArrowSchema) {
    let release = schema.release.expect("a schema to release");
    // SAFETY: a live schema the stream handed over, released once.
    unsafe { release(&mut schema) };
    assert!(
        schema.release.is_none(),
        "a released schema keeps its release"
    );
}

/// Releases a batch through its own callback, which must mark it released.
fn release_array(mut array: FFI_ArrowArray) {
    let release = array.release.expect("a batch to release");
    // SAFETY: a live array the stream handed over, released once.
    unsafe { release(&mut array) };
    assert!(
        array.release.is_none(),
        "a released batch keeps its release"
    );
}

/// Why the stream failed, from `get_last_error`.
fn last_error(stream: &mut FFI_ArrowArrayStream) -> String {
    let get = stream.get_last_error.expect("get_last_error");
    // SAFETY: a live stream; the text is the stream's, read before its next call.
    let text = unsafe { get(stream) };
    if text.is_null() {
        return "(no message)".to_owned();
    }
    // SAFETY: a NUL-terminated string owned by the stream.
    unsafe { std::ffi::CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

/// Reads `stream` as `plan` says and releases it; the batch kept, if any.
/// When read to the end, its rows and batches are the envelope's.
fn consume(
    stream: &mut FFI_ArrowArrayStream,
    plan: Plan,
    batch_rows: Option<usize>,
    summary: &serde_json::Value,
) -> Option<FFI_ArrowArray> {
    assert!(
        stream.release.is_some(),
        "a success hands over a live stream"
    );
    if plan.schema {
        let mut schema = FFI_ArrowSchema::empty();
        let get = stream.get_schema.expect("get_schema");
        // SAFETY: a live stream and an empty schema to write.
        let rc = unsafe { get(stream, &mut schema) };
        assert_eq!(rc, 0, "get_schema: {}", last_error(stream));
        assert_eq!(schema.format(), "+s", "a table's schema is a struct");
        release_schema(schema);
    }
    let (mut rows, mut batches, mut ended, mut kept) = (0usize, 0usize, false, None);
    while plan.batches.is_none_or(|k| batches < k) {
        let mut array = FFI_ArrowArray::empty();
        let get = stream.get_next.expect("get_next");
        // SAFETY: a live stream and an empty array to write.
        let rc = unsafe { get(stream, &mut array) };
        assert_eq!(rc, 0, "get_next: {}", last_error(stream));
        if array.is_released() {
            ended = true;
            break;
        }
        batches += 1;
        rows += array.len();
        if let Some(most) = batch_rows {
            assert!(
                array.len() <= most,
                "{} rows in a batch of {most}",
                array.len()
            );
        }
        for i in 0..array.num_children() {
            assert_eq!(array.child(i).len(), array.len(), "column {i}'s length");
        }
        if plan.keep && kept.is_none() {
            kept = Some(array);
        } else {
            release_array(array);
        }
    }
    if ended {
        assert_eq!(
            Some(rows as u64),
            summary["rows"].as_u64(),
            "rows read against {summary}"
        );
        assert_eq!(
            Some(batches as u64),
            summary["batches"].as_u64(),
            "batches read against {summary}"
        );
    }
    let release = stream.release.expect("a stream to release");
    // SAFETY: a live stream, released once.
    unsafe { release(stream) };
    assert!(
        stream.release.is_none(),
        "a released stream keeps its release"
    );
    kept
}

/// A batch kept past its stream's release is still whole: its columns are
/// as long as it, and it releases once.
fn release_kept(array: FFI_ArrowArray) {
    for i in 0..array.num_children() {
        let child = array.child(i);
        assert_eq!(child.len(), array.len(), "column {i} after the release");
        assert!(!child.is_released(), "column {i} released with the stream");
    }
    release_array(array);
}

/// The envelope's text, freed through `opguard_string_free`; never an
/// internal panic.
fn envelope(out: *mut std::ffi::c_char) -> serde_json::Value {
    assert!(!out.is_null(), "the envelope is NULL");
    // SAFETY: the library returns a NUL-terminated string it owns.
    let text = unsafe { std::ffi::CStr::from_ptr(out) }
        .to_str()
        .expect("the envelope is UTF-8")
        .to_owned();
    // SAFETY: returned by the library, freed once.
    unsafe { opguard_capi::ffi::opguard_string_free(out) };
    let v: serde_json::Value = serde_json::from_str(&text).expect("the envelope is JSON");
    assert!(v.is_object(), "{text}");
    assert_ne!(
        v["error"]["code"].as_str(),
        Some("capi.internal_panic"),
        "a panic reached the boundary: {text}"
    );
    v
}

/// One table read through the C ABI as Arrow C streams. Input: byte 0
/// picks the table (`% 5`; the fifth name is no table) and, for two
/// streams, the second (`/ 5 % 5`); byte 1 is `batch_rows` (`0xFF`: not
/// given; 0 is refused); byte 2 the consumer plan (bit 0: read the schema;
/// bit 1: keep the first batch past the release; bits 2–5: batches to read
/// before releasing, 15 for all; bit 6: two tables through
/// `opguard_table_streams`; bit 7: `count` one more than the tables named);
/// the rest is the capture, written to a scratch directory.
///
/// Oracle: never a panic or `capi.internal_panic`; an error leaves every
/// `out->release` NULL; a success's rows and batches summed over a stream
/// read to its end are the envelope's; every schema, batch and stream is
/// released through its own callback, which marks it released (so arrow-rs's
/// `Drop` does not release it again), and a batch kept past the release of
/// its stream is still whole.
pub fn table_stream(data: &[u8]) {
    let [pick, rows, plan, capture @ ..] = data else {
        return;
    };
    let dir = scratch("table_stream", &[]);
    let path = dir.join("capture.json");
    std::fs::write(&path, capture).expect("scratch capture");
    let batch_rows = (*rows != 0xFF).then_some(usize::from(*rows));
    let consumer = Plan {
        schema: plan & 1 != 0,
        keep: plan & 2 != 0,
        batches: match (plan >> 2) & 0xF {
            15 => None,
            k => Some(usize::from(k)),
        },
    };
    let several = plan & 0x40 != 0;
    let first = TABLES[usize::from(*pick) % TABLES.len()];
    let mut request = serde_json::json!({ "path": path });
    let named = if several {
        let second = TABLES[usize::from(*pick) / TABLES.len() % TABLES.len()];
        request["tables"] = serde_json::json!([first, second]);
        2
    } else {
        request["table"] = serde_json::json!(first);
        1
    };
    if let Some(n) = batch_rows {
        request["batch_rows"] = serde_json::json!(n);
    }
    let mismatch = several && plan & 0x80 != 0;
    let count = named + usize::from(mismatch);
    let request = std::ffi::CString::new(request.to_string()).expect("no NUL in JSON");
    let mut out: Vec<FFI_ArrowArrayStream> =
        (0..count).map(|_| FFI_ArrowArrayStream::empty()).collect();
    // SAFETY: a NUL-terminated request and `count` writable streams (the
    // library overwrites them without releasing the empty ones).
    let answer = envelope(unsafe {
        if several {
            opguard_capi::ffi::opguard_table_streams(request.as_ptr(), out.as_mut_ptr(), count)
        } else {
            opguard_capi::ffi::opguard_table_stream(request.as_ptr(), out.as_mut_ptr())
        }
    });
    if answer.get("error").is_some() {
        for (i, s) in out.iter().enumerate() {
            assert!(s.release.is_none(), "stream {i} live after {answer}");
        }
        return;
    }
    assert!(
        !mismatch,
        "count {count} for {named} tables accepted: {answer}"
    );
    // `{"ok": true, "value": {"table", "rows", "batches", …, "tables"?}}`
    let value = &answer["value"];
    let summaries: Vec<serde_json::Value> = if several {
        value["tables"]
            .as_array()
            .expect("`tables` in the envelope")
            .clone()
    } else {
        vec![value.clone()]
    };
    assert_eq!(summaries.len(), count, "{answer}");
    assert_eq!(summaries[0]["rows"], value["rows"], "{answer}");
    let mut kept = Vec::new();
    for (stream, summary) in out.iter_mut().zip(&summaries) {
        kept.extend(consume(stream, consumer, batch_rows, summary));
    }
    for array in kept {
        release_kept(array);
    }
}
