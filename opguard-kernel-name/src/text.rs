//! Byte classes and the whitespace normalization shared by every fragment.
//!
//! Everything here works on bytes: whitespace and every separator are ASCII,
//! and every byte of a multi-byte UTF-8 sequence is an identifier byte, so a
//! sequence is never split or altered.

use std::borrow::Cow;
use std::fmt;

/// `[A-Za-z0-9_]` and every byte of a non-ASCII character: the identifier
/// characters (rule 8). A non-ASCII character is part of the name it stands
/// in, never a separator: `kernél_abcdef` is one identifier, not a cut one
/// whose ASCII tail `l_abcdef` another name could share.
#[inline]
pub(crate) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || !b.is_ascii()
}

/// The ASCII whitespace set: space, tab, line feed, form feed, carriage return.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// Trims the ASCII whitespace set (and nothing else) from both ends.
pub(crate) fn trim_ws(s: &str) -> &str {
    let b = s.as_bytes();
    let mut start = 0;
    let mut end = b.len();
    while start < end && is_ws(b[start]) {
        start += 1;
    }
    while end > start && is_ws(b[end - 1]) {
        end -= 1;
    }
    // Both cut points sit next to ASCII bytes, so they are char boundaries.
    &s[start..end]
}

/// Iterator over the normalized bytes of a fragment.
///
/// Normalization: leading and trailing whitespace is dropped; a whitespace run
/// between two identifier characters becomes one space; every other
/// whitespace run is removed. Separators such as `,` are kept.
#[derive(Clone)]
pub(crate) struct Normalized<'s> {
    bytes: &'s [u8],
    pos: usize,
    prev_ident: bool,
    queued: Option<u8>,
}

impl<'s> Normalized<'s> {
    pub(crate) fn new(s: &'s str) -> Self {
        Normalized {
            bytes: s.as_bytes(),
            pos: 0,
            prev_ident: false,
            queued: None,
        }
    }
}

impl Iterator for Normalized<'_> {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        if let Some(b) = self.queued.take() {
            self.prev_ident = is_ident(b);
            return Some(b);
        }
        let mut saw_ws = false;
        while self.pos < self.bytes.len() && is_ws(self.bytes[self.pos]) {
            saw_ws = true;
            self.pos += 1;
        }
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        if saw_ws && self.prev_ident && is_ident(b) {
            self.queued = Some(b);
            self.prev_ident = false;
            return Some(b' ');
        }
        self.prev_ident = is_ident(b);
        Some(b)
    }
}

/// Whether `s` is already in normal form (so it can be borrowed as is).
fn is_normalized(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_ws(b[i]) {
            // Only a single plain space between two identifier characters survives.
            let ok = b[i] == b' '
                && i > 0
                && is_ident(b[i - 1])
                && i + 1 < b.len()
                && is_ident(b[i + 1]);
            if !ok {
                return false;
            }
        }
        i += 1;
    }
    true
}

/// The normal form of `s` (borrowed when nothing changes).
pub(crate) fn normalize(s: &str) -> Cow<'_, str> {
    if is_normalized(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    push_normalized(&mut out, s);
    Cow::Owned(out)
}

/// Appends the normal form of `s` to `out`, copying the runs between
/// whitespace whole: the bytes [`Normalized`] yields one at a time, without
/// checking UTF-8 again (every cut is next to an ASCII whitespace byte, so on
/// a char boundary). Demangled template arguments (`Kernel<a, b>`) are
/// rarely normal, and this runs for each of them in every identity.
pub(crate) fn push_normalized(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let mut i = 0;
    let mut prev_ident = false;
    while i < b.len() {
        let gap = i;
        while i < b.len() && is_ws(b[i]) {
            i += 1;
        }
        if i == b.len() {
            return;
        }
        let start = i;
        while i < b.len() && !is_ws(b[i]) {
            i += 1;
        }
        if start > gap && prev_ident && is_ident(b[start]) {
            out.push(' ');
        }
        out.push_str(&s[start..i]);
        prev_ident = is_ident(b[i - 1]);
    }
}

/// Collapses every whitespace run to one space and trims both ends (used for
/// memory-operation display names, which keep their spaces).
pub(crate) fn collapse_ws(s: &str) -> Cow<'_, str> {
    let s = trim_ws(s);
    let b = s.as_bytes();
    let clean = b
        .iter()
        .enumerate()
        .all(|(i, &c)| !is_ws(c) || (c == b' ' && i + 1 < b.len() && !is_ws(b[i + 1])));
    if clean {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut in_ws = false;
    for ch in s.chars() {
        if ch.is_ascii() && is_ws(ch as u8) {
            in_ws = true;
        } else {
            if in_ws {
                out.push(' ');
                in_ws = false;
            }
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

/// The first `limit` characters (Unicode scalar values) of `s`, with trailing
/// whitespace removed so the result is stable under repetition.
pub(crate) fn truncate_chars(s: &str, limit: usize) -> &str {
    let end = s.char_indices().nth(limit).map_or(s.len(), |(i, _)| i);
    let cut = &s[..end];
    let b = cut.as_bytes();
    let mut e = b.len();
    while e > 0 && is_ws(b[e - 1]) {
        e -= 1;
    }
    &cut[..e]
}

/// A piece of a kernel name (a template argument, a qualification, an
/// annotation) kept as it appeared in the symbol and compared in normal form.
///
/// Normal form: leading and trailing ASCII whitespace dropped, a whitespace
/// run between two identifier characters (`[A-Za-z0-9_]`) becomes one space,
/// every other whitespace run is removed. So `Array<char*, 2> ` and
/// `Array<char *,2>` are equal while `128, 4` and `128, 48` stay different.
#[derive(Clone, Debug)]
pub struct Fragment<'a> {
    raw: Cow<'a, str>,
}

impl<'a> Fragment<'a> {
    pub(crate) fn borrowed(raw: &'a str) -> Self {
        Fragment {
            raw: Cow::Borrowed(raw),
        }
    }

    /// The text exactly as it appeared in the (demangled) symbol.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The normal form (borrowed when the raw text is already normal).
    pub fn normalized(&self) -> Cow<'_, str> {
        normalize(&self.raw)
    }

    /// Whether the normal form of `self` starts with the normal form of `prefix`.
    pub fn starts_with(&self, prefix: &Fragment<'_>) -> bool {
        let mut mine = Normalized::new(&self.raw);
        Normalized::new(&prefix.raw).all(|b| mine.next() == Some(b))
    }

    /// Detaches the fragment from the symbol it borrows from.
    pub fn into_owned(self) -> Fragment<'static> {
        Fragment {
            raw: Cow::Owned(self.raw.into_owned()),
        }
    }

    pub(crate) fn norm_bytes(&self) -> Normalized<'_> {
        Normalized::new(&self.raw)
    }
}

impl PartialEq for Fragment<'_> {
    fn eq(&self, other: &Self) -> bool {
        // Identical raw text has identical normal form.
        self.raw == other.raw || self.norm_bytes().eq(other.norm_bytes())
    }
}

impl Eq for Fragment<'_> {}

impl fmt::Display for Fragment<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.normalized())
    }
}

impl serde::Serialize for Fragment<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.normalized())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_keeps_separators_and_word_spaces() {
        assert_eq!(normalize(" Array<char *, 2> > "), "Array<char*,2>>");
        assert_eq!(normalize("unsigned   int"), "unsigned int");
        assert_eq!(normalize("128, 4"), "128,4");
        assert_ne!(normalize("128, 4"), normalize("1284"));
        assert!(matches!(normalize("float const*"), Cow::Borrowed(_)));
    }

    proptest::proptest! {
        /// The run-copying normal form equals the byte iterator's (which the
        /// comparisons use).
        #[test]
        fn run_copying_equals_the_byte_iterator(s in "[a-c_0-9 ,<>*\\t\\né]{0,40}") {
            let bytes: Vec<u8> = Normalized::new(&s).collect();
            let normal = normalize(&s);
            proptest::prop_assert_eq!(normal.as_bytes(), &bytes[..]);
        }
    }

    #[test]
    fn normalization_is_idempotent_on_samples() {
        for s in ["a  b", " , x", "a\t\nb<c ,d>", "é ü", "a ,b"] {
            let once = normalize(s).into_owned();
            assert_eq!(normalize(&once), once.as_str());
        }
    }

    #[test]
    fn collapse_and_truncate() {
        assert_eq!(
            collapse_ws("  Memcpy   HtoD\t(Host -> Device) "),
            "Memcpy HtoD (Host -> Device)"
        );
        assert_eq!(truncate_chars("abc def", 4), "abc");
        assert_eq!(truncate_chars("ééé", 2), "éé");
    }
}
