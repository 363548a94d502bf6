//! What a comparison decides with: the gate's threshold and false
//! discovery rate, the interval's confidence, what a step is.

use opguard_trace::ReaderOptions;

/// The ratio of medians above which a regression fails the gate by
/// default: 5% slower.
pub const DEFAULT_FAIL_ABOVE: f64 = 0.05;

/// The false discovery rate the gate controls by default, over every
/// entity and total tested.
pub const DEFAULT_FDR: f64 = 0.05;

/// The confidence of each ratio's interval by default.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;

/// How a comparison is made.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CompareOptions {
    /// A regression fails the gate when the candidate's median is more than
    /// `1 + fail_above` times the baseline's (0.05: 5% slower). Non-negative.
    pub fail_above: f64,
    /// The false discovery rate: Benjamini–Hochberg over every tested
    /// entity and total, at this level, in `(0, 1)`.
    pub fdr: f64,
    /// The confidence of each ratio interval, in `(0, 1)`.
    pub confidence: f64,
    /// The name of the range that marks one step (`--step NAME`): a trace
    /// without it is an error. `None`: the PyTorch profiler's
    /// `ProfilerStep#N`, else ranges named `step` (see
    /// [`is_step_name`](crate::is_step_name)), else one sample per run.
    pub step: Option<String>,
    /// Compare Python functions too (by semantic frame: name, file, line).
    /// Off by default: a trace recorded with stacks has thousands, and each
    /// one tested lowers what the false discovery rate lets every other
    /// entity show.
    pub python_frames: bool,
    /// Reader limits, applied to every trace.
    pub reader: ReaderOptions,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            fail_above: DEFAULT_FAIL_ABOVE,
            fdr: DEFAULT_FDR,
            confidence: DEFAULT_CONFIDENCE,
            step: None,
            python_frames: false,
            reader: ReaderOptions::default(),
        }
    }
}

impl CompareOptions {
    /// The defaults: fail above 5%, FDR 0.05, 95% intervals, steps found
    /// automatically.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`CompareOptions::fail_above`].
    pub fn fail_above(mut self, fail_above: f64) -> Self {
        self.fail_above = fail_above;
        self
    }
    /// Sets [`CompareOptions::fdr`].
    pub fn fdr(mut self, fdr: f64) -> Self {
        self.fdr = fdr;
        self
    }
    /// Sets [`CompareOptions::confidence`].
    pub fn confidence(mut self, confidence: f64) -> Self {
        self.confidence = confidence;
        self
    }
    /// Sets [`CompareOptions::step`].
    pub fn step(mut self, step: impl Into<String>) -> Self {
        self.step = Some(step.into());
        self
    }
    /// Sets [`CompareOptions::python_frames`].
    pub fn python_frames(mut self, on: bool) -> Self {
        self.python_frames = on;
        self
    }
    /// Sets the reader options.
    pub fn reader(mut self, reader: ReaderOptions) -> Self {
        self.reader = reader;
        self
    }

    /// Refuses a setting outside its range: a threshold that is negative
    /// or not finite, a rate or confidence outside `(0, 1)`, an empty step
    /// name.
    pub fn check(&self) -> Result<(), crate::Error> {
        let bad = |option: &'static str, value: String, expected: &'static str| {
            Err(crate::ErrorKind::InvalidOption {
                option,
                value,
                expected,
            }
            .into())
        };
        if !(self.fail_above.is_finite() && self.fail_above >= 0.0) {
            return bad(
                "fail_above",
                self.fail_above.to_string(),
                "a finite ratio of at least 0 (0.05 is 5%)",
            );
        }
        if !(self.fdr > 0.0 && self.fdr < 1.0) {
            return bad(
                "fdr",
                self.fdr.to_string(),
                "a rate between 0 and 1, both excluded",
            );
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return bad(
                "confidence",
                self.confidence.to_string(),
                "a level between 0 and 1, both excluded",
            );
        }
        if self.step.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return bad(
                "step",
                String::new(),
                "the name of the range that marks a step",
            );
        }
        Ok(())
    }
}
