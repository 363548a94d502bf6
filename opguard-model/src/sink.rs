//! Model stage: records streamed out of a read as they arrive, for a
//! consumer that keeps them in its own form (Arrow tables) instead of the
//! model's.
//!
//! A [`RecordSink`] placed in [`ModelOptions::sink`](crate::ModelOptions::sink)
//! sees every record a reader pushes into the [`ModelBuilder`](crate::ModelBuilder)
//! of the classes it [wants](RecordSink::wants), in the reader's order,
//! whatever the model keeps: with [`ModelOptions::nothing`](crate::ModelOptions::nothing)
//! the model holds no slice and the read's memory is what the sink keeps.
//! Every reader goes through the builder, so a sink works for every format
//! without knowing which one fed it.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use crate::builder::SliceRecord;
use crate::host::{HostDetail, OperationArgs};
use crate::index::Interner;
use crate::model::TraceModel;
use crate::slice::SliceClass;

/// A consumer of the records of a read, as they arrive.
///
/// Ids written as text or beyond `i64` ([`crate::IdValue::Text`],
/// [`crate::IdValue::BigNumber`]) are read from `names`, the builder's
/// interner.
pub trait RecordSink: Send {
    /// Whether records of `class` are wanted: a reader reads them whatever
    /// the model keeps ([`ModelBuilder::keeps`](crate::ModelBuilder::keeps)
    /// says [`Kept::Slice`](crate::Kept::Slice)).
    fn wants(&self, class: SliceClass) -> bool;

    /// One record, in the reader's occurrence order.
    fn record(&mut self, record: &SliceRecord<'_>, names: &Interner);

    /// Shapes and XLA names of the record given last (a reader attaches
    /// them right after pushing it; most records have none).
    fn host_detail(&mut self, detail: &HostDetail, names: &Interner);

    /// Whether what host operators were called with is wanted
    /// ([`OperationArgs`]): readers then read it (as with
    /// [`ModelOptions::operation_args`](crate::ModelOptions::operation_args)).
    fn wants_operation_args(&self) -> bool {
        false
    }

    /// What the operator given last was called with, when wanted and the
    /// capture records any of it.
    fn operation_args(&mut self, args: &OperationArgs, names: &Interner) {
        let _ = (args, names);
    }

    /// The read is complete: `model` is what the builder built (its
    /// artifact, summary and provider; its slices are what the options
    /// kept, none with [`ModelOptions::nothing`](crate::ModelOptions::nothing)).
    fn finish(&mut self, model: &TraceModel);

    /// The sink as [`Any`], so its owner can take its concrete type back
    /// from a [`SinkSlot`].
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send>;
}

/// Where a [`RecordSink`] waits for the read that feeds it, and where its
/// owner takes it back ([`SinkSlot::take`]). Cloning shares the slot.
///
/// The builder takes the sink out of the slot when it starts and puts it
/// back when it finishes or is dropped, so a record costs no lock.
#[derive(Clone, Default)]
pub struct SinkSlot(Arc<Mutex<Option<Box<dyn RecordSink>>>>);

impl SinkSlot {
    /// A slot holding `sink`.
    pub fn new(sink: impl RecordSink + 'static) -> Self {
        SinkSlot(Arc::new(Mutex::new(Some(Box::new(sink)))))
    }

    /// The sink, when it is in the slot (not during a read, not after a
    /// take).
    pub fn take(&self) -> Option<Box<dyn RecordSink>> {
        self.lock().take()
    }

    /// The sink, as `S`, when it is in the slot and is an `S`.
    pub fn take_as<S: RecordSink + 'static>(&self) -> Option<S> {
        self.take()?.into_any().downcast::<S>().ok().map(|s| *s)
    }

    pub(crate) fn put_back(&self, sink: Box<dyn RecordSink>) {
        *self.lock() = Some(sink);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Box<dyn RecordSink>>> {
        // The slot holds no invariant a panic elsewhere could break.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for SinkSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SinkSlot")
    }
}

/// The sink during a read: taken out of its slot, given back at the end.
pub(crate) struct ActiveSink {
    slot: SinkSlot,
    sink: Option<Box<dyn RecordSink>>,
    /// Whether the record given last went to the sink (its host detail and
    /// operation arguments follow it).
    open: bool,
}

impl ActiveSink {
    pub(crate) fn take_from(slot: &SinkSlot) -> Option<ActiveSink> {
        let sink = slot.take()?;
        Some(ActiveSink {
            slot: slot.clone(),
            sink: Some(sink),
            open: false,
        })
    }

    pub(crate) fn wants(&self, class: SliceClass) -> bool {
        self.sink.as_ref().is_some_and(|s| s.wants(class))
    }

    /// Gives `record` to the sink when it wants it; whether it did.
    pub(crate) fn record(&mut self, record: &SliceRecord<'_>, names: &Interner) -> bool {
        self.open = false;
        let Some(sink) = self.sink.as_mut().filter(|s| s.wants(record.class)) else {
            return false;
        };
        sink.record(record, names);
        self.open = true;
        true
    }

    pub(crate) fn host_detail(&mut self, detail: &HostDetail, names: &Interner) {
        if let (true, Some(sink)) = (self.open, self.sink.as_mut()) {
            sink.host_detail(detail, names);
        }
    }

    pub(crate) fn wants_operation_args(&self) -> bool {
        self.sink.as_ref().is_some_and(|s| s.wants_operation_args())
    }

    pub(crate) fn operation_args(&mut self, args: &OperationArgs, names: &Interner) {
        if let (true, Some(sink)) = (self.open, self.sink.as_mut()) {
            sink.operation_args(args, names);
        }
    }

    pub(crate) fn finish(mut self, model: &TraceModel) {
        if let Some(sink) = self.sink.as_mut() {
            sink.finish(model);
        }
    }
}

impl Drop for ActiveSink {
    fn drop(&mut self) {
        if let Some(sink) = self.sink.take() {
            self.slot.put_back(sink);
        }
    }
}

impl fmt::Debug for ActiveSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ActiveSink")
    }
}
