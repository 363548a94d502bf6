//! Tables: tables of a capture as Arrow C streams (the boundary hands each
//! reader to arrow-rs's `FFI_ArrowArrayStream`).

use std::borrow::Cow;

use opguard_arrow::{read_tables, Table, TableOptions, TableReader, Tables};
use opguard_formats::ReadOptions;
use opguard_model::{ArtifactSpec, ModelOptions, Provider};
use serde::{Deserialize, Serialize};

use crate::boundary::ok;
use crate::error::Error;
use crate::request::parse;
use crate::trace::Reader;

/// `opguard_table_stream`'s request: one table.
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

/// `opguard_table_streams`'s request: several tables from one read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamsRequest<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    tables: Vec<Cow<'a, str>>,
    #[serde(default)]
    batch_rows: Option<usize>,
    #[serde(borrow, default)]
    provider: Option<Cow<'a, str>>,
    #[serde(default)]
    reader: Reader,
}

/// The reading options both requests take (no `flatten`: the document
/// reader names an unknown field only in a plain struct).
struct Options<'r, 'a> {
    batch_rows: Option<usize>,
    provider: &'r Option<Cow<'a, str>>,
    reader: &'r Reader,
}

/// One stream's table, for the envelope.
#[derive(Serialize)]
struct TableSummary {
    table: &'static str,
    rows: usize,
    batches: usize,
}

/// What was read, for the envelope.
#[derive(Serialize)]
struct Summary<'a> {
    #[serde(flatten)]
    first: &'a TableSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    tables: Option<&'a [TableSummary]>,
    artifact: String,
    format: &'static str,
    provider: &'static str,
    warnings: &'a [opguard_model::ReadWarning],
}

fn table_named(name: &str) -> Result<Table, Error> {
    Table::from_name(name).ok_or_else(|| {
        Error::invalid_request(format!("table {name:?} is none of {}", Table::names()))
    })
}

/// Reads `path` into `tables` (each once, in the order asked).
fn read(path: &str, tables: &[Table], o: &Options<'_, '_>) -> Result<Tables, Error> {
    let mut spec = ArtifactSpec::new().source(path.to_owned());
    if let Some(name) = o.provider {
        let provider = Provider::from_name(name).ok_or_else(|| {
            Error::invalid_request(format!(
                "provider is {name:?}; expected one of {}",
                Provider::names()
            ))
        })?;
        spec = spec.provider(provider);
    }
    let mut options = TableOptions::new()
        .tables(tables)
        .read(ReadOptions::new(ModelOptions::nothing()).reader(o.reader.options()));
    if let Some(rows) = o.batch_rows {
        if rows == 0 {
            return Err(Error::invalid_request(
                "batch_rows is 0; expected at least 1",
            ));
        }
        options = options.batch_rows(rows);
    }
    read_tables(path, spec, &options).map_err(|e| match e.kind() {
        opguard_arrow::ErrorKind::Read(read) => Error::capture(read).with("input", path.to_owned()),
        _ => Error::new(format!("arrow.{}", e.code()), e.to_string()),
    })
}

/// The readers of `asked`, in order, and the ok envelope describing them.
fn streams(
    tables: &Tables,
    asked: &[Table],
    several: bool,
) -> Result<(Vec<TableReader>, String), Error> {
    let mut readers = Vec::with_capacity(asked.len());
    let mut summaries = Vec::with_capacity(asked.len());
    for &table in asked {
        readers.push(tables.reader(table).ok_or_else(|| {
            Error::new(
                "capi.internal_error",
                format!("the {table} table was asked for and not built"),
            )
        })?);
        summaries.push(TableSummary {
            table: table.as_str(),
            rows: tables.rows(table),
            batches: tables.batches(table).map_or(0, <[_]>::len),
        });
    }
    let envelope = ok(&Summary {
        first: &summaries[0],
        tables: several.then_some(summaries.as_slice()),
        artifact: tables.artifact().sha256.to_string(),
        format: tables.artifact().format.as_str(),
        provider: tables.artifact().provider.as_str(),
        warnings: tables.warnings(),
    });
    Ok((readers, envelope))
}

/// `{"path", "table", "batch_rows"?, "provider"?, "reader"?}` → the table's
/// batches as a reader, and the ok envelope describing them.
pub(crate) fn stream(request: &str) -> Result<(TableReader, String), Error> {
    let r: StreamRequest<'_> = parse("table_stream", request)?;
    let table = table_named(&r.table)?;
    let o = Options {
        batch_rows: r.batch_rows,
        provider: &r.provider,
        reader: &r.reader,
    };
    let tables = read(&r.path, &[table], &o)?;
    let (mut readers, envelope) = streams(&tables, &[table], false)?;
    let reader = readers
        .pop()
        .ok_or_else(|| Error::new("capi.internal_error", "no reader for the one table asked"))?;
    Ok((reader, envelope))
}

/// `{"path", "tables": [name, …], "batch_rows"?, "provider"?, "reader"?}`
/// with room for `count` streams → one reader per table named, from one
/// read of the capture, and the ok envelope describing them.
pub(crate) fn streams_of(request: &str, count: usize) -> Result<(Vec<TableReader>, String), Error> {
    let r: StreamsRequest<'_> = parse("table_streams", request)?;
    let asked = r
        .tables
        .iter()
        .map(|name| table_named(name))
        .collect::<Result<Vec<_>, _>>()?;
    if asked.is_empty() || asked.len() != count {
        return Err(Error::invalid_request(format!(
            "`tables` names {} tables and `out` has room for {count}; expected one stream \
             per table, at least one",
            asked.len()
        )));
    }
    let mut unique = asked.clone();
    unique.sort();
    unique.dedup();
    if unique.len() != asked.len() {
        return Err(Error::invalid_request("`tables` names a table twice"));
    }
    let o = Options {
        batch_rows: r.batch_rows,
        provider: &r.provider,
        reader: &r.reader,
    };
    let tables = read(&r.path, &asked, &o)?;
    streams(&tables, &asked, true)
}
