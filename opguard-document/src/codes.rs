//! The one error-code convention: every crate publishes its codes, each with
//! a one-line meaning, from the same list its `code()` method is built from.

/// Defines a crate's error-code list and the `code()` method that returns
/// them, from one table, so no variant can lack a listed code and no listed
/// code can lack a variant (the `match` has no wildcard: a new variant
/// without a row does not compile). A `passthrough` arm may carry
/// attributes (`#[cfg(feature = "...")]` for a variant behind a feature).
///
/// Codes are unprefixed `snake_case` (`limit_exceeded`); the C ABI adds the
/// crate's prefix (`census.limit_exceeded`). One meaning has one code across
/// crates: a size limit is `limit_exceeded`, an unreadable file `io`, a key
/// given twice `duplicate_key`. Arms under `passthrough` return another
/// error's code (an inner reader's) and are not listed; one may carry
/// attributes, e.g. `#[cfg(feature = "nsys")]` for a reader behind a
/// feature.
///
/// ```
/// #[derive(Debug)]
/// pub enum ErrorKind {
///     Io(std::io::Error),
///     TooLarge { limit: u64 },
///     Inner(opguard_document::Error),
/// }
///
/// opguard_document::error_codes! {
///     /// This crate's error codes and what each means.
///     pub const ERROR_CODES;
///     impl ErrorKind {
///         /// The stable code of this error.
///         pub fn code;
///     }
///     passthrough {
///         ErrorKind::Inner(e) => e.code(),
///     }
///     codes {
///         ErrorKind::Io(_) => "io": "a file cannot be read",
///         ErrorKind::TooLarge { .. } => "limit_exceeded": "the input is larger than its limit",
///     }
/// }
///
/// assert_eq!(ErrorKind::TooLarge { limit: 1 }.code(), "limit_exceeded");
/// assert_eq!(ERROR_CODES.len(), 2);
/// opguard_document::check_error_codes(ERROR_CODES)?;
/// # Ok::<(), String>(())
/// ```
#[macro_export]
macro_rules! error_codes {
    (
        $(#[$list_attr:meta])*
        $list_vis:vis const $list:ident;
        impl $ty:ty {
            $(#[$fn_attr:meta])*
            $fn_vis:vis fn $fn:ident;
        }
        $(passthrough { $($(#[$pattr:meta])* $ppat:pat => $pexpr:expr),* $(,)? })?
        codes { $($pat:pat => $code:literal : $meaning:literal),* $(,)? }
    ) => {
        $(#[$list_attr])*
        $list_vis const $list: &[(&str, &str)] = &[$(($code, $meaning)),*];

        impl $ty {
            $(#[$fn_attr])*
            $fn_vis fn $fn(&self) -> &'static str {
                match self {
                    $($($(#[$pattr])* $ppat => $pexpr,)*)?
                    $($pat => $code,)*
                }
            }
        }
    };
}

/// Checks a code list against the convention: every code unprefixed
/// `snake_case` and listed once, every meaning one non-empty line.
pub fn check_error_codes(codes: &[(&str, &str)]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for (code, meaning) in codes {
        let snake = !code.is_empty()
            && code
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !snake {
            return Err(format!("{code:?} is not an unprefixed snake_case code"));
        }
        if !seen.insert(*code) {
            return Err(format!("{code:?} is listed twice"));
        }
        if meaning.trim().is_empty() || meaning.contains('\n') {
            return Err(format!("{code:?} needs a one-line meaning"));
        }
    }
    Ok(())
}
