//! The plain facts of one export, as `trace info` reports them: its
//! identity, product and schema, rows per table and the time they span.

use opguard_model::{Provider, Sha256Digest};

use crate::error::Error;
use crate::export::{Export, KnownTable};
use crate::rows::Gpu;
use crate::version::ExportMeta;

/// Rows of one table of the export.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableRows {
    /// The table's name.
    pub table: &'static str,
    /// Its rows.
    pub rows: u64,
}

/// The span of the timed rows (kernels, memory operations, syncs, API
/// calls, NVTX), in nanoseconds of the export's session clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    /// Smallest `start`.
    pub start_ns: i64,
    /// Largest `end` (a row without one: its `start`).
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub duration_ns: i64,
}

/// The facts of one export.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExportInfo {
    /// SHA-256 of the file (hex in JSON).
    pub sha256: Sha256Digest,
    /// The provider: always Nsight Systems.
    pub provider: Provider,
    /// The clock domain every time of the export lives in: its own
    /// (`artifact:<sha256>`), as for every capture.
    pub clock_domain: String,
    /// The file's size in bytes.
    pub bytes: u64,
    /// What the export says about itself.
    pub meta: ExportMeta,
    /// Rows of each table the reader reads that the export has.
    pub tables: Vec<TableRows>,
    /// The span of the timed rows; `None` when there are none.
    pub span: Option<Span>,
    /// GPUs of `TARGET_INFO_GPU`.
    pub gpus: Vec<Gpu>,
}

impl Export {
    /// The export's facts: one `COUNT(*)` per table and one `MIN`/`MAX`
    /// scan per timed table, all inside SQLite.
    pub fn info(&self) -> Result<ExportInfo, Error> {
        let mut tables = Vec::new();
        for table in KnownTable::ALL {
            if self.has_table(table) {
                tables.push(TableRows {
                    table: table.name(),
                    rows: self.row_count(table)?,
                });
            }
        }
        let mut span: Option<(i64, i64)> = None;
        for table in KnownTable::TIMED {
            if let Some((start, end)) = self.time_bounds(table)? {
                let (s, e) = span.get_or_insert((start, end));
                *s = (*s).min(start);
                *e = (*e).max(end);
            }
        }
        Ok(ExportInfo {
            sha256: Sha256Digest(self.sha256()),
            provider: Provider::NsightSystems,
            clock_domain: format!("artifact:{}", Sha256Digest(self.sha256())),
            bytes: self.size(),
            meta: self.meta().clone(),
            tables,
            span: span.map(|(start_ns, end_ns)| Span {
                start_ns,
                end_ns,
                duration_ns: end_ns.saturating_sub(start_ns),
            }),
            gpus: self.gpus()?,
        })
    }
}
