//! What a file holds, plane by plane and line by line: what `trace info`
//! shows, with what opguard does not model counted and named rather than
//! dropped.

use std::collections::BTreeMap;

use opguard_model::{Provider, Sha256Digest};
use serde::Serialize;

use crate::error::Error;
use crate::kinds::{Activity, LineKind, PlaneKind};
use crate::space::{EventView, Line, Plane, Visitor, XSpaceFile};

/// One line's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LineInfo {
    /// `XLine.name`.
    pub name: String,
    /// `XLine.id` (a host thread's id, a GPU stream's number).
    pub id: i64,
    /// What opguard makes of it.
    pub kind: LineKind,
    /// Its events.
    pub events: u64,
}

/// One plane's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PlaneInfo {
    /// `XPlane.name`.
    pub name: String,
    /// What it is.
    pub kind: PlaneKind,
    /// Its lines, in file order.
    pub lines: Vec<LineInfo>,
    /// Events, all lines.
    pub events: u64,
    /// Events by what they are ([`Activity::NotModeled`] for the events of
    /// lines that are not modeled).
    pub activities: BTreeMap<Activity, u64>,
    /// Lines that are not modeled, by name, with their events.
    pub lines_not_modeled: BTreeMap<String, u64>,
    /// Sum of the events' durations in picoseconds, by activity.
    pub duration_ps: BTreeMap<Activity, i128>,
}

/// The span of a file's timed events, in nanoseconds of its clock
/// (picoseconds rounded half to even, as [`EventView::ts_ns`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TimeSpan {
    /// Earliest start.
    pub start_ns: i64,
    /// Latest end.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub duration_ns: i64,
    /// Events with a time (every event but aggregates).
    pub timed_events: u64,
}

/// A whole file's facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct XSpaceInfo {
    /// SHA-256 of the file (hex in JSON).
    pub sha256: Sha256Digest,
    /// Who wrote it: XLA's profiler ([`Provider::Xla`]), or the caller's
    /// choice.
    pub provider: Provider,
    /// `jax <version>` when `/host:metadata` states it.
    pub producer: Option<String>,
    /// The clock domain of its times: its own (`artifact:<sha256>`).
    pub clock_domain: String,
    /// The file's size.
    pub encoded_bytes: u64,
    /// Bytes decoded: the file's, plus any inflated from compressed stats.
    pub decoded_bytes: u64,
    /// `XSpace.hostnames`.
    pub hostnames: Vec<String>,
    /// `XSpace.errors`: what the profiler reported failing.
    pub errors: Vec<String>,
    /// `XSpace.warnings`.
    pub warnings: Vec<String>,
    /// The planes, in file order.
    pub planes: Vec<PlaneInfo>,
    /// Every event of the file.
    pub events: u64,
    /// Events of planes and lines opguard does not model (TPU and custom
    /// planes, lines XLA derives from the GPU streams).
    pub events_not_modeled: u64,
    /// The span of the timed events; `None` when there are none.
    pub time_span: Option<TimeSpan>,
    /// Fields the schema does not have (skipped).
    pub unknown_fields: u64,
}

impl XSpaceInfo {
    /// Reads every plane, line and event of `space`.
    pub fn of(space: &XSpaceFile) -> Result<XSpaceInfo, Error> {
        let sha256 = Sha256Digest(space.sha256());
        let mut info = XSpaceInfo {
            sha256,
            provider: Provider::Xla,
            producer: None,
            clock_domain: format!("artifact:{sha256}"),
            encoded_bytes: space.encoded_bytes(),
            decoded_bytes: 0,
            hostnames: space.hostnames().to_vec(),
            errors: space.errors().to_vec(),
            warnings: space.warnings().to_vec(),
            planes: Vec::new(),
            events: 0,
            events_not_modeled: 0,
            time_span: None,
            unknown_fields: space.unknown_fields(),
        };
        space.visit(&mut info)?;
        info.decoded_bytes = space.decoded_bytes();
        Ok(info)
    }

    /// Events of `activity` in the whole file.
    pub fn count(&self, activity: Activity) -> u64 {
        self.planes
            .iter()
            .filter_map(|p| p.activities.get(&activity))
            .sum()
    }
}

impl Visitor for XSpaceInfo {
    fn plane(&mut self, plane: &Plane<'_>) -> Result<(), Error> {
        self.unknown_fields += plane.unknown_fields;
        if let Some(producer) = crate::kinds::producer(plane) {
            self.producer = Some(producer);
        }
        self.planes.push(PlaneInfo {
            name: plane.name.to_owned(),
            kind: plane.kind,
            lines: Vec::with_capacity(plane.line_count()),
            events: 0,
            activities: BTreeMap::new(),
            lines_not_modeled: BTreeMap::new(),
            duration_ps: BTreeMap::new(),
        });
        Ok(())
    }

    fn line(&mut self, _: &Plane<'_>, line: &Line<'_>) -> Result<(), Error> {
        if let Some(p) = self.planes.last_mut() {
            p.lines.push(LineInfo {
                name: line.name.to_owned(),
                id: line.id,
                kind: line.kind,
                events: line.event_count,
            });
            if !line.kind.is_modeled() {
                *p.lines_not_modeled.entry(line.name.to_owned()).or_default() += line.event_count;
                self.events_not_modeled += line.event_count;
            }
        }
        Ok(())
    }

    fn event(&mut self, event: &EventView<'_>) -> Result<(), Error> {
        let activity = Activity::of(event);
        self.events += 1;
        if let Some(p) = self.planes.last_mut() {
            p.events += 1;
            *p.activities.entry(activity).or_default() += 1;
            *p.duration_ps.entry(activity).or_default() += i128::from(event.dur_ps());
        }
        if let Some(start) = event.ts_ns()? {
            let end = start.saturating_add(event.dur_ns()?);
            let span = self.time_span.get_or_insert(TimeSpan {
                start_ns: start,
                end_ns: end,
                duration_ns: 0,
                timed_events: 0,
            });
            span.start_ns = span.start_ns.min(start);
            span.end_ns = span.end_ns.max(end);
            span.duration_ns = span.end_ns.saturating_sub(span.start_ns);
            span.timed_events += 1;
        }
        Ok(())
    }
}
