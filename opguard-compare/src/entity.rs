//! Model: what is compared — an entity, and the key that joins it across
//! runs and formats.

use serde::{Deserialize, Serialize};

/// What kind of thing an entity is, and so how it is joined across runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EntityKind {
    /// A device kernel, joined by its canonical kernel identity
    /// (`opguard-kernel-name`'s qualified identity: template arguments
    /// kept, spelling and mangling not), whatever the format.
    Kernel,
    /// A device memory copy or set, joined by its canonical identity.
    Memory,
    /// Other device activity, joined by its canonical identity.
    DeviceOther,
    /// A host operator (PyTorch's `cpu_op`, an XLA operation, a host slice
    /// the trace does not classify), joined by semantic frame.
    HostOp,
    /// A named host range (`record_function`, NVTX, roctx) other than the
    /// steps themselves, joined by semantic frame.
    Region,
    /// A host runtime or driver call (`cudaLaunchKernel`, `hipMemcpy`),
    /// joined by semantic frame.
    Runtime,
    /// A Python function, joined by semantic frame (only when asked:
    /// [`CompareOptions::python_frames`](crate::CompareOptions::python_frames)).
    PythonFunction,
    /// A whole sample: the time at least one device activity ran (the
    /// union over every device and stream).
    DeviceBusy,
    /// A whole sample: the time one device stream was busy, joined by its
    /// device and stream as the trace labels them.
    StreamBusy,
    /// A whole sample: from the first launch or device activity to the last
    /// end.
    LaunchRegion,
    /// A whole sample: the step range's own length (per-step samples only).
    StepDuration,
}

impl EntityKind {
    /// The name the JSON uses (`kernel`, `host_op`, `device_busy`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EntityKind::Kernel => "kernel",
            EntityKind::Memory => "memory",
            EntityKind::DeviceOther => "device_other",
            EntityKind::HostOp => "host_op",
            EntityKind::Region => "region",
            EntityKind::Runtime => "runtime",
            EntityKind::PythonFunction => "python_function",
            EntityKind::DeviceBusy => "device_busy",
            EntityKind::StreamBusy => "stream_busy",
            EntityKind::LaunchRegion => "launch_region",
            EntityKind::StepDuration => "step_duration",
        }
    }

    /// Whether this is a figure of a whole sample (device busy time, a
    /// stream's busy time, the launch region, the step) rather than of one
    /// kernel or operation.
    pub fn is_total(self) -> bool {
        matches!(
            self,
            EntityKind::DeviceBusy
                | EntityKind::StreamBusy
                | EntityKind::LaunchRegion
                | EntityKind::StepDuration
        )
    }

    /// Whether entities of this kind are device work (joined by kernel
    /// identity rather than by semantic frame).
    pub fn is_device(self) -> bool {
        matches!(
            self,
            EntityKind::Kernel | EntityKind::Memory | EntityKind::DeviceOther
        )
    }
}

/// What joins an entity across runs: its kind and its key — a canonical
/// kernel identity, a semantic frame id (`sf3:...`), or a stream's
/// `device D stream S`. Never a position or a timestamp.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EntityKey {
    /// The kind.
    pub kind: EntityKind,
    /// The key within the kind.
    pub key: String,
}

impl EntityKey {
    /// A key of `kind`.
    pub fn new(kind: EntityKind, key: impl Into<String>) -> EntityKey {
        EntityKey {
            kind,
            key: key.into(),
        }
    }
}

/// One entity's cost in one sample.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// Total duration, ns (negative durations add nothing).
    pub ns: i64,
    /// Slices that contributed.
    pub calls: u64,
}

impl Cost {
    /// Adds one slice of `ns` nanoseconds.
    pub fn add(&mut self, ns: i64) {
        self.ns = self.ns.saturating_add(ns.max(0));
        self.calls += 1;
    }
}
