//! Writer stage: a [`Report`] as one HTML document. Everything is inline
//! (CSS, SVG); nothing is fetched, and the page's Content-Security-Policy
//! forbids fetching and scripts outright, so a name that slipped past
//! [`escape`] still could not run.

use std::fmt::Write;

use opguard_compare::{Comparison, EntityComparison, GateStatus, Verdict as CompareVerdict};
use opguard_job::{Job, JobFrame};
use opguard_kernel_name::canonicalize;
use opguard_model::analysis::LaunchRegion;
use opguard_select::{HostProfile, ProfileDocument, Verdict};

use crate::escape::{escape, escape_path};
use crate::geometry::{bar_length, format_ns, nice_ceiling, TimeScale};
use crate::report::{
    AlignmentSummary, ArtifactReport, Report, ScalingView, MAX_JOB_FRAMES, MAX_LIST_ROWS,
};
use crate::timeline::{LaneKind, Timeline};

/// Width of a timeline's plot, px (one column per pixel).
pub(crate) const TIMELINE_PLOT_WIDTH: f64 = crate::timeline::TIMELINE_BINS as f64;
/// Width of a Top-N bar at 100 % of the device time, px.
pub(crate) const BAR_PLOT_WIDTH: f64 = 480.0;

const LABEL_WIDTH: f64 = 240.0;
const LANE_HEIGHT: f64 = 14.0;
const LANE_STEP: f64 = 20.0;
const AXIS_HEIGHT: f64 = 22.0;
const BAR_LABEL_WIDTH: f64 = 300.0;
const BAR_STEP: f64 = 22.0;
const BAR_HEIGHT: f64 = 15.0;
/// A job's strips are a little narrower than bars: their value text is
/// longer (the slowest rank and the median).
const STRIP_PLOT_WIDTH: f64 = 360.0;
/// Characters of a name drawn inside a chart; the full name is in the
/// table below it and in the element's tooltip.
const CHART_NAME_CHARS: usize = 40;

const STYLE: &str = r#"
:root{--fg:#1d2330;--muted:#5b6474;--line:#d9dde4;--bg:#fff;--panel:#f6f7f9;--ok:#1b7f3b;--bad:#b3261e}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:1080px;margin:0 auto;padding:0 20px}
header{padding-top:18px;border-bottom:1px solid var(--line)}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 6px;padding-top:8px;border-top:2px solid var(--fg);overflow-wrap:anywhere}
h3{font-size:15px;margin:20px 0 6px}
.note,.caption,figcaption{color:var(--muted)}
nav ul{list-style:none;padding:0;margin:8px 0 12px;display:flex;flex-wrap:wrap;gap:6px 16px}
nav a{color:#1f5fbf}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
figure{margin:8px 0;overflow-x:auto}
svg.chart{display:block;background:var(--panel);border:1px solid var(--line);border-radius:4px}
svg text{font:11px system-ui,"DejaVu Sans",sans-serif;fill:var(--fg)}
svg .axis line{stroke:#aab1bd}
svg .axis text,svg text.value{fill:var(--muted)}
svg .lane-bg{fill:#fff}
svg .busy.host{fill:#7b5ea7}
svg .busy.stream{fill:#2f7d6d}
svg .busy.device{fill:#1f5fbf}
svg .busy.comm{fill:#c23b22}
svg .overlapped.comm{fill:#e8a33d}
svg .busy.hostwork{fill:#4d9a51}
table{border-collapse:collapse;margin:8px 0;width:100%}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.name{word-break:break-all;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
td.file{overflow-wrap:break-word;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
.kind{display:inline-block;padding:0 6px;border-radius:8px;color:#fff;font-size:12px;background:#6f7785}
.bar{fill:#6f7785}
.kind-gpu_kernel{background:#3b6fb6;fill:#3b6fb6}
.kind-memory_op{background:#d9822b;fill:#d9822b}
.kind-dispatcher_op{background:#4d9a51;fill:#4d9a51}
.kind-python_launcher{background:#9a5ea8;fill:#9a5ea8}
.kind-unresolved{background:#8a8f99;fill:#8a8f99}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff;font-weight:600}
.verdict.ok{background:var(--ok)}.verdict.refused{background:var(--bad)}
rect.cov-total{fill:#e3e6eb}rect.cov-part{fill:#3b6fb6}
circle.point{fill:#3b6fb6}
svg .strip-axis{stroke:#aab1bd}svg .median{stroke:var(--fg);stroke-width:2}
circle.base{fill:#6f7785;fill-opacity:.7}circle.cand{fill:#3b6fb6;fill-opacity:.7}
circle.cand.regressed{fill:var(--bad)}circle.cand.improved{fill:var(--ok)}
.verdict.undecided{background:#d9822b}
p.caveat{border-left:3px solid #d9822b;padding-left:8px}
circle.rank{fill:#3b6fb6;fill-opacity:.55}circle.rank.slowest{fill:var(--bad);fill-opacity:1}
rect.status-ok{fill:#4d9a51}rect.status-differs{fill:#c0392b}rect.status-unpaired{fill:#d9822b}
rect.status-other{fill:#8a8f99}
footer{margin-top:32px;padding:12px 20px 24px;border-top:1px solid var(--line);color:var(--muted)}
"#;

/// Renders `report` as one self-contained HTML document.
pub fn render(report: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"opguard-report ",
    );
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push_str("\">\n<title>opguard report</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<header>\n<h1>opguard report</h1>\n");
    if let Some(note) = &report.note {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
    out.push_str(
        "<p class=\"note\">Each trace is its own clock domain: its times are drawn on its own axis \
         and never compared with another trace's.</p>\n<nav><ul>\n",
    );
    for (i, a) in report.artifacts.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><a href=\"#artifact-{}\">{}</a></li>",
            i + 1,
            escape(&a.file)
        );
    }
    for (present, id, title) in [
        (report.alignment.is_some(), "alignment", "Alignment"),
        (
            report.seam_verdict.is_some(),
            "seam-verdict",
            "Seam verdict",
        ),
        (report.scaling.is_some(), "scaling", "Scaling"),
        (report.job.is_some(), "job", "Job"),
        (report.compare.is_some(), "compare", "Comparison"),
    ] {
        if present {
            let _ = writeln!(out, "<li><a href=\"#{id}\">{title}</a></li>");
        }
    }
    out.push_str("</ul></nav>\n</header>\n<main>\n");
    for (i, a) in report.artifacts.iter().enumerate() {
        artifact(&mut out, i + 1, a);
    }
    if let Some(a) = &report.alignment {
        alignment(&mut out, a);
    }
    if let Some(v) = &report.seam_verdict {
        seam_verdict(&mut out, v);
    }
    if let Some(s) = &report.scaling {
        scaling(&mut out, s);
    }
    if let Some(j) = &report.job {
        job(&mut out, j);
    }
    if let Some(c) = &report.compare {
        comparison(&mut out, c);
    }
    let _ = write!(
        out,
        "</main>\n<footer>Written by opguard-report {}. A summary, never the events: \
         every figure comes from the opguard analyses of the traces named above.</footer>\n\
         </body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    out
}

fn facts(out: &mut String, rows: &[(&str, String)]) {
    out.push_str("<dl class=\"facts\">\n");
    for (k, v) in rows {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(v));
    }
    out.push_str("</dl>\n");
}

fn artifact(out: &mut String, n: usize, a: &ArtifactReport) {
    let r = &a.region;
    let _ = writeln!(
        out,
        "<section class=\"artifact\" id=\"artifact-{n}\">\n<h2>{}</h2>",
        escape_path(&a.file)
    );
    facts(
        out,
        &[
            ("artifact (SHA-256)", r.artifact.to_hex()),
            ("provider", r.provider.as_str().to_owned()),
            ("clock domain", r.clock_domain.clone()),
            (
                "region",
                r.region_duration_ns.map_or_else(
                    || "no launches and no device activity".to_owned(),
                    |d| format!("{} in this trace's clock", format_ns(d)),
                ),
            ),
            (
                "launches",
                format!(
                    "{} direct ({}), {} graph ({})",
                    r.direct_launch_count,
                    format_ns(r.direct_launch_duration_ns),
                    r.graph_launch_count,
                    format_ns(r.graph_launch_duration_ns)
                ),
            ),
            (
                "device",
                format!(
                    "{} kernels ({}), {} memory operations on {} streams",
                    r.kernel_count,
                    format_ns(r.kernel_duration_ns),
                    r.memory_op_count,
                    r.streams.len()
                ),
            ),
            (
                "device time",
                format!(
                    "busy {}, idle {} (no device working) on {} devices; the streams' idle gaps add to {}",
                    format_ns(r.device_busy_ns),
                    format_ns(r.device_idle_ns),
                    r.devices.len(),
                    format_ns(r.idle_gap_total_ns)
                ),
            ),
            (
                "communication",
                format!(
                    "{} collective kernels, busy {}: {} overlapped with compute, {} exposed",
                    r.communication.kernel_count,
                    format_ns(r.communication.busy_ns),
                    format_ns(r.communication.overlapped_with_compute_ns),
                    format_ns(r.communication.exposed_ns)
                ),
            ),
        ],
    );
    out.push_str("<h3>Launch region</h3>\n");
    timeline(out, &a.timeline);
    gap_table(out, &a.timeline);
    out.push_str("<h3>Profile Top-N</h3>\n");
    profile(out, &a.profile);
    out.push_str("<h3>Coverage</h3>\n");
    coverage(out, r);
    out.push_str("</section>\n");
}

fn timeline(out: &mut String, t: &Timeline) {
    let (Some(start), Some(end)) = (t.start_ns, t.end_ns) else {
        out.push_str(
            "<p class=\"caption\">No launch calls, no device activity and no timed host work: nothing to draw.</p>\n",
        );
        return;
    };
    let host_only = t.lanes.iter().all(|l| l.kind == LaneKind::HostActivity);
    let scale = TimeScale::new(start, end);
    let width = LABEL_WIDTH + TIMELINE_PLOT_WIDTH + 20.0;
    let height = AXIS_HEIGHT + LANE_STEP * t.lanes.len() as f64 + 6.0;
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart timeline\" role=\"img\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <title>{}</title>",
        if host_only {
            "Host threads' activity (the capture has no launches and no device activity)"
        } else {
            "Launch region timeline: device time and communication, host threads' launch calls and streams' device activity"
        }
    );
    out.push_str("<g class=\"axis\">");
    for i in 0..=4 {
        let x = LABEL_WIDTH + TIMELINE_PLOT_WIDTH * f64::from(i) / 4.0;
        let at = scale.span_ns() / 4 * i64::from(i);
        let anchor = match i {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        let _ = write!(
            out,
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{height}\"/>\
             <text x=\"{x}\" y=\"{}\" text-anchor=\"{anchor}\">+{}</text>",
            AXIS_HEIGHT - 4.0,
            AXIS_HEIGHT - 8.0,
            escape(&format_ns(at))
        );
    }
    out.push_str("</g>\n");
    for (i, lane) in t.lanes.iter().enumerate() {
        let y = AXIS_HEIGHT + LANE_STEP * i as f64 + 3.0;
        let class = match lane.kind {
            LaneKind::Device => "device",
            LaneKind::Communication => "comm",
            LaneKind::HostThread => "host",
            LaneKind::Stream => "stream",
            LaneKind::HostActivity => "hostwork",
        };
        let _ = write!(
            out,
            "<g class=\"lane {class}\"><text x=\"4\" y=\"{}\">{}</text>\
             <rect class=\"lane-bg\" x=\"{LABEL_WIDTH}\" y=\"{y}\" width=\"{TIMELINE_PLOT_WIDTH}\" height=\"{LANE_HEIGHT}\"/>",
            y + LANE_HEIGHT - 3.0,
            escape(&clip(&lane.label, 38))
        );
        let runs = lane
            .busy
            .iter()
            .map(|r| ("busy", r))
            .chain(lane.overlapped.iter().map(|r| ("overlapped", r)));
        for (what, &(from, to)) in runs {
            let x = LABEL_WIDTH + from as f64 * TIMELINE_PLOT_WIDTH / t.bins as f64;
            let w = (to - from) as f64 * TIMELINE_PLOT_WIDTH / t.bins as f64;
            let _ = write!(
                out,
                "<rect class=\"{what} {class}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{LANE_HEIGHT}\"/>"
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    let _ = writeln!(
        out,
        "<figcaption>Time from the region start ({} ns in this trace's clock) to its end, {} later. \
         {}{}</figcaption></figure>",
        start,
        escape(&format_ns(end.saturating_sub(start))),
        if host_only {
            "Green: a host thread's work (operators, ranges, Python frames); white: nothing recorded."
        } else {
            "Blue: a device busy on any of its streams; red: a device's collective kernels with nothing else \
             running (exposed communication), orange: collectives overlapped with other kernels; purple: a \
             host thread's launch calls; green: a stream's device activity; white: gaps."
        },
        if t.omitted_lanes > 0 {
            format!(
                " {} quieter lanes are not drawn; the table lists every lane.",
                t.omitted_lanes
            )
        } else {
            String::new()
        }
    );
}

fn gap_table(out: &mut String, t: &Timeline) {
    if !t.lanes.iter().any(|l| l.kind.has_gaps()) {
        return;
    }
    out.push_str(
        "<table class=\"gaps\"><thead><tr><th>lane</th><th class=\"num\">events</th>\
         <th class=\"num\">gaps</th><th class=\"num\">gap total</th><th class=\"num\">largest gap</th>\
         </tr></thead><tbody>\n",
    );
    for lane in t.lanes.iter().filter(|l| l.kind.has_gaps()) {
        let what = match lane.kind {
            LaneKind::HostThread => "launch gaps",
            _ => "idle gaps",
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\" title=\"{what}\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&lane.label),
            lane.events,
            lane.gap_count,
            escape(&format_ns(lane.gap_total_ns)),
            escape(&format_ns(lane.gap_max_ns)),
        );
    }
    out.push_str("</tbody></table>\n");
}

/// The CSS class of an entity kind: its stable name, restricted to the
/// characters a class selector takes as they are.
fn kind_class(kind: &str) -> String {
    let safe: String = kind
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("kind-{safe}")
}

/// The whole a profile row's bar is a share of: the trace's device time;
/// when a profile has no device rows (a host-operation profile), its rows'
/// own total.
fn profile_total(p: &ProfileDocument) -> i64 {
    if p.device_time_ns > 0 {
        p.device_time_ns
    } else {
        p.rows
            .iter()
            .fold(0i64, |acc, r| acc.saturating_add(r.total_device_ns.max(0)))
    }
}

fn profile(out: &mut String, p: &ProfileDocument) {
    if p.rows.is_empty() {
        match &p.host {
            Some(host) => host_profile(out, host),
            None => {
                out.push_str("<p class=\"caption\">No rows: the trace has nothing to rank.</p>\n")
            }
        }
        return;
    }
    let total = profile_total(p);
    let bars: Vec<Bar<'_>> = p
        .rows
        .iter()
        .map(|row| Bar {
            rank: row.rank,
            name: &row.name,
            label: &row.short_name,
            value_ns: row.total_device_ns,
            kind: row.entity_kind.as_str(),
            measure: "",
        })
        .collect();
    let title = format!(
        "Profile Top-N: each bar is the row's share of {}",
        format_ns(total)
    );
    bar_chart(out, "chart bars", &title, total, &bars);
    let _ = writeln!(
        out,
        "<figcaption>Bar length: the row's share of {} ({} rows in the trace, {} distinct entities). \
         Host aggregates are expanded into the kernels they launched, never shown as rows.</figcaption></figure>",
        escape(&format_ns(total)),
        p.device_rows,
        p.distinct_entities
    );
    out.push_str(
        "<table class=\"profile\"><thead><tr><th class=\"num\">#</th><th>kind</th><th>name</th>\
         <th>canonical identity</th><th class=\"num\">calls</th><th class=\"num\">total</th>\
         <th>evidence</th></tr></thead><tbody>\n",
    );
    for row in &p.rows {
        let kind = row.entity_kind.as_str();
        let identity = canonicalize(&row.name).qualified_identity();
        let e = &row.evidence;
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td><span class=\"kind {}\">{}</span></td>\
             <td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td>{} ({}): {} launch edges, {} External-id edges, {} without</td></tr>",
            row.rank,
            kind_class(kind),
            escape(kind),
            escape(&row.name),
            escape(&identity),
            row.calls,
            escape(&format_ns(row.total_device_ns)),
            escape(e.basis),
            escape(&e.category),
            e.launch_correlation_edges,
            e.external_id_edges,
            e.rows_without_edges,
        );
    }
    out.push_str("</tbody></table>\n");
    if !p.expanded_aggregates.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"caption\">{} host aggregates were expanded into their kernels.</p>",
            p.expanded_aggregates.len()
        );
    }
}

/// One bar of a Top-N chart.
struct Bar<'a> {
    rank: usize,
    /// The full name (the bar's tooltip).
    name: &'a str,
    /// What the chart prints beside the bar, clipped.
    label: &'a str,
    value_ns: i64,
    kind: &'a str,
    /// What the value measures, after the duration (`" self"` or nothing).
    measure: &'a str,
}

/// A horizontal bar chart: each bar's length is its value's share of
/// `total` ([`bar_length`]), coloured by entity kind.
fn bar_chart(out: &mut String, classes: &str, title: &str, total: i64, bars: &[Bar<'_>]) {
    let width = BAR_LABEL_WIDTH + BAR_PLOT_WIDTH + 190.0;
    let height = BAR_STEP * bars.len() as f64 + 8.0;
    let _ = writeln!(
        out,
        "<figure><svg class=\"{classes}\" role=\"img\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <title>{}</title>",
        escape(title)
    );
    for bar in bars {
        let y = 4.0 + BAR_STEP * (bar.rank.saturating_sub(1)) as f64;
        let len = bar_length(bar.value_ns, total, BAR_PLOT_WIDTH);
        let share = if total > 0 {
            bar.value_ns.max(0) as f64 / total as f64 * 100.0
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "<g class=\"bar-row\"><title>{name}</title>\
             <text x=\"4\" y=\"{ty}\">{rank}. {short}</text>\
             <rect class=\"bar {class}\" x=\"{BAR_LABEL_WIDTH}\" y=\"{y}\" width=\"{len:.3}\" height=\"{BAR_HEIGHT}\"/>\
             <text class=\"value\" x=\"{vx}\" y=\"{ty}\">{dur}{measure} ({share:.1} %) {kind}</text></g>",
            name = escape(bar.name),
            ty = y + BAR_HEIGHT - 3.0,
            rank = bar.rank,
            short = escape(&clip(bar.label, CHART_NAME_CHARS)),
            class = kind_class(bar.kind),
            vx = BAR_LABEL_WIDTH + len + 6.0,
            dur = escape(&format_ns(bar.value_ns)),
            measure = bar.measure,
            kind = escape(bar.kind),
        );
    }
    out.push_str("</svg>\n");
}

/// A capture without device activity: its host operations by self time
/// (each bar is the row's share of the summed host self time), then its
/// regions. The same bar geometry and kind colours as device rows.
fn host_profile(out: &mut String, h: &HostProfile) {
    let _ = writeln!(
        out,
        "<p class=\"caption host-note\">{}</p>",
        escape(&h.note)
    );
    if h.rows.is_empty() {
        out.push_str("<p class=\"caption\">No host operations either.</p>\n");
        return;
    }
    let total = h.self_time_ns;
    let bars: Vec<Bar<'_>> = h
        .rows
        .iter()
        .map(|row| Bar {
            rank: row.rank,
            name: &row.name,
            label: &row.name,
            value_ns: row.self_ns,
            kind: row.entity_kind.as_str(),
            measure: " self",
        })
        .collect();
    let title = format!(
        "Host operations: each bar is the row's share of {} of host self time",
        format_ns(total)
    );
    bar_chart(out, "chart bars host", &title, total, &bars);
    let _ = writeln!(
        out,
        "<figcaption>Bar length: the row's share of {} of host self time ({} host operations, {} distinct). \
         {}</figcaption></figure>",
        escape(&format_ns(total)),
        h.operations,
        h.distinct_operations,
        escape(h.self_time_rule)
    );
    out.push_str(
        "<table class=\"profile host\"><thead><tr><th class=\"num\">#</th><th>kind</th><th>name</th>\
         <th class=\"num\">calls</th><th class=\"num\">self</th><th class=\"num\">total</th>\
         <th>evidence</th></tr></thead><tbody>\n",
    );
    for row in &h.rows {
        let kind = row.entity_kind.as_str();
        let e = &row.evidence;
        let mut evidence = format!("{} ({})", e.basis, e.category);
        if let Some(op) = &e.hlo_op {
            evidence.push_str(&format!(", hlo_op {op}"));
        }
        if let Some(reason) = &e.reason {
            evidence.push_str(&format!(": {reason}"));
        }
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td><span class=\"kind {}\">{}</span></td>\
             <td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td>{}</td></tr>",
            row.rank,
            kind_class(kind),
            escape(kind),
            escape(&row.name),
            row.calls,
            escape(&format_ns(row.self_ns)),
            escape(&format_ns(row.total_ns)),
            escape(&evidence),
        );
    }
    out.push_str("</tbody></table>\n");
    if !h.regions.is_empty() {
        out.push_str(
            "<table class=\"regions\"><thead><tr><th>region</th><th>category</th>\
             <th class=\"num\">calls</th><th class=\"num\">total</th></tr></thead><tbody>\n",
        );
        for r in &h.regions {
            let _ = writeln!(
                out,
                "<tr><td class=\"name\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&r.name),
                escape(&r.category),
                r.calls,
                escape(&format_ns(r.total_ns)),
            );
        }
        out.push_str("</tbody></table>\n");
    }
}

fn coverage(out: &mut String, r: &LaunchRegion) {
    let c = &r.coverage;
    let kernels = r.kernel_count as i64;
    let bars = [
        ("kernels", kernels),
        (
            "with a correlation id",
            c.kernels_with_correlation_id as i64,
        ),
        (
            "launch proven by correlation",
            r.correlated_kernel_count as i64,
        ),
        (
            "linked by ac2g flows",
            c.flow_correlated_kernel_count as i64,
        ),
    ];
    let plot = 400.0;
    let width = 230.0 + plot + 120.0;
    let height = BAR_STEP * bars.len() as f64 + 8.0;
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart coverage\" role=\"img\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <title>Coverage: correlation ids present versus correlation proven</title>"
    );
    for (i, (label, n)) in bars.iter().enumerate() {
        let y = 4.0 + BAR_STEP * i as f64;
        let len = bar_length(*n, kernels, plot);
        let _ = writeln!(
            out,
            "<g class=\"coverage-row\"><text x=\"4\" y=\"{ty}\">{label}</text>\
             <rect class=\"cov-total\" x=\"230\" y=\"{y}\" width=\"{plot}\" height=\"{BAR_HEIGHT}\"/>\
             <rect class=\"cov-part\" x=\"230\" y=\"{y}\" width=\"{len:.3}\" height=\"{BAR_HEIGHT}\"/>\
             <text class=\"value\" x=\"{vx}\" y=\"{ty}\">{n}</text></g>",
            ty = y + BAR_HEIGHT - 3.0,
            vx = 230.0 + plot + 6.0,
        );
    }
    out.push_str("</svg></figure>\n");
    facts(
        out,
        &[
            ("ids present", yes_no(c.correlation_ids_present).into()),
            (
                "correlation proven",
                yes_no(c.host_to_device_correlation_proven).into(),
            ),
            ("namespace", c.namespace.clone()),
            (
                "disagreement",
                c.disagreement.clone().unwrap_or_else(|| "none".into()),
            ),
            (
                "negative durations",
                format!("{} slices (counted as 0)", c.negative_duration_slices),
            ),
        ],
    );
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn alignment(out: &mut String, a: &AlignmentSummary) {
    let _ = writeln!(
        out,
        "<section id=\"alignment\">\n<h2>Alignment: {} vs {}</h2>",
        escape_path(&a.files[0]),
        escape_path(&a.files[1])
    );
    let aligned = match &a.outcome {
        Ok(aligned) => aligned,
        Err(refusal) => {
            let _ = writeln!(
                out,
                "<p>Not aligned: <code>{}</code> {}</p>\n</section>",
                escape(&refusal.code),
                escape(&refusal.message)
            );
            return;
        }
    };
    let runs: Vec<String> = aligned
        .runs
        .iter()
        .map(|(run, ops)| format!("{run}: {ops} operations"))
        .collect();
    facts(
        out,
        &[
            ("runs", runs.join(", ")),
            ("candidate pairs", aligned.pairs.to_string()),
            (
                "verdict",
                format!(
                    "{} (candidates for review; write the view with opguard export)",
                    aligned.verdict
                ),
            ),
        ],
    );
    let s = &aligned.statuses;
    let parts = [
        ("ok", s.ok, "status-ok"),
        ("differs", s.differs, "status-differs"),
        ("unpaired", s.unpaired, "status-unpaired"),
        (
            "no corresponding trace file",
            s.no_corresponding_trace_file,
            "status-other",
        ),
        ("undetermined", s.undetermined, "status-other"),
        ("not comparable", s.not_comparable, "status-other"),
    ];
    let total = parts.iter().map(|p| p.1 as i64).sum::<i64>();
    let plot = 700.0;
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart statuses\" role=\"img\" width=\"{}\" height=\"30\" \
         viewBox=\"0 0 {} 30\" xmlns=\"http://www.w3.org/2000/svg\">\
         <title>Operations per correspondence status</title>",
        plot + 8.0,
        plot + 8.0
    );
    let mut x = 4.0;
    for (label, n, class) in parts {
        let w = bar_length(n as i64, total, plot);
        if w > 0.0 {
            let _ = write!(
                out,
                "<rect class=\"{class}\" x=\"{x:.3}\" y=\"5\" width=\"{w:.3}\" height=\"20\"><title>{label}: {n}</title></rect>"
            );
        }
        x += w;
    }
    out.push_str("</svg>\n<figcaption>");
    let counts: Vec<String> = parts
        .iter()
        .map(|(label, n, _)| format!("{n} {label}"))
        .collect();
    out.push_str(&escape(&counts.join(", ")));
    out.push_str("</figcaption></figure>\n<h3>First differences</h3>\n");
    if aligned.first_differences.is_empty() {
        out.push_str("<p class=\"caption\">None observed.</p>\n");
    } else {
        out.push_str(
            "<table class=\"first-differences\"><thead><tr><th>run</th><th class=\"num\">rank</th>\
             <th class=\"num\">operation</th><th>record</th><th>status</th></tr></thead><tbody>\n",
        );
        for d in aligned.first_differences.iter().take(MAX_LIST_ROWS) {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"name\">{}</td><td>{}</td></tr>",
                escape(&d.run),
                d.rank,
                d.operation,
                escape(&d.record_id),
                d.status.as_str()
            );
        }
        out.push_str("</tbody></table>\n");
        more(out, aligned.first_differences.len());
    }
    out.push_str("</section>\n");
}

fn more(out: &mut String, len: usize) {
    if len > MAX_LIST_ROWS {
        let _ = writeln!(
            out,
            "<p class=\"caption\">{} more not shown.</p>",
            len - MAX_LIST_ROWS
        );
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_owned()
    } else {
        v.join(", ")
    }
}

fn seam_verdict(out: &mut String, v: &Verdict) {
    let (class, word) = if v.ok {
        ("ok", "passed")
    } else {
        ("refused", "refused")
    };
    let _ = writeln!(
        out,
        "<section id=\"seam-verdict\">\n<h2>Seam verdict</h2>\n\
         <p><span class=\"verdict {class}\">{word}</span> deepest verified: {}</p>",
        yes_no(v.deepest_verified)
    );
    let failed: Vec<String> = v.failed.iter().map(|f| f.code().to_owned()).collect();
    facts(
        out,
        &[
            ("failed", list(&failed)),
            ("target", v.target.clone()),
            ("target marker", v.target_marker.clone()),
            ("device kernel", v.device_kernel.clone()),
            (
                "capture target",
                v.capture_target.clone().unwrap_or_else(|| "none".into()),
            ),
            (
                "counts",
                format!(
                    "{} target marker calls ({} spans), {} matched kernel calls, {} correlated External ids, \
                     {} launch-correlation edges ({})",
                    v.target_marker_calls,
                    v.target_marker_spans,
                    v.matched_kernel_calls,
                    v.correlated_external_ids,
                    v.launch_correlation_edges,
                    v.counts_scope
                ),
            ),
            ("candidates tested", list(&v.candidate_targets_tested)),
            ("live candidates", list(&v.live_candidates)),
            ("deeper live candidates", list(&v.deeper_live_candidates)),
            ("missing candidate markers", list(&v.missing_candidate_markers)),
            (
                "installed but never live",
                list(&v.installed_but_never_live_candidates),
            ),
            (
                "best process",
                v.best_process.as_ref().map_or_else(
                    || "none".into(),
                    |b| format!("{} ({})", b.process, b.best_process_meta_file),
                ),
            ),
        ],
    );
    out.push_str(
        "<table class=\"processes\"><thead><tr><th>process</th><th>trace</th><th>verdict</th>\
         <th class=\"num\">marker calls</th><th class=\"num\">matched kernel calls</th>\
         <th class=\"num\">correlated External ids</th><th class=\"num\">launch edges</th>\
         <th>kernels matched</th><th>failed</th></tr></thead><tbody>\n",
    );
    for p in v.processes.iter().take(MAX_LIST_ROWS) {
        let failed: Vec<String> = p.failed.iter().map(|f| f.code().to_owned()).collect();
        let names: Vec<String> = p
            .matched_kernel_names
            .iter()
            .map(|m| {
                format!(
                    "{} ({}, {} of {} rows)",
                    m.identity, m.basis, m.attributed, m.rows
                )
            })
            .collect();
        let state = match (p.evaluated, p.ok) {
            (false, _) => "not evaluated",
            (true, true) => "passed",
            (true, false) => "refused",
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"file\">{}</td><td>{state}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"name\">{}</td><td>{}</td></tr>",
            escape(&p.name),
            escape_path(p.trace.as_deref().unwrap_or("none")),
            p.target_marker_calls,
            p.matched_kernel_calls,
            p.correlated_external_ids,
            p.launch_correlation_edges,
            escape(&list(&names)),
            escape(&list(&failed)),
        );
    }
    out.push_str("</tbody></table>\n");
    more(out, v.processes.len());
    out.push_str("</section>\n");
}

fn scaling(out: &mut String, s: &ScalingView) {
    let r = &s.report;
    out.push_str("<section id=\"scaling\">\n<h2>Scaling across trials</h2>\n");
    let tested = r.hotspots.first().map_or(0, |h| h.tested_hypothesis_count);
    let _ = writeln!(
        out,
        "<p>{tested} series tested as one Benjamini-Hochberg family; {} with too few trials or \
         inputs, {} with a constant cost; {} frame observations with a partial identity (listed \
         by opguard scaling, neither merged nor dropped).</p>",
        r.insufficient.len(),
        r.not_correlatable.len(),
        r.unmatched.len()
    );
    if !s.points.is_empty() {
        out.push_str("<div class=\"scatters\">\n");
    }
    for (h, points) in r.hotspots.iter().zip(&s.points) {
        scatter(out, h, points);
    }
    if !s.points.is_empty() {
        out.push_str("</div>\n");
    }
    if r.hotspots.is_empty() {
        out.push_str("<p class=\"caption\">No series had enough trials to test.</p>\n");
    } else {
        out.push_str(
            "<table class=\"hotspots\"><thead><tr><th class=\"num\">rho</th><th class=\"num\">p</th>\
             <th class=\"num\">adjusted p</th><th class=\"num\">trials</th><th>input range</th>\
             <th>variant</th><th>frame</th></tr></thead><tbody>\n",
        );
        for h in r.hotspots.iter().take(MAX_LIST_ROWS) {
            let _ = writeln!(
                out,
                "<tr><td class=\"num\">{:.3}</td><td class=\"num\">{:.3e}</td><td class=\"num\">{:.3e}</td>\
                 <td class=\"num\">{}</td><td>{}..{}</td><td>{}</td><td class=\"name\">{} [{}] {}</td></tr>",
                h.spearman_rho,
                h.p_value,
                h.adjusted_p_value,
                h.independent_trial_count,
                h.supported_min,
                h.supported_max,
                escape(&h.series.variant),
                escape(&h.series.name),
                escape(&h.series.category),
                escape(&h.series.metric.to_string()),
            );
        }
        out.push_str("</tbody></table>\n");
        more(out, r.hotspots.len());
    }
    out.push_str("</section>\n");
}

fn scatter(out: &mut String, h: &opguard_scaling::Hotspot, points: &[(f64, i64)]) {
    let (w, hgt, left, bottom, top) = (340.0, 220.0, 56.0, 34.0, 26.0);
    let plot_w = w - left - 12.0;
    let plot_h = hgt - bottom - top;
    let (min_x, max_x) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        });
    let span_x = if max_x > min_x { max_x - min_x } else { 1.0 };
    let max_y = nice_ceiling(points.iter().map(|p| p.1 as f64).fold(0.0, f64::max));
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart scatter\" role=\"img\" width=\"{w}\" height=\"{hgt}\" \
         viewBox=\"0 0 {w} {hgt}\" xmlns=\"http://www.w3.org/2000/svg\">\
         <title>{name}: cost against input, Spearman rho {rho:.3}</title>\
         <text x=\"{left}\" y=\"16\">{short} · rho {rho:.3}</text>\
         <g class=\"axis\"><line x1=\"{left}\" y1=\"{yb}\" x2=\"{xr}\" y2=\"{yb}\"/>\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{yb}\"/>\
         <text x=\"{left}\" y=\"{yl}\">{min_x}</text><text x=\"{xr}\" y=\"{yl}\" text-anchor=\"end\">{max_x}</text>\
         <text x=\"{yt}\" y=\"{yb}\" text-anchor=\"end\">0</text><text x=\"{yt}\" y=\"{ty}\" text-anchor=\"end\">{maxy}</text></g>",
        name = escape(&h.series.name),
        short = escape(&clip(&h.series.name, 36)),
        rho = h.spearman_rho,
        yb = top + plot_h,
        xr = left + plot_w,
        yl = top + plot_h + 14.0,
        yt = left - 4.0,
        ty = top + 8.0,
        maxy = max_y,
    );
    for &(x, y) in points {
        let cx = left + (x - min_x) / span_x * plot_w;
        let cy = top + plot_h - (y as f64 / max_y * plot_h).clamp(0.0, plot_h);
        let _ = write!(
            out,
            "<circle class=\"point\" cx=\"{cx:.2}\" cy=\"{cy:.2}\" r=\"4\"><title>input {x}: {y}</title></circle>"
        );
    }
    let _ = writeln!(
        out,
        "</svg><figcaption>{} per trial ({}), by input</figcaption></figure>",
        escape(&h.series.metric.to_string()),
        escape(&h.series.unit.to_string())
    );
}

/// A whole job: its ranks, then its most expensive frames as strips (one
/// dot per rank, each row scaled to its own slowest rank, the median
/// marked), then the same frames as a table.
fn job(out: &mut String, job: &Job) {
    let unreadable = job.unreadable().count();
    let _ = writeln!(
        out,
        "<section id=\"job\">\n<h2>Job: {} ranks</h2>\n<p>Each rank is its own clock domain: every \
         figure is a duration added up within one rank, and no timestamp is compared across \
         ranks. {} frames in all. Ranks that could not be read: {unreadable} (listed with their \
         error, missing from every frame).</p>",
        job.ranks.len(),
        job.frames.len(),
    );
    out.push_str(
        "<table class=\"ranks\"><thead><tr><th class=\"num\">rank</th><th>provider</th>\
         <th>frames</th><th class=\"num\">device time</th><th class=\"num\">collectives</th>\
         <th class=\"num\">exposed communication</th><th>file</th></tr></thead><tbody>\n",
    );
    for r in job.ranks.iter().take(MAX_LIST_ROWS) {
        let rank = r.rank.map_or_else(|| "-".to_owned(), |n| n.to_string());
        let (provider, basis, device, collectives, exposed) = match &r.error {
            Some(e) => (
                format!("error[{}]: {}", e.code, e.message),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ),
            None => (
                r.provider.clone().unwrap_or_default(),
                r.frame_basis
                    .map_or_else(String::new, |b| b.as_str().to_owned()),
                format_ns(r.device_time_ns),
                format_ns(r.collectives.iter().map(|c| c.total_ns).sum()),
                r.launch
                    .as_ref()
                    .map_or_else(String::new, |l| format_ns(l.communication.exposed_ns)),
            ),
        };
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{rank}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"file\">{}</td></tr>",
            escape(&provider),
            escape(&basis),
            escape(&device),
            escape(&collectives),
            escape(&exposed),
            escape_path(&r.file),
        );
    }
    out.push_str("</tbody></table>\n");
    more(out, job.ranks.len());
    let frames: Vec<&JobFrame> = job.frames.iter().take(MAX_JOB_FRAMES).collect();
    if frames.is_empty() {
        out.push_str("<p class=\"caption\">No frame was found on any rank.</p>\n</section>\n");
        return;
    }
    strips(out, &frames);
    out.push_str(
        "<table class=\"frames\"><thead><tr><th class=\"num\">#</th><th>frame</th>\
         <th>category</th><th class=\"num\">max</th><th class=\"num\">median</th>\
         <th>slowest</th><th class=\"num\">ranks</th><th>missing</th></tr></thead><tbody>\n",
    );
    for (i, f) in frames.iter().enumerate() {
        let missing: Vec<String> = f
            .missing
            .iter()
            .map(|m| {
                m.rank
                    .map_or_else(|| m.file.clone(), |n| format!("rank {n}"))
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td class=\"name\">{}</td><td>{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"file\">{}</td>\
             <td class=\"num\">{}/{}</td><td class=\"file\">{}</td></tr>",
            i + 1,
            escape(&f.name),
            escape(&f.category),
            escape(&format_ns(f.max_ns)),
            escape(&format_ns(f.median_ns)),
            escape_path(&slowest(f)),
            f.per_rank.len(),
            job.ranks.len(),
            escape_path(&list(&missing)),
        );
    }
    out.push_str("</tbody></table>\n");
    let _ = writeln!(
        out,
        "<p class=\"caption\">The {} most expensive of {} frames (by their slowest rank); \
         opguard job --json lists them all.</p>\n</section>",
        frames.len(),
        job.frames.len()
    );
}

/// Which rank a frame costs most on: its number, or its file.
fn slowest(f: &JobFrame) -> String {
    match f.slowest_rank {
        Some(n) => format!("rank {n}"),
        None => f.slowest_file.clone(),
    }
}

/// [`slowest`] short enough for a chart: a rank without a number by its
/// file's name, clipped (the table below has the path).
fn slowest_in_chart(f: &JobFrame) -> String {
    match f.slowest_rank {
        Some(n) => format!("rank {n}"),
        None => {
            let name = std::path::Path::new(&f.slowest_file)
                .file_name()
                .map_or_else(
                    || f.slowest_file.clone(),
                    |n| n.to_string_lossy().into_owned(),
                );
            clip(&name, 14)
        }
    }
}

/// One strip per frame: a dot per rank at its cost's share of the frame's
/// largest, the slowest rank's dot marked, the median as a tick.
fn strips(out: &mut String, frames: &[&JobFrame]) {
    let width = BAR_LABEL_WIDTH + STRIP_PLOT_WIDTH + 350.0;
    let height = BAR_STEP * frames.len() as f64 + 8.0;
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart strips\" role=\"img\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <title>Each frame's cost on every rank, scaled to its slowest rank</title>"
    );
    for (i, f) in frames.iter().enumerate() {
        let y = 4.0 + BAR_STEP * i as f64;
        let mid = y + BAR_HEIGHT / 2.0;
        let x = |ns: i64| BAR_LABEL_WIDTH + bar_length(ns, f.max_ns, STRIP_PLOT_WIDTH);
        let _ = write!(
            out,
            "<g class=\"strip-row\"><title>{name}</title>\
             <text x=\"4\" y=\"{ty}\">{n}. {label}</text>\
             <line class=\"strip-axis\" x1=\"{BAR_LABEL_WIDTH}\" y1=\"{mid}\" x2=\"{end}\" y2=\"{mid}\"/>\
             <line class=\"median\" x1=\"{mx:.3}\" y1=\"{y}\" x2=\"{mx:.3}\" y2=\"{yb}\"/>",
            name = escape(&f.name),
            ty = y + BAR_HEIGHT - 3.0,
            n = i + 1,
            label = escape(&clip(&f.label(), CHART_NAME_CHARS)),
            end = BAR_LABEL_WIDTH + STRIP_PLOT_WIDTH,
            mx = x(f.median_ns),
            yb = y + BAR_HEIGHT,
        );
        for c in &f.per_rank {
            let who = c
                .rank
                .map_or_else(|| c.file.clone(), |n| format!("rank {n}"));
            let slowest = c.rank == f.slowest_rank && c.file == f.slowest_file;
            let _ = write!(
                out,
                "<circle class=\"rank{}\" cx=\"{:.3}\" cy=\"{mid}\" r=\"{}\"><title>{}: {}</title></circle>",
                if slowest { " slowest" } else { "" },
                x(c.cost_ns),
                if slowest { 4.5 } else { 3.0 },
                escape(&who),
                escape(&format_ns(c.cost_ns)),
            );
        }
        let missing = f.missing.len();
        let _ = writeln!(
            out,
            "<text class=\"value\" x=\"{vx}\" y=\"{ty}\">{max} on {who} · median {median}{gone}</text></g>",
            vx = BAR_LABEL_WIDTH + STRIP_PLOT_WIDTH + 8.0,
            ty = y + BAR_HEIGHT - 3.0,
            max = escape(&format_ns(f.max_ns)),
            who = escape(&slowest_in_chart(f)),
            median = escape(&format_ns(f.median_ns)),
            gone = if missing > 0 { format!(" · {missing} missing") } else { String::new() },
        );
    }
    out.push_str(
        "</svg><figcaption>One dot per rank; each row is scaled to its own slowest rank \
                  (the red dot), the dark tick is the median.</figcaption></figure>\n",
    );
}

/// Baseline runs against candidate runs: the gate, then per entity the
/// two sides' samples side by side (regressions first, as the comparison
/// orders them), then the totals and a table of every figure drawn.
fn comparison(out: &mut String, c: &Comparison) {
    let (class, status) = match c.gate.status {
        GateStatus::Failed => ("refused", "failed"),
        GateStatus::Passed => ("ok", "passed"),
        GateStatus::Undecided => ("undecided", "undecided"),
    };
    let side = |s: &opguard_compare::Side| {
        format!(
            "{} run{} ({}), {} samples",
            s.runs.len(),
            if s.runs.len() == 1 { "" } else { "s" },
            s.providers.join(", "),
            s.samples.len()
        )
    };
    let _ = writeln!(
        out,
        "<section id=\"compare\">\n<h2>Comparison: baseline against candidate</h2>\n\
         <p><span class=\"verdict {class}\">gate {status}</span> {}</p>",
        escape(&c.gate.message)
    );
    for caveat in &c.gate.caveats {
        let (code, text) = caveat.split_once(": ").unwrap_or(("caveat", caveat));
        let _ = writeln!(
            out,
            "<p class=\"caveat\"><strong>{}</strong>: {}</p>",
            escape(code),
            escape(text)
        );
    }
    facts(
        out,
        &[
            ("baseline", side(&c.baseline)),
            ("candidate", side(&c.candidate)),
            ("samples", c.sample_unit_reason.clone()),
            (
                "decided by",
                format!(
                    "two-sided Mann–Whitney U per entity, Benjamini–Hochberg over {} tested at \
                     FDR {}; fails above {}% slower",
                    c.tested,
                    c.settings.fdr,
                    c.settings.fail_above * 100.0
                ),
            ),
        ],
    );
    // Entities that took no time on either side have nothing to draw.
    let entities: Vec<&EntityComparison> = c
        .entities
        .iter()
        .filter(|e| {
            e.baseline.median_ns.unwrap_or(0.0) > 0.0 || e.candidate.median_ns.unwrap_or(0.0) > 0.0
        })
        .take(MAX_JOB_FRAMES)
        .collect();
    if entities.is_empty() {
        out.push_str("<p class=\"caption\">No entity took time on either side.</p>\n");
    } else {
        side_by_side(
            out,
            &entities,
            "Each entity's time per sample, baseline and candidate",
        );
    }
    let totals: Vec<&EntityComparison> = c.totals.iter().take(MAX_JOB_FRAMES).collect();
    if !totals.is_empty() {
        out.push_str("<h3>Totals</h3>\n");
        side_by_side(
            out,
            &totals,
            "Each total per sample, baseline and candidate",
        );
    }
    out.push_str(
        "<table class=\"compared\"><thead><tr><th>verdict</th><th>kind</th><th>name</th>\
         <th class=\"num\">baseline median</th><th class=\"num\">candidate median</th>\
         <th class=\"num\">ratio</th><th class=\"num\">interval</th><th class=\"num\">q</th>\
         </tr></thead><tbody>\n",
    );
    for e in entities.iter().chain(&totals) {
        let interval = e.ratio_interval.as_ref().map_or_else(
            || {
                e.why
                    .clone()
                    .or_else(|| e.interval_note.clone())
                    .unwrap_or_default()
            },
            |i| format!("{:.3}–{:.3} ({:.0}%)", i.low, i.high, i.confidence * 100.0),
        );
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"name\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            escape(e.verdict.as_str()),
            escape(e.kind.as_str()),
            escape(&e.name),
            escape(&median_text(e.baseline.median_ns)),
            escape(&median_text(e.candidate.median_ns)),
            e.ratio.map_or_else(|| "-".to_owned(), |r| format!("{r:.3}x")),
            escape(&interval),
            e.q_value.map_or_else(|| "-".to_owned(), |q| format!("{q:.3}")),
        );
    }
    out.push_str("</tbody></table>\n");
    let _ = writeln!(
        out,
        "<p class=\"caption\">{} of {} entities drawn (those that took time, regressions first); \
         opguard compare --json lists them all.</p>\n</section>",
        entities.len(),
        c.entities.len()
    );
}

fn median_text(ns: Option<f64>) -> String {
    ns.map_or_else(|| "-".to_owned(), |v| format_ns(v.round() as i64))
}

/// Two strips per entity, baseline above candidate, one dot per sample,
/// both on the scale of the entity's largest sample, each side's median
/// as a tick; candidate dots are red when the entity regressed, green when
/// it improved.
fn side_by_side(out: &mut String, rows: &[&EntityComparison], title: &str) {
    let row_step = BAR_STEP * 2.0 + 4.0;
    let width = BAR_LABEL_WIDTH + STRIP_PLOT_WIDTH + 300.0;
    let height = row_step * rows.len() as f64 + 8.0;
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart compare\" role=\"img\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n<title>{}</title>",
        escape(title)
    );
    for (i, e) in rows.iter().enumerate() {
        let top = 4.0 + row_step * i as f64;
        let max = e
            .baseline
            .samples_ns
            .iter()
            .chain(&e.candidate.samples_ns)
            .copied()
            .max()
            .unwrap_or(0)
            .max(1);
        let x = |ns: i64| BAR_LABEL_WIDTH + bar_length(ns, max, STRIP_PLOT_WIDTH);
        let _ = write!(
            out,
            "<g class=\"compare-row {verdict}\"><title>{name}</title>\
             <text x=\"4\" y=\"{ty}\">{n}. {label}</text>\
             <text class=\"value\" x=\"4\" y=\"{ty2}\">{verdict}</text>",
            verdict = e.verdict.as_str(),
            name = escape(&e.name),
            ty = top + BAR_HEIGHT - 3.0,
            ty2 = top + BAR_STEP + BAR_HEIGHT - 3.0,
            n = i + 1,
            label = escape(&clip(&e.name, CHART_NAME_CHARS)),
        );
        let candidate_class = match e.verdict {
            CompareVerdict::Regressed => "cand regressed",
            CompareVerdict::Improved => "cand improved",
            _ => "cand",
        };
        for (row, (who, class, d)) in [
            ("baseline", "base", &e.baseline),
            ("candidate", candidate_class, &e.candidate),
        ]
        .into_iter()
        .enumerate()
        {
            let y = top + BAR_STEP * row as f64;
            let mid = y + BAR_HEIGHT / 2.0;
            let _ = write!(
                out,
                "<line class=\"strip-axis\" x1=\"{BAR_LABEL_WIDTH}\" y1=\"{mid}\" x2=\"{end}\" y2=\"{mid}\"/>",
                end = BAR_LABEL_WIDTH + STRIP_PLOT_WIDTH,
            );
            if let Some(m) = d.median_ns {
                let _ = write!(
                    out,
                    "<line class=\"median\" x1=\"{mx:.3}\" y1=\"{y}\" x2=\"{mx:.3}\" y2=\"{yb}\"/>",
                    mx = x(m.round() as i64),
                    yb = y + BAR_HEIGHT,
                );
            }
            for &ns in &d.samples_ns {
                let _ = write!(
                    out,
                    "<circle class=\"{class}\" cx=\"{:.3}\" cy=\"{mid}\" r=\"3\"><title>{who}: {}</title></circle>",
                    x(ns),
                    escape(&format_ns(ns)),
                );
            }
            let _ = write!(
                out,
                "<text class=\"value\" x=\"{vx}\" y=\"{ty}\">{who} {}</text>",
                escape(&median_text(d.median_ns)),
                vx = BAR_LABEL_WIDTH + STRIP_PLOT_WIDTH + 8.0,
                ty = y + BAR_HEIGHT - 3.0,
            );
        }
        let ratio = e.ratio.map_or_else(String::new, |r| format!(" · {r:.3}x"));
        let _ = writeln!(
            out,
            "<text class=\"value\" x=\"{vx}\" y=\"{ty}\">{ratio}</text></g>",
            vx = BAR_LABEL_WIDTH + STRIP_PLOT_WIDTH + 180.0,
            ty = top + BAR_STEP + BAR_HEIGHT - 3.0,
        );
    }
    out.push_str(
        "</svg><figcaption>One dot per sample (a step, or a whole run); grey the baseline, blue \
         the candidate (red when it regressed, green when it improved); each entity on the scale \
         of its largest sample, the dark ticks its medians.</figcaption></figure>\n",
    );
}

/// At most `n` characters of `s`, with an ellipsis when cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
}
