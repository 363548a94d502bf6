//! Content detection: do a file's first bytes look like an XSpace?

use crate::wire::{Fields, Value, WireFault};

/// How many leading bytes [`probe`] wants: enough for the first plane's
/// header.
pub const PROBE_BYTES: usize = 4096;

/// Whether `prefix` (the first bytes of a file of `file_len` bytes) starts
/// like an XSpace: its first field is one of XSpace's (planes, errors,
/// warnings, hostnames) with its wire type and a length the file can hold,
/// and what the prefix shows of it fits the schema (a plane's fields are
/// XPlane's, with their wire types; strings are UTF-8).
///
/// A cut XSpace still probes as one, so its reader can say where it was
/// cut. JSON, gzip, SQLite, CSV and protobufs of other types (an HLO
/// module, an xprof tool's output) do not: `Err` says why.
///
/// ```
/// use opguard_xplane::probe;
///
/// // XSpace { planes: [XPlane { id: 1, name: "/host:CPU" }] }
/// let xspace = b"\x0a\x0d\x08\x01\x12\x09/host:CPU";
/// assert!(probe(xspace, xspace.len() as u64).is_ok());
/// assert!(probe(br#"{"traceEvents":[]}"#, 18).is_err());
/// // An HloProto: its first message starts with a string where XPlane has
/// // its id.
/// assert!(probe(b"\x0a\x05\x0a\x03jit", 7).is_err());
/// ```
pub fn probe(prefix: &[u8], file_len: u64) -> Result<(), String> {
    if is_text(prefix) {
        return Err("the first bytes are text, not protobuf".into());
    }
    let mut fields = Fields::new(prefix, 0..prefix.len());
    let first = match fields.next_field() {
        Ok(Some(f)) => f,
        Ok(None) => return Err("the file is empty".into()),
        Err((WireFault::Truncated { .. }, _)) => return length_of_first(prefix, file_len),
        Err((fault, _)) => return Err(format!("not protobuf: {}", fault.describe())),
    };
    let Value::Len(range) = first.value else {
        return Err(format!(
            "its first field (number {}) is not length-delimited, as every XSpace field is",
            first.number
        ));
    };
    match first.number {
        1 => xplane_prefix(&prefix[range]),
        2..=4 => std::str::from_utf8(&prefix[range])
            .map(|_| ())
            .map_err(|_| format!("its first field (number {}) is not a string", first.number)),
        n => Err(format!(
            "its first field is number {n}, which XSpace does not have"
        )),
    }
}

/// Whether `prefix` is binary and starts with the key of an XSpace field:
/// what a door hands to this crate's reader even when [`probe`] refuses
/// it, so that a protobuf of another type, or an XSpace whose first plane
/// is corrupt, is refused in the XSpace reader's words (`not_xspace`,
/// `protobuf_corrupt`, with the byte) rather than as text that is not JSON.
///
/// ```
/// use opguard_xplane::{probe, starts_like_xspace};
///
/// let hlo_module = b"\x0a\x05\x0a\x03jit";
/// assert!(probe(hlo_module, 7).is_err());
/// assert!(starts_like_xspace(hlo_module));
/// assert!(!starts_like_xspace(b"\n{\"traceEvents\":[]}"));
/// ```
pub fn starts_like_xspace(prefix: &[u8]) -> bool {
    crate::space::starts_with_xspace_key(prefix) && !is_text(prefix)
}

/// How many leading bytes [`is_text`] looks at: an XSpace shows a key
/// below 0x20 within its first dozen bytes.
const TEXT_WINDOW: usize = 64;

/// Whether the first bytes hold no control byte but tab, newline and
/// carriage return: text. JSON that starts with a newline (`0x0a`, the key
/// of `XSpace.planes`) must not read as a plane: an XSpace's first plane
/// shows a key below 0x20 (XPlane's `id`, `name` and `lines`, or a
/// metadata entry's or stat's `0x08`) right after its length, and every
/// other first field of XSpace has a key below 0x20 itself or a length
/// that is one.
fn is_text(prefix: &[u8]) -> bool {
    prefix
        .iter()
        .take(TEXT_WINDOW)
        .all(|&b| b >= 0x20 || matches!(b, b'\t' | b'\n' | b'\r'))
}

/// The first field runs past the prefix: its key and length must still be
/// an XSpace field's, and the file must be long enough for it... or be cut.
fn length_of_first(prefix: &[u8], file_len: u64) -> Result<(), String> {
    let Some((key, rest)) = varint(prefix) else {
        return Err("the first bytes are not a protobuf key".into());
    };
    if key & 7 != 2 || !(1..=4).contains(&(key >> 3)) {
        return Err("its first field is not one of XSpace's".into());
    }
    match varint(rest) {
        Some((len, _)) if len <= file_len => {
            let within = &rest[rest.len().min(varint_len(len))..];
            if key >> 3 == 1 {
                xplane_prefix(within)
            } else {
                Ok(())
            }
        }
        Some(_) => Err("its first field is longer than the file".into()),
        None => Ok(()),
    }
}

/// The fields of an XPlane visible in `bytes` (which may end mid-field).
pub(crate) fn xplane_prefix(bytes: &[u8]) -> Result<(), String> {
    let mut fields = Fields::new(bytes, 0..bytes.len());
    loop {
        let field = match fields.next_field() {
            Ok(Some(f)) => f,
            Ok(None) | Err((WireFault::Truncated { .. }, _)) => return Ok(()),
            Err((fault, _)) => return Err(format!("its first plane: {}", fault.describe())),
        };
        let fits = match (field.number, &field.value) {
            (1, Value::Varint(_)) => true,
            (2, Value::Len(r)) => {
                if std::str::from_utf8(&bytes[r.clone()]).is_err() {
                    return Err("its first plane's name is not UTF-8".into());
                }
                true
            }
            (3..=6, Value::Len(_)) => true,
            _ => false,
        };
        if !fits {
            let found = match field.value {
                Value::Varint(_) => "a varint",
                Value::Len(_) => "length-delimited",
                Value::Fixed64(_) | Value::Fixed32(_) => "fixed-size",
            };
            let want = match field.number {
                1 => "XPlane.id is a varint",
                2..=6 => "XPlane's field of that number is length-delimited",
                _ => "XPlane has no field of that number",
            };
            return Err(format!(
                "field {} of its first message is {found} where {want}",
                field.number
            ));
        }
    }
}

fn varint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().take(10).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some((value, &bytes[i + 1..]));
        }
    }
    None
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_formats_are_refused() {
        for text in [
            &b"\x1f\x8b\x08\x00"[..],
            b"SQLite format 3\0",
            b"Kind,Agent_Id,Queue_Id\n",
            b"[{\"ph\":\"X\"}]",
            b"\n{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a plane of 123 bytes?\"}]}\n",
            b"\n\n\"hostnames\"",
            b"",
        ] {
            assert!(probe(text, text.len() as u64).is_err(), "{text:?}");
        }
    }

    #[test]
    fn a_plane_longer_than_the_prefix_is_still_an_xspace() {
        // planes: a 300-byte message, of which the prefix shows the id and name.
        let mut bytes = vec![0x0a, 0xac, 0x02, 0x08, 0x00, 0x12, 0x09];
        bytes.extend_from_slice(b"/host:CPU");
        assert!(probe(&bytes, 303).is_ok());
        assert!(probe(&bytes, 100).is_err(), "longer than the file");
    }
}
