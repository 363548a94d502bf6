//! The sympy-printed expressions torch writes for sizes, guards and replacements:
//! tokens, which identifiers are symbols, linear forms, relations, and canonical
//! rendering with symbols renamed.
//!
//! What counts as a symbol: an identifier that is not followed by `(` (that is a
//! function, such as `Eq`, `Max`, `FloorDiv`) and is not one of sympy's constants
//! (`True`, `False`, `oo`, `zoo`, `nan`, `int_oo`). Nothing here depends on what a
//! symbol is called: names are only ever compared for identity inside one capture.

use std::fmt::Write as _;

/// One token of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    Ident(&'a str),
    Int(&'a str),
    Punct(&'a str),
}

const CONSTANTS: &[&str] = &["True", "False", "oo", "zoo", "nan", "int_oo"];

const TWO_CHAR: &[&str] = &["**", "//", "<=", ">=", "==", "!="];
const ONE_CHAR: &[u8] = b"()[]{},.:;+-*/%<>=!&|~^@?";

/// Split `text` into tokens (reusing `out`). Refuses characters that never occur in
/// sympy's printing (quotes, backslashes, `#`, `$`, non-ASCII, control characters),
/// which also keeps the canonical names this crate uses (`#0`, `$STEP`) unambiguous.
pub(crate) fn tokenize<'a>(text: &'a str, out: &mut Vec<Tok<'a>>) -> Result<(), String> {
    out.clear();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b' ' || c == b'\t' {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(&text[s..i]));
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Int(&text[s..i]));
        } else if let Some(p) = TWO_CHAR
            .iter()
            .find(|p| b.get(i..i + 2) == Some(p.as_bytes()))
        {
            // Compared as bytes: slicing the text at i + 2 could cut a
            // multi-byte character (a panic on input, fuzz finding 6).
            out.push(Tok::Punct(p));
            i += 2;
        } else if ONE_CHAR.contains(&c) {
            out.push(Tok::Punct(&text[i..i + 1]));
            i += 1;
        } else {
            let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
            return Err(format!(
                "character {ch:?} at byte {i} does not occur in a sympy expression"
            ));
        }
    }
    if out.is_empty() {
        return Err("the expression is empty".into());
    }
    Ok(())
}

/// Whether token `i` of `toks` is a symbol.
pub(crate) fn is_symbol(toks: &[Tok], i: usize) -> bool {
    match toks[i] {
        Tok::Ident(name) => {
            !CONSTANTS.contains(&name) && !matches!(toks.get(i + 1), Some(Tok::Punct("(")))
        }
        _ => false,
    }
}

/// If `text` is one bare symbol (`s0`), return it.
pub(crate) fn bare_symbol(text: &str) -> Option<&str> {
    let t = text.trim();
    let mut chars = t.bytes();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    if !chars.all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    if CONSTANTS.contains(&t) {
        return None;
    }
    Some(t)
}

/// If `text` is an integer literal (optionally signed, `+5` included), return
/// it.
pub(crate) fn integer_literal(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = match t.strip_prefix('-') {
        Some(rest) => rest,
        None => t.strip_prefix('+').unwrap_or(t),
    }
    .trim_start();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i64 = digits.parse().ok()?;
    if t.starts_with('-') {
        v.checked_neg()
    } else {
        Some(v)
    }
}

/// `sum(coefficient * symbol) + constant`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Linear<K> {
    pub(crate) terms: Vec<(K, i64)>,
    pub(crate) constant: i64,
}

impl<K: Ord + Clone> Linear<K> {
    /// Sort terms by key, merge equal keys, drop zero coefficients.
    pub(crate) fn normalise(mut self) -> Option<Self> {
        self.terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(K, i64)> = Vec::with_capacity(self.terms.len());
        for (k, c) in self.terms {
            match out.last_mut() {
                Some((lk, lc)) if *lk == k => *lc = lc.checked_add(c)?,
                _ => out.push((k, c)),
            }
        }
        out.retain(|(_, c)| *c != 0);
        Some(Linear {
            terms: out,
            constant: self.constant,
        })
    }

    /// Render sympy-style: `28*#0 + 1`, `-#0 + 5`, `0`.
    pub(crate) fn render(
        &self,
        out: &mut String,
        name: impl Fn(&K, &mut String),
        num: impl Fn(i64, &mut String),
    ) {
        for (i, (k, c)) in self.terms.iter().enumerate() {
            let mag = c.unsigned_abs();
            if i == 0 {
                if *c < 0 {
                    out.push('-');
                }
            } else {
                out.push_str(if *c < 0 { " - " } else { " + " });
            }
            if mag != 1 {
                num(mag as i64, out);
                out.push('*');
            }
            name(k, out);
        }
        if self.terms.is_empty() {
            num(self.constant, out);
        } else if self.constant != 0 {
            out.push_str(if self.constant < 0 { " - " } else { " + " });
            num(self.constant.unsigned_abs() as i64, out);
        }
    }
}

fn int_value(t: &str) -> Option<i64> {
    t.parse().ok()
}

/// Read `toks` as a linear form over its symbols: terms `c`, `x`, `c*x`, `x*c`
/// joined by `+`/`-`, with an optional leading sign. Anything else is `None`.
pub(crate) fn parse_linear<'a>(toks: &[Tok<'a>]) -> Option<Linear<&'a str>> {
    let mut terms = Vec::new();
    let mut constant: i64 = 0;
    let mut i = 0;
    let mut sign: i64 = 1;
    if let Some(Tok::Punct(p @ ("+" | "-"))) = toks.first() {
        sign = if *p == "-" { -1 } else { 1 };
        i = 1;
    }
    loop {
        // one term
        let (sym, coef, next) = match (toks.get(i), toks.get(i + 1), toks.get(i + 2)) {
            (Some(Tok::Int(a)), Some(Tok::Punct("*")), Some(Tok::Ident(x))) => {
                (Some(*x), int_value(a)?, i + 3)
            }
            (Some(Tok::Ident(x)), Some(Tok::Punct("*")), Some(Tok::Int(a))) => {
                (Some(*x), int_value(a)?, i + 3)
            }
            (Some(Tok::Int(a)), _, _) => (None, int_value(a)?, i + 1),
            (Some(Tok::Ident(x)), _, _) => (Some(*x), 1, i + 1),
            _ => return None,
        };
        let value = coef.checked_mul(sign)?;
        match sym {
            Some(x) => {
                if CONSTANTS.contains(&x) {
                    return None;
                }
                terms.push((x, value));
            }
            None => constant = constant.checked_add(value)?,
        }
        i = next;
        match toks.get(i) {
            None => break,
            Some(Tok::Punct("+")) => sign = 1,
            Some(Tok::Punct("-")) => sign = -1,
            Some(_) => return None,
        }
        i += 1;
    }
    Some(Linear { terms, constant })
}

/// A comparison operator of a guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RelOp {
    Lt,
    Le,
    Eq,
    Ne,
}

impl RelOp {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RelOp::Lt => "<",
            RelOp::Le => "<=",
            RelOp::Eq => "==",
            RelOp::Ne => "!=",
        }
    }
}

/// Split a guard into `lhs op rhs`, with `>`/`>=` turned round into `<`/`<=` and
/// `Eq(a, b)`/`Ne(a, b)` read as `a == b`/`a != b`.
pub(crate) fn split_relation<'t, 'a>(
    toks: &'t [Tok<'a>],
) -> Option<(&'t [Tok<'a>], RelOp, &'t [Tok<'a>])> {
    // Eq(a, b) / Ne(a, b), the whole guard.
    if let (Some(Tok::Ident(f @ ("Eq" | "Ne"))), Some(Tok::Punct("("))) =
        (toks.first(), toks.get(1))
    {
        if toks.last() != Some(&Tok::Punct(")")) {
            return None;
        }
        let inner = &toks[2..toks.len() - 1];
        let mut depth = 0i32;
        let mut comma = None;
        for (i, t) in inner.iter().enumerate() {
            match t {
                Tok::Punct("(" | "[") => depth += 1,
                Tok::Punct(")" | "]") => {
                    depth -= 1;
                    if depth < 0 {
                        return None;
                    }
                }
                Tok::Punct(",") if depth == 0 => {
                    if comma.is_some() {
                        return None;
                    }
                    comma = Some(i);
                }
                _ => {}
            }
        }
        let c = comma?;
        let op = if *f == "Eq" { RelOp::Eq } else { RelOp::Ne };
        return Some((&inner[..c], op, &inner[c + 1..]));
    }
    let mut depth = 0i32;
    let mut found = None;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct("(" | "[") => depth += 1,
            Tok::Punct(")" | "]") => depth -= 1,
            Tok::Punct(p @ ("<" | "<=" | ">" | ">=" | "==" | "!=")) if depth == 0 => {
                if found.is_some() {
                    return None;
                }
                found = Some((i, *p));
            }
            _ => {}
        }
    }
    let (i, p) = found?;
    let (l, r) = (&toks[..i], &toks[i + 1..]);
    if l.is_empty() || r.is_empty() {
        return None;
    }
    Some(match p {
        "<" => (l, RelOp::Lt, r),
        "<=" => (l, RelOp::Le, r),
        ">" => (r, RelOp::Lt, l),
        ">=" => (r, RelOp::Le, l),
        "==" => (l, RelOp::Eq, r),
        _ => (l, RelOp::Ne, r),
    })
}

/// Render tokens with one spacing convention, each symbol written by `sym`
/// and each integer by `num`.
pub(crate) fn render_tokens(
    toks: &[Tok],
    out: &mut String,
    mut sym: impl FnMut(&str, &mut String),
    num: impl Fn(&str, &mut String),
) {
    let mut prev: Option<Tok> = None;
    let mut after_unary = false;
    for (i, t) in toks.iter().enumerate() {
        let space = match (prev, t) {
            (None, _) => false,
            (Some(Tok::Punct("(" | "[")), _) => false,
            (_, Tok::Punct(")" | "]" | ",")) => false,
            (Some(Tok::Ident(_)), Tok::Punct("(")) => false,
            _ => !after_unary,
        };
        if space {
            out.push(' ');
        }
        let unary = matches!(t, Tok::Punct("+" | "-" | "~"))
            && matches!(
                prev,
                None | Some(Tok::Punct(
                    "(" | "["
                        | ","
                        | "+"
                        | "-"
                        | "*"
                        | "/"
                        | "//"
                        | "%"
                        | "**"
                        | "<"
                        | "<="
                        | ">"
                        | ">="
                        | "=="
                        | "!="
                        | "&"
                        | "|"
                ))
            );
        match t {
            Tok::Ident(name) if is_symbol(toks, i) => sym(name, out),
            Tok::Ident(name) => out.push_str(name),
            Tok::Int(v) => num(v, out),
            Tok::Punct(p) => out.push_str(p),
        }
        after_unary = unary;
        prev = Some(*t);
    }
}

/// Write a decimal integer.
pub(crate) fn push_int(out: &mut String, v: i64) {
    let _ = write!(out, "{v}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        let mut v = Vec::new();
        tokenize(s, &mut v).unwrap();
        v
    }

    #[test]
    fn linear_forms_read_sympy_printing() {
        let l = parse_linear(&toks("28*s0")).unwrap();
        assert_eq!(l.terms, vec![("s0", 28)]);
        let l = parse_linear(&toks("-s0 + 5")).unwrap();
        assert_eq!((l.terms, l.constant), (vec![("s0", -1)], 5));
        let l = parse_linear(&toks("s1 + 2*s0 - 3")).unwrap();
        assert_eq!((l.terms, l.constant), (vec![("s1", 1), ("s0", 2)], -3));
        assert!(parse_linear(&toks("s0*s1")).is_none());
        assert!(parse_linear(&toks("Max(1, s0)")).is_none());
        assert!(parse_linear(&toks("(s0 + 1)//2")).is_none());
    }

    #[test]
    fn relations_turn_greater_round() {
        let t = toks("s0 + 1 > 8");
        let (l, op, r) = split_relation(&t).unwrap();
        assert_eq!(op, RelOp::Lt);
        assert_eq!(l, &[Tok::Int("8")]);
        assert_eq!(r.len(), 3);
        let t = toks("Eq(s52, s0)");
        let (l, op, r) = split_relation(&t).unwrap();
        assert_eq!(
            (l, op, r),
            (&[Tok::Ident("s52")][..], RelOp::Eq, &[Tok::Ident("s0")][..])
        );
        assert!(split_relation(&toks("Eq(Mod(s0, 2), 0)")).is_some());
        assert!(split_relation(&toks("Mod(s0, 2)")).is_none());
    }

    #[test]
    fn refuses_what_sympy_never_prints() {
        let mut v = Vec::new();
        assert!(tokenize("s0 # 1", &mut v).is_err());
        assert!(tokenize("\"s0\"", &mut v).is_err());
        assert!(tokenize("  ", &mut v).is_err());
        assert!(tokenize("sé", &mut v).is_err());
    }

    #[test]
    fn symbols_are_identifiers_not_called() {
        let t = toks("Max(1, s0) + oo");
        let syms: Vec<_> = (0..t.len()).filter(|&i| is_symbol(&t, i)).collect();
        assert_eq!(syms, vec![4]);
        assert_eq!(bare_symbol(" s52 "), Some("s52"));
        assert_eq!(bare_symbol("1"), None);
        assert_eq!(bare_symbol("s0 + 1"), None);
        assert_eq!(integer_literal("-3"), Some(-3));
        assert_eq!(integer_literal("+3"), Some(3));
        assert_eq!(integer_literal("s0"), None);
    }
}
