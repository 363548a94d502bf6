//! Terminal styling: color only for a terminal, never with `NO_COLOR`.
//!
//! Color is decided per stream. It is on when the stream is a terminal, or
//! when `CLICOLOR_FORCE` is set to something other than `0`; it is always
//! off when `NO_COLOR` is set to a non-empty value (<https://no-color.org>)
//! or `TERM=dumb`.

use std::io::IsTerminal;

/// Whether to emit ANSI styling on one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    color: bool,
}

impl Style {
    /// No styling.
    #[cfg(test)]
    pub fn plain() -> Self {
        Style { color: false }
    }

    /// The style for stdout.
    pub fn for_stdout() -> Self {
        Style {
            color: color_wanted(std::io::stdout().is_terminal()),
        }
    }

    /// The style for stderr.
    pub fn for_stderr() -> Self {
        Style {
            color: color_wanted(std::io::stderr().is_terminal()),
        }
    }

    /// `text` in bold red (error labels).
    pub fn error(self, text: &str) -> String {
        self.paint("\x1b[1;31m", text)
    }

    /// `text` in bold yellow (warning labels).
    pub fn warning(self, text: &str) -> String {
        self.paint("\x1b[1;33m", text)
    }

    /// `text` in bold (table headers, labels).
    pub fn bold(self, text: &str) -> String {
        self.paint("\x1b[1m", text)
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("{code}{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

fn env_set(name: &str) -> Option<String> {
    std::env::var_os(name)
        .map(|v| v.to_string_lossy().into_owned())
        .filter(|v| !v.is_empty())
}

fn color_wanted(is_terminal: bool) -> bool {
    if env_set("NO_COLOR").is_some() {
        return false;
    }
    if env_set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
        return true;
    }
    is_terminal && env_set("TERM").as_deref() != Some("dumb")
}

/// Labelled facts, one per line, values aligned after the longest label:
/// `label  value`, labels in bold, each line prefixed with `indent`.
pub fn facts(facts: &[(&str, String)], style: Style, indent: &str) -> String {
    let width = facts.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    facts
        .iter()
        .map(|(k, v)| {
            let pad = " ".repeat(width - k.len());
            format!("{indent}{}{pad}  {v}\n", style.bold(k))
        })
        .collect()
}

/// How a table column is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A plain text table: a bold header row and aligned columns separated by
/// two spaces. The last left-aligned column is not padded.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers and alignments.
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            header: columns.iter().map(|(h, _)| (*h).to_owned()).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells are empty, extra cells are dropped.
    pub fn row(&mut self, cells: Vec<String>) {
        let mut cells = cells;
        cells.resize(self.header.len(), String::new());
        self.rows.push(cells);
    }

    /// The table as lines, each prefixed with `indent`.
    pub fn render(&self, style: Style, indent: &str) -> String {
        let n = self.header.len();
        let mut width = vec![0usize; n];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (w, cell) in width.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |row: &[String], bold: bool| {
            let mut out = String::from(indent);
            for (i, cell) in row.iter().enumerate() {
                let pad = width[i].saturating_sub(cell.chars().count());
                let last = i + 1 == n;
                let text = if bold { style.bold(cell) } else { cell.clone() };
                match self.align[i] {
                    Align::Right => {
                        out.push_str(&" ".repeat(pad));
                        out.push_str(&text);
                    }
                    Align::Left => {
                        out.push_str(&text);
                        if !last {
                            out.push_str(&" ".repeat(pad));
                        }
                    }
                }
                if !last {
                    out.push_str("  ");
                }
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
            out
        };
        let mut out = line(&self.header, true);
        for row in &self.rows {
            out.push_str(&line(row, false));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_text_left_and_numbers_right() {
        let mut t = Table::new(&[
            ("count", Align::Right),
            ("ph", Align::Left),
            ("cat", Align::Left),
        ]);
        t.row(vec!["12".into(), "X".into(), "kernel".into()]);
        t.row(vec!["3".into(), "M".into(), "(none)".into()]);
        assert_eq!(
            t.render(Style::plain(), "  "),
            "  count  ph  cat\n     12  X   kernel\n      3  M   (none)\n"
        );
    }

    #[test]
    fn plain_style_adds_no_escapes() {
        let s = Style::plain();
        assert_eq!(s.error("error[x]"), "error[x]");
        assert_eq!(s.bold("h"), "h");
        let c = Style { color: true };
        assert!(c.bold("h").contains('\x1b'));
    }
}
