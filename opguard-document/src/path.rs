//! JSON paths: `reviews[2].evidence[0].basis`, `$` for the whole document,
//! `["odd key"]` for a key that is not a plain identifier.

use std::fmt::{self, Write};

/// One step of a path an error carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

fn plain_key(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn write_key(out: &mut impl Write, first: bool, k: &str) -> fmt::Result {
    match (first, plain_key(k)) {
        (true, true) => out.write_str(k),
        (false, true) => write!(out, ".{k}"),
        (true, false) => write!(out, "$[{k:?}]"),
        (false, false) => write!(out, "[{k:?}]"),
    }
}

fn write_index(out: &mut impl Write, first: bool, i: usize) -> fmt::Result {
    if first {
        out.write_str("$")?;
    }
    write!(out, "[{i}]")
}

/// Renders segments, outermost first.
pub(crate) fn render<'s>(segments: impl Iterator<Item = &'s Segment>) -> String {
    let mut out = String::new();
    for (n, s) in segments.enumerate() {
        // Writing to a String cannot fail.
        let _ = match s {
            Segment::Key(k) => write_key(&mut out, n == 0, k),
            Segment::Index(i) => write_index(&mut out, n == 0, *i),
        };
    }
    if out.is_empty() {
        out.push('$');
    }
    out
}

/// A JSON path built on the stack as a hand-written reader descends a
/// [`Value`](crate::Value) tree, and turned into text only when an error
/// needs it.
///
/// ```
/// use opguard_document::JsonPath;
///
/// let root = JsonPath::Root;
/// let ops = root.key("ops");
/// let op = ops.index(12);
/// let shapes = op.key("shapes");
/// assert_eq!(shapes.index(1).to_string(), "ops[12].shapes[1]");
/// assert_eq!(root.key("a b").to_string(), r#"$["a b"]"#);
/// assert_eq!(root.to_string(), "$");
/// ```
#[derive(Debug, Clone, Copy)]
pub enum JsonPath<'a> {
    /// The whole document.
    Root,
    /// A key of the object at the parent path.
    Key(&'a JsonPath<'a>, &'a str),
    /// An index of the array at the parent path.
    Index(&'a JsonPath<'a>, usize),
}

impl JsonPath<'_> {
    /// The path of `key` inside the object at this path.
    pub fn key<'b>(&'b self, key: &'b str) -> JsonPath<'b> {
        JsonPath::Key(self, key)
    }

    /// The path of entry `index` of the array at this path.
    pub fn index(&self, index: usize) -> JsonPath<'_> {
        JsonPath::Index(self, index)
    }

    /// The path as an error keeps it: innermost segment first.
    pub(crate) fn segments_innermost_first(&self) -> Vec<Segment> {
        let mut out = Vec::new();
        let mut at = self;
        loop {
            match at {
                JsonPath::Root => return out,
                JsonPath::Key(parent, k) => {
                    out.push(Segment::Key((*k).to_owned()));
                    at = parent;
                }
                JsonPath::Index(parent, i) => {
                    out.push(Segment::Index(*i));
                    at = parent;
                }
            }
        }
    }

    fn write_to(&self, out: &mut fmt::Formatter<'_>) -> Result<bool, fmt::Error> {
        // Returns whether anything was written, so the child knows if it is first.
        match self {
            JsonPath::Root => Ok(false),
            JsonPath::Key(parent, k) => {
                let wrote = parent.write_to(out)?;
                write_key(out, !wrote, k)?;
                Ok(true)
            }
            JsonPath::Index(parent, i) => {
                let wrote = parent.write_to(out)?;
                write_index(out, !wrote, *i)?;
                Ok(true)
            }
        }
    }
}

impl fmt::Display for JsonPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.write_to(f)? {
            f.write_str("$")?;
        }
        Ok(())
    }
}
