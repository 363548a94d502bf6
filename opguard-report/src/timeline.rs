//! The launch region drawn as a timeline, in its own artifact's clock
//! domain: per device, one lane of its busy time and, when it ran
//! collectives, one of its communication (exposed, or overlapped with
//! computation); then one lane per host thread that launched device work and
//! one per device stream. A capture without launches or device activity is
//! drawn as its host threads' activity instead.
//!
//! A lane keeps only which of [`Timeline::bins`] equal columns of the region
//! are busy, never the events: a trace of millions of kernels gives the same
//! few kilobytes as a trace of ten. The empty columns are the gaps; their
//! exact totals come from the launch region ([`LaunchRegion::launch_gaps`],
//! [`LaunchRegion::streams`]), not from the picture.

use std::collections::HashMap;

use opguard_model::analysis::LaunchRegion;
use opguard_model::{classify, IdValue, NameId, SliceClass, TraceModel};

use crate::geometry::TimeScale;

/// Columns a lane is drawn with (one per pixel of the plot).
pub(crate) const TIMELINE_BINS: usize = 720;

/// Lanes drawn per artifact; the busiest are kept, the rest are counted in
/// [`Timeline::omitted_lanes`] and still listed in the gap tables.
pub(crate) const MAX_LANES: usize = 48;

/// What a lane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneKind {
    /// Time one device was busy (any of its streams).
    Device,
    /// One device's collective kernels: `busy` where nothing else ran
    /// (exposed), `overlapped` where other kernels ran too.
    Communication,
    /// Launch calls of one host thread (`pid`, `tid`).
    HostThread,
    /// Device activity of one (process, device, context, stream).
    Stream,
    /// Any host work of one thread, for a capture without launches or
    /// device activity.
    HostActivity,
}

impl LaneKind {
    /// Whether the lane has gap figures of its own (launch or idle gaps).
    pub fn has_gaps(self) -> bool {
        matches!(self, LaneKind::HostThread | LaneKind::Stream)
    }
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
    /// Busy columns as half-open runs `[from, to)` of bin indices (for a
    /// communication lane, the exposed ones).
    pub busy: Vec<(usize, usize)>,
    /// For a communication lane, the columns where other kernels ran too.
    pub overlapped: Vec<(usize, usize)>,
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
    /// Drawn lanes: devices first, then host threads, then streams, each in
    /// the launch region's order (or host threads' activity alone).
    pub lanes: Vec<Lane>,
    /// Lanes not drawn: the 48 busiest are drawn, the rest counted here.
    pub omitted_lanes: usize,
}

/// The lane a slice belongs to, keyed exactly as the launch region groups
/// slices, so each lane meets its figures.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum LaneKey {
    Device(Option<String>, String),
    Communication(Option<String>, String),
    Thread(String, String),
    Stream(Option<String>, String, String, Option<String>, String),
}

fn lane(kind: LaneKind, label: String, events: u64) -> Lane {
    Lane {
        kind,
        label,
        events,
        gap_count: 0,
        gap_total_ns: 0,
        gap_max_ns: 0,
        busy: Vec::new(),
        overlapped: Vec::new(),
    }
}

impl Timeline {
    /// Draws `region`'s lanes from `model`, the artifact it was computed
    /// from.
    pub fn new(model: &TraceModel, region: &LaunchRegion) -> Timeline {
        let (Some(start), Some(end)) = (region.region_start_ns, region.region_end_ns) else {
            return host_activity(model);
        };
        let several_processes = region
            .devices
            .iter()
            .any(|d| d.process != region.devices[0].process);
        let device_label =
            |process: &Option<String>, device: &str| match (several_processes, process) {
                (true, Some(p)) => format!("process {p} device {device}"),
                _ => format!("device {device}"),
            };
        let mut devices: Vec<(LaneKey, Lane)> = Vec::new();
        for d in &region.devices {
            let name = device_label(&d.process, &d.device);
            devices.push((
                LaneKey::Device(d.process.clone(), d.device.clone()),
                lane(LaneKind::Device, format!("{name}: busy"), d.activities),
            ));
            if d.communication.kernel_count > 0 {
                devices.push((
                    LaneKey::Communication(d.process.clone(), d.device.clone()),
                    lane(
                        LaneKind::Communication,
                        format!("{name}: communication"),
                        d.communication.kernel_count,
                    ),
                ));
            }
        }
        let mut lanes: Vec<(LaneKey, Lane)> = Vec::new();
        for g in &region.launch_gaps {
            lanes.push((
                LaneKey::Thread(g.pid.clone(), g.tid.clone()),
                Lane {
                    gap_count: g.gap_count,
                    gap_total_ns: g.gap_total_ns,
                    gap_max_ns: g.gap_max_ns,
                    ..lane(
                        LaneKind::HostThread,
                        format!("host pid {} tid {}", g.pid, g.tid),
                        g.launches,
                    )
                },
            ));
        }
        for s in &region.streams {
            let device = device_label(&s.process, &s.device);
            let label = match &s.context {
                Some(c) => format!("{device} context {c} stream {}", s.stream),
                None => format!("{device} stream {}", s.stream),
            };
            lanes.push((
                LaneKey::Stream(
                    s.process.clone(),
                    s.track.clone(),
                    s.device.clone(),
                    s.context.clone(),
                    s.stream.clone(),
                ),
                Lane {
                    gap_count: s.idle_gap_count,
                    gap_total_ns: s.idle_gap_total_ns,
                    gap_max_ns: s.idle_gap_max_ns,
                    ..lane(LaneKind::Stream, label, s.activities)
                },
            ));
        }
        // The busiest host and stream lanes are drawn; device lanes always
        // are. The order within each kind stays the region's.
        let omitted_lanes = keep_busiest(&mut lanes, MAX_LANES.saturating_sub(devices.len()));
        devices.extend(lanes);
        let mut lanes = devices;
        let scale = TimeScale::new(start, end);
        let index: HashMap<LaneKey, usize> = lanes
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        let mut columns: Vec<Vec<bool>> = vec![vec![false; TIMELINE_BINS]; lanes.len()];
        // Per device: columns where a collective ran, and where another
        // kernel ran.
        let mut comm: HashMap<usize, (Vec<bool>, Vec<bool>)> = HashMap::new();
        let mut collective: HashMap<NameId, bool> = HashMap::new();
        let text = |v: Option<IdValue>| v.map(|v| model.id_text(v));
        for s in model.slices() {
            let (from, to) = columns_of(&scale, s.ts_ns, s.dur_ns);
            let mut mark = |lane: usize| {
                for c in &mut columns[lane][from..=to] {
                    *c = true;
                }
            };
            match s.class {
                SliceClass::Launch(_) => {
                    let key = LaneKey::Thread(
                        text(s.pid).unwrap_or_default(),
                        text(s.tid).unwrap_or_default(),
                    );
                    if let Some(&lane) = index.get(&key) {
                        mark(lane);
                    }
                }
                c if c.is_device() => {
                    let device = text(s.device.or(s.pid)).unwrap_or_default();
                    let key = LaneKey::Stream(
                        text(s.process),
                        text(s.pid).unwrap_or_default(),
                        device.clone(),
                        text(s.context),
                        text(s.stream.or(s.tid)).unwrap_or_default(),
                    );
                    if let Some(&lane) = index.get(&key) {
                        mark(lane);
                    }
                    if let Some(&lane) =
                        index.get(&LaneKey::Device(text(s.process), device.clone()))
                    {
                        mark(lane);
                    }
                    if c != SliceClass::Kernel {
                        continue;
                    }
                    let Some(&lane) = index.get(&LaneKey::Communication(text(s.process), device))
                    else {
                        continue;
                    };
                    let is_collective = *collective
                        .entry(s.name)
                        .or_insert_with(|| classify::is_collective(model.name(s.name)));
                    let (coll, compute) = comm.entry(lane).or_insert_with(|| {
                        (vec![false; TIMELINE_BINS], vec![false; TIMELINE_BINS])
                    });
                    let target = if is_collective { coll } else { compute };
                    for c in &mut target[from..=to] {
                        *c = true;
                    }
                }
                _ => {}
            }
        }
        for (lane, (coll, compute)) in comm {
            let exposed: Vec<bool> = coll.iter().zip(&compute).map(|(&k, &c)| k && !c).collect();
            let overlapped: Vec<bool> = coll.iter().zip(&compute).map(|(&k, &c)| k && c).collect();
            columns[lane] = exposed;
            lanes[lane].1.overlapped = runs(&overlapped);
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

/// The columns a slice covers. A slice shorter than a column still marks
/// the column it starts in: short kernels stay visible.
fn columns_of(scale: &TimeScale, ts_ns: i64, dur_ns: i64) -> (usize, usize) {
    let from = scale.bin(ts_ns, TIMELINE_BINS);
    let last = if dur_ns > 0 {
        ts_ns.saturating_add(dur_ns) - 1
    } else {
        ts_ns
    };
    (from, scale.bin(last, TIMELINE_BINS))
}

/// Keeps the `keep` lanes with the most events (the order of the rest is
/// kept) and returns how many were dropped.
fn keep_busiest<K>(lanes: &mut Vec<(K, Lane)>, keep: usize) -> usize {
    let omitted = lanes.len().saturating_sub(keep);
    if omitted > 0 {
        let mut by_events: Vec<usize> = (0..lanes.len()).collect();
        by_events.sort_by_key(|&i| std::cmp::Reverse(lanes[i].1.events));
        let mut kept = vec![false; lanes.len()];
        for &i in &by_events[..keep] {
            kept[i] = true;
        }
        let mut i = 0;
        lanes.retain(|_| {
            i += 1;
            kept[i - 1]
        });
    }
    omitted
}

/// A host thread as written: (pid, tid).
type Thread = (Option<IdValue>, Option<IdValue>);

/// A capture without launches or device activity: one lane per host thread
/// with any host work (operators, ranges, Python frames), over their span.
fn host_activity(model: &TraceModel) -> Timeline {
    let host = |s: &&opguard_model::Slice| {
        !s.class.is_device() && !s.class.is_runtime() && s.class != SliceClass::GpuUserAnnotation
    };
    let start = model.slices().iter().filter(host).map(|s| s.ts_ns).min();
    let end = model
        .slices()
        .iter()
        .filter(host)
        .map(|s| s.counted_end_ns())
        .max();
    let (Some(start), Some(end)) = (start, end) else {
        return Timeline {
            start_ns: None,
            end_ns: None,
            bins: TIMELINE_BINS,
            lanes: Vec::new(),
            omitted_lanes: 0,
        };
    };
    let text = |v: Option<IdValue>| v.map(|v| model.id_text(v)).unwrap_or_default();
    let mut index: HashMap<Thread, usize> = HashMap::new();
    let mut lanes: Vec<(Thread, Lane)> = Vec::new();
    for s in model.slices().iter().filter(host) {
        let key = (s.pid, s.tid);
        let i = *index.entry(key).or_insert_with(|| {
            let label = format!("host pid {} tid {}", text(s.pid), text(s.tid));
            lanes.push((key, lane(LaneKind::HostActivity, label, 0)));
            lanes.len() - 1
        });
        lanes[i].1.events += 1;
    }
    let omitted_lanes = keep_busiest(&mut lanes, MAX_LANES);
    let index: HashMap<(Option<IdValue>, Option<IdValue>), usize> = lanes
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (*k, i))
        .collect();
    let scale = TimeScale::new(start, end);
    let mut columns: Vec<Vec<bool>> = vec![vec![false; TIMELINE_BINS]; lanes.len()];
    for s in model.slices().iter().filter(host) {
        if let Some(&lane) = index.get(&(s.pid, s.tid)) {
            let (from, to) = columns_of(&scale, s.ts_ns, s.dur_ns);
            for c in &mut columns[lane][from..=to] {
                *c = true;
            }
        }
    }
    Timeline {
        start_ns: Some(start),
        end_ns: Some(end),
        bins: TIMELINE_BINS,
        lanes: lanes
            .into_iter()
            .zip(columns)
            .map(|((_, mut lane), cols)| {
                lane.busy = runs(&cols);
                lane
            })
            .collect(),
        omitted_lanes,
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
