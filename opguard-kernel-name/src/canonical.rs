//! The canonical form of a kernel symbol.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::error::{Error, ErrorKind};
use crate::scan::{scan, ArgSplit, Group, TemplateSpan, OPERATOR_KEYWORD};
use crate::text::{
    collapse_ws, is_ident, is_ws, push_normalized, trim_ws, truncate_chars, Fragment,
};
use serde::ser::SerializeStruct;

/// Display names in profile tables are at most this many characters long.
pub const SHORT_NAME_LIMIT: usize = 60;

/// A base identifier shorter than this is degenerate and never certifies
/// anything (so is the bare keyword `operator`, whose operator was not seen).
pub const MIN_TOKEN_LEN: usize = 6;

/// Names the format of [`Canonical::identity`]; bump it when the format changes.
///
/// `v4`: every non-ASCII character is an identifier character, so
/// `kernél_abcdef` is its whole self (`v3` separated at `é` and gave
/// `l_abcdef`, which `kernèl_abcdef` shared); the display limit and the
/// minimum token length count characters, not bytes.
///
/// `v3`: a `_Z...` symbol whose template arguments no demangler reads (recent
/// Clang/hipcc mangling of C++20 non-type template parameters) keeps its
/// readable nested name (`act_and_mul_kernel<mangled:I14__hip_bfloat16...>`,
/// qualification `sgl_hip::activation`) instead of being opaque as a whole.
///
/// `v2`: `-`/`.` join identifier runs into one name token
/// (`aten::mul.out-dtype_Float` has base `mul.out-dtype_Float`, where `v1`
/// gave `dtype_Float`), and `operator` keeps its operator (`operator->`).
pub const IDENTITY_SCHEME: &str = "opguard.kernel-name.identity/v4";

/// Whether the kernel's own template arguments are absent, complete or elided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateKind {
    /// No `<...>` group directly after the base identifier.
    None,
    /// A closed `<...>` group with no elision: every argument is known.
    Complete,
    /// Some arguments are missing: an argument ending in `...`, or a `<` that never closes.
    Elided,
}

impl TemplateKind {
    /// The stable string used in JSON and in the fixture.
    pub fn as_str(self) -> &'static str {
        match self {
            TemplateKind::None => "none",
            TemplateKind::Complete => "complete",
            TemplateKind::Elided => "elided",
        }
    }
}

/// The kernel's own template arguments.
///
/// For [`TemplateKind::Elided`], [`Template::args`] are the arguments visible
/// before the elision and [`Template::partial`] is the visible start of the
/// argument that was cut (if any text of it survived).
///
/// The arguments are kept as the raw group text and split on demand, so a
/// canonical form never allocates for them.
#[derive(Clone, Debug)]
pub struct Template<'a> {
    kind: TemplateKind,
    content: Cow<'a, str>,
    visible: usize,
    partial: Option<Fragment<'a>>,
}

/// Iterator over a template's (visible) arguments; see [`Template::args`].
#[derive(Clone)]
pub struct Args<'t> {
    split: ArgSplit<'t>,
    remaining: usize,
}

impl<'t> Iterator for Args<'t> {
    type Item = Fragment<'t>;

    fn next(&mut self) -> Option<Fragment<'t>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        self.split
            .next()
            .map(|piece| Fragment::borrowed(trim_ws(piece)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Args<'_> {}

impl<'a> Template<'a> {
    const NONE: Template<'static> = Template {
        kind: TemplateKind::None,
        content: Cow::Borrowed(""),
        visible: 0,
        partial: None,
    };

    /// Absent, complete or elided.
    pub fn kind(&self) -> TemplateKind {
        self.kind
    }

    /// The complete arguments, or the visible prefix when elided, in order.
    pub fn args(&self) -> Args<'_> {
        Args {
            split: ArgSplit::new(&self.content),
            remaining: self.visible,
        }
    }

    /// The raw text inside the template group (after `<`, before `>` or the cut).
    pub fn raw(&self) -> &str {
        &self.content
    }

    /// How many arguments [`Template::args`] yields.
    pub fn len(&self) -> usize {
        self.visible
    }

    /// Whether [`Template::args`] yields nothing.
    pub fn is_empty(&self) -> bool {
        self.visible == 0
    }

    /// The arguments in normal form, collected.
    pub fn args_normalized(&self) -> Vec<String> {
        self.args().map(|a| a.normalized().into_owned()).collect()
    }

    /// The visible start of the cut argument (elided only).
    pub fn partial(&self) -> Option<&Fragment<'a>> {
        self.partial.as_ref()
    }

    fn into_owned(self) -> Template<'static> {
        Template {
            kind: self.kind,
            content: Cow::Owned(self.content.into_owned()),
            visible: self.visible,
            partial: self.partial.map(Fragment::into_owned),
        }
    }

    /// Uses what the group scan already counted when no argument can end in
    /// `...` (no `.` inside); otherwise splits the content.
    fn from_scan(content: &'a str, offset: usize, cut: bool, group: Group) -> Self {
        if group.dots {
            return Template::from_content(content, cut);
        }
        let blank = group.commas == 0 && trim_ws(content).is_empty();
        if !cut {
            return Template {
                kind: TemplateKind::Complete,
                content: Cow::Borrowed(content),
                visible: if blank { 0 } else { group.commas + 1 },
                partial: None,
            };
        }
        let last = match group.last_comma {
            Some(comma) => trim_ws(&content[comma + 1 - offset..]),
            None => trim_ws(content),
        };
        Template {
            kind: TemplateKind::Elided,
            content: Cow::Borrowed(content),
            visible: group.commas,
            partial: (!last.is_empty()).then(|| Fragment::borrowed(last)),
        }
    }

    fn from_content(content: &'a str, cut: bool) -> Self {
        let mut visible = 0;
        let mut kind = if cut {
            TemplateKind::Elided
        } else {
            TemplateKind::Complete
        };
        let mut partial = None;
        if !trim_ws(content).is_empty() {
            let mut pieces = ArgSplit::new(content).peekable();
            while let Some(piece) = pieces.next() {
                let piece = trim_ws(piece);
                if let Some(stem) = strip_ellipsis(piece) {
                    kind = TemplateKind::Elided;
                    partial = (!stem.is_empty()).then(|| Fragment::borrowed(stem));
                    break;
                }
                if cut && pieces.peek().is_none() {
                    partial = (!piece.is_empty()).then(|| Fragment::borrowed(piece));
                    break;
                }
                visible += 1;
            }
        }
        Template {
            kind,
            content: Cow::Borrowed(content),
            visible,
            partial,
        }
    }
}

/// When the normal form of `piece` ends with `...` (three dots, possibly
/// separated by whitespace), the text before them (trimmed).
fn strip_ellipsis(piece: &str) -> Option<&str> {
    let b = piece.as_bytes();
    let mut end = b.len();
    for _ in 0..3 {
        while end > 0 && is_ws(b[end - 1]) {
            end -= 1;
        }
        if end == 0 || b[end - 1] != b'.' {
            return None;
        }
        end -= 1;
    }
    Some(trim_ws(&piece[..end]))
}

impl serde::Serialize for Template<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct ArgList<'x, 'a>(&'x Template<'a>);
        impl serde::Serialize for ArgList<'_, '_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.0.args())
            }
        }
        let mut st = serializer.serialize_struct("Template", 3)?;
        st.serialize_field("kind", self.kind.as_str())?;
        st.serialize_field("args", &ArgList(self))?;
        st.serialize_field("partial", &self.partial)?;
        st.end()
    }
}

/// Which memory operation a `Memcpy ...` / `Memset ...` row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// `Memcpy <direction> (...)`.
    Memcpy,
    /// `Memset (...)`.
    Memset,
}

impl MemoryKind {
    /// The stable string used in JSON and in the fixture.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Memcpy => "memcpy",
            MemoryKind::Memset => "memset",
        }
    }

    fn word(self) -> &'static str {
        match self {
            MemoryKind::Memcpy => "Memcpy",
            MemoryKind::Memset => "Memset",
        }
    }
}

/// A memory-operation row: its kind and direction (`HtoD`, `DtoH`, `DtoD`, ...).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MemoryOp<'a> {
    /// Memcpy or Memset.
    pub kind: MemoryKind,
    /// The word after the kind (`HtoD`), if there is one; compared exactly.
    pub direction: Option<Cow<'a, str>>,
}

/// How an Itanium-mangled (`_Z...`) symbol was handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mangling {
    /// The symbol was not mangled.
    None,
    /// The symbol was demangled and the demangled text canonicalized.
    Demangled,
    /// Demangling failed, but the name before the template arguments was
    /// read (see [`canonicalize`]): base and qualification are the
    /// demangled name, the single template argument is the rest of the
    /// symbol, still mangled, so it is compared exactly.
    NameOnly,
    /// Demangling failed: the symbol is its own identity (exact equality only).
    Opaque,
}

impl Mangling {
    /// The stable string used in JSON and in the fixture.
    pub fn as_str(self) -> &'static str {
        match self {
            Mangling::None => "none",
            Mangling::Demangled => "demangled",
            Mangling::NameOnly => "name_only",
            Mangling::Opaque => "opaque",
        }
    }
}

/// The canonical identity of one kernel symbol; see [`canonicalize`].
///
/// Borrows from the symbol; only a demangled `_Z...` symbol owns its text.
#[derive(Clone, Debug)]
pub struct Canonical<'a> {
    symbol: Cow<'a, str>,
    base: Cow<'a, str>,
    qualification: Option<Fragment<'a>>,
    template: Template<'a>,
    annotation: Option<Cow<'a, str>>,
    memory_op: Option<MemoryOp<'a>>,
    mangling: Mangling,
    demangled: Option<String>,
    truncated: bool,
    degenerate: bool,
}

/// Canonicalizes a kernel symbol. Total: every string gets an answer.
///
/// See the crate documentation for the rules.
pub fn canonicalize(symbol: &str) -> Canonical<'_> {
    let text = trim_ws(symbol);
    if let Some(op) = memory_op(text) {
        return Canonical {
            symbol: Cow::Borrowed(symbol),
            base: Cow::Borrowed(op.0.kind.word()),
            qualification: None,
            template: Template::NONE,
            annotation: op.1,
            memory_op: Some(op.0),
            mangling: Mangling::None,
            demangled: None,
            truncated: false,
            degenerate: false,
        };
    }
    if text.starts_with("_Z") {
        return match demangle(text) {
            Some(demangled) => {
                let inner = canonicalize_name(&demangled).into_owned();
                Canonical {
                    symbol: Cow::Borrowed(symbol),
                    mangling: Mangling::Demangled,
                    demangled: Some(demangled),
                    ..inner
                }
            }
            None => match name_only(text) {
                Some(readable) => Canonical {
                    symbol: Cow::Borrowed(symbol),
                    mangling: Mangling::NameOnly,
                    ..canonicalize_name(&readable).into_owned()
                },
                None => opaque(symbol, text),
            },
        };
    }
    let mut canonical = canonicalize_name(text);
    canonical.symbol = Cow::Borrowed(symbol);
    canonical
}

/// An undemangleable symbol: its own identity, matched by equality only.
fn opaque<'a>(symbol: &'a str, text: &'a str) -> Canonical<'a> {
    Canonical {
        symbol: Cow::Borrowed(symbol),
        base: Cow::Borrowed(text),
        qualification: None,
        template: Template::NONE,
        annotation: None,
        memory_op: None,
        mangling: Mangling::Opaque,
        demangled: None,
        truncated: false,
        degenerate: false,
    }
}

/// The display name used in profile tables (at most [`SHORT_NAME_LIMIT`] characters).
///
/// The base identifier (qualification, template arguments, parameters and
/// annotations dropped), cut to the limit; a memory operation keeps its whole
/// row text (`Memcpy HtoD (Host -> Device)`) so its direction survives.
pub fn short_name(symbol: &str) -> Cow<'_, str> {
    canonicalize(symbol).short_name()
}

/// `Memcpy`/`Memset` rows: kind, optional direction word, the rest is the annotation.
fn memory_op(text: &str) -> Option<(MemoryOp<'_>, Option<Cow<'_, str>>)> {
    let kind = if text.starts_with("Memcpy") {
        MemoryKind::Memcpy
    } else if text.starts_with("Memset") {
        MemoryKind::Memset
    } else {
        return None;
    };
    let rest = &text[6..];
    match rest.as_bytes().first() {
        None => {}
        Some(&b) if is_ws(b) || b == b'(' || b == b'[' => {}
        Some(_) => return None,
    }
    let rest = trim_ws(rest);
    let word_len = rest.bytes().take_while(|&b| is_ident(b)).count();
    let direction = (word_len > 0).then(|| Cow::Borrowed(&rest[..word_len]));
    let rest = trim_ws(&rest[word_len..]);
    let annotation = if rest.is_empty() {
        None
    } else {
        let inner = match (rest.as_bytes()[0], rest.as_bytes()[rest.len() - 1]) {
            (b'(', b')') | (b'[', b']') if rest.len() >= 2 => trim_ws(&rest[1..rest.len() - 1]),
            _ => rest,
        };
        Some(Cow::Borrowed(inner))
    };
    Some((MemoryOp { kind, direction }, annotation))
}

/// Demangles an Itanium symbol with `cpp_demangle` (which also accepts the
/// NVCC-produced names that libstdc++ and binutils reject).
fn demangle(text: &str) -> Option<String> {
    let symbol = cpp_demangle::Symbol::new(text.as_bytes()).ok()?;
    let options = cpp_demangle::DemangleOptions::default();
    symbol.demangle(&options).ok()
}

/// Marks the template argument that is the still-mangled rest of a symbol.
const MANGLED_TAIL: &str = "mangled:";

/// Reads the name of an Itanium symbol whose template arguments could not be
/// demangled, as the text rule 3 reads: `_ZN7sgl_hip10activation18act_and_mul_kernelI...`
/// becomes `sgl_hip::activation::act_and_mul_kernel<mangled:I...>`.
///
/// Only the simple encodings are read — `_Z` or `_ZL`, then either one
/// source name or `N` (cv- and ref-qualifiers allowed) with `St` and source
/// names — and only when template arguments (`I`) follow directly; anything
/// else (substitutions, special names, local names, ABI tags) gives `None`
/// and the symbol stays opaque. The tail from `I` on is kept verbatim, so two
/// instantiations never share an identity and no demangled spelling with
/// template arguments matches it.
fn name_only(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut i = 2;
    if b.get(i) == Some(&b'L') {
        i += 1;
    }
    let nested = b.get(i) == Some(&b'N');
    if nested {
        i += 1;
        while matches!(b.get(i), Some(b'r' | b'V' | b'K' | b'R' | b'O')) {
            i += 1;
        }
    }
    let mut parts: Vec<&str> = Vec::new();
    loop {
        match b.get(i) {
            Some(b'S') if nested && parts.is_empty() && b.get(i + 1) == Some(&b't') => {
                parts.push("std");
                i += 2;
            }
            Some(d) if d.is_ascii_digit() => {
                let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                let len: usize = text[i..i + digits].parse().ok()?;
                let start = i + digits;
                let part = text.get(start..start.checked_add(len)?)?;
                if part.is_empty() || !part.bytes().all(is_ident) {
                    return None;
                }
                parts.push(if part.starts_with("_GLOBAL__N") {
                    "(anonymous namespace)"
                } else {
                    part
                });
                i = start + len;
                if !nested {
                    break;
                }
            }
            _ => break,
        }
    }
    let tail = &text[i..];
    let base = parts.last()?;
    if base.starts_with('(')
        || !tail.starts_with('I')
        || !tail.bytes().all(|c| is_ident(c) || c == b'.' || c == b'$')
        || tail.contains("..")
    {
        return None;
    }
    Some(format!("{}<{MANGLED_TAIL}{tail}>", parts.join("::")))
}

/// Canonicalizes a plain (not memory, not mangled) name.
fn canonicalize_name(text: &str) -> Canonical<'_> {
    let text = trim_ws(text);
    let parsed = scan(text);
    let base = &text[parsed.base.0..parsed.base.1];
    let template = match parsed.template {
        TemplateSpan::None => Template::NONE,
        TemplateSpan::Complete(start, end, group) => {
            Template::from_scan(&text[start..end], start, false, group)
        }
        TemplateSpan::Cut(start, group) => Template::from_scan(&text[start..], start, true, group),
    };
    Canonical {
        symbol: Cow::Borrowed(text),
        base: Cow::Borrowed(base),
        qualification: parsed
            .qualification
            .map(|(s, e)| Fragment::borrowed(trim_ws(&text[s..e]))),
        template,
        annotation: parsed
            .annotation
            .map(|(s, e)| Cow::Borrowed(trim_ws(&text[s..e]))),
        memory_op: None,
        mangling: Mangling::None,
        demangled: None,
        // Both limits count characters, as the display cut does.
        truncated: base.chars().count() == SHORT_NAME_LIMIT,
        degenerate: base.chars().count() < MIN_TOKEN_LEN || base.as_bytes() == OPERATOR_KEYWORD,
    }
}

impl<'a> Canonical<'a> {
    /// The symbol exactly as given.
    pub fn symbol(&self) -> &str {
        &self.symbol
    }

    /// The base identifier: the last name token of the identity's qualified
    /// name (`mul.out-dtype_Float` for `aten::mul.out-dtype_Float`,
    /// `operator->` for `Ptr::operator->()`).
    ///
    /// `Memcpy`/`Memset` for memory rows; the whole trimmed symbol when a
    /// `_Z...` symbol could not be demangled.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The qualification the base came from (`at::native::(anonymous namespace)`).
    pub fn qualification(&self) -> Option<&Fragment<'a>> {
        self.qualification.as_ref()
    }

    /// The kernel's own template arguments.
    pub fn template(&self) -> &Template<'a> {
        &self.template
    }

    /// The pipeline annotation that was stripped (`prefill`, `Host -> Device`),
    /// if any: the group's inner text, whitespace runs collapsed to one space.
    pub fn annotation(&self) -> Option<Cow<'_, str>> {
        self.annotation.as_deref().map(collapse_ws)
    }

    /// Kind and direction when the row is a memory operation.
    pub fn memory_op(&self) -> Option<&MemoryOp<'a>> {
        self.memory_op.as_ref()
    }

    /// How a `_Z...` symbol was handled.
    pub fn mangling(&self) -> Mangling {
        self.mangling
    }

    /// The demangled text when the symbol was demangled.
    pub fn demangled(&self) -> Option<&str> {
        self.demangled.as_deref()
    }

    /// The base is exactly [`SHORT_NAME_LIMIT`] characters long, so it may be a
    /// display-truncated name: it matches any base that extends it.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// The base is shorter than [`MIN_TOKEN_LEN`], or is the bare keyword
    /// `operator`: it never certifies anything.
    pub fn is_degenerate(&self) -> bool {
        self.degenerate
    }

    /// The display name used in profile tables; see [`short_name`].
    pub fn short_name(&self) -> Cow<'a, str> {
        if self.memory_op.is_some() {
            return match &self.symbol {
                Cow::Borrowed(symbol) => match collapse_ws(symbol) {
                    Cow::Borrowed(s) => Cow::Borrowed(truncate_chars(s, SHORT_NAME_LIMIT)),
                    Cow::Owned(s) => Cow::Owned(truncate_chars(&s, SHORT_NAME_LIMIT).to_owned()),
                },
                Cow::Owned(symbol) => {
                    Cow::Owned(truncate_chars(&collapse_ws(symbol), SHORT_NAME_LIMIT).to_owned())
                }
            };
        }
        match &self.base {
            Cow::Borrowed(s) => Cow::Borrowed(truncate_chars(s, SHORT_NAME_LIMIT)),
            Cow::Owned(s) => Cow::Owned(truncate_chars(s, SHORT_NAME_LIMIT).to_owned()),
        }
    }

    /// A stable, deterministic semantic identity (format [`IDENTITY_SCHEME`]).
    ///
    /// * a name: the base, then its template arguments in normal form:
    ///   `base`, `base<a1, a2>`, or when elided `base<a1, ...>` /
    ///   `base<a1, partial...>`; the qualification is not part of it;
    /// * a memory row: `memory:memcpy:HtoD`, `memory:memset`;
    /// * an undemangleable `_Z...` symbol: `mangled:<trimmed symbol>`, or
    ///   when its name was read ([`Mangling::NameOnly`]) `base<mangled:<tail>>`.
    ///
    /// Different complete template arguments always give different
    /// identities (a normalized argument never contains `", "`, and a base
    /// never contains `:`, so the encoding is injective).
    pub fn identity(&self) -> String {
        if let Some(op) = &self.memory_op {
            let mut out = format!("memory:{}", op.kind.as_str());
            if let Some(direction) = &op.direction {
                out.push(':');
                out.push_str(direction);
            }
            return out;
        }
        if self.mangling == Mangling::Opaque {
            return format!("mangled:{}", self.base);
        }
        // Normal form never lengthens the text except for the `, ` between
        // arguments and the elision marker.
        let mut out = String::with_capacity(self.base.len() + self.template.content.len() * 2 + 8);
        out.push_str(&self.base);
        if self.template.kind == TemplateKind::None {
            return out;
        }
        out.push('<');
        for (i, arg) in self.template.args().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_normalized(&mut out, arg.raw());
        }
        if self.template.kind == TemplateKind::Elided {
            if !self.template.is_empty() {
                out.push_str(", ");
            }
            if let Some(partial) = &self.template.partial {
                let _ = write!(out, "{partial}");
            }
            out.push_str("...");
        }
        out.push('>');
        out
    }

    /// [`Canonical::identity`] prefixed with the normalized qualification and
    /// `::` when there is one (`cask_cudnn::computeOffsetsKernel<false, false>`).
    pub fn qualified_identity(&self) -> String {
        match &self.qualification {
            Some(q) => format!("{q}::{}", self.identity()),
            None => self.identity(),
        }
    }

    /// The identity, refused when it is degenerate or only partly known
    /// (elided template arguments, a possibly display-truncated base).
    ///
    /// Use it where a partial identity must be reported as unmatched rather
    /// than merged with others.
    pub fn strict_identity(&self) -> Result<String, Error> {
        let kind = if self.degenerate {
            Some(ErrorKind::Degenerate {
                base: self.base.to_string(),
            })
        } else if self.template.kind == TemplateKind::Elided {
            Some(ErrorKind::ElidedTemplate)
        } else if self.truncated {
            Some(ErrorKind::DisplayTruncated)
        } else {
            None
        };
        match kind {
            Some(kind) => Err(Error::new(kind, &self.symbol)),
            None => Ok(self.identity()),
        }
    }

    /// The bytes of text this canonical form holds besides its symbol (what
    /// it owns once detached with [`Canonical::into_owned`]); the memo's charge.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.base.len()
            + self.qualification.as_ref().map_or(0, |q| q.raw().len())
            + self.template.content.len()
            + self.template.partial.as_ref().map_or(0, |p| p.raw().len())
            + self.annotation.as_ref().map_or(0, |a| a.len())
            + self
                .memory_op
                .as_ref()
                .and_then(|op| op.direction.as_ref())
                .map_or(0, |d| d.len())
            + self.demangled.as_ref().map_or(0, String::len)
    }

    /// Detaches the canonical form from the symbol it borrows from.
    pub fn into_owned(self) -> Canonical<'static> {
        Canonical {
            symbol: Cow::Owned(self.symbol.into_owned()),
            base: Cow::Owned(self.base.into_owned()),
            qualification: self.qualification.map(Fragment::into_owned),
            template: self.template.into_owned(),
            annotation: self.annotation.map(|a| Cow::Owned(a.into_owned())),
            memory_op: self.memory_op.map(|op| MemoryOp {
                kind: op.kind,
                direction: op.direction.map(|d| Cow::Owned(d.into_owned())),
            }),
            mangling: self.mangling,
            demangled: self.demangled,
            truncated: self.truncated,
            degenerate: self.degenerate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{scan, TemplateSpan};
    use proptest::prelude::*;

    fn both_ways(text: &str) -> Option<(Template<'_>, Template<'_>)> {
        match scan(text).template {
            TemplateSpan::None => None,
            TemplateSpan::Complete(s, e, g) => Some((
                Template::from_scan(&text[s..e], s, false, g),
                Template::from_content(&text[s..e], false),
            )),
            TemplateSpan::Cut(s, g) => Some((
                Template::from_scan(&text[s..], s, true, g),
                Template::from_content(&text[s..], true),
            )),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// The counted fast path agrees with the full split.
        #[test]
        fn fast_path_agrees_with_split(body in "[a-c ,<>()\\[\\].]{0,24}") {
            let text = format!("void kern_x<{body}");
            if let Some((fast, slow)) = both_ways(&text) {
                prop_assert_eq!(fast.kind(), slow.kind());
                prop_assert_eq!(fast.args_normalized(), slow.args_normalized());
                prop_assert_eq!(fast.partial().map(|p| p.to_string()), slow.partial().map(|p| p.to_string()));
            }
        }
    }
}
