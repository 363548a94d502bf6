//! Analysis stage: results computed from [`TraceModel`](crate::model::TraceModel)s.

pub mod info;
pub mod launch;

pub use info::{trace_info, Count, TimeSpan, TraceInfo, Warning};

pub use launch::{
    aggregate, launch_region, Coverage, HostTrackGaps, KernelTotal, LaunchRegion, Provenance,
    RegionAggregate, StreamIdle, DEFAULT_TOP_KERNELS,
};
