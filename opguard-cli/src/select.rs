//! `opguard select profile` and `opguard select verdict`: one call each to
//! [`opguard_select::profile_model`] (over a trace read with the reader
//! flags) and [`opguard_select::verdict_from_request_file`].

use opguard_select::{profile_model, verdict_from_request_file, ProfileDocument, Verdict};
use opguard_trace::model::{ArtifactSpec, ModelOptions};

use crate::cli::{SelectProfileArgs, SelectVerdictArgs};
use crate::error::CliError;
use crate::exit;
use crate::out::Out;
use crate::style::{facts, Align, Style, Table};

impl From<opguard_select::Error> for CliError {
    fn from(e: opguard_select::Error) -> Self {
        // An unreadable trace keeps the reader's own code, so a truncated
        // gzip reads the same here as in `opguard trace info`.
        let code = e.trace_code().unwrap_or(e.code());
        CliError::new(code, e.to_string())
    }
}

/// Runs `opguard select profile`.
pub fn run_profile(args: &SelectProfileArgs) -> Result<u8, CliError> {
    let label = args.trace.display().to_string();
    let options = ModelOptions::new().reader(args.reader.options().decode_thread(true));
    let spec = ArtifactSpec::new().source(label.clone());
    let model = crate::read::model(&args.trace, &label, spec, &options)
        .map_err(|e| e.in_input(label.clone()))?;
    crate::read::report_warnings(&label, &model.summary().warnings, args.output.json);
    let doc = profile_model(&model, args.top);
    let mut out = Out::new();
    if args.output.json {
        out.json_line(&doc)?;
    } else {
        out.text(&profile_table(&doc, Style::for_stdout()))?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// Runs `opguard select verdict`; exit 1 when the selection is refused.
pub fn run_verdict(args: &SelectVerdictArgs) -> Result<u8, CliError> {
    let v = verdict_from_request_file(&args.request)
        .map_err(|e| CliError::from(e).in_input(args.request.display().to_string()))?;
    let mut out = Out::new();
    if args.output.json {
        out.json_line(&v)?;
    } else {
        out.text(&verdict_text(&v, Style::for_stdout()))?;
    }
    out.flush()?;
    Ok(if v.ok { exit::OK } else { exit::NEGATIVE })
}

/// The Top-N table (also used by `opguard inspect`).
pub fn profile_table(doc: &ProfileDocument, style: Style) -> String {
    let mut t = Table::new(&[
        ("#", Align::Right),
        ("device ns", Align::Right),
        ("calls", Align::Right),
        ("entity kind", Align::Left),
        ("evidence", Align::Left),
        ("name", Align::Left),
    ]);
    for r in &doc.rows {
        t.row(vec![
            r.rank.to_string(),
            r.total_device_ns.to_string(),
            r.calls.to_string(),
            r.entity_kind.as_str().to_owned(),
            format!(
                "{} ({} corr, {} ext)",
                r.evidence.basis, r.evidence.launch_correlation_edges, r.evidence.external_id_edges
            ),
            r.short_name.clone(),
        ]);
    }
    let mut out = t.render(style, "");
    out.push_str(&format!(
        "\n{} device rows, {} ns, {} distinct entities; entity_kind_contract {}\n",
        doc.device_rows, doc.device_time_ns, doc.distinct_entities, doc.entity_kind_contract
    ));
    out
}

/// The verdict in words (also used by `opguard inspect`).
pub fn verdict_text(v: &Verdict, style: Style) -> String {
    let list = |l: &[String]| {
        if l.is_empty() {
            "(none)".to_owned()
        } else {
            l.join(", ")
        }
    };
    let failed: Vec<String> = v.failed.iter().map(|f| f.code().to_owned()).collect();
    let mut lines = vec![
        (
            "verdict",
            if v.ok {
                "ok: the target launches the kernel and nothing deeper does".to_owned()
            } else {
                format!("refused: {}", failed.join(", "))
            },
        ),
        ("target", v.target.clone()),
        ("device kernel", v.device_kernel.clone()),
        ("deepest verified", v.deepest_verified.to_string()),
        ("marker calls", v.target_marker_calls.to_string()),
        ("matched launches", v.matched_kernel_calls.to_string()),
        (
            "edges",
            format!(
                "{} External-id, {} launch-correlation",
                v.correlated_external_ids, v.launch_correlation_edges
            ),
        ),
        ("candidates tested", list(&v.candidate_targets_tested)),
        ("deeper live", list(&v.deeper_live_candidates)),
        ("missing markers", list(&v.missing_candidate_markers)),
        ("never live", list(&v.installed_but_never_live_candidates)),
    ];
    for p in &v.processes {
        let failed: Vec<&str> = p.failed.iter().map(|f| f.code()).collect();
        lines.push((
            "process",
            format!(
                "{}: {} ({} marker calls, {} matched launches)",
                p.name,
                if p.ok {
                    "ok".to_owned()
                } else {
                    format!("refused: {}", failed.join(", "))
                },
                p.target_marker_calls,
                p.matched_kernel_calls
            ),
        ));
    }
    facts(&lines, style, "")
}
