//! Analysis stage: results computed from [`TraceModel`](crate::TraceModel)s,
//! whatever format fed them.

pub mod launch;

pub use launch::{
    aggregate, launch_region, Coverage, HostTrackGaps, KernelTotal, LaunchRegion, Provenance,
    RegionAggregate, StreamIdle, DEFAULT_TOP_KERNELS,
};
