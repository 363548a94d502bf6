//! Exact, bounded reading of XLA profiler XSpace protobufs: the
//! `<host>.xplane.pb` JAX and TensorFlow write next to the TensorBoard JSON.
//!
//! - [`XSpaceFile`] holds one file's bytes once (its size checked against
//!   [`ReadOptions`] before it is opened), its SHA-256, and where its planes
//!   are. [`XSpaceFile::visit`] walks planes, lines and events in file order,
//!   decoding one plane's metadata and one event at a time; names and
//!   `bytes` stats borrow from the file's buffer.
//! - [`EventView`] gives an event's names, its exact start
//!   (`timestamp_ns × 1000 + offset_ps`, integer picoseconds) and
//!   nanoseconds rounded half to even, and its stats with `ref_value`
//!   resolved.
//! - [`PlaneKind`], [`LineKind`], [`Activity`] say what opguard makes of
//!   them: GPU streams hold kernels and copies, host threads runtime calls
//!   (`correlation_id`), XLA ops (`hlo_op`) and other host events; TPU
//!   planes and derived lines are counted and named ([`XSpaceInfo`]), not
//!   dropped.
//! - [`probe`] tells an XSpace from other content by its first bytes.
//!
//! ```
//! use opguard_xplane::proto::{x_event, XEvent, XEventMetadata, XLine, XPlane, XSpace};
//! use opguard_xplane::{Activity, ReadOptions, XSpaceFile, XSpaceInfo};
//! use prost::Message;
//!
//! // A GPU plane with one kernel on stream 7, 1.5 ns after the line starts.
//! let kernel = XEventMetadata { id: 1, name: "gemm".into(), ..Default::default() };
//! let plane = XPlane {
//!     name: "/device:GPU:0".into(),
//!     lines: vec![XLine {
//!         id: 7,
//!         name: "Stream #7(Kernel)".into(),
//!         timestamp_ns: 1_000,
//!         events: vec![XEvent {
//!             metadata_id: 1,
//!             data: Some(x_event::Data::OffsetPs(1_500)),
//!             duration_ps: 2_500,
//!             ..Default::default()
//!         }],
//!         ..Default::default()
//!     }],
//!     event_metadata: [(1, kernel)].into_iter().collect(),
//!     ..Default::default()
//! };
//! let bytes = XSpace { planes: vec![plane], ..Default::default() }.encode_to_vec();
//!
//! let space = XSpaceFile::from_vec(bytes, &ReadOptions::default())?;
//! let info = XSpaceInfo::of(&space)?;
//! assert_eq!(info.count(Activity::Kernel), 1);
//! assert_eq!(info.planes[0].duration_ps[&Activity::Kernel], 2_500);
//! # Ok::<(), opguard_xplane::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// The messages of xplane.proto, transcribed as prost messages.
pub mod proto;
// The protobuf wire format, field by field with offsets.
mod wire;
// Content detection from a file's first bytes.
mod probe;
// Reader: the file, its planes, lines and events.
mod space;
// What planes, lines, stats and events are, for opguard.
mod kinds;
// Counts per plane, with what is not modeled named.
mod info;
// Reader: the file into opguard-model's provider-neutral model.
mod model;
// The crate's one error type and its codes.
mod error;

pub use error::{Error, ErrorKind, Limit, ERROR_CODES};
pub use info::{LineInfo, PlaneInfo, TimeSpan, XSpaceInfo};
pub use kinds::{Activity, KnownStat, LineKind, PlaneKind};
pub use model::{model_of, read_model, read_model_reusing};
pub use probe::{probe, starts_like_xspace, PROBE_BYTES};
pub use space::{
    EventView, Line, Plane, ReadOptions, StatValue, Visitor, XSpaceFile, DEFAULT_MAX_DECODED_BYTES,
    DEFAULT_MAX_ENCODED_BYTES,
};

/// The README's example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The maps of a plane: foldhash, seeded per map (a crafted file cannot pick
/// the collisions).
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
