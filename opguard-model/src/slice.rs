//! Model stage: the timed records of a capture, what each one is, and what
//! its correlation proves.

use crate::identity::Sha256Digest;

/// What kind of thing a slice is. Readers decide it by the rules in
/// [`crate::classify`] (one rule per provider, written once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SliceClass {
    /// A host runtime/driver call that launched device work: its name is a
    /// kernel-launch API, or a device kernel is correlated with it.
    Launch(LaunchKind),
    /// Any other host runtime/driver call (memcpy API, sync, attribute...).
    Runtime,
    /// A device kernel.
    Kernel,
    /// A device memory copy.
    Memcpy,
    /// A device memory set.
    Memset,
    /// Other device activity that is neither a kernel nor a memory
    /// operation.
    DeviceOther,
    /// A host operator (PyTorch's `cpu_op`, an XLA operation).
    CpuOp,
    /// A named host range on its thread: `record_function` /
    /// `user_annotation`, NVTX and roctx ranges.
    UserAnnotation,
    /// An annotation re-emitted on the device timeline
    /// (`gpu_user_annotation`): never evidence of host nesting.
    GpuUserAnnotation,
    /// A Python frame (`python_function`).
    PythonFunction,
    /// Anything else.
    Other,
}

impl SliceClass {
    /// Whether the slice is device activity (kernels, copies, sets, other).
    pub fn is_device(self) -> bool {
        matches!(
            self,
            SliceClass::Kernel | SliceClass::Memcpy | SliceClass::Memset | SliceClass::DeviceOther
        )
    }
    /// Whether the slice is a host runtime/driver call (launch or not).
    pub fn is_runtime(self) -> bool {
        matches!(self, SliceClass::Launch(_) | SliceClass::Runtime)
    }
}

/// Direct kernel launch or graph launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchKind {
    /// `cudaLaunchKernel`, `cuLaunchKernelEx`, `hipExtModuleLaunchKernel`...
    Direct,
    /// `cudaGraphLaunch`, `hipGraphLaunch`...: one launch, many kernels.
    Graph,
}

/// An interned string of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub(crate) u32);

/// A `pid`, `tid` or id value: integers inline, anything else interned.
/// Numbers and strings never compare equal (`7` is not `"7"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdValue {
    /// An integer within `i64`.
    Int(i64),
    /// A number beyond `i64`, as its exact text.
    BigNumber(NameId),
    /// A string.
    Text(NameId),
}

/// One timed record: a Chrome trace's complete (`ph: "X"`) event, a row of
/// an export's activity table, an XSpace event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// Its occurrence index in the artifact (a Chrome trace's `traceEvents`
    /// index; each native reader documents its order).
    pub index: u64,
    /// What it is.
    pub class: SliceClass,
    /// `name`.
    pub name: NameId,
    /// `cat`: the category as the capture names it.
    pub cat: NameId,
    /// `pid`: the track's process as written (for Kineto's device rows, the
    /// device).
    pub pid: Option<IdValue>,
    /// `tid`: the track's thread as written (for Kineto's device rows, the
    /// stream).
    pub tid: Option<IdValue>,
    /// The process whose correlation namespace the slice belongs to: a host
    /// slice's own process; for a device slice, the process that owns it
    /// when that is established (see the table in [`crate::provider`]),
    /// else `None` and its launch cannot be proven.
    pub process: Option<IdValue>,
    /// Start, nanoseconds in the artifact's clock domain.
    pub ts_ns: i64,
    /// Duration in nanoseconds.
    pub dur_ns: i64,
    /// `args.correlation`.
    pub correlation: Option<IdValue>,
    /// `args["External id"]`.
    pub external_id: Option<IdValue>,
    /// `args.device`.
    pub device: Option<IdValue>,
    /// `args.context`.
    pub context: Option<IdValue>,
    /// `args.stream`.
    pub stream: Option<IdValue>,
}

impl Slice {
    /// End in nanoseconds (`ts + dur`).
    pub fn end_ns(&self) -> i64 {
        self.ts_ns.saturating_add(self.dur_ns)
    }

    /// The duration every analysis adds up: `dur`, or 0 when it is negative
    /// (an event that ends before it starts adds no time anywhere; analyses
    /// count such slices instead).
    pub fn counted_dur_ns(&self) -> i64 {
        self.dur_ns.max(0)
    }

    /// `ts` plus [`Slice::counted_dur_ns`].
    pub fn counted_end_ns(&self) -> i64 {
        self.ts_ns.saturating_add(self.counted_dur_ns())
    }
}

/// Start or end of a flow arrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowPhase {
    /// `ph: "s"`.
    Start,
    /// `ph: "f"`.
    End,
}

/// One end of a flow (`ph` `s` or `f`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowPoint {
    /// Its `traceEvents` index.
    pub index: u64,
    /// Start or end.
    pub phase: FlowPhase,
    /// `cat` (Kineto's launch flows are `ac2g`).
    pub cat: NameId,
    /// `id`.
    pub id: IdValue,
    /// `pid`.
    pub pid: Option<IdValue>,
    /// `tid`.
    pub tid: Option<IdValue>,
    /// `ts` in nanoseconds.
    pub ts_ns: i64,
}

/// What a device slice's correlation proves about its launch
/// ([`TraceModel::launch_proof`](crate::TraceModel::launch_proof)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchProof<'m> {
    /// Nothing is proven, for the reason given.
    Unproven(Unproven),
    /// Exactly one host launch of the slice's owning process carries its
    /// id: that launch's slice position.
    Proven(usize),
    /// Several host launches of the owning process carry it: nothing is
    /// proven.
    Ambiguous(&'m [usize]),
}

/// Why a device slice's launch is not proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unproven {
    /// Not device activity.
    NotDevice,
    /// The provider defines no qualified correlation namespace.
    NoNamespace,
    /// The slice carries no correlation id.
    NoId,
    /// It carries an id, but which process owns it is not established (a
    /// file with several launching processes): ids are unique per process
    /// only, so a matching id proves nothing.
    OwnerUnknown,
    /// No launch row of its process carries the id.
    NoLaunch,
}

impl LaunchProof<'_> {
    /// The proven launch, if exactly one.
    pub fn launch(self) -> Option<usize> {
        match self {
            LaunchProof::Proven(i) => Some(i),
            _ => None,
        }
    }
}

/// A qualified correlation key: which namespace, inside which artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CorrelationKey {
    /// A launch-to-device correlation id, per artifact and owning process.
    Correlation {
        /// The artifact.
        artifact: Sha256Digest,
        /// The owning process.
        process: IdValue,
        /// The id.
        correlation: IdValue,
    },
    /// Kineto `External id`, per artifact and host process.
    ExternalId {
        /// The artifact.
        artifact: Sha256Digest,
        /// The host process.
        pid: IdValue,
        /// The id.
        external_id: IdValue,
    },
    /// A flow id, per artifact.
    Flow {
        /// The artifact.
        artifact: Sha256Digest,
        /// The id.
        id: IdValue,
    },
}

/// The host slices of one (name, category, class), added up instead of kept
/// ([`ModelOptions::host_totals`](crate::ModelOptions::host_totals)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTotal {
    /// What the slices are (never runtime or device activity).
    pub class: SliceClass,
    /// `name`.
    pub name: NameId,
    /// `cat`.
    pub cat: NameId,
    /// Slices.
    pub count: u64,
    /// Sum of their [`Slice::counted_dur_ns`], saturating.
    pub counted_dur_ns: i64,
}
