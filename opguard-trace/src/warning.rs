//! What a read accepted that a strict reader would not, reported beside the
//! events instead of being silently smoothed over.
//!
//! The reader's warnings ([`ReadWarning`], the model's type) and their
//! codes: the array form without its `]`, or (only with
//! [`ReaderOptions::salvage`](crate::ReaderOptions::salvage)) a file cut
//! short, trailing commas, a gzip stream cut short. Codes are stable:
//! `array_unterminated`, `truncated`, `trailing_comma`, `gzip_truncated`.
//! `offset` is the decoded byte the warning is about (for `truncated`, where
//! the input ends); `complete_events` counts the events read before it, every
//! one of them returned, nothing after it.

pub use opguard_model::ReadWarning;

pub(crate) fn array_unterminated(offset: u64, complete_events: u64) -> ReadWarning {
    ReadWarning::new(
        "array_unterminated",
        offset,
        complete_events,
        format!(
            "the events array ends without its closing ']' (the Trace Event Format allows \
             this); {complete_events} events read"
        ),
    )
}

pub(crate) fn truncated(offset: u64, partial_at: Option<u64>, complete_events: u64) -> ReadWarning {
    let dropped = match partial_at {
        Some(at) => format!("; the partial value from byte {at} was dropped"),
        None => String::new(),
    };
    ReadWarning::new(
        "truncated",
        offset,
        complete_events,
        format!(
            "the input ends at byte {offset} before the document is complete{dropped}; \
             the {complete_events} complete events before the cut were read (salvage)"
        ),
    )
}

pub(crate) fn trailing_comma(offset: u64, complete_events: u64) -> ReadWarning {
    ReadWarning::new(
        "trailing_comma",
        offset,
        complete_events,
        format!("a ',' before the closing bracket at byte {offset} was ignored (salvage)"),
    )
}

pub(crate) fn gzip_truncated(
    offset: u64,
    encoded_offset: u64,
    complete_events: u64,
) -> ReadWarning {
    ReadWarning::new(
        "gzip_truncated",
        offset,
        complete_events,
        format!(
            "the gzip stream is cut short at compressed byte {encoded_offset}; the {offset} \
             bytes that inflated were read (salvage)"
        ),
    )
    .at_encoded(encoded_offset)
}
