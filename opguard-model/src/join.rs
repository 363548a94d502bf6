//! Model stage: the launch join — which process owns each device record,
//! which runtime calls are launches, and what a device record's correlation
//! proves — written once for the model's slices and for compact rows a
//! consumer keeps while records stream past ([`LaunchJoin`]).

use std::collections::HashMap;

use crate::builder::SliceRecord;
use crate::classify;
use crate::index::SliceIndex;
use crate::provider::Provider;
use crate::slice::{IdValue, LaunchKind, LaunchProof, Slice, SliceClass, Unproven};

/// What the join reads of a record, and the one thing it settles (the
/// owning process).
pub(crate) trait JoinFields {
    fn class(&self) -> SliceClass;
    fn process(&self) -> Option<IdValue>;
    fn set_process(&mut self, process: Option<IdValue>);
    fn correlation(&self) -> Option<IdValue>;
}

impl JoinFields for Slice {
    fn class(&self) -> SliceClass {
        self.class
    }
    fn process(&self) -> Option<IdValue> {
        self.process
    }
    fn set_process(&mut self, process: Option<IdValue>) {
        self.process = process;
    }
    fn correlation(&self) -> Option<IdValue> {
        self.correlation
    }
}

/// Records whose owning process is settled at the end: device activity and
/// device-timeline annotations.
fn is_device_side(class: SliceClass) -> bool {
    class.is_device() || class == SliceClass::GpuUserAnnotation
}

/// Settles the owning process of every device row the reader left
/// without one (a Chrome trace's device rows say nothing of it), and
/// returns how many processes made runtime calls (0, 1, or 2 for several):
///
/// - one launching process: its device work is that process's;
/// - several (a merge of ranks) whose launch rows never share an id (a
///   merge that prefixes ids per rank, as seed 001's merged traces do): the
///   process whose launch rows carry the row's id;
/// - several that reuse ids (each rank numbered its own): none. Ids are
///   unique per process only, so a matching id, even one that survives in
///   one process's launch rows only, says nothing about whose kernel it is.
pub(crate) fn settle_owners<R: JoinFields>(rows: &mut [R]) -> usize {
    let mut launching: Vec<IdValue> = Vec::new();
    for p in rows
        .iter()
        .filter(|s| s.class().is_runtime())
        .filter_map(|s| s.process())
    {
        if !launching.contains(&p) {
            launching.push(p);
        }
    }
    let needs_owner = |s: &R| is_device_side(s.class()) && s.process().is_none();
    match launching.as_slice() {
        [] => {}
        [sole] => {
            let sole = *sole;
            for s in rows.iter_mut().filter(|s| needs_owner(s)) {
                s.set_process(Some(sole));
            }
        }
        _ => {
            let mut owner_of_id: HashMap<IdValue, IdValue> = HashMap::new();
            let mut reused = false;
            for s in rows.iter().filter(|s| s.class().is_runtime()) {
                let (Some(process), Some(id)) = (s.process(), s.correlation()) else {
                    continue;
                };
                if *owner_of_id.entry(id).or_insert(process) != process {
                    reused = true;
                    break;
                }
            }
            if !reused {
                for s in rows.iter_mut().filter(|s| needs_owner(s)) {
                    let owner = s.correlation().and_then(|id| owner_of_id.get(&id).copied());
                    s.set_process(owner);
                }
            }
        }
    }
    launching.len().min(2)
}

/// Indexes runtime rows by (process, correlation).
pub(crate) fn index_launches<R: JoinFields>(
    rows: &[R],
    index: &mut SliceIndex<(IdValue, IdValue)>,
) {
    index.build(
        rows.iter()
            .enumerate()
            .filter(|(_, s)| s.class().is_runtime())
            .filter_map(|(i, s)| Some(((s.process()?, s.correlation()?), i))),
    );
}

/// The runtime rows a kernel of their own process correlates with: the
/// calls that become launches, whatever their names (new APIs do not orphan
/// kernels).
pub(crate) fn launched_by_kernels<R: JoinFields>(
    rows: &[R],
    index: &SliceIndex<(IdValue, IdValue)>,
) -> Vec<usize> {
    rows.iter()
        .filter(|s| s.class() == SliceClass::Kernel)
        .filter_map(|s| Some((s.process()?, s.correlation()?)))
        .flat_map(|key| index.get(&key))
        .copied()
        .collect()
}

/// The runtime rows carrying device row `row`'s (process, correlation), or
/// why none can be named.
pub(crate) fn launch_candidates<'i, R: JoinFields>(
    row: &R,
    qualified: bool,
    index: &'i SliceIndex<(IdValue, IdValue)>,
) -> Result<&'i [usize], Unproven> {
    if !row.class().is_device() {
        return Err(Unproven::NotDevice);
    }
    if !qualified {
        return Err(Unproven::NoNamespace);
    }
    let correlation = row.correlation().ok_or(Unproven::NoId)?;
    let process = row.process().ok_or(Unproven::OwnerUnknown)?;
    Ok(index.get(&(process, correlation)))
}

/// The proof a list of candidates gives (see
/// [`TraceModel::launch_proof`](crate::TraceModel::launch_proof)).
pub(crate) fn proof(candidates: Result<&[usize], Unproven>) -> LaunchProof<'_> {
    match candidates {
        Err(why) => LaunchProof::Unproven(why),
        Ok([]) => LaunchProof::Unproven(Unproven::NoLaunch),
        Ok([one]) => LaunchProof::Proven(*one),
        Ok(several) => LaunchProof::Ambiguous(several),
    }
}

/// What the launch join keeps of one record: 40 bytes.
#[derive(Debug, Clone, Copy)]
struct JoinRow {
    class: SliceClass,
    /// The launch kind the record's name says ([`classify::launch_kind`]),
    /// for a runtime call a kernel turns into a launch.
    named_kind: Option<LaunchKind>,
    process: Option<IdValue>,
    correlation: Option<IdValue>,
}

impl JoinFields for JoinRow {
    fn class(&self) -> SliceClass {
        self.class
    }
    fn process(&self) -> Option<IdValue> {
        self.process
    }
    fn set_process(&mut self, process: Option<IdValue>) {
        self.process = process;
    }
    fn correlation(&self) -> Option<IdValue> {
        self.correlation
    }
}

/// The model's launch join over records as they stream past, keeping 40
/// bytes per runtime call and device record instead of the record: the
/// owning process of device records, the runtime calls that are launches,
/// and each device record's [`LaunchProof`], decided by exactly the rules
/// [`TraceModel`](crate::TraceModel) applies to its slices.
///
/// ```
/// use opguard_model::{IdValue, LaunchJoin, LaunchProof, Provider, SliceClass, SliceRecord};
///
/// let mut join = LaunchJoin::new();
/// let kernel = SliceRecord { class: SliceClass::Kernel, correlation: Some(IdValue::Int(7)), ..SliceRecord::new(0) };
/// let call = SliceRecord {
///     class: SliceClass::Runtime, name: "cudaLaunchKernelExC", pid: Some(IdValue::Int(4)),
///     correlation: Some(IdValue::Int(7)), ..SliceRecord::new(1)
/// };
/// let k = join.push(&kernel).expect("device records join");
/// let c = join.push(&call).expect("runtime calls join");
/// let joined = join.finish(Provider::KinetoCuda);
/// assert_eq!(joined.process(k), Some(IdValue::Int(4))); // the one launching process
/// assert_eq!(joined.proof(k), LaunchProof::Proven(c));
/// assert!(matches!(joined.class(c), SliceClass::Launch(_)));
/// ```
#[derive(Debug, Default)]
pub struct LaunchJoin {
    rows: Vec<JoinRow>,
}

impl LaunchJoin {
    /// No records yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a record: runtime calls, device activity and device-timeline
    /// annotations take part (their join position is returned, numbered
    /// from 0 in the order pushed); other records are not kept (`None`).
    /// A host record's owning process defaults to its `pid`, as the
    /// builder's does.
    pub fn push(&mut self, record: &SliceRecord<'_>) -> Option<usize> {
        let class = record.class;
        let device_side = is_device_side(class);
        if !class.is_runtime() && !device_side {
            return None;
        }
        self.rows.push(JoinRow {
            class,
            named_kind: if class.is_runtime() {
                classify::launch_kind(record.name)
            } else {
                None
            },
            process: record
                .process
                .or(if device_side { None } else { record.pid }),
            correlation: record.correlation,
        });
        Some(self.rows.len() - 1)
    }

    /// Records pushed.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether none was pushed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Settles owners, indexes launches and promotes runtime calls, under
    /// `provider`'s namespace (none: nothing is settled or proven).
    pub fn finish(mut self, provider: Provider) -> JoinedLaunches {
        let qualified = provider.correlation_namespace().is_some();
        let mut index = SliceIndex::default();
        let mut launching_processes = 0;
        if qualified {
            launching_processes = settle_owners(&mut self.rows);
            index_launches(&self.rows, &mut index);
            for i in launched_by_kernels(&self.rows, &index) {
                let row = &mut self.rows[i];
                if row.class == SliceClass::Runtime {
                    row.class = SliceClass::Launch(row.named_kind.unwrap_or(LaunchKind::Direct));
                }
            }
        }
        JoinedLaunches {
            rows: self.rows,
            index,
            qualified,
            launching_processes,
        }
    }
}

/// A finished [`LaunchJoin`]: ask by join position.
#[derive(Debug)]
pub struct JoinedLaunches {
    rows: Vec<JoinRow>,
    index: SliceIndex<(IdValue, IdValue)>,
    qualified: bool,
    launching_processes: usize,
}

impl JoinedLaunches {
    /// Records joined.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The class of row `row`: a runtime call a kernel of its process
    /// correlates with is a launch.
    pub fn class(&self, row: usize) -> SliceClass {
        self.rows.get(row).map_or(SliceClass::Other, |r| r.class)
    }

    /// The owning process of row `row`, settled.
    pub fn process(&self, row: usize) -> Option<IdValue> {
        self.rows.get(row).and_then(|r| r.process)
    }

    /// How many processes made runtime calls: 0, 1, or 2 for several
    /// ([`TraceModel::launching_processes`](crate::TraceModel::launching_processes)).
    pub fn launching_processes(&self) -> usize {
        self.launching_processes
    }

    /// What device row `row`'s correlation proves: positions in the proof
    /// are join positions.
    pub fn proof(&self, row: usize) -> LaunchProof<'_> {
        match self.rows.get(row) {
            None => LaunchProof::Unproven(Unproven::NotDevice),
            Some(r) => proof(launch_candidates(r, self.qualified, &self.index)),
        }
    }
}
