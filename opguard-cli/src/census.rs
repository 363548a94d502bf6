//! `opguard census`: the symbolic-shape census of a capture, optionally
//! compared at a second width (with a concrete control) and checked against a
//! declared host-resolution set. Every figure comes from `opguard-census`.
//!
//! Everything is read and computed before anything is printed: a refused
//! capture (`step_axis_not_symbolic`) prints no record at all.

use std::path::{Path, PathBuf};

use opguard_census::{
    Capture, Census, DeclaredHostResolutions, FamilyTable, HostResolutionDiff, WidthComparison,
};
use serde::Serialize;

use crate::cli::CensusArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::style::{Align, Style, Table};

/// The role a capture plays on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// `CAPTURE`.
    Capture,
    /// `--compare`.
    Compare,
    /// `--control`.
    Control,
}

/// One capture's census in the `--json` output: the library's
/// [`Census`] fields, plus where it came from and its host-resolution check.
#[derive(Debug, Serialize)]
pub struct CaptureReport {
    /// Which argument named the capture.
    pub role: Role,
    /// The file.
    pub file: String,
    /// The census, field for field as `opguard-census` serializes it.
    #[serde(flatten)]
    pub census: Census,
    /// The host-resolution log against `--declared-host-resolutions`; `null`
    /// without that flag.
    pub host_resolution_check: Option<HostResolutionDiff>,
}

/// The comparison in the `--json` output: the library's
/// [`WidthComparison`] fields plus `evidence_held`, each check's name mapped
/// to whether it held.
#[derive(Debug, Serialize)]
pub struct ComparisonReport {
    /// The comparison, field for field as `opguard-census` serializes it.
    #[serde(flatten)]
    pub comparison: WidthComparison,
    /// Check name → held, in the library's report order (only the checks
    /// present: the control's two only with `--control`).
    pub evidence_held: Held,
}

/// Check name → held, serialized as a JSON object in report order.
#[derive(Debug)]
pub struct Held(Vec<(&'static str, bool)>);

impl Serialize for Held {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, held) in &self.0 {
            map.serialize_entry(name, held)?;
        }
        map.end()
    }
}

/// The whole `--json` output: one object.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `CAPTURE`, then `--compare`, then `--control`, when given.
    pub captures: Vec<CaptureReport>,
    /// `null` without `--compare`.
    pub comparison: Option<ComparisonReport>,
    /// Every operator call of every capture belongs to a family.
    pub every_operator_classified: bool,
    /// `--allow-unclassified`: operators no family claims do not fail the run.
    pub allow_unclassified: bool,
}

impl Report {
    /// 1 when a verdict is negative (an operator no family claims, unless
    /// allowed; not a free symbol; a host resolution log that differs from
    /// the declared set), else 0.
    pub fn status(&self) -> u8 {
        let incomplete = !self.every_operator_classified && !self.allow_unclassified;
        let not_free = self
            .comparison
            .as_ref()
            .is_some_and(|c| !c.comparison.free_symbol);
        let host_differs = self
            .captures
            .iter()
            .any(|c| c.host_resolution_check.as_ref().is_some_and(|d| !d.matches));
        if incomplete || not_free || host_differs {
            exit::NEGATIVE
        } else {
            exit::OK
        }
    }
}

fn census_error(e: opguard_census::Error, input: &Path) -> CliError {
    let out = CliError::new(e.code(), e.to_string()).in_input(input.display().to_string());
    match e.kind() {
        opguard_census::ErrorKind::Document { source, .. } => out.at_document(source),
        _ => out,
    }
}

fn load(path: &Path) -> Result<Capture, CliError> {
    Capture::from_path(path).map_err(|e| census_error(e, path))
}

/// Builds the report: every file read and every figure computed by the
/// library.
pub fn report(args: &CensusArgs) -> Result<Report, CliError> {
    let table = match &args.families {
        Some(p) => FamilyTable::from_path(p).map_err(|e| census_error(e, p))?,
        None => FamilyTable::default(),
    };
    let declared = match &args.declared_host_resolutions {
        Some(p) => Some(DeclaredHostResolutions::from_path(p).map_err(|e| census_error(e, p))?),
        None => None,
    };
    let mut inputs: Vec<(Role, &PathBuf)> = vec![(Role::Capture, &args.capture)];
    if let Some(p) = &args.compare {
        inputs.push((Role::Compare, p));
    }
    if let Some(p) = &args.control {
        inputs.push((Role::Control, p));
    }
    let mut captures = Vec::with_capacity(inputs.len());
    for (role, path) in &inputs {
        captures.push((*role, *path, load(path)?));
    }
    let comparison = match captures.as_slice() {
        [(_, first_path, first), (Role::Compare, second_path, second), rest @ ..] => {
            let control = rest.first().map(|(_, _, c)| c);
            let cmp = WidthComparison::compare_with_families(first, second, control, &table)
                .map_err(|e| {
                    CliError::new(e.code(), e.to_string()).in_input(format!(
                        "{} --compare {}",
                        first_path.display(),
                        second_path.display()
                    ))
                })?;
            let evidence_held = Held(
                cmp.evidence
                    .checks()
                    .into_iter()
                    .map(|(name, check)| (name, check.held))
                    .collect(),
            );
            Some(ComparisonReport {
                comparison: cmp,
                evidence_held,
            })
        }
        _ => None,
    };
    let captures: Vec<CaptureReport> = captures
        .iter()
        .map(|(role, path, capture)| {
            let census = Census::compute(capture, &table);
            // The declared set describes the symbolic captures; a control is
            // traced without the step symbol and is not held to it.
            let host_resolution_check = match (&declared, role) {
                (Some(d), Role::Capture | Role::Compare) => Some(census.host_resolution_diff(d)),
                _ => None,
            };
            CaptureReport {
                role: *role,
                file: path.display().to_string(),
                census,
                host_resolution_check,
            }
        })
        .collect();
    Ok(Report {
        every_operator_classified: captures.iter().all(|c| c.census.unclassified.ops == 0),
        captures,
        comparison,
        allow_unclassified: args.allow_unclassified,
    })
}

/// Runs `opguard census`.
pub fn run(args: &CensusArgs) -> Result<u8, CliError> {
    let report = report(args)?;
    print_answer(args.output.json, &report, |style| human(&report, style))?;
    Ok(report.status())
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn human(report: &Report, style: Style) -> String {
    let mut out = String::new();
    for (i, c) in report.captures.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        human_capture(&mut out, c, report.allow_unclassified, style);
    }
    if let Some(cmp) = &report.comparison {
        out.push('\n');
        human_comparison(&mut out, &cmp.comparison, style);
    }
    out
}

fn human_capture(out: &mut String, c: &CaptureReport, allow_unclassified: bool, style: Style) {
    let census = &c.census;
    let role = match c.role {
        Role::Capture => "capture",
        Role::Compare => "compare",
        Role::Control => "control",
    };
    out.push_str(&format!(
        "{} {}  ({})\n",
        style.bold(role),
        census.label,
        c.file
    ));
    let axis = &census.step_axis;
    out.push_str(&format!(
        "  step axis  {} at width {}: {}\n",
        axis.declared.as_deref().unwrap_or("(none)"),
        axis.hint,
        axis.note
    ));
    out.push_str(&format!("  digest     {}\n\n", census.digest));

    let mut table = Table::new(&[
        ("family", Align::Left),
        ("ops", Align::Right),
        ("shape_entries", Align::Right),
        ("non_numeric", Align::Right),
    ]);
    for f in &census.families {
        table.row(vec![
            f.family.clone(),
            f.ops.to_string(),
            f.shape_entries.to_string(),
            f.non_numeric.to_string(),
        ]);
    }
    let u = &census.unclassified;
    table.row(vec![
        opguard_census::UNCLASSIFIED.to_owned(),
        u.ops.to_string(),
        u.shape_entries.to_string(),
        u.non_numeric.to_string(),
    ]);
    let t = &census.totals;
    table.row(vec![
        "total".to_owned(),
        t.ops.to_string(),
        t.shape_entries.to_string(),
        t.non_numeric.to_string(),
    ]);
    out.push_str(&table.render(style, "  "));

    if !u.by_name.is_empty() {
        let names: Vec<String> = u.by_name.iter().map(|(n, k)| format!("{n} ×{k}")).collect();
        if allow_unclassified {
            out.push_str(&format!("  unclassified: {}\n", names.join(", ")));
        } else {
            out.push_str(&format!(
                "  {}: {}; classify them in the family table (--families FILE) or pass \
                 --allow-unclassified\n",
                style.error("an incomplete census (unclassified operators)"),
                names.join(", ")
            ));
        }
    }
    if t.unknown > 0 {
        out.push_str(&format!("  unknown entries: {}\n", t.unknown));
    }
    let dims: Vec<String> = census
        .concrete_dims
        .iter()
        .map(|d| format!("{}×{}", d.value, d.count))
        .collect();
    out.push_str(&format!(
        "  concrete dims (value×count): {}\n",
        if dims.is_empty() {
            "(none)".to_owned()
        } else {
            dims.join(" ")
        }
    ));
    if census.host_resolutions_by_line.is_empty() {
        out.push_str("  host resolutions: (none)\n");
    } else {
        out.push_str("  host resolutions:\n");
        for (line, n) in &census.host_resolutions_by_line {
            out.push_str(&format!("    {n:>4}  {line}\n"));
        }
    }
    if let Some(d) = &c.host_resolution_check {
        let verdict = if d.matches {
            style.bold("host-resolution log as declared")
        } else {
            style.error("host-resolution log differs from the declared set")
        };
        out.push_str(&format!("  {verdict}: {}\n", d.summary()));
    }
}

fn human_comparison(out: &mut String, cmp: &WidthComparison, style: Style) {
    out.push_str(&format!(
        "{} {} (width {}) vs {} (width {}){}\n",
        style.bold("comparison"),
        cmp.first.label,
        cmp.first.step_hint,
        cmp.second.label,
        cmp.second.step_hint,
        cmp.control
            .as_ref()
            .map(|c| format!(", control {} (width {})", c.label, c.step_hint))
            .unwrap_or_default()
    ));
    let verdict = if cmp.free_symbol {
        style.bold(&cmp.verdict)
    } else {
        style.error(&cmp.verdict)
    };
    out.push_str(&format!("  {verdict}\n\n"));
    let mut table = Table::new(&[
        ("check", Align::Left),
        ("held", Align::Left),
        ("observed", Align::Left),
    ]);
    for (name, check) in cmp.evidence.checks() {
        let name = if check.load_bearing {
            format!("{name} *")
        } else {
            name.to_owned()
        };
        table.row(vec![
            name,
            yes_no(check.held).to_owned(),
            check.observed.clone(),
        ]);
    }
    out.push_str(&table.render(style, "  "));
    out.push_str("  (* load-bearing)\n");
    for s in &cmp.specialisations {
        out.push_str(&format!(
            "  specialised in {}: {} = {} via {} ({}): {}\n",
            s.capture, s.symbol, s.value, s.via, s.reason, s.text
        ));
    }
    for d in &cmp.distinct_ops_differences {
        out.push_str(&format!(
            "  calls differ: {} {} vs {}\n",
            d.op, d.first, d.second
        ));
    }
    for d in &cmp.control_distinct_ops_differences {
        out.push_str(&format!(
            "  control calls differ: {} {} (control) vs {}\n",
            d.op, d.first, d.second
        ));
    }
}
