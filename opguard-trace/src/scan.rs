//! Reader stage, lowest level: a validating JSON scanner over byte slices.
//!
//! The scanner never allocates and never builds a value. It checks RFC 8259
//! syntax and reports where each value starts and ends, so the reader can hand
//! out borrowed slices. Every function takes the bytes available so far and a
//! position; when a value runs past the end of what is available it answers
//! [`Stop::Incomplete`] and the reader refills the buffer and scans the value
//! again from its start. Values are small relative to the buffer, so the rescan
//! costs less than carrying parser state across refills.

/// Why a scan stopped before producing a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The value continues past the bytes available; refill and rescan.
    Incomplete,
    /// The bytes are not valid JSON at `at` (an index into the scanned slice).
    Syntax { at: usize, kind: SyntaxKind },
}

/// What was wrong with the syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SyntaxKind {
    ExpectedValue,
    ExpectedColon,
    ExpectedKey,
    ExpectedCommaOrEndOfObject,
    ExpectedCommaOrEndOfArray,
    /// A string value was followed by text rather than `,` or a closer: the
    /// signature of a quote written into a string without escaping it.
    UnescapedQuote,
    ControlCharacterInString,
    InvalidEscape,
    InvalidNumber,
    NonFiniteNumber,
    DepthExceeded,
    /// A field the reader types appeared twice in one event.
    DuplicateField(crate::field::Field),
    /// A field the reader types has a JSON type it cannot have.
    WrongType {
        field: crate::field::Field,
        found: ValueKind,
    },
}

/// The JSON type of a scanned value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// A string.
    String,
    /// A number.
    Number,
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
    /// An object.
    Object,
    /// An array.
    Array,
}

impl ValueKind {
    /// The JSON name of the type, as used in error messages.
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::String => "string",
            ValueKind::Number => "number",
            ValueKind::Bool => "boolean",
            ValueKind::Null => "null",
            ValueKind::Object => "object",
            ValueKind::Array => "array",
        }
    }
}

/// A scanned value: `[start, end)` in the slice. Strings include their quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: u32,
    pub end: u32,
    pub kind: ValueKind,
    /// For strings: whether a backslash escape occurs inside.
    pub escaped: bool,
}

const WS: u8 = 1;
const STR_STOP: u8 = 2;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = WS;
    t[b'\t' as usize] = WS;
    t[b'\n' as usize] = WS;
    t[b'\r' as usize] = WS;
    let mut c = 0;
    while c < 0x20 {
        t[c] |= STR_STOP;
        c += 1;
    }
    t[b'"' as usize] |= STR_STOP;
    t[b'\\' as usize] |= STR_STOP;
    t
};

/// Index of the first non-whitespace byte at or after `pos`.
#[inline]
pub(crate) fn skip_ws(b: &[u8], pos: usize) -> usize {
    // Most calls land on a token or on one space before it; longer runs are
    // the indentation of pretty-printed traces, skipped eight bytes at a time.
    match b.get(pos) {
        Some(&c) if CLASS[c as usize] & WS != 0 => {}
        _ => return pos,
    }
    let mut i = pos + 1;
    match b.get(i) {
        Some(&c) if CLASS[c as usize] & WS != 0 => {}
        _ => return i,
    }
    while let Some(word) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*word);
        let space = lanes_equal(word, b' ')
            | lanes_equal(word, b'\n')
            | lanes_equal(word, b'\t')
            | lanes_equal(word, b'\r');
        let other = !space & lanes(0x80);
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && CLASS[b[i] as usize] & WS != 0 {
        i += 1;
    }
    i
}

/// Whether `c` is JSON whitespace.
#[inline]
pub(crate) fn is_ws(c: u8) -> bool {
    CLASS[c as usize] & WS != 0
}

/// Where the value of the member whose key ends at `key_end` starts:
/// past the `:` and the whitespace around it.
#[inline(always)]
pub(crate) fn value_after_key(b: &[u8], key_end: usize) -> Result<usize, Stop> {
    // Traces write `"key": value` or `"key":value`: a colon right after
    // the key and at most one space after it need no whitespace scans
    // (which would find the same position).
    match b.get(key_end..key_end + 3) {
        Some(&[b':', b' ', c]) if !is_ws(c) => return Ok(key_end + 2),
        Some(&[b':', c, _]) if !is_ws(c) => return Ok(key_end + 1),
        _ => {}
    }
    let i = skip_ws(b, key_end);
    match b.get(i) {
        None => Err(Stop::Incomplete),
        Some(b':') => Ok(skip_ws(b, i + 1)),
        Some(_) => Err(syntax(i, SyntaxKind::ExpectedColon)),
    }
}

/// Every byte lane set to `byte`.
const fn lanes(byte: u8) -> u64 {
    u64::from_ne_bytes([byte; 8])
}

/// The high bit of each byte lane of `word` that equals `byte`, exactly
/// (no carry crosses a lane: the low seven bits add up to at most 0xfe).
#[inline]
fn lanes_equal(word: u64, byte: u8) -> u64 {
    let diff = word ^ lanes(byte);
    !(((diff & lanes(0x7f)) + lanes(0x7f)) | diff) & lanes(0x80)
}

#[inline]
fn syntax(at: usize, kind: SyntaxKind) -> Stop {
    Stop::Syntax { at, kind }
}

/// The high bit of each byte lane of `word` (little-endian order) that ends
/// a run of plain string bytes: `"`, `\` or a control character. Lanes
/// above the lowest hit may be set spuriously (a borrow only runs upward),
/// so only the lowest set lane is meaningful, and it is exact.
#[inline]
fn string_stops(word: u64) -> u64 {
    let control = word.wrapping_sub(lanes(0x20)) & !word;
    let quote = word ^ lanes(b'"');
    let quote = quote.wrapping_sub(lanes(1)) & !quote;
    let backslash = word ^ lanes(b'\\');
    let backslash = backslash.wrapping_sub(lanes(1)) & !backslash;
    (control | quote | backslash) & lanes(0x80)
}

/// Index of the first `"`, `\` or control byte at or after `i`, or
/// `b.len()`. Eight bytes at a time: strings are mostly plain bytes.
#[inline]
fn next_string_stop(b: &[u8], mut i: usize) -> usize {
    while let Some(word) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let stops = string_stops(u64::from_le_bytes(*word));
        if stops != 0 {
            return i + (stops.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && CLASS[b[i] as usize] & STR_STOP == 0 {
        i += 1;
    }
    i
}

/// Scans a string whose opening quote is at `pos`. Returns the index just past
/// the closing quote and whether an escape occurred.
///
/// Inline for the common case, a string closed within the first eight
/// bytes without an escape (every key a trace reader types, most short
/// values); out of line otherwise. A call per string cost more in saved
/// and restored registers than the scan of its bytes.
#[inline(always)]
pub(crate) fn scan_string(b: &[u8], pos: usize) -> Result<(usize, bool), Stop> {
    if let Some(word) = b.get(pos + 1..).and_then(<[u8]>::first_chunk::<8>) {
        let stops = string_stops(u64::from_le_bytes(*word));
        if stops != 0 {
            let i = pos + 1 + (stops.trailing_zeros() / 8) as usize;
            if b.get(i) == Some(&b'"') {
                return Ok((i + 1, false));
            }
        }
    }
    scan_string_from(b, pos)
}

/// [`scan_string`] in general: escapes, long strings, errors.
#[inline(never)]
fn scan_string_from(b: &[u8], pos: usize) -> Result<(usize, bool), Stop> {
    let mut i = pos + 1;
    let mut escaped = false;
    loop {
        i = next_string_stop(b, i);
        let Some(&stop) = b.get(i) else {
            return Err(Stop::Incomplete);
        };
        match stop {
            b'"' => return Ok((i + 1, escaped)),
            b'\\' => {
                escaped = true;
                let Some(&e) = b.get(i + 1) else {
                    return Err(Stop::Incomplete);
                };
                match e {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        for k in 0..4 {
                            match b.get(i + 2 + k) {
                                None => return Err(Stop::Incomplete),
                                Some(h) if h.is_ascii_hexdigit() => {}
                                Some(_) => return Err(syntax(i, SyntaxKind::InvalidEscape)),
                            }
                        }
                        i += 6;
                    }
                    _ => return Err(syntax(i, SyntaxKind::InvalidEscape)),
                }
            }
            _ => return Err(syntax(i, SyntaxKind::ControlCharacterInString)),
        }
    }
}

/// Scans a number starting at `pos`. `at_eof` says no more bytes will follow,
/// so a number touching the end of the slice is complete.
#[inline]
pub(crate) fn scan_number(b: &[u8], pos: usize, at_eof: bool) -> Result<usize, Stop> {
    // The scan reads each byte once, left to right, and stops at the first
    // byte that ends the number or is wrong. Past the slice it reads a NUL
    // (which ends every number); when that NUL was looked at and more
    // bytes may come, the answer is to wait for them, whatever it was.
    let (found, looked_at) = number_end(b, pos);
    if looked_at >= b.len() && !at_eof {
        return Err(Stop::Incomplete);
    }
    found
}

/// The number at `pos` with a NUL past the slice, and the index of the
/// last byte examined.
#[inline]
fn number_end(b: &[u8], pos: usize) -> (Result<usize, Stop>, usize) {
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let digits = |mut i: usize| {
        // Timestamps carry a dozen digits or more: eight at a time.
        while let Some(word) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
            let other = non_digit_lanes(u64::from_le_bytes(*word));
            if other != 0 {
                return i + (other.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while at(i).is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = pos;
    if at(i) == b'-' {
        i += 1;
    }
    match at(i) {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i + 1),
        b'I' | b'N' => return (Err(syntax(pos, SyntaxKind::NonFiniteNumber)), i),
        _ => return (Err(syntax(i, SyntaxKind::InvalidNumber)), i),
    }
    if at(i) == b'.' {
        i += 1;
        if !at(i).is_ascii_digit() {
            return (Err(syntax(i, SyntaxKind::InvalidNumber)), i);
        }
        i = digits(i);
    }
    if matches!(at(i), b'e' | b'E') {
        i += 1;
        if matches!(at(i), b'+' | b'-') {
            i += 1;
        }
        if !at(i).is_ascii_digit() {
            return (Err(syntax(i, SyntaxKind::InvalidNumber)), i);
        }
        i = digits(i);
    }
    (Ok(i), i)
}

/// The high bit of each byte lane of `word` that is not an ASCII digit,
/// exactly: `lane ^ b'0'` is below 10 just for digits, and adding 0x76 to
/// its low seven bits sets the lane's high bit from 10 on without a carry
/// into the next lane.
#[inline]
fn non_digit_lanes(word: u64) -> u64 {
    let offset = word ^ lanes(b'0');
    (((offset & lanes(0x7f)) + lanes(0x76)) | offset) & lanes(0x80)
}

fn scan_literal(b: &[u8], pos: usize, lit: &[u8]) -> Result<usize, Stop> {
    let avail = &b[pos..];
    let n = avail.len().min(lit.len());
    if avail[..n] != lit[..n] {
        return Err(syntax(pos, SyntaxKind::ExpectedValue));
    }
    if n < lit.len() {
        return Err(Stop::Incomplete);
    }
    Ok(pos + lit.len())
}

/// Nesting state for [`skip_value`]: one bit per open container (1 = object).
struct Nest {
    bits: [u64; 16],
    depth: usize,
}

/// The deepest nesting [`skip_value`] can track; limits above it are clamped.
pub(crate) const MAX_TRACKABLE_DEPTH: usize = 16 * 64;

impl Nest {
    fn push(&mut self, object: bool, at: usize, limit: usize) -> Result<(), Stop> {
        if self.depth >= limit.min(MAX_TRACKABLE_DEPTH) {
            return Err(syntax(at, SyntaxKind::DepthExceeded));
        }
        let (w, bit) = (self.depth / 64, self.depth % 64);
        if object {
            self.bits[w] |= 1 << bit;
        } else {
            self.bits[w] &= !(1 << bit);
        }
        self.depth += 1;
        Ok(())
    }
    fn top_is_object(&self) -> bool {
        let d = self.depth - 1;
        self.bits[d / 64] & (1 << (d % 64)) != 0
    }
}

/// Scans one complete value starting at `pos` (which must not be whitespace).
/// `depth` is the nesting depth the value sits at; containers deeper than
/// `max_depth` are refused.
#[inline(always)]
pub(crate) fn skip_value(
    b: &[u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    at_eof: bool,
) -> Result<Span, Stop> {
    match b.get(pos) {
        None => Err(Stop::Incomplete),
        Some(&first @ (b'{' | b'[')) => skip_container(b, pos, first, depth, max_depth, at_eof),
        Some(&first) => scalar(b, pos, first, at_eof),
    }
}

/// Scans the scalar whose first byte, `first`, is at `pos`: most values
/// are scalars, so this stays inline where values are walked.
#[inline(always)]
fn scalar(b: &[u8], pos: usize, first: u8, at_eof: bool) -> Result<Span, Stop> {
    let span = |end: usize, kind, escaped| Span {
        start: pos as u32,
        end: end as u32,
        kind,
        escaped,
    };
    match first {
        b'"' => {
            let (end, escaped) = scan_string(b, pos)?;
            Ok(span(end, ValueKind::String, escaped))
        }
        b'-' | b'0'..=b'9' | b'N' | b'I' => {
            let end = scan_number(b, pos, at_eof)?;
            Ok(span(end, ValueKind::Number, false))
        }
        b't' => Ok(span(scan_literal(b, pos, b"true")?, ValueKind::Bool, false)),
        b'f' => Ok(span(
            scan_literal(b, pos, b"false")?,
            ValueKind::Bool,
            false,
        )),
        b'n' => Ok(span(scan_literal(b, pos, b"null")?, ValueKind::Null, false)),
        _ => Err(syntax(pos, SyntaxKind::ExpectedValue)),
    }
}

/// Scans the object or array whose opener, `first`, is at `pos`, with an
/// explicit stack instead of recursion.
fn skip_container(
    b: &[u8],
    pos: usize,
    first: u8,
    depth: usize,
    max_depth: usize,
    at_eof: bool,
) -> Result<Span, Stop> {
    let start = pos as u32;
    let span = |end: usize, kind, escaped| Span {
        start,
        end: end as u32,
        kind,
        escaped,
    };
    let kind = if first == b'{' {
        ValueKind::Object
    } else {
        ValueKind::Array
    };
    let mut nest = Nest {
        bits: [0; 16],
        depth,
    };
    nest.push(first == b'{', pos, max_depth)?;
    let base = depth;
    let mut i = pos + 1;
    // Just opened (a closer may follow), after a comma (a member must
    // follow), or after a member (a comma or closer must follow).
    #[derive(PartialEq)]
    enum Next {
        MemberOrClose,
        Member,
        CommaOrClose,
    }
    let mut next = Next::MemberOrClose;
    loop {
        i = skip_ws(b, i);
        let Some(&c) = b.get(i) else {
            return Err(Stop::Incomplete);
        };
        let in_object = nest.top_is_object();
        let closer = if in_object { b'}' } else { b']' };
        if next != Next::Member && c == closer {
            nest.depth -= 1;
            i += 1;
            if nest.depth == base {
                return Ok(span(i, kind, false));
            }
            next = Next::CommaOrClose;
            continue;
        }
        if next == Next::CommaOrClose {
            if c == b',' {
                i += 1;
                next = Next::Member;
                continue;
            }
            let kind = if in_object {
                SyntaxKind::ExpectedCommaOrEndOfObject
            } else {
                SyntaxKind::ExpectedCommaOrEndOfArray
            };
            return Err(syntax(i, kind));
        }
        // A member: in an object, `"key" :` first.
        if in_object {
            if c != b'"' {
                return Err(syntax(i, SyntaxKind::ExpectedKey));
            }
            let (end, _) = scan_string(b, i)?;
            i = value_after_key(b, end)?;
        }
        let Some(&v) = b.get(i) else {
            return Err(Stop::Incomplete);
        };
        if v == b'{' || v == b'[' {
            nest.push(v == b'{', i, max_depth)?;
            i += 1;
            next = Next::MemberOrClose;
        } else {
            let s = scalar(b, i, v, at_eof)?;
            i = s.end as usize;
            if s.kind == ValueKind::String {
                check_after_string(b, i, at_eof)?;
            }
            next = Next::CommaOrClose;
        }
    }
}

/// After a string value: text that is neither whitespace, a structural
/// character nor another string means the string was closed early by an
/// unescaped quote. (A second string is a missing comma, reported by the
/// caller.)
#[inline]
///
/// When the next byte is not available yet it asks for more instead of
/// deciding, so the answer never depends on where the input's reads ended.
pub(crate) fn check_after_string(b: &[u8], end: usize, at_eof: bool) -> Result<(), Stop> {
    let j = skip_ws(b, end);
    match b.get(j) {
        None if !at_eof => Err(Stop::Incomplete),
        None | Some(b',' | b'}' | b']' | b':' | b'"') => Ok(()),
        Some(_) => Err(syntax(end.saturating_sub(1), SyntaxKind::UnescapedQuote)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(s: &str) -> Result<Span, Stop> {
        skip_value(s.as_bytes(), 0, 0, 64, true)
    }

    #[test]
    fn values_and_their_kinds() {
        assert_eq!(whole("\"a\\\"b\"").unwrap().kind, ValueKind::String);
        assert!(whole("\"a\\\"b\"").unwrap().escaped);
        assert_eq!(whole("-1.5e+3").unwrap().end, 7);
        assert_eq!(
            whole("{\"a\":[1,{\"b\":null}],\"c\":true}").unwrap().end,
            29
        );
        assert_eq!(whole("[]").unwrap().kind, ValueKind::Array);
        assert_eq!(whole("{}").unwrap().kind, ValueKind::Object);
    }

    #[test]
    fn incomplete_values_ask_for_more() {
        for s in ["{\"a\":", "[1,", "\"abc", "tru", "{\"a\"", "[1", "\"\\u00"] {
            assert_eq!(
                skip_value(s.as_bytes(), 0, 0, 64, false),
                Err(Stop::Incomplete),
                "{s}"
            );
        }
        assert_eq!(scan_number(b"12", 0, false), Err(Stop::Incomplete));
        assert_eq!(scan_number(b"12", 0, true), Ok(2));
    }

    /// Bytes that sit on or next to what the word scans look for, including
    /// their high-bit twins, where a carry or borrow mistake would show.
    const TRICKY: &[u8] = &[
        b' ', b'\t', b'\n', b'\r', b'"', b'\\', 0x00, 0x0b, 0x0c, 0x1f, 0x21, 0x23, 0x5b, 0x5d,
        0x7f, 0x80, 0x89, 0x8a, 0x8d, 0xa0, 0xa2, 0xdc, 0xff, b'a', b'0',
    ];

    fn tricky_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        proptest::collection::vec(proptest::sample::select(TRICKY), 0..72)
    }

    /// The number grammar read one byte at a time, asking for more
    /// whenever a byte past the slice is needed: what the scanner must match.
    fn number_bytewise(b: &[u8], pos: usize, at_eof: bool) -> Result<usize, Stop> {
        let need = |i: usize| match b.get(i) {
            Some(&c) => Ok(c),
            None if at_eof => Ok(0),
            None => Err(Stop::Incomplete),
        };
        let digits = |mut i: usize| -> Result<usize, Stop> {
            while need(i)?.is_ascii_digit() {
                i += 1;
            }
            Ok(i)
        };
        let mut i = pos;
        if need(i)? == b'-' {
            i += 1;
        }
        match need(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits(i + 1)?,
            b'I' | b'N' => return Err(syntax(pos, SyntaxKind::NonFiniteNumber)),
            _ => return Err(syntax(i, SyntaxKind::InvalidNumber)),
        }
        if need(i)? == b'.' {
            i += 1;
            if !need(i)?.is_ascii_digit() {
                return Err(syntax(i, SyntaxKind::InvalidNumber));
            }
            i = digits(i)?;
        }
        if matches!(need(i)?, b'e' | b'E') {
            i += 1;
            if matches!(need(i)?, b'+' | b'-') {
                i += 1;
            }
            if !need(i)?.is_ascii_digit() {
                return Err(syntax(i, SyntaxKind::InvalidNumber));
            }
            i = digits(i)?;
        }
        Ok(i)
    }

    /// [`value_after_key`] without its shortcut: the whitespace scans.
    fn value_after_key_by_scans(b: &[u8], key_end: usize) -> Result<usize, Stop> {
        let i = skip_ws(b, key_end);
        match b.get(i) {
            None => Err(Stop::Incomplete),
            Some(b':') => Ok(skip_ws(b, i + 1)),
            Some(_) => Err(syntax(i, SyntaxKind::ExpectedColon)),
        }
    }

    #[test]
    fn values_after_keys_are_where_the_whitespace_scans_find_them() {
        // Every text of up to five bytes over what the shortcut looks at.
        let alphabet = [b':', b' ', b'\t', b'\n', b'\r', b'"', b'1', b'{', 0xa0];
        let mut texts = vec![Vec::new()];
        for len in 1..=5u32 {
            for n in 0..alphabet.len().pow(len) {
                let text = (0..len as usize)
                    .map(|k| alphabet[n / alphabet.len().pow(k as u32) % alphabet.len()])
                    .collect();
                texts.push(text);
            }
        }
        for text in texts {
            assert_eq!(
                value_after_key(&text, 0),
                value_after_key_by_scans(&text, 0),
                "{text:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn word_scans_find_what_a_bytewise_scan_finds(
            bytes in tricky_bytes(),
            start in 0usize..72,
        ) {
            let start = start.min(bytes.len());
            let stop = (start..bytes.len())
                .find(|&i| CLASS[bytes[i] as usize] & STR_STOP != 0)
                .unwrap_or(bytes.len());
            proptest::prop_assert_eq!(next_string_stop(&bytes, start), stop);
            let token = (start..bytes.len())
                .find(|&i| CLASS[bytes[i] as usize] & WS == 0)
                .unwrap_or(bytes.len());
            proptest::prop_assert_eq!(skip_ws(&bytes, start), token);
        }

        #[test]
        fn digit_lanes_are_exact(word: u64) {
            let bytewise = word.to_le_bytes().iter().enumerate().fold(0u64, |m, (k, c)| {
                m | u64::from(!c.is_ascii_digit()) << (8 * k + 7)
            });
            proptest::prop_assert_eq!(non_digit_lanes(word), bytewise);
        }

        #[test]
        fn strings_scan_inline_as_out_of_line(
            bytes in tricky_bytes(),
            start in 0usize..72,
        ) {
            let mut b = vec![b'"'];
            b.extend_from_slice(&bytes[start.min(bytes.len())..]);
            proptest::prop_assert_eq!(scan_string(&b, 0), scan_string_from(&b, 0));
        }

        #[test]
        fn numbers_scan_as_the_bytewise_grammar_does(
            text in "-?[0-9IN]{0,19}(\\.[0-9]{0,11})?([eE][+-]?[0-9]{0,10})?[ ,x/:]?",
            at_eof: bool,
        ) {
            let b = text.as_bytes();
            for cut in 0..=b.len() {
                proptest::prop_assert_eq!(
                    scan_number(&b[..cut], 0, at_eof),
                    number_bytewise(&b[..cut], 0, at_eof),
                    "{:?} cut at {}", text, cut
                );
            }
        }
    }

    #[test]
    fn syntax_errors_say_what_and_where() {
        let err = |s: &str| match whole(s) {
            Err(Stop::Syntax { at, kind }) => (at, kind),
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(err("NaN"), (0, SyntaxKind::NonFiniteNumber));
        assert_eq!(err("[1,-Infinity]"), (3, SyntaxKind::NonFiniteNumber));
        assert_eq!(err("[01]"), (2, SyntaxKind::ExpectedCommaOrEndOfArray));
        assert_eq!(err("[1.]"), (3, SyntaxKind::InvalidNumber));
        assert_eq!(err("{\"a\" 1}"), (5, SyntaxKind::ExpectedColon));
        assert_eq!(err("{1:2}"), (1, SyntaxKind::ExpectedKey));
        assert_eq!(err("[1}"), (2, SyntaxKind::ExpectedCommaOrEndOfArray));
        assert_eq!(err("[1,]"), (3, SyntaxKind::ExpectedValue));
        assert_eq!(err("{\"a\":1,}"), (7, SyntaxKind::ExpectedKey));
        assert_eq!(err("[,1]"), (1, SyntaxKind::ExpectedValue));
        assert_eq!(err("{\"a\":\"x\"y\"}"), (7, SyntaxKind::UnescapedQuote));
        assert_eq!(err("\"a\\u00zz\""), (2, SyntaxKind::InvalidEscape));
        assert_eq!(
            err("\"ab\u{1}\""),
            (3, SyntaxKind::ControlCharacterInString)
        );
    }
}
