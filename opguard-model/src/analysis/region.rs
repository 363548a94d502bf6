//! Analysis stage: a launch region computed from records as they arrive in
//! time order, so a reader that can give its rows sorted (an export's SQL
//! `ORDER BY`) computes it with memory bounded by its tracks, not its rows,
//! and [`launch_region`](super::launch_region) computes it from a model
//! through the very same code.

use std::collections::HashMap;
use std::fmt;

use super::launch::{
    empty_region, top_kernels, Communication, DeviceTime, HostTrackGaps, LaunchRegion, StreamIdle,
};
use crate::artifact::Artifact;
use crate::classify;
use crate::slice::{LaunchKind, SliceClass};

/// A host thread's handle in a [`RegionBuilder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadId(usize);

/// A device stream's handle in a [`RegionBuilder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamId(usize);

/// How a device stream is named: two streams with any label different are
/// two streams, so two processes' activity never fuses.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamLabels {
    /// The owning process, when established.
    pub process: Option<String>,
    /// The track's `pid` as written.
    pub track: String,
    /// The device.
    pub device: String,
    /// The device context, when the capture has one.
    pub context: Option<String>,
    /// The stream (queue).
    pub stream: String,
}

/// What a device activity's correlation proves about its launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchEvidence {
    /// It carries no correlation id.
    NoId,
    /// Exactly one launch of its process carries the id.
    Proven,
    /// Several launches of its process carry it.
    Ambiguous,
    /// Its process is not established.
    OwnerUnknown,
    /// No launch of its process carries it, or the provider defines no
    /// namespace.
    Unproven,
}

/// One device activity, as [`RegionBuilder::device_activity`] takes it.
#[derive(Debug, Clone, Copy)]
pub struct DeviceActivity<'a> {
    /// Kernel, memory copy or set, or other device work.
    pub class: SliceClass,
    /// Its name (kernels are named by their canonical identity at the end).
    pub name: &'a str,
    /// Start, ns.
    pub ts_ns: i64,
    /// Duration, ns (negative adds nothing and is counted).
    pub dur_ns: i64,
    /// What its correlation proves.
    pub launch: LaunchEvidence,
}

/// Records were given out of time order: the builder's figures need each
/// sequence (launches, device activities) sorted by start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfOrder {
    /// The record's start, ns.
    pub ts_ns: i64,
    /// The start of the record before it, ns.
    pub previous_ns: i64,
}

impl OutOfOrder {
    /// The stable code: `out_of_order`.
    pub fn code(&self) -> &'static str {
        "out_of_order"
    }
}

impl fmt::Display for OutOfOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a record starting at {} ns came after one starting at {} ns: launch regions are \
             built from records in time order",
            self.ts_ns, self.previous_ns
        )
    }
}

impl std::error::Error for OutOfOrder {}

/// The measure of a union of intervals given in order of start.
#[derive(Debug, Default, Clone, Copy)]
struct RunningUnion {
    covered_until: Option<i64>,
    measure: i64,
}

impl RunningUnion {
    fn add(&mut self, start: i64, end: i64) {
        let end = end.max(start);
        match self.covered_until {
            Some(until) if start < until => {
                if end > until {
                    self.measure = self.measure.saturating_add(end - until);
                    self.covered_until = Some(end);
                }
            }
            _ => {
                self.measure = self.measure.saturating_add(end.saturating_sub(start));
                self.covered_until = Some(end);
            }
        }
    }
}

/// Device time of one device (or of all of them): the union of all its
/// activity, of its collectives, of its other kernels, and of both.
#[derive(Debug, Default, Clone, Copy)]
struct DeviceUnions {
    activities: u64,
    all: RunningUnion,
    collective_kernels: u64,
    collective: RunningUnion,
    compute: RunningUnion,
    collective_or_compute: RunningUnion,
}

impl DeviceUnions {
    fn add(&mut self, class: SliceClass, collective: bool, start: i64, end: i64) {
        self.activities += 1;
        self.all.add(start, end);
        if class == SliceClass::Kernel {
            if collective {
                self.collective_kernels += 1;
                self.collective.add(start, end);
            } else {
                self.compute.add(start, end);
            }
            self.collective_or_compute.add(start, end);
        }
    }

    fn communication(&self) -> Communication {
        let busy = self.collective.measure;
        // |C ∩ K| = |C| + |K| - |C ∪ K|: each a union of sorted intervals.
        let overlapped = busy
            .saturating_add(self.compute.measure)
            .saturating_sub(self.collective_or_compute.measure);
        Communication {
            kernel_count: self.collective_kernels,
            busy_ns: busy,
            overlapped_with_compute_ns: overlapped,
            exposed_ns: busy.saturating_sub(overlapped),
        }
    }
}

struct ThreadState {
    pid: String,
    tid: String,
    launches: u64,
    last_end: Option<i64>,
    gap_count: u64,
    gap_total_ns: i64,
    gap_max_ns: i64,
}

struct StreamState {
    labels: StreamLabels,
    device: usize,
    activities: u64,
    busy_ns: i64,
    covered_until: Option<i64>,
    idle_gap_count: u64,
    idle_gap_total_ns: i64,
    idle_gap_max_ns: i64,
}

/// Builds one artifact's [`LaunchRegion`] from launches and device
/// activities given in time order (each sequence sorted by start; the two
/// need not be interleaved). Memory follows the host threads, streams,
/// devices and distinct kernel names, never the record count.
///
/// ```
/// use opguard_model::analysis::{DeviceActivity, LaunchEvidence, RegionBuilder, StreamLabels};
/// use opguard_model::{ArtifactSpec, Format, LaunchKind, ModelBuilder, ModelOptions, Provider};
/// use opguard_model::{ReadSummary, Sha256Digest, SliceClass};
///
/// let summary = ReadSummary::new(Sha256Digest::of(b"x"), Format::NsysSqlite, Provider::NsightSystems);
/// let artifact = ModelBuilder::new(&ModelOptions::new()).finish(summary, ArtifactSpec::new());
/// let mut region = RegionBuilder::new(artifact.artifact());
/// let thread = region.host_thread("42", "42");
/// region.launch(thread, LaunchKind::Direct, 0, 5)?;
/// let stream = region.device_stream(StreamLabels {
///     process: Some("42".into()), track: "42".into(), device: "0".into(), context: None, stream: "7".into(),
/// });
/// for (ts_ns, name) in [(10, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"), (15, "gemm")] {
///     let kernel = DeviceActivity { class: SliceClass::Kernel, name, ts_ns, dur_ns: 10, launch: LaunchEvidence::Proven };
///     region.device_activity(stream, kernel)?;
/// }
/// let region = region.finish(10);
/// assert_eq!((region.device_busy_ns, region.device_idle_ns), (15, 10));
/// assert_eq!(region.communication.busy_ns, 10);
/// assert_eq!(region.communication.overlapped_with_compute_ns, 5);
/// assert_eq!(region.communication.exposed_ns, 5);
/// # Ok::<(), opguard_model::analysis::OutOfOrder>(())
/// ```
pub struct RegionBuilder {
    region: LaunchRegion,
    threads: Vec<ThreadState>,
    thread_ids: HashMap<(String, String), usize>,
    streams: Vec<StreamState>,
    stream_ids: HashMap<StreamLabels, usize>,
    devices: Vec<(Option<String>, String, DeviceUnions)>,
    device_ids: HashMap<(Option<String>, String), usize>,
    any_device: DeviceUnions,
    kernel_totals: HashMap<String, (u64, i64)>,
    last_launch_ts: Option<i64>,
    last_device_ts: Option<i64>,
    start: Option<i64>,
    end: Option<i64>,
}

impl RegionBuilder {
    /// A region of `artifact` with nothing in it yet.
    pub fn new(artifact: &Artifact) -> Self {
        RegionBuilder {
            region: empty_region(artifact),
            threads: Vec::new(),
            thread_ids: HashMap::new(),
            streams: Vec::new(),
            stream_ids: HashMap::new(),
            devices: Vec::new(),
            device_ids: HashMap::new(),
            any_device: DeviceUnions::default(),
            kernel_totals: HashMap::new(),
            last_launch_ts: None,
            last_device_ts: None,
            start: None,
            end: None,
        }
    }

    /// The handle of the host thread (`pid`, `tid`), added when new.
    pub fn host_thread(&mut self, pid: &str, tid: &str) -> ThreadId {
        let threads = &mut self.threads;
        let id = *self
            .thread_ids
            .entry((pid.to_owned(), tid.to_owned()))
            .or_insert_with(|| {
                threads.push(ThreadState {
                    pid: pid.to_owned(),
                    tid: tid.to_owned(),
                    launches: 0,
                    last_end: None,
                    gap_count: 0,
                    gap_total_ns: 0,
                    gap_max_ns: 0,
                });
                threads.len() - 1
            });
        ThreadId(id)
    }

    /// The handle of a device stream, added when new. Its device is
    /// (process, device).
    pub fn device_stream(&mut self, labels: StreamLabels) -> StreamId {
        if let Some(&id) = self.stream_ids.get(&labels) {
            return StreamId(id);
        }
        let devices = &mut self.devices;
        let device = *self
            .device_ids
            .entry((labels.process.clone(), labels.device.clone()))
            .or_insert_with(|| {
                devices.push((
                    labels.process.clone(),
                    labels.device.clone(),
                    DeviceUnions::default(),
                ));
                devices.len() - 1
            });
        self.streams.push(StreamState {
            labels: labels.clone(),
            device,
            activities: 0,
            busy_ns: 0,
            covered_until: None,
            idle_gap_count: 0,
            idle_gap_total_ns: 0,
            idle_gap_max_ns: 0,
        });
        let id = self.streams.len() - 1;
        self.stream_ids.insert(labels, id);
        StreamId(id)
    }

    fn bounds(&mut self, ts_ns: i64, dur_ns: i64) {
        if dur_ns < 0 {
            self.region.coverage.negative_duration_slices += 1;
        }
        let end = ts_ns.saturating_add(dur_ns);
        self.start = Some(self.start.map_or(ts_ns, |s| s.min(ts_ns)));
        self.end = Some(self.end.map_or(end, |e| e.max(end)));
    }

    /// Adds a launch on `thread`. Launches must come in order of start.
    pub fn launch(
        &mut self,
        thread: ThreadId,
        kind: LaunchKind,
        ts_ns: i64,
        dur_ns: i64,
    ) -> Result<(), OutOfOrder> {
        in_order(&mut self.last_launch_ts, ts_ns)?;
        self.bounds(ts_ns, dur_ns);
        let counted = dur_ns.max(0);
        let r = &mut self.region;
        match kind {
            LaunchKind::Direct => {
                r.direct_launch_count += 1;
                r.direct_launch_duration_ns = r.direct_launch_duration_ns.saturating_add(counted);
            }
            LaunchKind::Graph => {
                r.graph_launch_count += 1;
                r.graph_launch_duration_ns = r.graph_launch_duration_ns.saturating_add(counted);
            }
        }
        let Some(t) = self.threads.get_mut(thread.0) else {
            return Ok(());
        };
        t.launches += 1;
        if let Some(last_end) = t.last_end {
            let gap = ts_ns.saturating_sub(last_end);
            if gap > 0 {
                t.gap_count += 1;
                t.gap_total_ns = t.gap_total_ns.saturating_add(gap);
                t.gap_max_ns = t.gap_max_ns.max(gap);
            }
        }
        t.last_end = Some(ts_ns.saturating_add(dur_ns));
        Ok(())
    }

    /// Adds a device activity on `stream`. Device activities must come in
    /// order of start (across all streams: device-level time is the union
    /// over them).
    pub fn device_activity(
        &mut self,
        stream: StreamId,
        a: DeviceActivity<'_>,
    ) -> Result<(), OutOfOrder> {
        if !a.class.is_device() {
            return Ok(());
        }
        in_order(&mut self.last_device_ts, a.ts_ns)?;
        self.bounds(a.ts_ns, a.dur_ns);
        let counted = a.dur_ns.max(0);
        let counted_end = a.ts_ns.saturating_add(counted);
        let r = &mut self.region;
        let collective = a.class == SliceClass::Kernel && classify::is_collective(a.name);
        match a.class {
            SliceClass::Kernel => {
                r.kernel_count += 1;
                r.kernel_duration_ns = r.kernel_duration_ns.saturating_add(counted);
                match self.kernel_totals.get_mut(a.name) {
                    Some(t) => {
                        t.0 += 1;
                        t.1 = t.1.saturating_add(counted);
                    }
                    None => {
                        self.kernel_totals.insert(a.name.to_owned(), (1, counted));
                    }
                }
                if a.launch != LaunchEvidence::NoId {
                    r.coverage.kernels_with_correlation_id += 1;
                }
                match a.launch {
                    LaunchEvidence::Proven => r.correlated_kernel_count += 1,
                    LaunchEvidence::Ambiguous => r.coverage.ambiguous_correlation_kernel_count += 1,
                    LaunchEvidence::OwnerUnknown => r.coverage.owner_unknown_kernel_count += 1,
                    LaunchEvidence::NoId | LaunchEvidence::Unproven => {}
                }
            }
            SliceClass::Memcpy | SliceClass::Memset => {
                r.memory_op_count += 1;
                r.memory_op_duration_ns = r.memory_op_duration_ns.saturating_add(counted);
            }
            _ => {}
        }
        self.any_device
            .add(a.class, collective, a.ts_ns, counted_end);
        let Some(st) = self.streams.get_mut(stream.0) else {
            return Ok(());
        };
        if let Some((_, _, device)) = self.devices.get_mut(st.device) {
            device.add(a.class, collective, a.ts_ns, counted_end);
        }
        // Busy is the union of the stream's activities; an idle gap is time
        // between the covered stretch and the next start.
        st.activities += 1;
        let end = a.ts_ns.saturating_add(a.dur_ns);
        match st.covered_until {
            Some(until) if a.ts_ns > until => {
                let gap = a.ts_ns.saturating_sub(until);
                st.idle_gap_count += 1;
                st.idle_gap_total_ns = st.idle_gap_total_ns.saturating_add(gap);
                st.idle_gap_max_ns = st.idle_gap_max_ns.max(gap);
                st.busy_ns = st.busy_ns.saturating_add(counted);
                st.covered_until = Some(end);
            }
            Some(until) => {
                st.busy_ns = st.busy_ns.saturating_add(end.saturating_sub(until).max(0));
                st.covered_until = Some(until.max(end));
            }
            None => {
                st.busy_ns = st.busy_ns.saturating_add(counted);
                st.covered_until = Some(end);
            }
        }
        Ok(())
    }

    /// The region: bounds, counts, the `top` kernel identities, gaps per
    /// thread, busy and idle per stream, per device and over all devices,
    /// and communication against computation.
    pub fn finish(self, top: usize) -> LaunchRegion {
        let mut r = self.region;
        r.region_start_ns = self.start;
        r.region_end_ns = self.end;
        r.region_duration_ns = self.start.zip(self.end).map(|(s, e)| e.saturating_sub(s));
        let region_ns = r.region_duration_ns.unwrap_or(0);
        r.coverage.correlation_ids_present = r.coverage.kernels_with_correlation_id > 0;
        r.coverage.host_to_device_correlation_proven = r.correlated_kernel_count > 0;
        let mut gaps: Vec<HostTrackGaps> = self
            .threads
            .into_iter()
            .map(|t| HostTrackGaps {
                pid: t.pid,
                tid: t.tid,
                launches: t.launches,
                gap_count: t.gap_count,
                gap_total_ns: t.gap_total_ns,
                gap_max_ns: t.gap_max_ns,
            })
            .filter(|t| t.launches > 0)
            .collect();
        gaps.sort_by(|a, b| (&a.pid, &a.tid).cmp(&(&b.pid, &b.tid)));
        r.launch_gaps = gaps;
        let mut streams: Vec<StreamIdle> = self
            .streams
            .into_iter()
            .filter(|s| s.activities > 0)
            .map(|s| StreamIdle {
                process: s.labels.process,
                track: s.labels.track,
                device: s.labels.device,
                context: s.labels.context,
                stream: s.labels.stream,
                activities: s.activities,
                busy_ns: s.busy_ns,
                idle_gap_count: s.idle_gap_count,
                idle_gap_total_ns: s.idle_gap_total_ns,
                idle_gap_max_ns: s.idle_gap_max_ns,
            })
            .collect();
        streams.sort_by(|a, b| {
            (&a.process, &a.track, &a.device, &a.context, &a.stream)
                .cmp(&(&b.process, &b.track, &b.device, &b.context, &b.stream))
        });
        r.idle_gap_total_ns = streams
            .iter()
            .fold(0i64, |total, s| total.saturating_add(s.idle_gap_total_ns));
        r.streams = streams;
        let mut devices: Vec<DeviceTime> = self
            .devices
            .into_iter()
            .filter(|(_, _, d)| d.activities > 0)
            .map(|(process, device, d)| DeviceTime {
                process,
                device,
                activities: d.activities,
                busy_ns: d.all.measure,
                idle_ns: region_ns.saturating_sub(d.all.measure).max(0),
                communication: d.communication(),
            })
            .collect();
        devices.sort_by(|a, b| (&a.process, &a.device).cmp(&(&b.process, &b.device)));
        r.devices = devices;
        r.device_busy_ns = self.any_device.all.measure;
        r.device_idle_ns = region_ns.saturating_sub(r.device_busy_ns).max(0);
        r.communication = self.any_device.communication();
        r.top_kernels = top_kernels(self.kernel_totals, top);
        r
    }
}

fn in_order(last: &mut Option<i64>, ts_ns: i64) -> Result<(), OutOfOrder> {
    if let Some(previous_ns) = *last {
        if ts_ns < previous_ns {
            return Err(OutOfOrder { ts_ns, previous_ns });
        }
    }
    *last = Some(ts_ns);
    Ok(())
}
