//! Test support: build traces in the shape the PyTorch profiler (Kineto)
//! writes, for tests, examples and generated inputs. (It lived in
//! opguard-trace's public API until it was found to have no user there.)
//!
//! Events carry the categories, `args` keys and flow conventions of real
//! Kineto output (`cpu_op` with `External id`, `cuda_runtime` launches with
//! `correlation`, `kernel` rows on the device `pid` with `device`/`stream`/
//! `correlation`, `ac2g` flows from launch to kernel), and are written with
//! [`TraceWriter`], so the bytes are deterministic.

use std::io::Write;

use opguard_trace::{Error, OwnedEvent, RawJson, ScalarKey, TraceWriter};
use serde_json::{json, Map, Value};

/// A host thread: `(pid, tid)`.
pub type Thread = (i64, i64);

/// A Kineto-shaped trace under construction. Events are written in the
/// order they are added; each `add_*` call returns the new event's index.
///
/// ```
/// use opguard_testdata::kineto_writer::KinetoTrace;
///
/// let mut t = KinetoTrace::new();
/// let host = (100, 100);
/// t.cpu_op(host, "aten::mm", 1_000, 5_000, Some(7));
/// t.launch(host, "cudaLaunchKernel", 2_000, 1_000, 42, Some(7))
///     .kernel(0, 7, "void gemm<128>(float*)", 4_000, 3_000);
/// let bytes = t.to_bytes()?;
/// assert!(bytes.starts_with(b"{\"traceEvents\":["));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct KinetoTrace {
    events: Vec<OwnedEvent>,
    metadata: Vec<(String, RawJson)>,
}

/// A launch just added: chain [`PendingLaunch::kernel`] to add the kernel it
/// launched (with its `ac2g` flow).
pub struct PendingLaunch<'t> {
    trace: &'t mut KinetoTrace,
    thread: Thread,
    ts_ns: i64,
    correlation: i64,
    external_id: Option<i64>,
    /// Index of the launch event.
    pub index: u64,
}

impl PendingLaunch<'_> {
    /// Adds a kernel on `(device, stream)` correlated with this launch, and
    /// the `ac2g` flow from the launch to it. Returns the kernel's index.
    pub fn kernel(self, device: i64, stream: i64, name: &str, ts_ns: i64, dur_ns: i64) -> u64 {
        let corr = self.correlation;
        let index = self.trace.kernel(
            device,
            stream,
            name,
            ts_ns,
            dur_ns,
            Some(corr),
            self.external_id,
        );
        self.trace.flow(
            "ac2g",
            corr,
            self.thread,
            self.ts_ns,
            (device, stream),
            ts_ns,
        );
        index
    }
}

fn args(pairs: &[(&str, Option<Value>)]) -> Option<RawJson> {
    let mut map = Map::new();
    for (k, v) in pairs {
        if let Some(v) = v {
            map.insert((*k).to_owned(), v.clone());
        }
    }
    Some(RawJson::from_value(&Value::Object(map)))
}

impl KinetoTrace {
    /// An empty trace with Kineto's `schemaVersion`.
    pub fn new() -> Self {
        let mut t = KinetoTrace::default();
        t.set_metadata("schemaVersion", &json!(1));
        t
    }

    /// Sets a top-level metadata key (e.g. `deviceProperties`).
    pub fn set_metadata(&mut self, key: &str, value: &Value) -> &mut Self {
        self.metadata.retain(|(k, _)| k != key);
        self.metadata
            .push((key.to_owned(), RawJson::from_value(value)));
        self
    }

    /// Adds any event; returns its index.
    pub fn push(&mut self, e: OwnedEvent) -> u64 {
        self.events.push(e);
        self.events.len() as u64 - 1
    }

    /// Number of events so far.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no event was added.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    #[allow(clippy::too_many_arguments)]
    fn slice(
        &mut self,
        cat: &str,
        name: &str,
        pid: ScalarKey,
        tid: ScalarKey,
        ts_ns: i64,
        dur_ns: i64,
        args: Option<RawJson>,
    ) -> u64 {
        self.push(OwnedEvent {
            ph: Some("X".into()),
            cat: Some(cat.into()),
            name: Some(name.into()),
            pid: Some(pid),
            tid: Some(tid),
            ts_ns: Some(ts_ns),
            dur_ns: Some(dur_ns),
            args,
            ..OwnedEvent::default()
        })
    }

    /// A `process_name` metadata event.
    pub fn process_name(&mut self, pid: i64, name: &str) -> u64 {
        self.push(OwnedEvent {
            ph: Some("M".into()),
            name: Some("process_name".into()),
            pid: Some(pid.into()),
            tid: Some(0.into()),
            args: args(&[("name", Some(json!(name)))]),
            ..OwnedEvent::default()
        })
    }

    /// A `thread_name` metadata event.
    pub fn thread_name(&mut self, (pid, tid): Thread, name: &str) -> u64 {
        self.push(OwnedEvent {
            ph: Some("M".into()),
            name: Some("thread_name".into()),
            pid: Some(pid.into()),
            tid: Some(tid.into()),
            args: args(&[("name", Some(json!(name)))]),
            ..OwnedEvent::default()
        })
    }

    /// A host operator (`cpu_op`).
    pub fn cpu_op(
        &mut self,
        (pid, tid): Thread,
        name: &str,
        ts_ns: i64,
        dur_ns: i64,
        external_id: Option<i64>,
    ) -> u64 {
        let a = args(&[("External id", external_id.map(Value::from))]);
        self.slice("cpu_op", name, pid.into(), tid.into(), ts_ns, dur_ns, a)
    }

    /// A host operator recorded with shapes (`Input Dims`, `Input type`).
    #[allow(clippy::too_many_arguments)]
    pub fn cpu_op_with_shapes(
        &mut self,
        (pid, tid): Thread,
        name: &str,
        ts_ns: i64,
        dur_ns: i64,
        external_id: Option<i64>,
        sequence_number: Option<i64>,
        input_dims: Value,
        input_type: Value,
    ) -> u64 {
        let a = args(&[
            ("External id", external_id.map(Value::from)),
            ("Sequence number", sequence_number.map(Value::from)),
            ("Input Dims", Some(input_dims)),
            ("Input type", Some(input_type)),
        ]);
        self.slice("cpu_op", name, pid.into(), tid.into(), ts_ns, dur_ns, a)
    }

    /// A host annotation (`user_annotation`, as `record_function` writes).
    pub fn user_annotation(
        &mut self,
        (pid, tid): Thread,
        name: &str,
        ts_ns: i64,
        dur_ns: i64,
        external_id: Option<i64>,
    ) -> u64 {
        let a = args(&[("External id", external_id.map(Value::from))]);
        self.slice(
            "user_annotation",
            name,
            pid.into(),
            tid.into(),
            ts_ns,
            dur_ns,
            a,
        )
    }

    /// The device-timeline copy of an annotation (`gpu_user_annotation`).
    pub fn gpu_user_annotation(
        &mut self,
        device: i64,
        stream: i64,
        name: &str,
        ts_ns: i64,
        dur_ns: i64,
        external_id: Option<i64>,
    ) -> u64 {
        let a = args(&[("External id", external_id.map(Value::from))]);
        self.slice(
            "gpu_user_annotation",
            name,
            device.into(),
            stream.into(),
            ts_ns,
            dur_ns,
            a,
        )
    }

    /// A runtime or driver call (`cuda_runtime`, or `cuda_driver` for `cu*`
    /// driver APIs). Use [`KinetoTrace::launch`] to add a kernel with it.
    pub fn runtime(
        &mut self,
        (pid, tid): Thread,
        api: &str,
        ts_ns: i64,
        dur_ns: i64,
        correlation: Option<i64>,
        external_id: Option<i64>,
    ) -> u64 {
        let driver = api.starts_with("cu") && !api.starts_with("cuda");
        let cat = if driver {
            "cuda_driver"
        } else {
            "cuda_runtime"
        };
        let a = args(&[
            ("External id", external_id.map(Value::from)),
            ("correlation", correlation.map(Value::from)),
        ]);
        self.slice(cat, api, pid.into(), tid.into(), ts_ns, dur_ns, a)
    }

    /// A launch call; chain `.kernel(...)` to add what it launched.
    pub fn launch(
        &mut self,
        thread: Thread,
        api: &str,
        ts_ns: i64,
        dur_ns: i64,
        correlation: i64,
        external_id: Option<i64>,
    ) -> PendingLaunch<'_> {
        let index = self.runtime(thread, api, ts_ns, dur_ns, Some(correlation), external_id);
        PendingLaunch {
            trace: self,
            thread,
            ts_ns,
            correlation,
            external_id,
            index,
        }
    }

    /// A device kernel on `(device, stream)`.
    #[allow(clippy::too_many_arguments)]
    pub fn kernel(
        &mut self,
        device: i64,
        stream: i64,
        name: &str,
        ts_ns: i64,
        dur_ns: i64,
        correlation: Option<i64>,
        external_id: Option<i64>,
    ) -> u64 {
        let ids = (correlation, external_id);
        self.device_activity("kernel", (device, stream), name, ts_ns, dur_ns, ids)
    }

    /// Device activity of any category on `(device, stream)`: `kernel`,
    /// `gpu_memcpy`, `gpu_memset`, ... `ids` are `(correlation, External id)`.
    pub fn device_activity(
        &mut self,
        cat: &str,
        (device, stream): (i64, i64),
        name: &str,
        ts_ns: i64,
        dur_ns: i64,
        (correlation, external_id): (Option<i64>, Option<i64>),
    ) -> u64 {
        let a = args(&[
            ("External id", external_id.map(Value::from)),
            ("device", Some(json!(device))),
            ("context", Some(json!(1))),
            ("stream", Some(json!(stream))),
            ("correlation", correlation.map(Value::from)),
        ]);
        self.slice(cat, name, device.into(), stream.into(), ts_ns, dur_ns, a)
    }

    /// A flow from a host point to a device point (`s` then `f` with
    /// `bp: "e"`), as Kineto links launches to kernels.
    pub fn flow(
        &mut self,
        cat: &str,
        id: i64,
        (pid, tid): Thread,
        start_ns: i64,
        (device, stream): (i64, i64),
        end_ns: i64,
    ) {
        let point = |ph: &str, pid: i64, tid: i64, ts: i64, bp: Option<&str>| OwnedEvent {
            ph: Some(ph.into()),
            cat: Some(cat.into()),
            name: Some(cat.into()),
            pid: Some(pid.into()),
            tid: Some(tid.into()),
            ts_ns: Some(ts),
            id: Some(id.into()),
            bp: bp.map(str::to_owned),
            ..OwnedEvent::default()
        };
        self.push(point("s", pid, tid, start_ns, None));
        self.push(point("f", device, stream, end_ns, Some("e")));
    }

    /// Writes the trace.
    pub fn write_to<W: Write>(&self, out: W) -> Result<W, Error> {
        let mut w = TraceWriter::new(out)?;
        for e in &self.events {
            w.write_event(e)?;
        }
        let meta: Vec<(&str, &RawJson)> =
            self.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
        w.finish(&meta)
    }

    /// The trace as plain JSON bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        self.write_to(Vec::new())
    }

    /// The trace as gzip bytes (deterministic: no file name or time in the
    /// gzip header).
    pub fn to_gzip(&self) -> Result<Vec<u8>, Error> {
        let enc = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::default());
        let enc = self.write_to(enc)?;
        Ok(enc.finish()?)
    }
}
