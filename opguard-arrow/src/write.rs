//! Writer stage: tables to Arrow IPC files or Parquet, one file per table
//! in a directory that appears whole or not at all.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;

use crate::error::{Error, ErrorKind};
use crate::table::Table;
use crate::tables::Tables;

/// A file format for tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileFormat {
    /// Arrow IPC file format (Feather v2): `<table>.arrow`.
    ArrowIpc,
    /// Apache Parquet, uncompressed (dictionary and RLE encodings):
    /// `<table>.parquet`.
    Parquet,
}

impl FileFormat {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::ArrowIpc => "arrow",
            FileFormat::Parquet => "parquet",
        }
    }
}

/// Writes every table of `tables` into a new directory `out`, one file per
/// table (`device.parquet`, `host.parquet`, ...). `out` must not exist: it
/// is reserved exclusively, the files are written beside it and moved into
/// place in one rename, so a failed run leaves nothing behind and a reader
/// never sees half a directory. Returns the files written.
pub fn write_tables(
    tables: &Tables,
    out: &Path,
    format: FileFormat,
) -> Result<Vec<PathBuf>, Error> {
    let io_error = |path: &Path, source: io::Error| {
        Error::new(if source.kind() == io::ErrorKind::AlreadyExists {
            ErrorKind::OutputExists {
                path: path.to_path_buf(),
            }
        } else {
            ErrorKind::Io {
                path: path.to_path_buf(),
                source,
            }
        })
    };
    fs::create_dir(out).map_err(|e| io_error(out, e))?;
    let staging = staging_dir(out);
    let written = fs::create_dir(&staging)
        .map_err(|e| io_error(&staging, e))
        .and_then(|()| {
            tables
                .names()
                .map(|t| write_one(tables, t, &staging, format))
                .collect::<Result<Vec<_>, _>>()
        })
        .and_then(|names| {
            // rename(2) replaces the empty reserved directory atomically.
            fs::rename(&staging, out).map_err(|e| io_error(out, e))?;
            Ok(names.into_iter().map(|n| out.join(n)).collect())
        });
    if written.is_err() {
        let _ = fs::remove_dir_all(&staging);
        let _ = fs::remove_dir(out);
    }
    written
}

/// A hidden sibling of `out` for the files before they are published.
fn staging_dir(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "tables".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

fn write_one(
    tables: &Tables,
    table: Table,
    dir: &Path,
    format: FileFormat,
) -> Result<String, Error> {
    let name = format!("{table}.{}", format.extension());
    let path = dir.join(&name);
    let file = File::create_new(&path).map_err(|source| {
        Error::new(ErrorKind::Io {
            path: path.clone(),
            source,
        })
    })?;
    let batches = tables.batches(table).unwrap_or_default();
    let failed = |message: String| {
        Error::new(ErrorKind::Write {
            path: path.clone(),
            message,
        })
    };
    match format {
        FileFormat::ArrowIpc => write_ipc(BufWriter::new(file), table, batches).map_err(failed)?,
        FileFormat::Parquet => write_parquet(file, table, batches).map_err(failed)?,
    }
    Ok(name)
}

fn write_ipc(out: impl Write, table: Table, batches: &[RecordBatch]) -> Result<(), String> {
    let schema = table.schema();
    let mut writer =
        arrow_ipc::writer::FileWriter::try_new(out, &schema).map_err(|e| e.to_string())?;
    for b in batches {
        writer.write(b).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())?;
    let mut out = writer.into_inner().map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())
}

fn write_parquet(out: File, table: Table, batches: &[RecordBatch]) -> Result<(), String> {
    let mut writer = ArrowWriter::try_new(out, table.schema(), None).map_err(|e| e.to_string())?;
    for b in batches {
        writer.write(b).map_err(|e| e.to_string())?;
    }
    let file = writer.into_inner().map_err(|e| e.to_string())?;
    file.sync_all().map_err(|e| e.to_string())
}
