//! Reader → tables: any capture through `opguard-formats` with a
//! [`TableSink`] in the model options and nothing kept in the model.

use std::path::Path;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use opguard_formats::ReadOptions;
use opguard_model::{Artifact, ArtifactSpec, ModelOptions, ReadWarning, SinkSlot};

use crate::error::Error;
use crate::sink::{TableSink, DEFAULT_BATCH_ROWS};
use crate::table::Table;

/// What to read into tables.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TableOptions {
    /// The tables to build (others cost nothing: their records are not
    /// read whole).
    pub tables: Vec<Table>,
    /// Rows per record batch (default [`DEFAULT_BATCH_ROWS`]).
    pub batch_rows: usize,
    /// The readers' limits and switches (what the model keeps is ignored:
    /// it keeps nothing).
    pub read: ReadOptions,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            tables: Table::ALL.to_vec(),
            batch_rows: DEFAULT_BATCH_ROWS,
            read: ReadOptions::default(),
        }
    }
}

impl TableOptions {
    /// Every table, default batch size and limits.
    pub fn new() -> Self {
        Self::default()
    }
    /// Only `tables`.
    pub fn tables(mut self, tables: &[Table]) -> Self {
        self.tables = tables.to_vec();
        self
    }
    /// `rows` rows per batch (at least 1).
    pub fn batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = rows.max(1);
        self
    }
    /// The readers' limits and switches.
    pub fn read(mut self, read: ReadOptions) -> Self {
        self.read = read;
        self
    }
}

/// The tables of one capture: each a schema and its record batches.
/// Batches share their buffers: cloning one, or handing it to a consumer
/// through the Arrow C stream, copies no data.
#[derive(Debug, Clone)]
pub struct Tables {
    tables: Vec<(Table, Vec<RecordBatch>)>,
    artifact: Artifact,
    warnings: Vec<ReadWarning>,
}

impl Tables {
    pub(crate) fn empty(artifact: Artifact, warnings: Vec<ReadWarning>) -> Self {
        Tables {
            tables: Vec::new(),
            artifact,
            warnings,
        }
    }

    /// The capture read: its digest, format, provider and clock domain
    /// (also rows of the `metadata` table).
    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }

    /// What the reader accepted and said so (a salvaged cut, say); also
    /// `warning` rows of the `metadata` table.
    pub fn warnings(&self) -> &[ReadWarning] {
        &self.warnings
    }

    pub(crate) fn set(&mut self, table: Table, batches: Vec<RecordBatch>) {
        self.tables.retain(|(t, _)| *t != table);
        self.tables.push((table, batches));
        self.tables.sort_by_key(|(t, _)| *t);
    }

    /// The tables read, in [`Table::ALL`]'s order.
    pub fn names(&self) -> impl Iterator<Item = Table> + '_ {
        self.tables.iter().map(|(t, _)| *t)
    }

    /// The batches of `table`, when it was read.
    pub fn batches(&self, table: Table) -> Option<&[RecordBatch]> {
        self.tables
            .iter()
            .find(|(t, _)| *t == table)
            .map(|(_, b)| b.as_slice())
    }

    /// Rows of `table` (0 when it was not read).
    pub fn rows(&self, table: Table) -> usize {
        self.batches(table)
            .map_or(0, |b| b.iter().map(RecordBatch::num_rows).sum())
    }

    /// A reader of `table`'s batches (for the Arrow C stream, IPC and
    /// Parquet), when it was read.
    pub fn reader(&self, table: Table) -> Option<TableReader> {
        let batches = self.batches(table)?.to_vec();
        Some(TableReader {
            schema: table.schema(),
            batches: batches.into_iter(),
        })
    }
}

/// A table's batches in order, as a [`RecordBatchReader`]. Dropping it
/// releases the batches it has not given out.
#[derive(Debug)]
pub struct TableReader {
    schema: SchemaRef,
    batches: std::vec::IntoIter<RecordBatch>,
}

impl Iterator for TableReader {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.batches.next().map(Ok)
    }
}

impl RecordBatchReader for TableReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// Reads the capture at `path`, whatever its format, into tables.
///
/// The reader streams its records into Arrow column builders; no model is
/// built. See [`TableSink`] for what memory holds.
pub fn read_tables(
    path: impl AsRef<Path>,
    spec: ArtifactSpec,
    options: &TableOptions,
) -> Result<Tables, Error> {
    let slot = SinkSlot::new(TableSink::new(&options.tables, options.batch_rows));
    let mut read = options.read.clone();
    read.model = ModelOptions::nothing().sink(slot.clone());
    let model = opguard_formats::read(path, spec, &read)?;
    // A reader that never finished its sink read no record: empty tables.
    let tables = slot
        .take_as::<TableSink>()
        .and_then(TableSink::into_tables)
        .unwrap_or_else(|| {
            Tables::empty(model.artifact().clone(), model.summary().warnings.clone())
        });
    Ok(tables)
}
