//! Writing to stdout without panicking.
//!
//! `print!` panics when stdout is closed (`opguard ... | head -1`); every
//! command writes through [`Out`] instead, which turns a write failure into
//! a [`CliError`]. A closed pipe is reported as [`BROKEN_PIPE`], which the
//! command treats as a quiet stop.

use std::io::{BufWriter, StdoutLock, Write};

use serde::Serialize;

use crate::error::CliError;
use crate::style::Style;

/// The error code of a closed stdout; `main` stops quietly on it.
pub const BROKEN_PIPE: &str = "broken_pipe";

/// Buffered stdout.
pub struct Out {
    inner: BufWriter<StdoutLock<'static>>,
}

impl Out {
    /// Locks stdout.
    pub fn new() -> Self {
        // 64 KiB, a Linux pipe's capacity: a batch of answers (the
        // kernel-name `--stdin` stream writes ~23 MB) goes out in a few
        // hundred writes instead of thousands of 8 KiB ones.
        Out {
            inner: BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        }
    }

    /// Writes `text` as is.
    pub fn text(&mut self, text: &str) -> Result<(), CliError> {
        self.inner.write_all(text.as_bytes()).map_err(io_error)
    }

    /// Writes `value` as one line of compact JSON.
    pub fn json_line<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CliError> {
        let line = serde_json::to_string(value)
            .map_err(|e| CliError::new("internal", format!("cannot serialize output: {e}")))?;
        self.text(&line)?;
        self.text("\n")
    }

    /// Flushes what was written so far (after each input, so a reader on
    /// the other end of a pipe sees answers as they are made).
    pub fn flush(&mut self) -> Result<(), CliError> {
        self.inner.flush().map_err(io_error)
    }
}

/// A command's one answer: `value` as one JSON line under `--json`,
/// otherwise the text `human` draws in stdout's style; flushed.
pub fn print_answer<T: Serialize + ?Sized>(
    json: bool,
    value: &T,
    human: impl FnOnce(Style) -> String,
) -> Result<(), CliError> {
    let mut out = Out::new();
    if json {
        out.json_line(value)?;
    } else {
        out.text(&human(Style::for_stdout()))?;
    }
    out.flush()
}

fn io_error(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        CliError::new(BROKEN_PIPE, "stdout was closed")
    } else {
        CliError::stdout(e)
    }
}
