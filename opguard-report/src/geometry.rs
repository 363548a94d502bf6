//! Chart geometry: every length on the page is a share of a whole, and every
//! timeline position is a share of its own artifact's span.

/// A bar's length in pixels: `value`'s share of `total`, times `width`.
/// Clamped to `0..=width`; a non-positive total draws nothing.
pub fn bar_length(value: i64, total: i64, width: f64) -> f64 {
    if total <= 0 || value <= 0 {
        return 0.0;
    }
    (value as f64 / total as f64 * width).clamp(0.0, width)
}

/// Maps instants of one clock domain onto equal columns of a timeline.
///
/// Only times of the artifact that defined `start` and `end` may be placed
/// on one scale: two artifacts never share an axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeScale {
    start_ns: i64,
    span_ns: i64,
}

impl TimeScale {
    /// A scale from `start_ns` to `end_ns`. A zero or negative span is
    /// widened to 1 ns so every instant still has a place.
    pub fn new(start_ns: i64, end_ns: i64) -> Self {
        TimeScale {
            start_ns,
            span_ns: end_ns.saturating_sub(start_ns).max(1),
        }
    }

    /// Which of `bins` equal columns `ts_ns` falls in (the last column holds
    /// the end instant).
    pub fn bin(&self, ts_ns: i64, bins: usize) -> usize {
        let offset = (i128::from(ts_ns) - i128::from(self.start_ns)).max(0);
        let bin = offset * bins as i128 / i128::from(self.span_ns);
        (bin as usize).min(bins.saturating_sub(1))
    }

    /// The span in nanoseconds.
    pub fn span_ns(&self) -> i64 {
        self.span_ns
    }
}

/// A "nice" value range `0..=top` that contains `max`, for value axes.
pub fn nice_ceiling(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let magnitude = 10f64.powf(max.log10().floor());
    for step in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if step * magnitude >= max {
            return step * magnitude;
        }
    }
    10.0 * magnitude
}

/// Nanoseconds in the unit that reads best (`ns`, `µs`, `ms`, `s`).
pub fn format_ns(ns: i64) -> String {
    let a = ns.unsigned_abs();
    if a < 1_000 {
        format!("{ns} ns")
    } else if a < 1_000_000 {
        format!("{:.2} µs", ns as f64 / 1e3)
    } else if a < 1_000_000_000 {
        format!("{:.2} ms", ns as f64 / 1e6)
    } else {
        format!("{:.3} s", ns as f64 / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_is_its_durations_share_of_the_width() {
        assert_eq!(bar_length(250, 1_000, 400.0), 100.0);
        assert_eq!(bar_length(1_000, 1_000, 400.0), 400.0);
        assert_eq!(bar_length(1, 3, 300.0), 100.0);
        // Ratios between bars equal ratios between durations.
        let (a, b) = (bar_length(37, 500, 720.0), bar_length(74, 500, 720.0));
        assert!((b / a - 2.0).abs() < 1e-12);
    }

    #[test]
    fn degenerate_bars_draw_nothing_or_the_whole_width() {
        assert_eq!(bar_length(5, 0, 400.0), 0.0);
        assert_eq!(bar_length(-5, 10, 400.0), 0.0);
        assert_eq!(bar_length(20, 10, 400.0), 400.0);
    }

    #[test]
    fn timeline_positions_are_proportional_within_the_span() {
        // An artifact whose clock starts far from zero: only offsets count.
        let s = TimeScale::new(1_700_000_000_000_000_000, 1_700_000_000_000_001_000);
        assert_eq!(s.bin(1_700_000_000_000_000_000, 720), 0);
        assert_eq!(s.bin(1_700_000_000_000_000_250, 720), 180);
        assert_eq!(s.bin(1_700_000_000_000_000_500, 720), 360);
        assert_eq!(s.bin(1_700_000_000_000_001_000, 720), 719);
        assert_eq!(s.bin(0, 720), 0, "before the span clamps to its start");
        assert_eq!(
            s.bin(i64::MAX, 720),
            719,
            "after the span clamps to its end"
        );
    }

    #[test]
    fn bins_split_the_span_evenly() {
        let s = TimeScale::new(100, 1_100);
        assert_eq!(s.bin(100, 10), 0);
        assert_eq!(s.bin(199, 10), 0);
        assert_eq!(s.bin(200, 10), 1);
        assert_eq!(s.bin(1_099, 10), 9);
        assert_eq!(s.bin(1_100, 10), 9);
        assert_eq!(s.bin(i64::MIN, 10), 0);
    }

    #[test]
    fn a_zero_span_still_places_its_instant() {
        let s = TimeScale::new(5, 5);
        assert_eq!(s.span_ns(), 1);
        assert_eq!(s.bin(5, 10), 0);
    }

    #[test]
    fn nice_ceilings_contain_the_maximum() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(7.0), 10.0);
        assert_eq!(nice_ceiling(1_800.0), 2_000.0);
        assert_eq!(nice_ceiling(2_000.0), 2_000.0);
        assert_eq!(nice_ceiling(2_001.0), 2_500.0);
    }

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(format_ns(999), "999 ns");
        assert_eq!(format_ns(1_500), "1.50 µs");
        assert_eq!(format_ns(2_500_000), "2.50 ms");
        assert_eq!(format_ns(3_000_000_000), "3.000 s");
    }
}
