//! The cost a series measures, and its unit.

use std::fmt;
use std::str::FromStr;

/// What is summed per semantic frame per trial.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Sum of the frame's slice durations (a frame nested in itself counts
    /// each time it appears).
    InclusiveNs,
    /// Sum of each slice's duration minus the durations of the slices nested
    /// directly inside it on the same `(pid, tid)` track, from the nesting
    /// observed in that artifact.
    SelfNs,
    /// Number of slices.
    Count,
}

impl Metric {
    /// Every metric, in a stable order.
    pub const ALL: [Metric; 3] = [Metric::InclusiveNs, Metric::SelfNs, Metric::Count];

    /// The stable name used in documents and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::InclusiveNs => "inclusive_ns",
            Metric::SelfNs => "self_ns",
            Metric::Count => "count",
        }
    }

    /// The unit this metric is measured in.
    pub fn unit(self) -> Unit {
        match self {
            Metric::InclusiveNs | Metric::SelfNs => Unit::Ns,
            Metric::Count => Unit::Count,
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Metric {
    type Err = UnknownMetric;

    /// Parses [`Metric::as_str`]; anything else is [`UnknownMetric`] (the
    /// crate's [`Error`](crate::Error) converts it to `unknown_metric`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Metric::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownMetric {
                found: s.to_owned(),
            })
    }
}

/// A metric name that is none of [`Metric::ALL`]'s names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMetric {
    /// The name given.
    pub found: String,
}

impl fmt::Display for UnknownMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown metric {:?}: expected inclusive_ns, self_ns or count",
            self.found
        )
    }
}

impl std::error::Error for UnknownMetric {}

/// The unit of a series' values.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Nanoseconds.
    Ns,
    /// A count of slices.
    Count,
}

impl Unit {
    /// The stable name used in documents and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Count => "count",
        }
    }

    /// Parses [`Unit::as_str`].
    pub fn from_name(s: &str) -> Option<Unit> {
        [Unit::Ns, Unit::Count]
            .into_iter()
            .find(|u| u.as_str() == s)
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_units_follow_metrics() {
        for m in Metric::ALL {
            assert_eq!(m.as_str().parse::<Metric>().ok(), Some(m));
            assert_eq!(
                serde_json::to_string(&m).ok(),
                Some(format!("\"{}\"", m.as_str()))
            );
        }
        assert_eq!(Metric::SelfNs.unit(), Unit::Ns);
        assert_eq!(Metric::Count.unit(), Unit::Count);
        assert_eq!(Unit::from_name("ns"), Some(Unit::Ns));
        assert_eq!(Unit::from_name("us"), None);
        let err = "wall_ns".parse::<Metric>().err();
        assert_eq!(err.map(|e| e.found), Some("wall_ns".to_owned()));
    }
}
