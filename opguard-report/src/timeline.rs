//! The launch region drawn as a timeline: one lane per host thread that
//! launched device work, one per device stream, each in its own artifact's
//! clock domain.
//!
//! A lane keeps only which of [`Timeline::bins`] equal columns of the region
//! are busy, never the events: a trace of millions of kernels gives the same
//! few kilobytes as a trace of ten. The empty columns are the gaps; their
//! exact totals come from the launch region ([`LaunchRegion::launch_gaps`],
//! [`LaunchRegion::streams`]), not from the picture.

use std::collections::HashMap;

use opguard_trace::analysis::LaunchRegion;
use opguard_trace::model::{IdValue, SliceClass, TraceModel};

use crate::geometry::TimeScale;

/// Columns a lane is drawn with (one per pixel of the plot).
pub(crate) const TIMELINE_BINS: usize = 720;

/// Lanes drawn per artifact; the busiest are kept, the rest are counted in
/// [`Timeline::omitted_lanes`] and still listed in the gap tables.
pub(crate) const MAX_LANES: usize = 48;

/// What a lane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneKind {
    /// Launch calls of one host thread (`pid`, `tid`).
    HostThread,
    /// Device activity of one (device, context, stream).
    Stream,
}

/// One row of the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// Host thread or stream.
    pub kind: LaneKind,
    /// Its name, as the launch region writes it (trace text: escape it).
    pub label: String,
    /// Launches or device activities on it.
    pub events: u64,
    /// Gaps on it (launch gaps or idle gaps), from the launch region.
    pub gap_count: u64,
    /// Their total, ns.
    pub gap_total_ns: i64,
    /// The largest, ns.
    pub gap_max_ns: i64,
    /// Busy columns as half-open runs `[from, to)` of bin indices.
    pub busy: Vec<(usize, usize)>,
}

/// The timeline of one artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    /// The region's start in the artifact's clock, ns (`None`: no launches
    /// and no device activity).
    pub start_ns: Option<i64>,
    /// Its end, ns.
    pub end_ns: Option<i64>,
    /// Columns per lane.
    pub bins: usize,
    /// Drawn lanes: host threads first, then streams, each in the launch
    /// region's order.
    pub lanes: Vec<Lane>,
    /// Lanes not drawn: the 48 busiest are drawn, the rest counted here.
    pub omitted_lanes: usize,
}

/// The lane a slice belongs to, keyed exactly as the launch region groups
/// slices, so each lane meets its gap figures.
type LaneKey = (LaneKind, String, Option<String>, String);

impl Timeline {
    /// Draws `region`'s lanes from `model`, the artifact it was computed
    /// from.
    pub fn new(model: &TraceModel, region: &LaunchRegion) -> Timeline {
        let mut lanes: Vec<(LaneKey, Lane)> = Vec::new();
        for g in &region.launch_gaps {
            lanes.push((
                (LaneKind::HostThread, g.pid.clone(), None, g.tid.clone()),
                Lane {
                    kind: LaneKind::HostThread,
                    label: format!("host pid {} tid {}", g.pid, g.tid),
                    events: g.launches,
                    gap_count: g.gap_count,
                    gap_total_ns: g.gap_total_ns,
                    gap_max_ns: g.gap_max_ns,
                    busy: Vec::new(),
                },
            ));
        }
        for s in &region.streams {
            let label = match &s.context {
                Some(c) => format!("device {} context {} stream {}", s.device, c, s.stream),
                None => format!("device {} stream {}", s.device, s.stream),
            };
            lanes.push((
                (
                    LaneKind::Stream,
                    s.device.clone(),
                    s.context.clone(),
                    s.stream.clone(),
                ),
                Lane {
                    kind: LaneKind::Stream,
                    label,
                    events: s.activities,
                    gap_count: s.idle_gap_count,
                    gap_total_ns: s.idle_gap_total_ns,
                    gap_max_ns: s.idle_gap_max_ns,
                    busy: Vec::new(),
                },
            ));
        }
        let (Some(start), Some(end)) = (region.region_start_ns, region.region_end_ns) else {
            return Timeline {
                start_ns: None,
                end_ns: None,
                bins: TIMELINE_BINS,
                omitted_lanes: 0,
                lanes: lanes.into_iter().map(|(_, l)| l).collect(),
            };
        };
        // The busiest lanes are drawn; the order within each kind stays the
        // region's.
        let omitted_lanes = lanes.len().saturating_sub(MAX_LANES);
        if omitted_lanes > 0 {
            let mut by_events: Vec<usize> = (0..lanes.len()).collect();
            by_events.sort_by_key(|&i| std::cmp::Reverse(lanes[i].1.events));
            let mut keep = vec![false; lanes.len()];
            for &i in &by_events[..MAX_LANES] {
                keep[i] = true;
            }
            let mut i = 0;
            lanes.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
        let scale = TimeScale::new(start, end);
        let index: HashMap<LaneKey, usize> = lanes
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        let mut columns: Vec<Vec<bool>> = vec![vec![false; TIMELINE_BINS]; lanes.len()];
        let text = |v: Option<IdValue>| v.map(|v| model.id_text(v));
        for s in model.slices() {
            let key = match s.class {
                SliceClass::Launch(_) => (
                    LaneKind::HostThread,
                    text(s.pid).unwrap_or_default(),
                    None,
                    text(s.tid).unwrap_or_default(),
                ),
                c if c.is_device() => (
                    LaneKind::Stream,
                    text(s.device.or(s.pid)).unwrap_or_default(),
                    text(s.context),
                    text(s.stream.or(s.tid)).unwrap_or_default(),
                ),
                _ => continue,
            };
            let Some(&lane) = index.get(&key) else {
                continue;
            };
            // A slice shorter than a column still marks the column it
            // starts in: short kernels stay visible.
            let from = scale.bin(s.ts_ns, TIMELINE_BINS);
            let last = if s.dur_ns > 0 {
                s.end_ns() - 1
            } else {
                s.ts_ns
            };
            let to = scale.bin(last, TIMELINE_BINS);
            for c in &mut columns[lane][from..=to] {
                *c = true;
            }
        }
        let lanes = lanes
            .into_iter()
            .zip(columns)
            .map(|((_, mut lane), cols)| {
                lane.busy = runs(&cols);
                lane
            })
            .collect();
        Timeline {
            start_ns: Some(start),
            end_ns: Some(end),
            bins: TIMELINE_BINS,
            lanes,
            omitted_lanes,
        }
    }
}

/// Half-open runs of `true` columns.
fn runs(columns: &[bool]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, &busy) in columns.iter().enumerate() {
        match (busy, open) {
            (true, None) => open = Some(i),
            (false, Some(from)) => {
                out.push((from, i));
                open = None;
            }
            _ => {}
        }
    }
    if let Some(from) = open {
        out.push((from, columns.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn runs_are_half_open_and_close_at_the_end() {
        assert_eq!(
            runs(&[false, true, true, false, true]),
            vec![(1, 3), (4, 5)]
        );
        assert_eq!(runs(&[false, false]), Vec::<(usize, usize)>::new());
        assert_eq!(runs(&[true]), vec![(0, 1)]);
    }
}
