//! `opguard export`: one call to [`opguard_align::export_with`], with a
//! records file or two or more profiler traces.

use opguard_align::{
    export_profile_streams, export_with, ExportOptions, ExportRequest, ExportSummary, ProfileInput,
    ProfileStream,
};
use opguard_trace::ReaderOptions;

use crate::cli::ExportArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::style::{facts, Style};

impl From<opguard_align::Error> for CliError {
    fn from(e: opguard_align::Error) -> Self {
        // A trace the reader refused keeps the reader's code and position,
        // so it reads the same here as in `opguard trace info`.
        let mut out = match e.kind() {
            opguard_align::ErrorKind::Trace(t) => CliError::from(t),
            opguard_align::ErrorKind::Document { source, .. } => {
                CliError::new(e.code(), e.kind().to_string()).at_document(source)
            }
            kind @ opguard_align::ErrorKind::LimitExceeded { what, .. }
                if what.starts_with("the output view") =>
            {
                CliError::new(
                    e.code(),
                    format!(
                        "{kind}; raise it with --max-output-bytes (e.g. --max-output-bytes 1GiB)"
                    ),
                )
            }
            kind => CliError::new(e.code(), kind.to_string()),
        };
        if let Some(p) = e.path() {
            out.input = Some(p.display().to_string());
        }
        out
    }
}

/// Runs `opguard export`. `--from-profile -` reads one trace from stdin
/// (its run label is `stdin`); the reader's warnings go to stderr.
pub fn run(args: &ExportArgs) -> Result<u8, CliError> {
    crate::read::at_most_one_stdin(args.from_profile.iter().map(|p| p.as_path()))?;
    let options = options()
        .reader(args.reader.options().decode_thread(true))
        .max_export_bytes(args.output_limit.max_output_bytes)
        .provider(args.provider.provider);
    let summary = match &args.records {
        Some(records) => export_with(
            &ExportRequest {
                records: Some(records.clone()),
                from_profile: Vec::new(),
                output: args.out.clone(),
            },
            &options,
        )?,
        None => {
            // Labelled as `inspect` labels them: one rule for both.
            let streams = ProfileInput::for_traces(&args.from_profile)
                .into_iter()
                .map(|input| {
                    if crate::read::is_stdin(&input.path) {
                        ProfileStream::reader(input, Box::new(std::io::stdin()))
                    } else {
                        ProfileStream::file(input)
                    }
                })
                .collect();
            export_profile_streams(streams, &args.out, &options)?
        }
    };
    crate::read::report_input_warnings(
        summary
            .warnings
            .iter()
            .map(|w| (w.input.display().to_string(), w)),
        args.output.json,
    );
    print_answer(args.output.json, &summary, |style| human(&summary, style))?;
    Ok(exit::OK)
}

/// How the CLI exports: the process is ours, so reading each input and
/// writing the view run on helper threads (the library starts none unless
/// asked).
pub fn options() -> ExportOptions {
    ExportOptions::new()
        .reader(ReaderOptions::new().decode_thread(true))
        .output_thread(true)
}

/// The status counts in words (also used by `opguard align` and `inspect`).
pub fn statuses_text(s: &opguard_align::StatusCounts) -> String {
    format!(
        "{} ok, {} differs, {} unpaired, {} no corresponding trace file, {} undetermined, {} not comparable",
        s.ok, s.differs, s.unpaired, s.no_corresponding_trace_file, s.undetermined, s.not_comparable
    )
}

/// First-observed differences in words (also used by `opguard align`).
pub fn first_differences_text(d: &[opguard_align::FirstDifference]) -> String {
    if d.is_empty() {
        return "(none)".to_owned();
    }
    d.iter()
        .map(|f| {
            format!(
                "{} rank {}: {} (operation {}, {})",
                f.run,
                f.rank,
                f.record_id,
                f.operation,
                f.status.as_str()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn human(s: &ExportSummary, style: Style) -> String {
    let ranks: Vec<String> = s.ranks.iter().map(u32::to_string).collect();
    let mut lines = vec![
        ("output", s.output.display().to_string()),
        ("sha256", s.output_sha256.clone()),
        ("format", s.format.clone()),
        ("runs", s.runs.join(" (left), ") + " (right)"),
        ("ranks", ranks.join(", ")),
        ("operations", s.operations.to_string()),
        ("candidate pairs", s.pairs.to_string()),
        ("statuses", statuses_text(&s.statuses)),
        (
            "first differences",
            first_differences_text(&s.first_differences),
        ),
        (
            "verdict",
            format!(
                "{} (pairs are candidates for review, not equal tensors)",
                s.verdict
            ),
        ),
    ];
    if !s.alignment_budget_exhausted_ranks.is_empty() {
        let r: Vec<String> = s
            .alignment_budget_exhausted_ranks
            .iter()
            .map(u32::to_string)
            .collect();
        lines.push(("budget exhausted", format!("ranks {}", r.join(", "))));
    }
    facts(&lines, style, "")
}
