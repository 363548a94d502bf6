//! A streaming JSON scanner over decoded bytes: it steps through the
//! document's outer objects and arrays key by key, hands out each value the
//! reader types as one slice (for serde_json to parse), and steps over the
//! rest without keeping it. Memory is one buffer, as large as the largest
//! value handed out (bounded by `max_value_bytes`), never the document.
//!
//! Values stepped over are checked for structure only (strings closed,
//! brackets matched, depth bounded); values handed out are parsed in full.

use std::io::Read;

use crate::error::{Error, ErrorKind, Limit};

/// Deepest nesting accepted, as opguard-trace's reader.
const MAX_DEPTH: usize = opguard_trace::DEFAULT_MAX_DEPTH;
/// Bytes read at a time.
const READ_BYTES: usize = 256 << 10;

pub(crate) struct Scanner<R> {
    src: R,
    buf: Vec<u8>,
    /// Next unread byte.
    pos: usize,
    /// End of the valid bytes.
    end: usize,
    /// Decoded offset of `buf[0]`.
    base: u64,
    eof: bool,
    max_value: u64,
}

impl<R: Read> Scanner<R> {
    pub(crate) fn new(src: R, max_value: u64) -> Self {
        Scanner {
            src,
            buf: vec![0; READ_BYTES],
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            max_value,
        }
    }

    pub(crate) fn into_inner(self) -> R {
        self.src
    }

    /// The decoded offset of the next unread byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads more bytes, keeping `buf[keep..]` (moved to the front).
    /// `false` at the end of input.
    fn fill(&mut self, keep: usize) -> Result<bool, Error> {
        if self.eof {
            return Ok(false);
        }
        if keep > 0 {
            self.buf.copy_within(keep..self.end, 0);
            self.end -= keep;
            self.pos -= keep;
            self.base += keep as u64;
        }
        if self.end == self.buf.len() {
            let kept = self.end as u64;
            if kept > self.max_value {
                return Err(Error::new(ErrorKind::LimitExceeded {
                    which: Limit::ValueBytes,
                    limit: self.max_value,
                }));
            }
            let grown = (self.buf.len() * 2).max(READ_BYTES);
            self.buf.resize(grown, 0);
        }
        let n = self.src.read(&mut self.buf[self.end..])?;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.end += n;
        Ok(true)
    }

    /// The next byte that is not whitespace, not consumed; `None` at the end.
    pub(crate) fn peek(&mut self) -> Result<Option<u8>, Error> {
        loop {
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                    b => return Ok(Some(b)),
                }
            }
            let keep = self.pos;
            if !self.fill(keep)? {
                return Ok(None);
            }
        }
    }

    /// Consumes `byte` (after whitespace) or fails saying what was expected.
    pub(crate) fn expect(&mut self, byte: u8, expected: &str) -> Result<(), Error> {
        match self.peek()? {
            Some(b) if b == byte => {
                self.pos += 1;
                Ok(())
            }
            Some(b) => Err(self.syntax(format!("expected {expected}, found {:?}", char::from(b)))),
            None => Err(self.truncated()),
        }
    }

    /// After `{` or `,` inside an object: the next key, or `None` at `}`.
    /// `first` says whether this is the first member.
    pub(crate) fn next_key(&mut self, first: bool) -> Result<Option<String>, Error> {
        match self.peek()? {
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(b',') if !first => self.pos += 1,
            Some(_) if first => {}
            Some(b) => {
                return Err(self.syntax(format!(
                    "expected ',' or '}}' after an object member, found {:?}",
                    char::from(b)
                )))
            }
            None => return Err(self.truncated()),
        }
        if self.peek()? != Some(b'"') {
            return match self.peek()? {
                None => Err(self.truncated()),
                Some(_) => Err(self.syntax("expected an object key".into())),
            };
        }
        let (start, end) = self.value()?;
        let key: String = serde_json::from_slice(&self.buf[start..end])
            .map_err(|e| self.syntax(format!("invalid key: {e}")))?;
        self.expect(b':', "':' after an object key")?;
        Ok(Some(key))
    }

    /// After `[` or an element: whether another element follows (consuming
    /// the `,`), `false` at `]` (consumed).
    pub(crate) fn next_element(&mut self, first: bool) -> Result<bool, Error> {
        match self.peek()? {
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.pos += 1;
                Ok(true)
            }
            Some(_) if first => Ok(true),
            Some(b) => Err(self.syntax(format!(
                "expected ',' or ']' after an array element, found {:?}",
                char::from(b)
            ))),
            None => Err(self.truncated()),
        }
    }

    /// The next value, whole, as `buf[start..end]` (valid until the next
    /// call). Held to `max_value_bytes`.
    pub(crate) fn value(&mut self) -> Result<(usize, usize), Error> {
        if self.peek()?.is_none() {
            return Err(self.truncated());
        }
        let mut start = self.pos;
        let mut state = ValueState::default();
        let mut i = start;
        loop {
            match state.scan(&self.buf[i..self.end]) {
                Ok(Some(used)) => {
                    let end = i + used;
                    self.pos = end;
                    if (end - start) as u64 > self.max_value {
                        return Err(self.value_limit(start));
                    }
                    return Ok((start, end));
                }
                Ok(None) => {
                    if (self.end - start) as u64 > self.max_value {
                        return Err(self.value_limit(start));
                    }
                    let scanned = self.end - start;
                    self.pos = start;
                    if !self.fill(start)? {
                        self.pos = self.end;
                        return Err(self.truncated());
                    }
                    start = 0;
                    i = scanned;
                }
                Err(what) => {
                    self.pos = i + state.at;
                    return Err(self.syntax(what.into()));
                }
            }
        }
    }

    /// Steps over the next value without keeping it.
    pub(crate) fn skip(&mut self) -> Result<(), Error> {
        if self.peek()?.is_none() {
            return Err(self.truncated());
        }
        let mut state = ValueState::default();
        loop {
            match state.scan(&self.buf[self.pos..self.end]) {
                Ok(Some(used)) => {
                    self.pos += used;
                    return Ok(());
                }
                Ok(None) => {
                    self.pos = self.end;
                    let keep = self.pos;
                    if !self.fill(keep)? {
                        return Err(self.truncated());
                    }
                }
                Err(what) => {
                    self.pos += state.at;
                    return Err(self.syntax(what.into()));
                }
            }
        }
    }

    /// The bytes of `buf[start..end]` (a value handed out by [`value`]).
    pub(crate) fn bytes(&self, start: usize, end: usize) -> &[u8] {
        &self.buf[start..end]
    }

    /// The decoded offset of `buf[index]`.
    pub(crate) fn offset_of(&self, index: usize) -> u64 {
        self.base + index as u64
    }

    /// Fails unless only whitespace is left.
    pub(crate) fn end(&mut self) -> Result<(), Error> {
        match self.peek()? {
            None => Ok(()),
            Some(_) => Err(self.syntax("data after the end of the document".into())),
        }
    }

    fn value_limit(&self, start: usize) -> Error {
        self.at(
            Error::new(ErrorKind::LimitExceeded {
                which: Limit::ValueBytes,
                limit: self.max_value,
            }),
            self.offset_of(start),
        )
    }

    pub(crate) fn syntax(&self, what: String) -> Error {
        self.at(Error::new(ErrorKind::JsonSyntax(what)), self.offset())
    }

    pub(crate) fn truncated(&self) -> Error {
        self.at(Error::new(ErrorKind::JsonTruncated), self.offset())
    }

    /// The position is completed with its JSON path by the reader, which
    /// knows where it is.
    fn at(&self, e: Error, offset: u64) -> Error {
        e.at_offset(offset)
    }
}

/// Where the structural scan of one value is, across buffer refills.
#[derive(Debug, Default)]
struct ValueState {
    started: bool,
    /// Open brackets, innermost last.
    stack: Vec<u8>,
    in_string: bool,
    escaped: bool,
    /// A scalar (number, literal) at the top, not inside a container.
    top_scalar: bool,
    /// Where, in the slice last scanned, a syntax error is.
    at: usize,
}

impl ValueState {
    /// Scans `bytes`; `Some(n)`: the value ends after `n` bytes; `None`: it
    /// goes on past `bytes`.
    fn scan(&mut self, bytes: &[u8]) -> Result<Option<usize>, &'static str> {
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                // Strings in records are short keys: a byte loop beats a
                // vectorised search that starts over for every one.
                match bytes[i..].iter().position(|&c| c == b'"' || c == b'\\') {
                    Some(j) => {
                        i += j;
                        if bytes[i] == b'\\' {
                            self.escaped = true;
                        } else {
                            self.in_string = false;
                            if self.stack.is_empty() {
                                return Ok(Some(i + 1));
                            }
                        }
                        i += 1;
                        continue;
                    }
                    None => return Ok(None),
                }
            }
            if self.top_scalar {
                if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    return Ok(Some(i));
                }
                i += 1;
                continue;
            }
            if !self.started {
                self.started = true;
                match b {
                    b'{' | b'[' => self.stack.push(b),
                    b'"' => self.in_string = true,
                    b'}' | b']' | b',' | b':' => {
                        self.at = i;
                        return Err("expected a value");
                    }
                    _ => self.top_scalar = true,
                }
                i += 1;
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    if self.stack.len() >= MAX_DEPTH {
                        self.at = i;
                        return Err("nesting deeper than 128");
                    }
                    self.stack.push(b);
                }
                b'}' | b']' => {
                    let open = if b == b'}' { b'{' } else { b'[' };
                    if self.stack.pop() != Some(open) {
                        self.at = i;
                        return Err("a closing bracket that does not match its opening one");
                    }
                    if self.stack.is_empty() {
                        return Ok(Some(i + 1));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Ok(None)
    }
}
