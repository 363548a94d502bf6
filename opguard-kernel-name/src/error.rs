//! The crate's one error type: an identity that is not fully known.

use std::fmt;

/// What made [`crate::Canonical::strict_identity`] refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The base identifier is shorter than [`crate::MIN_TOKEN_LEN`].
    Degenerate {
        /// The degenerate base (possibly empty).
        base: String,
    },
    /// The kernel's template arguments are elided (`...` or a `<` that never closes).
    ElidedTemplate,
    /// The base is exactly [`crate::SHORT_NAME_LIMIT`] characters: it may be cut.
    DisplayTruncated,
}

opguard_document::error_codes! {
    /// Every code [`Error::code`] returns, with its one-line meaning; unprefixed
    /// like every opguard crate's (a caller that mixes crates adds
    /// `kernel_name.`).
    pub const ERROR_CODES;
    impl ErrorKind {
        /// The stable code of this kind of error (see [`ERROR_CODES`]).
        pub fn code;
    }
    codes {
        ErrorKind::Degenerate { .. } => "degenerate": "the base identifier is shorter than the minimum token length",
        ErrorKind::ElidedTemplate => "elided_template": "the template arguments are elided, so the identity is partial",
        ErrorKind::DisplayTruncated => "display_truncated": "the base is exactly the display limit long and may have been cut",
    }
}

/// An identity that cannot be used as a complete semantic key.
///
/// Boxed like every opguard error, so a successful result carries one
/// pointer, not the symbol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    inner: Box<ErrorImpl>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ErrorImpl {
    kind: ErrorKind,
    symbol: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, symbol: &str) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                kind,
                symbol: symbol.to_owned(),
            }),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The symbol whose identity was refused.
    pub fn symbol(&self) -> &str {
        &self.inner.symbol
    }

    /// A stable machine-readable code (see [`ERROR_CODES`]).
    pub fn code(&self) -> &'static str {
        self.inner.kind.code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.inner.symbol.chars().take(120).collect();
        match &self.inner.kind {
            ErrorKind::Degenerate { base } => write!(
                f,
                "kernel symbol {shown:?}: base identifier {base:?} has {} characters, expected at least {}",
                base.len(),
                crate::MIN_TOKEN_LEN
            ),
            ErrorKind::ElidedTemplate => write!(
                f,
                "kernel symbol {shown:?}: template arguments are elided, expected a complete argument list"
            ),
            ErrorKind::DisplayTruncated => write!(
                f,
                "kernel symbol {shown:?}: base identifier is exactly {} characters and may be cut at the display limit, expected a full name",
                crate::SHORT_NAME_LIMIT
            ),
        }
    }
}
