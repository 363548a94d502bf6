//! An XSpace into the provider-neutral model (`opguard-model`): every
//! modeled event the model keeps becomes one [`SliceRecord`], its
//! occurrence index the event's place in the file ([`EventView::index`]).
//!
//! | events | class | name | category | `pid` / `tid` | `process` | device, stream, context |
//! |---|---|---|---|---|---|---|
//! | `/device:GPU:N`, `Stream #S` lines: [`Activity::Kernel`], [`Activity::Memcpy`], [`Activity::Memset`] | kernel, memcpy, memset | display name | `kernel`, `memcpy`, `memset` | `N` / the line's id | the host's process when the file has one `/host:CPU` plane, else settled by the model | `N`, the line's id, `context_id` |
//! | `/host:CPU` events with `correlation_id` ([`Activity::RuntimeCall`]) | [`classify::runtime_call`] of the name | display name | `runtime_call` | host process / the line's id (the thread) | host process | — |
//! | `/host:CPU` events with `hlo_op` ([`Activity::XlaOp`]) | [`SliceClass::Other`], with [`HostDetail`] `hlo_op` and `hlo_module` (what makes a host slice an XLA op, [`opguard_model::HostKind::XlaOp`], as for JAX's JSON) | display name | none (`""`) | likewise | host process | — |
//! | other `/host:CPU` events ([`Activity::HostEvent`]: Python frames, annotations, the runtime's spans) | [`SliceClass::Other`] | display name | none (`""`) | likewise | host process | — |
//!
//! The host process is the `/host:CPU` plane's `process_id` stat (JAX 0.10
//! writes it), else the plane's name: an XSpace is one host's profile, and
//! correlation ids are unique within one process, so the join key is
//! (artifact, host process, `correlation_id`). A file with several
//! `/host:CPU` planes (a merge) leaves its device events' process to the
//! model's rule for several launching processes.
//!
//! Not records: aggregate events (`num_occurrences`, no time), events of
//! lines XLA derives from the streams (`XLA Ops`, `Steps`, ...: they would
//! count device work twice) and of planes that are not modeled (TPU,
//! `/device:CUSTOM:...`). Aggregates and planes not modeled are reported
//! as warnings (`aggregate_events`, `not_modeled`), with the profiler's own
//! `XSpace.errors` and `warnings` (`profiler_error`, `profiler_warning`);
//! [`crate::XSpaceInfo`] counts and names all of them.
//!
//! The producer is `jax <version>` when the `/host:metadata` plane carries
//! JAX's `jax_version` stat (JAX 0.10 writes it; the TensorFlow and older
//! JAX profiles seen state no version).

use std::path::Path;

use opguard_model::{
    classify, ArtifactSpec, Format, HostDetail, IdValue, Kept, Metadata, ModelBuilder,
    ModelOptions, ModelStorage, Provider, ReadSummary, ReadWarning, Sha256Digest, SliceClass,
    SliceRecord, TraceModel,
};

use crate::error::Error;
use crate::kinds::{Activity, KnownStat, LineKind, PlaneKind};
use crate::space::{EventView, Line, Plane, ReadOptions, StatValue, Visitor, XSpaceFile};

/// Reads the XSpace at `path` into a model keeping what `options` ask for
/// (the module docs say what each event becomes).
///
/// ```
/// use opguard_model::analysis::launch_region;
/// use opguard_model::{ArtifactSpec, ModelOptions};
/// use opguard_xplane::{read_model, ReadOptions};
///
/// let Some(path) = opguard_testdata::shared_file(
///     "xplane/tracelens_jax_conv_minimal_08_tw003.xplane.pb",
/// ) else {
///     return Ok(()); // ../shared/data is not here
/// };
/// let model = read_model(&path, ArtifactSpec::new(), &ModelOptions::launches_only(), &ReadOptions::default())?;
/// let region = launch_region(&model, 10);
/// assert_eq!((region.kernel_count, region.correlated_kernel_count), (235, 235));
/// # Ok::<(), opguard_xplane::Error>(())
/// ```
pub fn read_model(
    path: impl AsRef<Path>,
    spec: ArtifactSpec,
    options: &ModelOptions,
    read: &ReadOptions,
) -> Result<TraceModel, Error> {
    read_model_reusing(path, spec, options, read, &mut ModelStorage::new())
}

/// [`read_model`] into the buffers of `storage` (taken out of it:
/// [`TraceModel::into_storage`] gives them back; on an error they are back
/// in `storage`, empty).
pub fn read_model_reusing(
    path: impl AsRef<Path>,
    mut spec: ArtifactSpec,
    options: &ModelOptions,
    read: &ReadOptions,
    storage: &mut ModelStorage,
) -> Result<TraceModel, Error> {
    let path = path.as_ref();
    if spec.source.is_none() {
        spec.source = Some(path.display().to_string());
    }
    let space = XSpaceFile::open(path, read)?;
    model_of(&space, spec, options, storage)
}

/// The model of an XSpace already open (in memory), into the buffers of
/// `storage` as [`read_model_reusing`].
pub fn model_of(
    space: &XSpaceFile,
    spec: ArtifactSpec,
    options: &ModelOptions,
    storage: &mut ModelStorage,
) -> Result<TraceModel, Error> {
    let mut builder = ModelBuilder::reusing(options, std::mem::take(storage));
    let read = Header::read(space, &mut builder).and_then(|header| {
        let mut events = Events::new(&mut builder, header);
        space.visit(&mut events)?;
        Ok(events.finish())
    });
    match read {
        Ok(found) => {
            let summary = summary(space, found);
            Ok(builder.finish(summary, spec))
        }
        Err(e) => {
            *storage = builder.into_storage();
            Err(e)
        }
    }
}

/// What the planes' headers say before any event is read: which planes
/// are the host's and their processes, and the producer.
struct Header {
    /// `(plane index, process)` of every `/host:CPU` plane.
    hosts: Vec<(usize, IdValue)>,
    /// `jax <version>` from `/host:metadata`.
    producer: Option<String>,
    /// `/host:metadata`'s stats, as JSON text.
    host_metadata: Vec<(String, String)>,
}

impl Header {
    fn read(space: &XSpaceFile, builder: &mut ModelBuilder) -> Result<Header, Error> {
        let mut header = Header {
            hosts: Vec::new(),
            producer: None,
            host_metadata: Vec::new(),
        };
        let mut host_planes: Vec<(usize, Option<i64>)> = Vec::new();
        for i in 0..space.plane_count() {
            let plane = space.plane_header(i)?;
            match plane.kind {
                PlaneKind::HostCpu => {
                    let process = plane.stat("process_id").and_then(|v| v.as_i64());
                    host_planes.push((i, process));
                }
                PlaneKind::HostMetadata => {
                    header.producer = crate::kinds::producer(&plane);
                    header.host_metadata = plane_stats_json(&plane);
                }
                _ => {}
            }
        }
        let several = host_planes.len() > 1;
        for (i, process) in host_planes {
            let process = match process {
                Some(pid) => IdValue::Int(pid),
                None if several => builder.text_id(&format!("/host:CPU (planes[{i}])")),
                None => builder.text_id("/host:CPU"),
            };
            header.hosts.push((i, process));
        }
        Ok(header)
    }
}

/// A plane's stats with a name and a value that is text or a number, as
/// `(name, JSON text)`.
fn plane_stats_json(plane: &Plane<'_>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for stat in &plane.stats {
        let Some(name) = plane.stat_name(stat.metadata_id) else {
            continue;
        };
        let json = match plane.stat(name) {
            Some(StatValue::Str(s)) => serde_json::Value::from(s),
            Some(StatValue::Int(v)) => serde_json::Value::from(v),
            Some(StatValue::Uint(v)) => serde_json::Value::from(v),
            Some(StatValue::Double(v)) => serde_json::Value::from(v),
            _ => continue,
        };
        out.push((name.to_owned(), json.to_string()));
    }
    out
}

/// What the plane being walked is to the model.
#[derive(Debug, Clone, Copy)]
enum Role {
    /// A `/host:CPU` plane: its events are the process's.
    Host(IdValue),
    /// `/device:GPU:N`.
    Gpu(i64),
    /// Not modeled (its events are counted).
    Other,
}

/// What the walk found beside the records.
struct Found {
    header: Header,
    /// Every event of the file.
    events: u64,
    aggregates: u64,
    /// `(plane name, events)` of planes that are not modeled, with events.
    planes_not_modeled: Vec<(String, u64)>,
}

/// The visitor that pushes every modeled event into the builder.
struct Events<'b> {
    builder: &'b mut ModelBuilder,
    /// The process of device events: the host's, when there is one host.
    device_process: Option<IdValue>,
    role: Role,
    found: Found,
}

impl<'b> Events<'b> {
    fn new(builder: &'b mut ModelBuilder, header: Header) -> Self {
        let device_process = match header.hosts.as_slice() {
            [(_, process)] => Some(*process),
            _ => None,
        };
        Events {
            builder,
            device_process,
            role: Role::Other,
            found: Found {
                header,
                events: 0,
                aggregates: 0,
                planes_not_modeled: Vec::new(),
            },
        }
    }

    fn finish(self) -> Found {
        let mut found = self.found;
        found.planes_not_modeled.retain(|(_, events)| *events > 0);
        found
    }

    fn id(&mut self, value: Option<StatValue<'_>>) -> Option<IdValue> {
        Some(match value? {
            StatValue::Int(v) => IdValue::Int(v),
            StatValue::Uint(v) => match i64::try_from(v) {
                Ok(v) => IdValue::Int(v),
                Err(_) => self.builder.big_number_id(&v.to_string()),
            },
            StatValue::Str(s) => self.builder.text_id(s),
            _ => return None,
        })
    }

    fn xla_detail(&mut self, event: &EventView<'_>) -> Result<HostDetail, Error> {
        let mut text =
            |which| -> Result<_, Error> { Ok(event.text(which)?.map(|t| self.builder.intern(&t))) };
        Ok(HostDetail {
            hlo_op: text(KnownStat::HloOp)?,
            hlo_module: text(KnownStat::HloModule)?,
            ..HostDetail::default()
        })
    }
}

impl Visitor for Events<'_> {
    fn plane(&mut self, plane: &Plane<'_>) -> Result<(), Error> {
        self.role = match plane.kind {
            PlaneKind::HostCpu => self
                .found
                .header
                .hosts
                .iter()
                .find(|(i, _)| *i == plane.index)
                .map_or(Role::Other, |(_, process)| Role::Host(*process)),
            PlaneKind::Gpu { ordinal } => Role::Gpu(i64::from(ordinal)),
            _ => {
                self.found
                    .planes_not_modeled
                    .push((plane.name.to_owned(), 0));
                Role::Other
            }
        };
        Ok(())
    }

    fn line(&mut self, _: &Plane<'_>, line: &Line<'_>) -> Result<(), Error> {
        if let (Role::Other, Some((_, events))) =
            (self.role, self.found.planes_not_modeled.last_mut())
        {
            *events += line.event_count;
        }
        Ok(())
    }

    fn event(&mut self, event: &EventView<'_>) -> Result<(), Error> {
        self.found.events += 1;
        let activity = Activity::of(event);
        let name = event.display_name();
        let (class, category) = match activity {
            Activity::Kernel => (SliceClass::Kernel, "kernel"),
            Activity::Memcpy => (SliceClass::Memcpy, "memcpy"),
            Activity::Memset => (SliceClass::Memset, "memset"),
            Activity::RuntimeCall => (classify::runtime_call(name), "runtime_call"),
            Activity::XlaOp | Activity::HostEvent => (SliceClass::Other, ""),
            Activity::Aggregate => {
                // Those of lines not modeled are counted with their planes.
                if event.line().kind.is_modeled() {
                    self.found.aggregates += 1;
                }
                return Ok(());
            }
            _ => return Ok(()),
        };
        // Timed whatever is kept, so a model fails where the full model
        // fails.
        let (Some(ts_ns), dur_ns) = (event.ts_ns()?, event.dur_ns()?) else {
            return Ok(());
        };
        let kept = self.builder.keeps(class);
        if kept == Kept::Nothing {
            return Ok(());
        }
        if kept == Kept::Total {
            let total = SliceRecord {
                class,
                name,
                category,
                ts_ns,
                dur_ns,
                ..SliceRecord::new(event.index())
            };
            self.builder.push_slice(&total);
            return Ok(());
        }
        let line = IdValue::Int(event.line().id);
        let mut record = SliceRecord {
            class,
            name,
            category,
            tid: Some(line),
            ts_ns,
            dur_ns,
            ..SliceRecord::new(event.index())
        };
        record.correlation = self.id(event.stat(KnownStat::CorrelationId));
        match (self.role, event.line().kind) {
            (Role::Host(process), LineKind::HostThread) => {
                record.pid = Some(process);
                record.process = Some(process);
            }
            (Role::Gpu(ordinal), LineKind::GpuStream) => {
                record.pid = Some(IdValue::Int(ordinal));
                record.process = self.device_process;
                record.device = Some(IdValue::Int(ordinal));
                record.stream = Some(line);
                record.context = self.id(event.stat(KnownStat::ContextId));
            }
            _ => return Ok(()),
        }
        let Some(position) = self.builder.push_slice(&record) else {
            return Ok(());
        };
        if activity == Activity::XlaOp {
            let detail = self.xla_detail(event)?;
            self.builder.set_host_detail(position, detail);
        }
        Ok(())
    }
}

fn summary(space: &XSpaceFile, found: Found) -> ReadSummary {
    let mut metadata = Metadata::new();
    let strings = |v: &[String]| serde_json::Value::from(v.to_vec()).to_string();
    metadata.push("hostnames", strings(space.hostnames()));
    if !found.header.host_metadata.is_empty() {
        let object: Vec<String> = found
            .header
            .host_metadata
            .iter()
            .map(|(k, v)| format!("{}:{v}", serde_json::Value::from(k.as_str())))
            .collect();
        metadata.push("host_metadata", format!("{{{}}}", object.join(",")));
    }
    let mut warnings = Vec::new();
    let warn = |code, message: String| ReadWarning::new(code, 0, 0, message);
    for e in space.errors() {
        warnings.push(warn(
            "profiler_error",
            format!("the profiler reported an error while capturing: {e}"),
        ));
    }
    for w in space.warnings() {
        warnings.push(warn(
            "profiler_warning",
            format!("the profiler reported a warning while capturing: {w}"),
        ));
    }
    if !found.planes_not_modeled.is_empty() {
        let events: u64 = found.planes_not_modeled.iter().map(|p| p.1).sum();
        let named: Vec<String> = found
            .planes_not_modeled
            .iter()
            .map(|(name, n)| format!("{name} ({n})"))
            .collect();
        warnings.push(warn(
            "not_modeled",
            format!(
                "{events} events on planes opguard does not model (GPU streams and host threads \
                 are modeled), left out of every analysis: {}",
                named.join(", ")
            ),
        ));
    }
    if found.aggregates > 0 {
        warnings.push(warn(
            "aggregate_events",
            format!(
                "{} aggregate events (num_occurrences, no start time) are not slices",
                found.aggregates
            ),
        ));
    }
    let mut summary = ReadSummary::new(Sha256Digest(space.sha256()), Format::Xspace, Provider::Xla)
        .bytes(space.encoded_bytes(), space.decoded_bytes())
        .events(found.events)
        .metadata(metadata)
        .warnings(warnings);
    if let Some(producer) = found.header.producer {
        summary = summary.producer(producer);
    }
    summary
}
