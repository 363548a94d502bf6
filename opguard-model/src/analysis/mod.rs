//! Analysis stage: results computed from [`TraceModel`](crate::TraceModel)s,
//! whatever format fed them.

pub mod launch;
pub mod region;

pub use launch::{
    aggregate, launch_region, launch_region_of, ArtifactReused, Communication, Coverage,
    DeviceTime, HostTrackGaps, KernelTotal, LaunchRegion, Provenance, RegionAggregate, StreamIdle,
    DEFAULT_TOP_KERNELS,
};
pub use region::{
    DeviceActivity, LaunchEvidence, OutOfOrder, RegionBuilder, StreamId, StreamLabels, ThreadId,
};
