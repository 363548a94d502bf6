//! What opguard makes of planes, lines, stats and events: the XSpace
//! conventions of XLA's profilers (CUPTI and ROCm collectors, the host
//! tracer, JAX's Python tracer), named once.

use crate::space::{EventView, Plane, StatValue};

/// The producer a plane states: `jax <version>` from the `jax_version`
/// stat JAX 0.10 writes on `/host:metadata`.
pub(crate) fn producer(plane: &Plane<'_>) -> Option<String> {
    if plane.kind != PlaneKind::HostMetadata {
        return None;
    }
    match plane.stat("jax_version") {
        Some(StatValue::Str(version)) => Some(format!("jax {version}")),
        _ => None,
    }
}

/// Serialized as their stable names (`as_str`).
macro_rules! serialize_as_str {
    ($($ty:ty),*) => {$(
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    )*};
}

serialize_as_str!(PlaneKind, LineKind, Activity);

/// What a plane is, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum PlaneKind {
    /// `/host:CPU`: one line per host thread.
    HostCpu,
    /// `/device:GPU:N`: one line per stream, plus lines XLA derives from
    /// them.
    Gpu {
        /// `N`.
        ordinal: u32,
    },
    /// `/device:TPU:N` (not modeled: counted and named).
    Tpu {
        /// `N`.
        ordinal: u32,
    },
    /// `/host:metadata`: serialized HLO modules, no events.
    HostMetadata,
    /// `Task Environment`: the profile's start and stop times, no events.
    TaskEnvironment,
    /// Any other plane (`/device:CUSTOM:...`, ...): not modeled.
    Other,
}

impl PlaneKind {
    /// The kind of a plane named `name`.
    pub fn from_name(name: &str) -> PlaneKind {
        let ordinal = |prefix: &str| name.strip_prefix(prefix).and_then(|n| n.parse().ok());
        if name == "/host:CPU" {
            PlaneKind::HostCpu
        } else if let Some(ordinal) = ordinal("/device:GPU:") {
            PlaneKind::Gpu { ordinal }
        } else if let Some(ordinal) = ordinal("/device:TPU:") {
            PlaneKind::Tpu { ordinal }
        } else if name == "/host:metadata" {
            PlaneKind::HostMetadata
        } else if name == "Task Environment" {
            PlaneKind::TaskEnvironment
        } else {
            PlaneKind::Other
        }
    }

    /// A stable name for output.
    pub fn as_str(self) -> &'static str {
        match self {
            PlaneKind::HostCpu => "host",
            PlaneKind::Gpu { .. } => "gpu",
            PlaneKind::Tpu { .. } => "tpu",
            PlaneKind::HostMetadata => "host_metadata",
            PlaneKind::TaskEnvironment => "task_environment",
            PlaneKind::Other => "other",
        }
    }
}

/// What a line is, from its plane and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LineKind {
    /// A thread of `/host:CPU` (its id is the thread's; `Host Threads/N`
    /// lines hold the runtime API calls the GPU collector saw).
    HostThread,
    /// A stream of a GPU plane (`Stream #N(...)`; its id is the stream's).
    GpuStream,
    /// Another line of a GPU plane: XLA derives `XLA Modules`, `XLA Ops`,
    /// `TensorFlow Ops`, `Steps`, ... from the streams' events, so reading
    /// them as device work would count it twice. Not modeled.
    GpuDerived,
    /// A line of a plane that is not modeled.
    NotModeled,
}

impl LineKind {
    pub(crate) fn new(plane: PlaneKind, name: &str) -> LineKind {
        match plane {
            PlaneKind::HostCpu => LineKind::HostThread,
            PlaneKind::Gpu { .. } if name.starts_with("Stream #") => LineKind::GpuStream,
            PlaneKind::Gpu { .. } => LineKind::GpuDerived,
            _ => LineKind::NotModeled,
        }
    }

    /// A stable name for output.
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::HostThread => "host_thread",
            LineKind::GpuStream => "gpu_stream",
            LineKind::GpuDerived => "gpu_derived",
            LineKind::NotModeled => "not_modeled",
        }
    }

    /// Whether its events become the model's slices.
    pub fn is_modeled(self) -> bool {
        matches!(self, LineKind::HostThread | LineKind::GpuStream)
    }
}

/// The stats opguard reads, by their XSpace names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KnownStat {
    /// `correlation_id`: a runtime API call and the device work it caused
    /// share it (unique within one process).
    CorrelationId,
    /// `device_id`.
    DeviceId,
    /// `context_id`.
    ContextId,
    /// `hlo_op`: the HLO instruction an event ran.
    HloOp,
    /// `hlo_module`: its module.
    HloModule,
    /// `tf_op`: the framework op (`jit(f)/dot_general`, TensorFlow's
    /// `name:Type`).
    TfOp,
    /// `kernel_details`: launch geometry of a kernel.
    KernelDetails,
    /// `memcpy_details`: a copy's kind and size.
    MemcpyDetails,
    /// `memset_details`: a set's size.
    MemsetDetails,
    /// `program_id`.
    ProgramId,
}

impl KnownStat {
    /// Every known stat.
    pub const ALL: [KnownStat; 10] = [
        KnownStat::CorrelationId,
        KnownStat::DeviceId,
        KnownStat::ContextId,
        KnownStat::HloOp,
        KnownStat::HloModule,
        KnownStat::TfOp,
        KnownStat::KernelDetails,
        KnownStat::MemcpyDetails,
        KnownStat::MemsetDetails,
        KnownStat::ProgramId,
    ];

    /// Its name in an XSpace.
    pub fn name(self) -> &'static str {
        match self {
            KnownStat::CorrelationId => "correlation_id",
            KnownStat::DeviceId => "device_id",
            KnownStat::ContextId => "context_id",
            KnownStat::HloOp => "hlo_op",
            KnownStat::HloModule => "hlo_module",
            KnownStat::TfOp => "tf_op",
            KnownStat::KernelDetails => "kernel_details",
            KnownStat::MemcpyDetails => "memcpy_details",
            KnownStat::MemsetDetails => "memset_details",
            KnownStat::ProgramId => "program_id",
        }
    }

    /// The known stat named `name`.
    pub fn from_name(name: &str) -> Option<KnownStat> {
        KnownStat::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What one event is, for opguard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Activity {
    /// A kernel on a GPU stream (`kernel_details`, or no other details).
    Kernel,
    /// A copy on a GPU stream (`memcpy_details`).
    Memcpy,
    /// A set on a GPU stream (`memset_details`).
    Memset,
    /// A runtime or driver API call on a host thread: it carries a
    /// `correlation_id`, the key of the device work it caused.
    RuntimeCall,
    /// An XLA operation on a host thread (`hlo_op`; CPU backends run them
    /// there).
    XlaOp,
    /// Any other host event: Python frames, annotations, the runtime's own
    /// spans.
    HostEvent,
    /// An aggregate (`num_occurrences`): no time of its own.
    Aggregate,
    /// An event of a line that is not modeled.
    NotModeled,
}

impl Activity {
    /// What `event` is.
    pub fn of(event: &EventView<'_>) -> Activity {
        if event.is_aggregate() {
            return Activity::Aggregate;
        }
        match event.line().kind {
            LineKind::GpuStream => {
                if event.stat(KnownStat::MemcpyDetails).is_some() {
                    Activity::Memcpy
                } else if event.stat(KnownStat::MemsetDetails).is_some() {
                    Activity::Memset
                } else {
                    Activity::Kernel
                }
            }
            LineKind::HostThread => {
                if event.stat(KnownStat::CorrelationId).is_some() {
                    Activity::RuntimeCall
                } else if event.stat(KnownStat::HloOp).is_some() {
                    Activity::XlaOp
                } else {
                    Activity::HostEvent
                }
            }
            _ => Activity::NotModeled,
        }
    }

    /// A stable name for output.
    pub fn as_str(self) -> &'static str {
        match self {
            Activity::Kernel => "kernel",
            Activity::Memcpy => "memcpy",
            Activity::Memset => "memset",
            Activity::RuntimeCall => "runtime_call",
            Activity::XlaOp => "xla_op",
            Activity::HostEvent => "host_event",
            Activity::Aggregate => "aggregate",
            Activity::NotModeled => "not_modeled",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_and_line_names() {
        assert_eq!(
            PlaneKind::from_name("/device:GPU:7"),
            PlaneKind::Gpu { ordinal: 7 }
        );
        assert_eq!(PlaneKind::from_name("/device:GPU:x"), PlaneKind::Other);
        assert_eq!(
            PlaneKind::from_name("/device:TPU:0"),
            PlaneKind::Tpu { ordinal: 0 }
        );
        assert_eq!(
            PlaneKind::from_name("/device:CUSTOM:Megascale Trace"),
            PlaneKind::Other
        );
        let gpu = PlaneKind::Gpu { ordinal: 0 };
        assert_eq!(
            LineKind::new(gpu, "Stream #16(Kernel)"),
            LineKind::GpuStream
        );
        assert_eq!(LineKind::new(gpu, "Stream #2"), LineKind::GpuStream);
        assert_eq!(LineKind::new(gpu, "XLA Ops"), LineKind::GpuDerived);
        assert_eq!(
            LineKind::new(PlaneKind::Tpu { ordinal: 0 }, "XLA Ops"),
            LineKind::NotModeled
        );
        for k in KnownStat::ALL {
            assert_eq!(KnownStat::from_name(k.name()), Some(k));
        }
    }
}
