//! The top-level scan of a (demangled, non-memory) kernel name.
//!
//! One left-to-right pass. At depth 0 the text is a stream of items:
//! name tokens (identifier runs joined by `-`/`.`, see [`token_end`]), `::`, balanced groups, whitespace and other characters.
//! A group is matched with a stack: an opener `<` `(` `[` is pushed, a closer
//! pops only when it matches the opener on top, and any other closer is an
//! ordinary character. An opener that never closes cuts the name there.
//! Chains of qualified names are read from the items; the identity is the
//! chain right before the parameter list, or the last chain when there is none.

use crate::text::is_ident;

/// Where the identity's own template group sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TemplateSpan {
    /// No `<...>` group directly after the base identifier.
    None,
    /// Content between `<` and its matching `>` (exclusive), and what the scan saw.
    Complete(usize, usize, Group),
    /// Content from after an unclosed `<` to the end of the text, and what the scan saw.
    Cut(usize, Group),
}

/// The keyword that takes a C++ operator spelling into its name token.
pub(crate) const OPERATOR_KEYWORD: &[u8] = b"operator";

/// What [`OPERATOR_KEYWORD`] takes directly after it: the C++ operator
/// spellings, longest first (so `->*` wins over `->` and `-`), plus `.`.
const OPERATOR_SPELLINGS: &[&[u8]] = &[
    b"->*", b"<=>", b"<<=", b">>=", b"->", b"()", b"[]", b"<<", b">>", b"<=", b">=", b"==", b"!=",
    b"&&", b"||", b"++", b"--", b"+=", b"-=", b"*=", b"/=", b"%=", b"^=", b"&=", b"|=", b"+", b"-",
    b"*", b"/", b"%", b"^", b"&", b"|", b"~", b"!", b"=", b"<", b">", b",", b".",
];

/// The end of the name token that starts at `b[start]` (an identifier byte).
///
/// A name token is a run of identifier bytes in which single `-` or `.`
/// bytes may occur, each with an identifier byte directly on both sides
/// (`add-dtype_Float`, `mul.out-dtype_Float`) or, for a last `-`/`.`, the end
/// of the text (a display cut of such a name). The bare keyword `operator`
/// then takes the operator spelling directly after it (`operator->`,
/// `operator()`), so no operator degrades to the keyword alone.
pub(crate) fn token_end(b: &[u8], start: usize) -> usize {
    let n = b.len();
    let mut i = start;
    while i < n && is_ident(b[i]) {
        i += 1;
        if i < n && matches!(b[i], b'-' | b'.') && (i + 1 == n || is_ident(b[i + 1])) {
            i += 1;
        }
    }
    if &b[start..i] == OPERATOR_KEYWORD {
        let rest = &b[i..];
        if let Some(spelling) = OPERATOR_SPELLINGS.iter().find(|s| rest.starts_with(s)) {
            i += spelling.len();
        }
    }
    i
}

/// Byte spans of the parts of a name; all index into the scanned text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parsed {
    pub(crate) base: (usize, usize),
    pub(crate) qualification: Option<(usize, usize)>,
    pub(crate) template: TemplateSpan,
    pub(crate) annotation: Option<(usize, usize)>,
}

#[inline]
fn partner(open: u8) -> u8 {
    match open {
        b'<' => b'>',
        b'(' => b')',
        _ => b']',
    }
}

#[inline]
fn is_open(b: u8) -> bool {
    matches!(b, b'<' | b'(' | b'[')
}

#[inline]
fn is_close(b: u8) -> bool {
    matches!(b, b'>' | b')' | b']')
}

const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const COMMA: u8 = 4;
const DOT: u8 = 8;

/// Byte classes for the group scan (everything else is 0).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'<' as usize] = OPEN;
    t[b'(' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'>' as usize] = CLOSE;
    t[b')' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t[b',' as usize] = COMMA;
    t[b'.' as usize] = DOT;
    t
};

/// What one scan of a group found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    /// Index of the matching closer, or `None` when the opener never closes.
    pub(crate) close: Option<usize>,
    /// Commas directly inside the group (argument separators).
    pub(crate) commas: usize,
    /// Index of the last such comma.
    pub(crate) last_comma: Option<usize>,
    /// Whether a `.` occurs anywhere inside (so an argument might end in `...`).
    pub(crate) dots: bool,
}

/// The stack of expected closers: inline for ordinary nesting, spilling to
/// the heap only past `INLINE` levels.
struct Closers {
    inline: [u8; Closers::INLINE],
    len: usize,
    spill: Vec<u8>,
}

impl Closers {
    const INLINE: usize = 48;

    #[inline]
    fn new() -> Self {
        Closers {
            inline: [0; Closers::INLINE],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, closer: u8) {
        if self.len < Closers::INLINE {
            self.inline[self.len] = closer;
        } else {
            self.spill.push(closer);
        }
        self.len += 1;
    }

    #[inline]
    fn top(&self) -> Option<u8> {
        match self.len {
            0 => None,
            n if n <= Closers::INLINE => Some(self.inline[n - 1]),
            _ => self.spill.last().copied(),
        }
    }

    #[inline]
    fn pop(&mut self) {
        if self.len > Closers::INLINE {
            self.spill.pop();
        }
        self.len = self.len.saturating_sub(1);
    }
}

/// Scans the group opened at `open`: its matching closer, its top-level commas.
fn scan_group(b: &[u8], open: usize) -> Group {
    let mut stack = Closers::new();
    stack.push(partner(b[open]));
    let mut group = Group {
        close: None,
        commas: 0,
        last_comma: None,
        dots: false,
    };
    let mut j = open + 1;
    loop {
        // Skip the bytes that do not matter (identifiers, spaces, `:`, `*`, ...).
        let Some(skip) = b
            .get(j..)
            .and_then(|rest| rest.iter().position(|&c| CLASS[c as usize] != 0))
        else {
            return group;
        };
        j += skip;
        let c = b[j];
        match CLASS[c as usize] {
            OPEN => stack.push(partner(c)),
            CLOSE => {
                if stack.top() == Some(c) {
                    stack.pop();
                    if stack.len == 0 {
                        group.close = Some(j);
                        return group;
                    }
                }
            }
            COMMA => {
                if stack.len == 1 {
                    group.commas += 1;
                    group.last_comma = Some(j);
                }
            }
            _ => group.dots = true,
        }
        j += 1;
    }
}

/// Iterator over the top-level, comma-separated pieces of a template
/// group's content (raw, untrimmed), with the same matching rules as the scan.
#[derive(Clone)]
pub(crate) struct ArgSplit<'s> {
    text: &'s str,
    pos: usize,
    done: bool,
}

impl<'s> ArgSplit<'s> {
    pub(crate) fn new(text: &'s str) -> Self {
        ArgSplit {
            text,
            pos: 0,
            done: false,
        }
    }
}

impl<'s> Iterator for ArgSplit<'s> {
    type Item = &'s str;

    fn next(&mut self) -> Option<&'s str> {
        if self.done {
            return None;
        }
        let b = self.text.as_bytes();
        let mut stack = Closers::new();
        let start = self.pos;
        let mut j = start;
        while j < b.len() {
            let c = b[j];
            if is_open(c) {
                stack.push(partner(c));
            } else if is_close(c) {
                if stack.top() == Some(c) {
                    stack.pop();
                }
            } else if c == b',' && stack.len == 0 {
                self.pos = j + 1;
                return Some(&self.text[start..j]);
            }
            j += 1;
        }
        self.done = true;
        Some(&self.text[start..])
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Start of text, whitespace, another character, or an item outside any chain.
    Break,
    /// An identifier that is the last component of the current chain.
    Ident,
    /// The template group attached to that identifier.
    Template,
    /// A parenthesised group used as a qualification component (`(anonymous namespace)`).
    ParenComponent,
    /// A `::` inside the current chain.
    Sep,
}

#[derive(Clone, Copy)]
struct Chain {
    start: usize,
    /// The last identifier component, if any.
    ident: Option<(usize, usize)>,
    /// Whether the chain currently ends with that identifier (not a paren component).
    ends_with_ident: bool,
    template: TemplateSpan,
    /// Position of the `::` that precedes `ident`.
    qual_end: Option<usize>,
}

struct Scanner {
    cur: Option<Chain>,
    candidate: Option<Chain>,
    annotation: Option<(usize, usize)>,
    prev: Prev,
    last_sep: usize,
    frozen: bool,
}

impl Scanner {
    fn finish(&mut self) {
        if let Some(chain) = self.cur.take() {
            if !self.frozen && chain.ends_with_ident && chain.ident.is_some() {
                self.candidate = Some(chain);
                self.annotation = None;
            }
        }
    }

    fn offer_annotation(&mut self, open: usize, close: usize) {
        if self.candidate.is_some() && self.annotation.is_none() {
            self.annotation = Some((open + 1, close));
        }
    }
}

/// Scans `text` (already trimmed) and locates the identity's parts.
pub(crate) fn scan(text: &str) -> Parsed {
    let b = text.as_bytes();
    let n = b.len();
    let mut s = Scanner {
        cur: None,
        candidate: None,
        annotation: None,
        prev: Prev::Break,
        last_sep: 0,
        frozen: false,
    };
    let mut i = 0;
    while i < n {
        let c = b[i];
        if is_ident(c) {
            let start = i;
            i = token_end(b, i);
            if s.frozen {
                s.prev = Prev::Ident;
                continue;
            }
            match (&mut s.cur, s.prev) {
                (Some(chain), Prev::Sep) => {
                    chain.ident = Some((start, i));
                    chain.ends_with_ident = true;
                    chain.template = TemplateSpan::None;
                    chain.qual_end = Some(s.last_sep);
                }
                _ => {
                    s.finish();
                    s.cur = Some(Chain {
                        start,
                        ident: Some((start, i)),
                        ends_with_ident: true,
                        template: TemplateSpan::None,
                        qual_end: None,
                    });
                }
            }
            s.prev = Prev::Ident;
            continue;
        }
        if c == b':' && i + 1 < n && b[i + 1] == b':' {
            if s.cur.is_some()
                && matches!(s.prev, Prev::Ident | Prev::Template | Prev::ParenComponent)
            {
                s.prev = Prev::Sep;
                s.last_sep = i;
            } else {
                s.finish();
                s.prev = Prev::Break;
            }
            i += 2;
            continue;
        }
        if is_open(c) {
            let group = scan_group(b, i);
            let Some(close) = group.close else {
                // An opener that never closes cuts the name here.
                if c == b'<' && s.prev == Prev::Ident && !s.frozen {
                    if let Some(chain) = &mut s.cur {
                        chain.template = TemplateSpan::Cut(i + 1, group);
                    }
                }
                s.finish();
                break;
            };
            let attached = matches!(s.prev, Prev::Ident | Prev::Template);
            match c {
                b'<' => {
                    if s.prev == Prev::Ident {
                        if !s.frozen {
                            if let Some(chain) = &mut s.cur {
                                chain.template = TemplateSpan::Complete(i + 1, close, group);
                            }
                        }
                        s.prev = Prev::Template;
                    } else {
                        s.finish();
                        s.prev = Prev::Break;
                    }
                }
                b'(' => {
                    let followed_by_sep =
                        b.get(close + 1) == Some(&b':') && b.get(close + 2) == Some(&b':');
                    if followed_by_sep {
                        // A qualification component: `(anonymous namespace)::`, `f(int)::`.
                        let continues = s.cur.is_some()
                            && matches!(s.prev, Prev::Ident | Prev::Template | Prev::Sep);
                        if continues {
                            if let Some(chain) = &mut s.cur {
                                chain.ends_with_ident = false;
                            }
                        } else {
                            s.finish();
                            s.cur = Some(Chain {
                                start: i,
                                ident: None,
                                ends_with_ident: false,
                                template: TemplateSpan::None,
                                qual_end: None,
                            });
                        }
                        s.prev = Prev::ParenComponent;
                    } else if attached {
                        // The parameter list (when still looking for the identity).
                        if !s.frozen {
                            s.finish();
                            s.frozen = true;
                        }
                        s.prev = Prev::Break;
                    } else {
                        s.finish();
                        s.offer_annotation(i, close);
                        s.prev = Prev::Break;
                    }
                }
                _ => {
                    s.finish();
                    s.offer_annotation(i, close);
                    s.prev = Prev::Break;
                }
            }
            i = close + 1;
            continue;
        }
        // Whitespace, a lone `:`, a stray closer or any other character.
        s.finish();
        s.prev = Prev::Break;
        i += 1;
    }
    s.finish();
    match s.candidate {
        Some(chain) => {
            let base = chain.ident.unwrap_or((0, 0));
            Parsed {
                base,
                qualification: chain.qual_end.map(|end| (chain.start, end)),
                template: chain.template,
                annotation: s.annotation,
            }
        }
        None => Parsed {
            base: (0, 0),
            qualification: None,
            template: TemplateSpan::None,
            annotation: s.annotation,
        },
    }
}
