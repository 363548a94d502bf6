//! The command's one error type and how it is shown.
//!
//! Every failure the command reports carries a stable `code` (the library's
//! own code when a library refused the input), a message, and the position
//! in the input when there is one. Humans get
//! `error[<code>]: <message> (at byte N, traceEvents[i])`; with `--json` the
//! same facts are one line `{"error": {...}}`. Both go to stderr.

use std::borrow::Cow;
use std::io::Write;

use serde::Serialize;

use crate::exit;
use crate::style::Style;

/// A failure the command reports, with the exit status it maps to. Boxed
/// so `Result<_, CliError>` stays small.
#[derive(Debug, Clone)]
pub struct CliError {
    inner: Box<ErrorData>,
}

impl std::ops::Deref for CliError {
    type Target = ErrorData;
    fn deref(&self) -> &ErrorData {
        &self.inner
    }
}

impl std::ops::DerefMut for CliError {
    fn deref_mut(&mut self) -> &mut ErrorData {
        &mut self.inner
    }
}

/// The facts of a [`CliError`].
#[derive(Debug, Clone)]
pub struct ErrorData {
    /// Stable machine-readable code, e.g. `gzip_truncated`.
    pub code: Cow<'static, str>,
    /// What went wrong, without position.
    pub message: String,
    /// Byte offset into the decoded input.
    pub offset: Option<u64>,
    /// Byte offset into the encoded (compressed) input.
    pub encoded_offset: Option<u64>,
    /// Zero-based `traceEvents` index.
    pub event_index: Option<u64>,
    /// JSON path of the offending value, e.g. `traceEvents[12].ts` (in an
    /// XSpace, the message being read, e.g. `planes[2].lines[0].events[7]`).
    pub json_path: Option<String>,
    /// The input the error is about (a file, `-` for stdin, or a line).
    pub input: Option<String>,
    /// 1-based line of a line-oriented input (`--stdin`) or of a JSON
    /// document.
    pub line: Option<u64>,
    /// 1-based column in that line of a JSON document.
    pub column: Option<u64>,
    /// The exit status: [`exit::ERROR`] or [`exit::USAGE`].
    pub status: u8,
}

impl CliError {
    /// An error (exit status 2) with a code and a message.
    pub fn new(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        CliError {
            inner: Box::new(ErrorData {
                code: code.into(),
                message: message.into(),
                offset: None,
                encoded_offset: None,
                event_index: None,
                json_path: None,
                input: None,
                line: None,
                column: None,
                status: exit::ERROR,
            }),
        }
    }

    /// A usage error (exit status 64).
    pub fn usage(message: impl Into<String>) -> Self {
        let mut e = CliError::new("usage", message);
        e.status = exit::USAGE;
        e
    }

    /// Names the input the error is about.
    pub fn in_input(mut self, input: impl Into<String>) -> Self {
        self.input = Some(input.into());
        self
    }

    /// Places the error where a JSON document reader put it: the JSON path,
    /// line and column (a file that cannot be read, or is over its limit,
    /// has no place inside it).
    pub fn at_document(mut self, e: &opguard_document::Error) -> Self {
        use opguard_document::ErrorKind;
        if matches!(e.kind(), ErrorKind::Io(_) | ErrorKind::LimitExceeded { .. }) {
            return self;
        }
        self.json_path = Some(e.path());
        self.line = e.line().map(|l| l as u64);
        self.column = e.column().map(|c| c as u64);
        self
    }

    /// Writing to stdout failed.
    pub fn stdout(e: std::io::Error) -> Self {
        CliError::new("io", format!("cannot write to stdout: {e}"))
    }

    /// The human form: `error[<code>]: <message> (at byte N, traceEvents[i])`,
    /// then `  --> <input>` when the error names an input.
    pub fn human(&self, style: Style) -> String {
        let mut out = format!(
            "{}: {}",
            style.error(&format!("error[{}]", self.code)),
            self.message
        );
        let mut place = Vec::new();
        if let Some(o) = self.offset {
            place.push(format!("at byte {o}"));
        }
        if let Some(o) = self.encoded_offset {
            place.push(format!("at compressed byte {o}"));
        }
        match (&self.json_path, self.event_index) {
            (Some(p), _) => place.push(p.clone()),
            (None, Some(i)) => place.push(format!("traceEvents[{i}]")),
            (None, None) => {}
        }
        match (self.line, self.column) {
            (Some(l), Some(c)) => place.push(format!("line {l}, column {c}")),
            (Some(l), None) => place.push(format!("line {l}")),
            _ => {}
        }
        if !place.is_empty() {
            out.push_str(&format!(" ({})", place.join(", ")));
        }
        if let Some(input) = &self.input {
            out.push_str(&format!("\n  --> {input}"));
        }
        out
    }

    /// The `--json` form: one line, no trailing newline.
    pub fn json(&self) -> String {
        #[derive(Serialize)]
        struct Body<'a> {
            code: &'a str,
            message: &'a str,
            offset: Option<u64>,
            event_index: Option<u64>,
            encoded_offset: Option<u64>,
            json_path: Option<&'a str>,
            input: Option<&'a str>,
            line: Option<u64>,
            column: Option<u64>,
        }
        #[derive(Serialize)]
        struct Wrapper<'a> {
            error: Body<'a>,
        }
        let w = Wrapper {
            error: Body {
                code: &self.code,
                message: &self.message,
                offset: self.offset,
                event_index: self.event_index,
                encoded_offset: self.encoded_offset,
                json_path: self.json_path.as_deref(),
                input: self.input.as_deref(),
                line: self.line,
                column: self.column,
            },
        };
        // Serializing plain strings and integers cannot fail; fall back to a
        // fixed line rather than panic if it ever did.
        serde_json::to_string(&w).unwrap_or_else(|_| {
            r#"{"error":{"code":"internal","message":"cannot serialize error","offset":null,"event_index":null}}"#
                .to_owned()
        })
    }

    /// Writes the error to stderr in the chosen form. A failure to write to
    /// stderr is ignored: there is nowhere left to report it.
    pub fn report(&self, json: bool) {
        let text = if json {
            self.json()
        } else {
            self.human(Style::for_stderr())
        };
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }
}

/// What a limit's error adds: the flag that raises it.
fn raise_with(flag: &str) -> String {
    format!("; raise it with {flag} (e.g. {flag} 1GiB)")
}

impl From<&opguard_trace::Error> for CliError {
    fn from(e: &opguard_trace::Error) -> Self {
        let mut message = e.message();
        // A limit is a flag away: say which.
        if let opguard_trace::ErrorKind::LimitExceeded { which, .. } = e.kind() {
            let flag = match which {
                opguard_trace::Limit::DecodedBytes => Some("--max-decoded-bytes"),
                opguard_trace::Limit::EncodedBytes => Some("--max-encoded-bytes"),
                _ => None,
            };
            if let Some(flag) = flag {
                message.push_str(&raise_with(flag));
            }
        }
        let mut out = CliError::new(e.code(), message);
        out.offset = e.offset();
        out.encoded_offset = e.encoded_offset();
        out.event_index = e.event_index();
        out.json_path = e.path().map(str::to_owned);
        out
    }
}

impl From<opguard_trace::Error> for CliError {
    fn from(e: opguard_trace::Error) -> Self {
        CliError::from(&e)
    }
}

/// A capture of any format: a reader's error keeps its code and position;
/// the file is named once, by the command ([`CliError::in_input`]).
impl From<&opguard_formats::Error> for CliError {
    fn from(e: &opguard_formats::Error) -> Self {
        match e.kind() {
            opguard_formats::ErrorKind::Json(json) => CliError::from(json),
            opguard_formats::ErrorKind::Nsys(nsys) => CliError::from(nsys),
            opguard_formats::ErrorKind::Xplane(x) => {
                let mut message = x.message();
                if let opguard_xplane::ErrorKind::LimitExceeded { which, .. } = x.kind() {
                    let flag = match which {
                        opguard_xplane::Limit::EncodedBytes => "--max-encoded-bytes",
                        _ => "--max-decoded-bytes",
                    };
                    message.push_str(&format!("; raise it with {flag} (e.g. {flag} 1GiB)"));
                }
                let mut out = CliError::new(x.code(), message);
                out.offset = x.offset();
                out.json_path = x.message_path().map(str::to_owned);
                out
            }
            _ => CliError::new(e.code(), e.message()),
        }
    }
}

/// An Nsight Systems export's error: its code and message with the table,
/// row and column; a limit says which flag raises it.
impl From<&opguard_nsys::Error> for CliError {
    fn from(e: &opguard_nsys::Error) -> Self {
        let mut message = e.to_string();
        if let opguard_nsys::ErrorKind::LimitExceeded { which, .. } = e.kind() {
            let flag = match which {
                opguard_nsys::Limit::DecodedBytes => Some("--max-decoded-bytes"),
                opguard_nsys::Limit::EncodedBytes => Some("--max-encoded-bytes"),
                _ => None,
            };
            if let Some(flag) = flag {
                message.push_str(&raise_with(flag));
                message.push_str(
                    "; an export is not compressed, so both --max-encoded-bytes and \
                     --max-decoded-bytes apply to its size",
                );
            }
        }
        CliError::new(e.code(), message)
    }
}

impl From<opguard_formats::Error> for CliError {
    fn from(e: opguard_formats::Error) -> Self {
        CliError::from(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_form_names_code_message_and_position() {
        let mut e = CliError::new("gzip_truncated", "gzip stream is truncated");
        e.offset = Some(12);
        e.event_index = Some(3);
        assert_eq!(
            e.human(Style::plain()),
            "error[gzip_truncated]: gzip stream is truncated (at byte 12, traceEvents[3])"
        );
        let e = e.in_input("a.json.gz");
        assert!(e.human(Style::plain()).ends_with("\n  --> a.json.gz"));
    }

    #[test]
    fn json_form_has_the_four_stable_keys() {
        let e = CliError::new("json_truncated", "unexpected end");
        let v: serde_json::Value = serde_json::from_str(&e.json()).unwrap();
        let body = &v["error"];
        assert_eq!(body["code"], "json_truncated");
        assert_eq!(body["message"], "unexpected end");
        assert!(body["offset"].is_null());
        assert!(body["event_index"].is_null());
        assert!(!e.json().contains('\n'));
    }
}
