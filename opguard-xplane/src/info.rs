//! What a file holds, plane by plane: what `trace info` shows, with what
//! opguard does not model counted and named rather than dropped.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::kinds::{Activity, LineKind, PlaneKind};
use crate::space::{EventView, Line, Plane, Visitor, XSpaceFile};

/// One plane's counts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlaneInfo {
    /// `XPlane.name`.
    pub name: String,
    /// What it is.
    pub kind: PlaneKind,
    /// Lines.
    pub lines: u64,
    /// Events, all lines.
    pub events: u64,
    /// Events by what they are ([`Activity::NotModeled`] for the events of
    /// lines that are not modeled).
    pub activities: BTreeMap<Activity, u64>,
    /// Lines that are not modeled, by name (a thread or stream number at
    /// the end of a name is kept), with their events.
    pub lines_not_modeled: BTreeMap<String, u64>,
    /// Sum of the events' durations in picoseconds, by activity.
    pub duration_ps: BTreeMap<Activity, i128>,
}

/// A whole file's counts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct XSpaceInfo {
    /// SHA-256 of the file, hex.
    pub sha256: String,
    /// The file's size.
    pub encoded_bytes: u64,
    /// `XSpace.hostnames`.
    pub hostnames: Vec<String>,
    /// `XSpace.errors`.
    pub errors: Vec<String>,
    /// `XSpace.warnings`.
    pub warnings: Vec<String>,
    /// The planes, in file order.
    pub planes: Vec<PlaneInfo>,
    /// Every event of the file.
    pub events: u64,
    /// Fields the schema does not have (skipped).
    pub unknown_fields: u64,
}

impl XSpaceInfo {
    /// Reads every plane, line and event of `space`.
    pub fn of(space: &XSpaceFile) -> Result<XSpaceInfo, Error> {
        let mut info = XSpaceInfo {
            sha256: space.sha256_hex(),
            encoded_bytes: space.encoded_bytes(),
            hostnames: space.hostnames().to_vec(),
            errors: space.errors().to_vec(),
            warnings: space.warnings().to_vec(),
            planes: Vec::new(),
            events: 0,
            unknown_fields: space.unknown_fields(),
        };
        space.visit(&mut info)?;
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
        self.planes.push(PlaneInfo {
            name: plane.name.to_owned(),
            kind: plane.kind,
            lines: plane.line_count() as u64,
            events: 0,
            activities: BTreeMap::new(),
            lines_not_modeled: BTreeMap::new(),
            duration_ps: BTreeMap::new(),
        });
        Ok(())
    }

    fn line(&mut self, _: &Plane<'_>, line: &Line<'_>) -> Result<(), Error> {
        if line.kind != LineKind::HostThread && line.kind != LineKind::GpuStream {
            if let Some(p) = self.planes.last_mut() {
                *p.lines_not_modeled.entry(line.name.to_owned()).or_default() += line.event_count;
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
        Ok(())
    }
}
