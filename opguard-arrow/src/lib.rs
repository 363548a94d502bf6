//! Traces as Arrow tables, for DataFrame users (pandas, polars, DuckDB) and
//! anything else that reads Arrow.
//!
//! [`read_tables`] reads a capture of any format opguard reads (through
//! `opguard-formats`) and streams its records, as the reader pushes them,
//! into Arrow column builders ([`TableSink`], an
//! [`opguard_model::RecordSink`]): no model is built, and no record exists
//! in any other form. The [`Table`]s are
//!
//! - `device`: kernels, memory copies and sets, device-timeline
//!   annotations — name, canonical kernel identity, start and duration in
//!   ns, device, stream, correlation, owning process, whether its launch is
//!   proven and which launch it is;
//! - `host`: operators, annotations, Python frames — name, category, pid,
//!   tid, start, duration, self time, input shapes and types where
//!   recorded, XLA names;
//! - `launches`: every runtime and driver call, launch or not, with the
//!   device rows it launched;
//! - `metadata`: the artifact and the capture's own metadata.
//!
//! Every column a record determines is built as the record arrives, into
//! batches of [`TableOptions::batch_rows`] rows frozen as they fill. Four
//! columns need the whole trace (the owning process of a device row in a
//! format that does not state it, its launch proof, a runtime call's class,
//! a host row's self time): they come from compact state kept on the way
//! (the model's own rules, [`opguard_model::LaunchJoin`] and
//! [`opguard_model::HostSelfTimes`]) and are set beside the frozen batches
//! when the read ends. So the batches are handed out when the read is
//! complete; what memory holds is said at [`TableSink`].
//!
//! ```
//! use opguard_arrow::{read_tables, Table, TableOptions};
//! use opguard_model::ArtifactSpec;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("trace.json");
//! std::fs::write(&path, br#"{"traceEvents":[
//!   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":7,"ts":1,"dur":1,"args":{"correlation":5}},
//!   {"ph":"X","cat":"kernel","name":"void gemm<float>(float*)","pid":0,"tid":3,"ts":2,"dur":4,"args":{"correlation":5}}]}"#)?;
//! let tables = read_tables(&path, ArtifactSpec::new(), &TableOptions::new())?;
//! assert_eq!(tables.rows(Table::Device), 1);
//! assert_eq!(tables.rows(Table::Launches), 1);
//! let device = &tables.batches(Table::Device).unwrap()[0];
//! let launch = device.column_by_name("launch_index").unwrap();
//! let launch = launch.as_any().downcast_ref::<arrow_array::UInt64Array>().unwrap();
//! assert_eq!(launch.value(0), 0); // the cudaLaunchKernel's traceEvents index
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Writer: the tables and their schemas.
mod table;
// Writer: column builders (dictionaries over a whole table, ids).
mod column;
// Writer: records into column builders as they arrive.
mod sink;
// Reader → tables, and the tables read.
mod tables;
// Writer: Arrow IPC and Parquet files.
mod write;
// The crate's one error type.
mod error;

pub use error::{Error, ErrorKind, ERROR_CODES};
pub use sink::{TableSink, DEFAULT_BATCH_ROWS};
pub use table::Table;
pub use tables::{read_tables, TableOptions, TableReader, Tables};
pub use write::{write_tables, FileFormat};

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// This crate's version (its Cargo.toml `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
