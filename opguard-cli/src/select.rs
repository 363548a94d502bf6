//! `opguard select profile` and `opguard select verdict`: one call each to
//! [`opguard_select::profile_model`] (over a trace read with the reader
//! flags) and [`opguard_select::verdict_from_request_file_with`].

use opguard_model::{ArtifactSpec, ModelOptions};
use opguard_select::{
    profile_model, verdict_from_request_file_with, HostProfile, ProfileDocument, Verdict,
    VerdictOptions,
};

use crate::cli::{SelectProfileArgs, SelectVerdictArgs};
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::style::{facts, Align, Style, Table};

impl From<opguard_select::Error> for CliError {
    fn from(e: opguard_select::Error) -> Self {
        // An unreadable trace keeps the reader's own code, so a truncated
        // gzip reads the same here as in `opguard trace info`.
        let code = e.trace_code().unwrap_or(e.code());
        let out = CliError::new(code, e.to_string());
        match e.kind() {
            opguard_select::ErrorKind::Document { source, .. } => out.at_document(source),
            _ => out,
        }
    }
}

/// Runs `opguard select profile`.
pub fn run_profile(args: &SelectProfileArgs) -> Result<u8, CliError> {
    let label = args.trace.display().to_string();
    let options = args.reader.read_options(ModelOptions::new(), true);
    let mut spec = ArtifactSpec::new().source(label.clone());
    spec.provider = args.provider.provider;
    let model = crate::read::model(&args.trace, &label, spec, &options)
        .map_err(|e| e.in_input(label.clone()))?;
    crate::read::report_warnings(&label, &model.summary().warnings, args.output.json);
    let doc = profile_model(&model, args.top);
    print_answer(args.output.json, &doc, |style| profile_table(&doc, style))?;
    Ok(exit::OK)
}

/// Runs `opguard select verdict`; exit 1 when the selection is refused.
/// A process trace written `-` in the request is read from stdin.
pub fn run_verdict(args: &SelectVerdictArgs) -> Result<u8, CliError> {
    let options = VerdictOptions::new()
        .read(args.reader.read_options(ModelOptions::new(), true))
        .provider(args.provider.provider)
        .stream(Box::new(std::io::stdin()));
    let v = verdict_from_request_file_with(&args.request, options)
        .map_err(|e| CliError::from(e).in_input(args.request.display().to_string()))?;
    print_answer(args.output.json, &v, |style| verdict_text(&v, style))?;
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
    let mut out = String::new();
    if !doc.rows.is_empty() {
        out.push_str(&t.render(style, ""));
        out.push('\n');
    }
    out.push_str(&format!(
        "{} device rows, {} ns, {} distinct entities; entity_kind_contract {}\n",
        doc.device_rows, doc.device_time_ns, doc.distinct_entities, doc.entity_kind_contract
    ));
    if doc.negative_duration_rows > 0 {
        out.push_str(&format!(
            "{} device rows have a negative duration and add 0 ns\n",
            doc.negative_duration_rows
        ));
    }
    if let Some(host) = &doc.host {
        out.push_str(&host_table(host, style));
    }
    out
}

/// A host name for a table cell: Python frames and operator names are not
/// kernel symbols, so they are cut at a width, not canonicalized.
fn display_name(name: &str) -> String {
    const WIDTH: usize = 80;
    match name.char_indices().nth(WIDTH) {
        Some((cut, _)) => format!("{}...", &name[..cut]),
        None => name.to_owned(),
    }
}

/// The host profile of a capture without device activity.
fn host_table(host: &HostProfile, style: Style) -> String {
    let mut out = format!("{}\n\n", host.note);
    let mut t = Table::new(&[
        ("#", Align::Right),
        ("self ns", Align::Right),
        ("total ns", Align::Right),
        ("calls", Align::Right),
        ("entity kind", Align::Left),
        ("evidence", Align::Left),
        ("name", Align::Left),
    ]);
    for r in &host.rows {
        let mut evidence = r.evidence.basis.to_owned();
        if let Some(module) = &r.evidence.hlo_module {
            evidence.push_str(&format!(" ({module})"));
        }
        if let Some(shapes) = r.evidence.input_shapes.first() {
            let more = r.evidence.input_shapes.len() - 1;
            evidence.push_str(&format!(" {}", shapes.input_dims));
            if more > 0 {
                evidence.push_str(&format!(" +{more} shapes"));
            }
        }
        t.row(vec![
            r.rank.to_string(),
            r.self_ns.to_string(),
            r.total_ns.to_string(),
            r.calls.to_string(),
            r.entity_kind.as_str().to_owned(),
            evidence,
            display_name(&r.name),
        ]);
    }
    out.push_str(&t.render(style, ""));
    out.push_str(&format!(
        "\n{} host operations, {} ns self time, {} distinct; {} markers left out\n",
        host.operations, host.self_time_ns, host.distinct_operations, host.markers
    ));
    if !host.regions.is_empty() {
        out.push('\n');
        let mut t = Table::new(&[
            ("calls", Align::Right),
            ("total ns", Align::Right),
            ("category", Align::Left),
            ("region", Align::Left),
        ]);
        for r in &host.regions {
            t.row(vec![
                r.calls.to_string(),
                r.total_ns.to_string(),
                r.category.clone(),
                r.name.clone(),
            ]);
        }
        out.push_str(&t.render(style, ""));
        out.push_str(&format!("\n{} distinct regions\n", host.distinct_regions));
    }
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
