//! `opguard compare`: one call to [`opguard_compare::compare`] over the
//! traces each side names, and the gate's exit status.

use opguard_compare::{
    compare, read_side, side_inputs, CompareOptions, Comparison, EntityComparison, ErrorKind,
    GateStatus, SampleUnit,
};

use crate::cli::CompareArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::read::{report_input_warnings, SkippedFile};
use crate::style::{Align, Style, Table};
use crate::trace_info::duration;

impl From<opguard_compare::Error> for CliError {
    fn from(e: opguard_compare::Error) -> Self {
        match e.kind() {
            // The reader's own code and position, for the file it is about.
            ErrorKind::TraceUnreadable { path, source, .. } => {
                CliError::from(source).in_input(path.display().to_string())
            }
            ErrorKind::Document { source, .. } => {
                CliError::new(e.code(), e.to_string()).at_document(source)
            }
            _ => CliError::new(e.code(), e.to_string()),
        }
    }
}

/// Runs `opguard compare`: 1 when the gate fails, 0 when it passes or
/// cannot decide (said on stderr), 2 on bad input.
pub fn run(args: &CompareArgs) -> Result<u8, CliError> {
    let mut options = CompareOptions::new()
        .fail_above(args.fail_above)
        .fdr(args.fdr)
        .confidence(args.confidence)
        .python_frames(args.python_frames)
        .reader(args.reader.options());
    if let Some(step) = &args.step {
        options = options.step(step.clone());
    }
    options.check()?;
    let mut sides = Vec::new();
    for (side, paths) in [("baseline", &args.baseline), ("candidate", &args.candidate)] {
        let inputs = side_inputs(side, paths)?;
        let skipped: Vec<SkippedFile> = inputs
            .skipped
            .iter()
            .map(|f| SkippedFile::new("compare_file_skipped", f))
            .collect();
        report_input_warnings(
            skipped.iter().map(|w| (w.path.clone(), w)),
            args.output.json,
        );
        if inputs.traces.is_empty() {
            return Err(CliError::new(
                "no_runs",
                format!(
                    "the {side} names no trace (its directories hold no capture opguard reads: \
                     Chrome JSON, an XSpace, an Nsight Systems export, rocprofv3 output)"
                ),
            ));
        }
        sides.push(read_side(side, &inputs.traces, &options)?);
    }
    let comparison = compare(&sides[0], &sides[1], &options)?;
    print_answer(args.output.json, &comparison, |style| {
        human(&comparison, args.rows, style)
    })?;
    Ok(match comparison.gate.status {
        GateStatus::Failed => exit::NEGATIVE,
        GateStatus::Passed => exit::OK,
        GateStatus::Undecided => {
            undecided(&comparison.gate.message, args.output.json);
            exit::OK
        }
    })
}

/// The gate could not decide: said on stderr, whatever stdout is piped to.
fn undecided(message: &str, json: bool) {
    use std::io::Write;
    let code = "compare_undecided";
    let text = if json {
        serde_json::json!({"warning": {"code": code, "message": message}}).to_string()
    } else {
        format!(
            "{}: {message}",
            Style::for_stderr().warning(&format!("warning[{code}]"))
        )
    };
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

fn median(ns: Option<f64>) -> String {
    ns.map_or_else(|| "-".to_owned(), |v| duration(v.round() as i64))
}

fn ratio(e: &EntityComparison) -> String {
    e.ratio
        .map_or_else(|| "-".to_owned(), |r| format!("{r:.3}x"))
}

fn interval(e: &EntityComparison) -> String {
    e.ratio_interval
        .as_ref()
        .map_or_else(|| "-".to_owned(), |i| format!("{:.3}–{:.3}", i.low, i.high))
}

fn p(v: Option<f64>) -> String {
    match v {
        None => "-".to_owned(),
        Some(v) if v < 1e-4 => format!("{v:.1e}"),
        Some(v) => format!("{v:.4}"),
    }
}

fn rows(t: &mut Table, entities: &[EntityComparison]) {
    for e in entities {
        t.row(vec![
            e.verdict.as_str().to_owned(),
            e.kind.as_str().to_owned(),
            median(e.baseline.median_ns),
            median(e.candidate.median_ns),
            ratio(e),
            interval(e),
            p(e.q_value),
            e.name.clone(),
        ]);
    }
}

fn table() -> Table {
    Table::new(&[
        ("verdict", Align::Left),
        ("kind", Align::Left),
        ("baseline", Align::Right),
        ("candidate", Align::Right),
        ("ratio", Align::Right),
        ("interval", Align::Right),
        ("q", Align::Right),
        ("name", Align::Left),
    ])
}

fn human(c: &Comparison, max_rows: usize, style: Style) -> String {
    let unit = match c.sample_unit {
        SampleUnit::Step => "steps",
        SampleUnit::Run => "runs",
    };
    let side = |name: &str, s: &opguard_compare::Side| {
        format!(
            "{name}: {} run{}, {} {unit} ({}; {})\n",
            s.runs.len(),
            if s.runs.len() == 1 { "" } else { "s" },
            s.samples.len(),
            s.providers.join(", "),
            s.formats.join(", ")
        )
    };
    let mut out = side("baseline", &c.baseline);
    out.push_str(&side("candidate", &c.candidate));
    out.push_str(&format!("samples: {}\n", c.sample_unit_reason));
    if !c.totals.is_empty() {
        out.push_str(&format!("\n{}\n", style.bold("totals (median per sample)")));
        let mut t = table();
        rows(&mut t, &c.totals);
        out.push_str(&t.render(style, "  "));
    }
    out.push_str(&format!(
        "\n{}\n",
        style.bold(&format!(
            "entities ({} of {}, regressions first)",
            c.entities.len().min(max_rows),
            c.entities.len()
        ))
    ));
    let mut t = table();
    rows(&mut t, &c.entities[..c.entities.len().min(max_rows)]);
    out.push_str(&t.render(style, "  "));
    if !c.unmatched.is_empty() {
        out.push_str(&format!(
            "\n{} entities with a partial identity were not compared (--json lists them)\n",
            c.unmatched.len()
        ));
    }
    let message = &c.gate.message;
    let gate = match c.gate.status {
        GateStatus::Failed => style.error(message),
        GateStatus::Passed => style.bold(message),
        GateStatus::Undecided => style.warning(message),
    };
    out.push_str(&format!("\ngate {gate}\n"));
    for caveat in &c.gate.caveats {
        let (code, text) = caveat.split_once(": ").unwrap_or(("caveat", caveat));
        out.push_str(&format!(
            "{}: {text}\n",
            style.warning(&format!("caveat[{code}]"))
        ));
    }
    out
}
