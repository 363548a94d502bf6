//! `opguard trace export`: one call to [`opguard_arrow::read_tables`] and
//! one to [`opguard_arrow::write_tables`], which creates the output
//! directory exclusively and publishes it whole.

use opguard_arrow::{read_tables, write_tables, FileFormat, Table, TableOptions};
use opguard_formats::ReadOptions;
use opguard_model::{ArtifactSpec, ModelOptions};
use serde::Serialize;

use crate::cli::{TableFormat, TraceExportArgs};
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::style::{facts, Align, Style, Table as TextTable};

impl From<opguard_arrow::Error> for CliError {
    fn from(e: opguard_arrow::Error) -> Self {
        match e.kind() {
            // A reader's refusal reads as it does in `opguard trace info`.
            opguard_arrow::ErrorKind::Read(read) => CliError::from(read),
            kind => CliError::new(e.code(), kind_text(&e, kind)),
        }
    }
}

fn kind_text(e: &opguard_arrow::Error, kind: &opguard_arrow::ErrorKind) -> String {
    match kind {
        opguard_arrow::ErrorKind::OutputExists { path } => format!(
            "{}: the output exists already; opguard never replaces a file",
            path.display()
        ),
        _ => e.to_string(),
    }
}

/// One table file written.
#[derive(Debug, Serialize)]
struct TableFile {
    table: &'static str,
    file: String,
    rows: usize,
    bytes: u64,
}

/// The `--json` line.
#[derive(Debug, Serialize)]
struct Exported {
    output: String,
    format: &'static str,
    artifact: String,
    provider: &'static str,
    tables: Vec<TableFile>,
}

/// Runs `opguard trace export`.
pub fn run(args: &TraceExportArgs) -> Result<u8, CliError> {
    let tables = args
        .tables
        .iter()
        .map(|name| {
            Table::from_name(name).ok_or_else(|| {
                CliError::usage(format!(
                    "--tables: no table named {name:?} (tables: {})",
                    Table::names()
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Refused before the trace is read; `write_tables` still refuses an
    // OUT that appears meanwhile.
    if std::fs::symlink_metadata(&args.out).is_ok() {
        return Err(CliError::new(
            "output_exists",
            format!(
                "{}: the output exists already; opguard never replaces a file",
                args.out.display()
            ),
        ));
    }
    let format = match args.format {
        TableFormat::Parquet => FileFormat::Parquet,
        TableFormat::Arrow => FileFormat::ArrowIpc,
    };
    let label = args.trace.display().to_string();
    // Held until the run ends: the copy of stdin is removed with it.
    let _scratch;
    let path = if crate::read::is_stdin(&args.trace) {
        let (dir, copy) = crate::read::stdin_to_scratch("trace-export")?;
        _scratch = dir;
        copy
    } else {
        args.trace.clone()
    };
    let mut spec = ArtifactSpec::new().source(label.clone());
    spec.provider = args.provider.provider;
    let mut options = TableOptions::new().read(
        ReadOptions::new(ModelOptions::nothing()).reader(args.reader.options().decode_thread(true)),
    );
    if !tables.is_empty() {
        options = options.tables(&tables);
    }
    let tables =
        read_tables(&path, spec, &options).map_err(|e| CliError::from(e).in_input(&label))?;
    crate::read::report_warnings(&label, tables.warnings(), args.output.json);
    let written = write_tables(&tables, &args.out, format)?;
    let answer = Exported {
        output: args.out.display().to_string(),
        format: match args.format {
            TableFormat::Parquet => "parquet",
            TableFormat::Arrow => "arrow",
        },
        artifact: tables.artifact().sha256.to_string(),
        provider: tables.artifact().provider.as_str(),
        tables: tables
            .names()
            .zip(written)
            .map(|(table, file)| TableFile {
                table: table.as_str(),
                bytes: std::fs::metadata(&file).map_or(0, |m| m.len()),
                file: file.display().to_string(),
                rows: tables.rows(table),
            })
            .collect(),
    };
    print_answer(args.output.json, &answer, |style| human(&answer, style))?;
    Ok(exit::OK)
}

fn human(e: &Exported, style: Style) -> String {
    let mut out = facts(
        &[
            ("output", e.output.clone()),
            ("format", e.format.to_owned()),
            ("artifact", e.artifact.clone()),
            ("provider", e.provider.to_owned()),
        ],
        style,
        "",
    );
    let mut t = TextTable::new(&[
        ("table", Align::Left),
        ("rows", Align::Right),
        ("bytes", Align::Right),
        ("file", Align::Left),
    ]);
    for f in &e.tables {
        t.row(vec![
            f.table.to_owned(),
            f.rows.to_string(),
            f.bytes.to_string(),
            f.file.clone(),
        ]);
    }
    out.push('\n');
    out.push_str(&t.render(style, "  "));
    out
}
