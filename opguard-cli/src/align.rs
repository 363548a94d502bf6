//! `opguard align` and `opguard tools align`: one call each to
//! [`opguard_align::apply_with`] and [`opguard_align::apply_request_file_with`].

use opguard_align::{apply_request_file_with, apply_with, ApplyOptions, Response};

use crate::cli::{AlignArgs, ToolsAlignArgs};
use crate::error::CliError;
use crate::exit;
use crate::export::{first_differences_text, statuses_text};
use crate::out::Out;
use crate::style::{facts, Style};

/// Runs `opguard align`.
/// `-` reads the artifact or the map from stdin: it is copied to a scratch
/// file first, because the artifact is read twice (the second pass must see
/// the same SHA-256) and stdin can be read once.
pub fn run(args: &AlignArgs) -> Result<u8, CliError> {
    let (artifact, map) = (args.artifact.as_path(), args.alignment_map.as_path());
    crate::read::at_most_one_stdin([artifact, map])?;
    let scratch = if crate::read::is_stdin(artifact) || crate::read::is_stdin(map) {
        Some(crate::read::stdin_to_scratch("align")?)
    } else {
        None
    };
    let from_stdin = |p: &'_ std::path::Path| match (&scratch, crate::read::is_stdin(p)) {
        (Some((_, copy)), true) => copy.clone(),
        _ => p.to_path_buf(),
    };
    let options = options().max_output_bytes(args.output_limit.max_output_bytes);
    let response = apply_with(&from_stdin(artifact), &from_stdin(map), &args.out, &options)
        .map_err(|e| {
            let on_stdin = matches!((&scratch, e.path()), (Some((_, copy)), Some(p)) if p == copy);
            let err = CliError::from(e);
            if on_stdin {
                err.in_input("-")
            } else {
                err
            }
        })?;
    print(&response, args.output.json)
}

/// Runs `opguard tools align`.
pub fn run_request(args: &ToolsAlignArgs) -> Result<u8, CliError> {
    let response = apply_request_file_with(&args.request, &options()).map_err(|e| {
        let named = e.path().is_some();
        let err = CliError::from(e);
        if named {
            err
        } else {
            err.in_input(args.request.display().to_string())
        }
    })?;
    print(&response, args.output.json)
}

/// How the CLI applies a map: the process is ours, so reading the
/// artifact and writing the view run on helper threads (the library starts
/// none unless asked).
fn options() -> ApplyOptions {
    ApplyOptions::new().decode_thread(true).output_thread(true)
}

fn print(response: &Response, json: bool) -> Result<u8, CliError> {
    let mut out = Out::new();
    if json {
        out.json_line(response)?;
    } else {
        out.text(&human(response, Style::for_stdout()))?;
    }
    out.flush()?;
    Ok(exit::OK)
}

fn human(r: &Response, style: Style) -> String {
    let d = &r.decisions;
    facts(
        &[
            ("output", r.output.display().to_string()),
            ("output sha256", r.output_sha256.clone()),
            (
                "artifact sha256",
                format!("{} (read, never modified)", r.artifact_sha256),
            ),
            ("map sha256", r.alignment_map_sha256.clone()),
            (
                "reviews",
                format!(
                    "{} ({} active: {} comparable, {} not comparable, {} undetermined)",
                    r.reviews, r.active_reviews, d.comparable, d.not_comparable, d.undetermined
                ),
            ),
            ("new mappings", r.new_mappings.to_string()),
            ("displaced", r.displaced.to_string()),
            ("operations", r.operations.to_string()),
            ("pairs", r.pairs.to_string()),
            ("statuses", statuses_text(&r.statuses)),
            (
                "validation",
                format!(
                    "{} unreviewed, {} agent reviewed",
                    r.validation.unreviewed, r.validation.agent_reviewed
                ),
            ),
            (
                "first differences",
                first_differences_text(&r.first_differences),
            ),
            (
                "verdict",
                format!(
                    "{} (a comparable pair is not a claim of equal tensors; no workload ran)",
                    r.verdict
                ),
            ),
        ],
        style,
        "",
    )
}
