//! Tables: one table of a capture as an Arrow C stream (the boundary hands
//! the reader to arrow-rs's `FFI_ArrowArrayStream`).

use std::borrow::Cow;

use opguard_arrow::{read_tables, Table, TableOptions, TableReader};
use opguard_formats::ReadOptions;
use opguard_model::{ArtifactSpec, ModelOptions, Provider};
use serde::{Deserialize, Serialize};

use crate::boundary::ok;
use crate::error::Error;
use crate::request::parse;
use crate::trace::Reader;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamRequest<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    table: Cow<'a, str>,
    #[serde(default)]
    batch_rows: Option<usize>,
    #[serde(borrow, default)]
    provider: Option<Cow<'a, str>>,
    #[serde(default)]
    reader: Reader,
}

/// What the stream holds, for the envelope.
#[derive(Serialize)]
struct StreamSummary<'a> {
    table: &'static str,
    rows: usize,
    batches: usize,
    artifact: String,
    format: &'static str,
    provider: &'static str,
    warnings: &'a [opguard_model::ReadWarning],
}

/// `{"path", "table", "batch_rows"?, "provider"?, "reader"?}` → the table's
/// batches as a reader, and the ok envelope describing them.
pub(crate) fn stream(request: &str) -> Result<(TableReader, String), Error> {
    let r: StreamRequest<'_> = parse("table_stream", request)?;
    let table = Table::from_name(&r.table).ok_or_else(|| {
        Error::invalid_request(format!(
            "table is {:?}; expected one of {}",
            r.table,
            Table::names()
        ))
    })?;
    let mut spec = ArtifactSpec::new().source(r.path.to_string());
    if let Some(name) = &r.provider {
        let provider = Provider::from_name(name).ok_or_else(|| {
            Error::invalid_request(format!(
                "provider is {name:?}; expected one of {}",
                Provider::names()
            ))
        })?;
        spec = spec.provider(provider);
    }
    let mut options = TableOptions::new()
        .tables(&[table])
        .read(ReadOptions::new(ModelOptions::nothing()).reader(r.reader.options()));
    if let Some(rows) = r.batch_rows {
        if rows == 0 {
            return Err(Error::invalid_request(
                "batch_rows is 0; expected at least 1",
            ));
        }
        options = options.batch_rows(rows);
    }
    let tables = read_tables(r.path.as_ref(), spec, &options).map_err(|e| match e.kind() {
        opguard_arrow::ErrorKind::Read(read) => {
            Error::capture(read).with("input", r.path.to_string())
        }
        _ => Error::new(format!("arrow.{}", e.code()), e.to_string()),
    })?;
    let summary = StreamSummary {
        table: table.as_str(),
        rows: tables.rows(table),
        batches: tables.batches(table).map_or(0, <[_]>::len),
        artifact: tables.artifact().sha256.to_string(),
        format: tables.artifact().format.as_str(),
        provider: tables.artifact().provider.as_str(),
        warnings: tables.warnings(),
    };
    let envelope = ok(&summary);
    let reader = tables.reader(table).ok_or_else(|| {
        Error::new(
            "capi.internal_error",
            format!("the {table} table was asked for and not built"),
        )
    })?;
    Ok((reader, envelope))
}
