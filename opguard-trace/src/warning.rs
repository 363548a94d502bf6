//! What a read accepted that a strict reader would not, reported beside the
//! events instead of being silently smoothed over.

use std::fmt;

/// Something the reader accepted and the caller should know about: the
/// array form without its `]`, or (only with [`ReaderOptions::salvage`]) a
/// file cut short, trailing commas, a gzip stream cut short.
///
/// Codes are stable: `array_unterminated`, `truncated`, `trailing_comma`,
/// `gzip_truncated`.
///
/// [`ReaderOptions::salvage`]: crate::ReaderOptions::salvage
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ReadWarning {
    /// Stable machine-readable code.
    pub code: &'static str,
    /// Decoded byte offset the warning is about (for `truncated`, where the
    /// input ends).
    pub offset: u64,
    /// Compressed byte offset, for `gzip_truncated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoded_offset: Option<u64>,
    /// Complete events read before the place the warning is about; every
    /// one of them was returned, nothing after it.
    pub complete_events: u64,
    /// What happened and what was kept.
    pub message: String,
}

impl ReadWarning {
    pub(crate) fn array_unterminated(offset: u64, complete_events: u64) -> Self {
        ReadWarning {
            code: "array_unterminated",
            offset,
            encoded_offset: None,
            complete_events,
            message: format!(
                "the events array ends without its closing ']' (the Trace Event Format allows \
                 this); {complete_events} events read"
            ),
        }
    }

    pub(crate) fn truncated(offset: u64, partial_at: Option<u64>, complete_events: u64) -> Self {
        let dropped = match partial_at {
            Some(at) => format!("; the partial value from byte {at} was dropped"),
            None => String::new(),
        };
        ReadWarning {
            code: "truncated",
            offset,
            encoded_offset: None,
            complete_events,
            message: format!(
                "the input ends at byte {offset} before the document is complete{dropped}; \
                 the {complete_events} complete events before the cut were read (salvage)"
            ),
        }
    }

    pub(crate) fn trailing_comma(offset: u64, complete_events: u64) -> Self {
        ReadWarning {
            code: "trailing_comma",
            offset,
            encoded_offset: None,
            complete_events,
            message: format!(
                "a ',' before the closing bracket at byte {offset} was ignored (salvage)"
            ),
        }
    }

    pub(crate) fn gzip_truncated(offset: u64, encoded_offset: u64, complete_events: u64) -> Self {
        ReadWarning {
            code: "gzip_truncated",
            offset,
            encoded_offset: Some(encoded_offset),
            complete_events,
            message: format!(
                "the gzip stream is cut short at compressed byte {encoded_offset}; the {offset} \
                 bytes that inflated were read (salvage)"
            ),
        }
    }
}

impl fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}
