//! `opguard scaling`: one call to [`opguard_scaling::run_trials_as`] over the
//! trials document, with the reader flags and `--provider`.

use opguard_model::ModelOptions;
use opguard_scaling::{run_trials_as, Metric, ScalingReport, TrialsDocument};

use crate::cli::ScalingArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::style::{facts, Align, Style, Table};

impl From<opguard_scaling::Error> for CliError {
    fn from(e: opguard_scaling::Error) -> Self {
        let out = CliError::new(e.code(), e.to_string());
        match e.kind() {
            opguard_scaling::ErrorKind::Document { source, .. } => out.at_document(source),
            _ => out,
        }
    }
}

/// Runs `opguard scaling`.
pub fn run(args: &ScalingArgs) -> Result<u8, CliError> {
    let metric = match args.metric.as_deref() {
        None => None,
        Some(m) => Some(
            m.parse::<Metric>()
                .map_err(|e| CliError::usage(e.to_string()))?,
        ),
    };
    let options = args.reader.read_options(ModelOptions::new(), true);
    let report = TrialsDocument::read(&args.trials)
        .and_then(|doc| run_trials_as(&doc, metric, &options, args.provider.provider))
        .map_err(|e| CliError::from(e).in_input(args.trials.display().to_string()))?;
    print_answer(args.output.json, &report, |style| human(&report, style))?;
    Ok(exit::OK)
}

fn human(r: &ScalingReport, style: Style) -> String {
    let mut out = String::new();
    if r.hotspots.is_empty() {
        out.push_str("no series had enough trials to test\n");
    } else {
        let mut t = Table::new(&[
            ("rho", Align::Right),
            ("p", Align::Right),
            ("adj p", Align::Right),
            ("trials", Align::Right),
            ("input range", Align::Left),
            ("variant", Align::Left),
            ("frame", Align::Left),
        ]);
        for h in &r.hotspots {
            t.row(vec![
                format!("{:.3}", h.spearman_rho),
                format!("{:.3e}", h.p_value),
                format!("{:.3e}", h.adjusted_p_value),
                h.independent_trial_count.to_string(),
                format!("{}..{}", h.supported_min, h.supported_max),
                h.series.variant.clone(),
                format!(
                    "{} [{}] {}",
                    h.series.name, h.series.category, h.series.metric
                ),
            ]);
        }
        out.push_str(&t.render(style, ""));
        out.push('\n');
    }
    let tested = r.hotspots.first().map_or(0, |h| h.tested_hypothesis_count);
    out.push_str(&facts(
        &[
            (
                "tested",
                format!("{tested} series (Benjamini-Hochberg family)"),
            ),
            (
                "insufficient",
                format!(
                    "{} series with fewer than 3 trials or 2 inputs",
                    r.insufficient.len()
                ),
            ),
            (
                "not correlatable",
                format!("{} series with a constant cost", r.not_correlatable.len()),
            ),
            (
                "unmatched",
                format!(
                    "{} frame observations whose identity is partial (not merged, not dropped)",
                    r.unmatched.len()
                ),
            ),
        ],
        style,
        "",
    ));
    out
}
