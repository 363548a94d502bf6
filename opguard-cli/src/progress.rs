//! A progress bar on stderr for long work, shown only when stderr is a
//! terminal and only once the work has run for a moment, so short commands
//! and redirected or piped stderr stay silent. The bar is drawn with a
//! carriage return and spaces only: no escape sequences.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Work shorter than this never draws a bar.
const DELAY: Duration = Duration::from_millis(400);
/// Redraw at most this often.
const INTERVAL: Duration = Duration::from_millis(100);
const BAR_WIDTH: usize = 30;

/// A byte-count progress bar.
#[derive(Debug)]
pub struct Progress {
    enabled: bool,
    label: String,
    total: Option<u64>,
    start: Instant,
    last_draw: Option<Instant>,
    drawn_len: usize,
    /// Counted things (`ranks`) instead of bytes.
    items: Option<&'static str>,
}

impl Progress {
    /// A bar for work over `total` bytes (unknown for stdin), labelled with
    /// the input's name.
    pub fn new(label: &str, total: Option<u64>) -> Self {
        Progress {
            enabled: std::io::stderr().is_terminal(),
            label: label.to_owned(),
            total: total.filter(|&t| t > 0),
            start: Instant::now(),
            last_draw: None,
            drawn_len: 0,
            items: None,
        }
    }

    /// A bar over `total` counted things, e.g. `ranks`.
    pub fn items(label: &str, total: u64, unit: &'static str) -> Self {
        let mut p = Progress::new(label, Some(total));
        p.items = Some(unit);
        p
    }

    /// Reports `done` bytes; draws if due.
    pub fn update(&mut self, done: u64) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.start) < DELAY {
            return;
        }
        if self
            .last_draw
            .is_some_and(|t| now.duration_since(t) < INTERVAL)
        {
            return;
        }
        self.last_draw = Some(now);
        let text = self.line(done);
        let pad = self.drawn_len.saturating_sub(text.chars().count());
        self.drawn_len = text.chars().count();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{text}{}", " ".repeat(pad));
        let _ = err.flush();
    }

    fn line(&self, done: u64) -> String {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        if let (Some(unit), Some(total)) = (self.items, self.total) {
            let frac = (done as f64 / total as f64).clamp(0.0, 1.0);
            let filled = (frac * BAR_WIDTH as f64).round() as usize;
            return format!(
                "{} [{}{}] {done}/{total} {unit}",
                self.label,
                "#".repeat(filled),
                ".".repeat(BAR_WIDTH - filled),
            );
        }
        match self.total {
            Some(total) => {
                let frac = (done as f64 / total as f64).clamp(0.0, 1.0);
                let filled = (frac * BAR_WIDTH as f64).round() as usize;
                format!(
                    "{} [{}{}] {:>3.0}% {:.1}/{:.1} MiB",
                    self.label,
                    "#".repeat(filled),
                    ".".repeat(BAR_WIDTH - filled),
                    frac * 100.0,
                    mib(done),
                    mib(total)
                )
            }
            None => format!("{} {:.1} MiB", self.label, mib(done)),
        }
    }

    /// Erases the bar if one was drawn.
    pub fn finish(&mut self) {
        if self.drawn_len > 0 {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(self.drawn_len));
            let _ = err.flush();
            self.drawn_len = 0;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_shows_fraction_and_sizes() {
        let p = Progress {
            enabled: false,
            label: "t.json".into(),
            total: Some(4 << 20),
            start: Instant::now(),
            last_draw: None,
            drawn_len: 0,
            items: None,
        };
        let l = p.line(1 << 20);
        assert!(l.starts_with("t.json [########"), "{l}");
        assert!(l.ends_with(" 25% 1.0/4.0 MiB"), "{l}");
        assert!(!l.contains('\x1b'));
        let mut ranks = Progress::items("job", 16, "ranks");
        ranks.enabled = false;
        assert_eq!(
            ranks.line(4),
            format!("job [{}{}] 4/16 ranks", "#".repeat(8), ".".repeat(22))
        );
    }
}
