//! `opguard trace launches`: one launch region per artifact, computed by
//! [`opguard_model::analysis::launch_region`], and their explicit aggregate.

use std::path::PathBuf;

use opguard_model::analysis::{aggregate, LaunchRegion, RegionAggregate};
use opguard_model::{ArtifactSpec, ModelOptions};
use serde::Serialize;

use crate::cli::TraceLaunchesArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::style::{facts, Align, Style, Table};

/// One region and the path it was read from.
#[derive(Debug, Serialize)]
pub struct FileRegion {
    /// The path as given.
    pub file: String,
    /// The library's region.
    #[serde(flatten)]
    pub region: LaunchRegion,
    /// Why the region counts nothing, when the file has no device activity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Why a region with no launches and no device activity reports zeros.
fn no_device_activity(region: &LaunchRegion) -> Option<String> {
    let empty = region.streams.is_empty()
        && region.direct_launch_count == 0
        && region.graph_launch_count == 0;
    empty.then(|| {
        format!(
            "no device activity: the trace ({}) has no kernel, memory or launch rows, so every launch count is 0; `opguard select profile` lists its host operations",
            region.provider.as_str()
        )
    })
}

/// The `--json` document.
#[derive(Debug, Serialize)]
pub struct LaunchesDocument {
    /// One per file that could be read.
    pub regions: Vec<FileRegion>,
    /// Counts and durations summed over the regions (no absolute times).
    pub aggregate: RegionAggregate,
}

/// Each file's stage from the `--stage` values: `STAGE` for every file,
/// `FILE=STAGE` for one (as the C ABI's per-artifact `stage` allows). A value
/// whose text before its last `=` is not one of the files is a plain stage.
fn stages(values: &[String], files: &[PathBuf]) -> Result<Vec<Option<String>>, CliError> {
    let mut every: Option<&str> = None;
    let mut per_file: Vec<Option<&str>> = vec![None; files.len()];
    for value in values {
        let named = value.rsplit_once('=').and_then(|(file, stage)| {
            files
                .iter()
                .position(|f| f.as_os_str() == file)
                .map(|i| (i, stage))
        });
        let (slot, stage) = match named {
            Some((i, stage)) => (&mut per_file[i], stage),
            None => (&mut every, value.as_str()),
        };
        if stage.is_empty() {
            return Err(CliError::usage(format!(
                "--stage {value:?} gives an empty stage"
            )));
        }
        if let Some(before) = slot.replace(stage) {
            return Err(CliError::usage(format!(
                "--stage {value:?}: that stage was already given as {before:?}; give each file one stage"
            )));
        }
    }
    Ok(per_file
        .into_iter()
        .map(|own| own.or(every).map(str::to_owned))
        .collect())
}

/// Runs `opguard trace launches`.
pub fn run(args: &TraceLaunchesArgs) -> Result<u8, CliError> {
    crate::read::at_most_one_stdin(args.files.iter().map(|p| p.as_path()))?;
    let provider = args.provider.provider;
    let stages = stages(&args.stage, &args.files)?;
    let options = args
        .reader
        .read_options(ModelOptions::launches_only(), true);
    let mut status = exit::OK;
    let mut regions = Vec::new();
    for (file, stage) in args.files.iter().zip(stages) {
        let label = file.display().to_string();
        let mut spec = ArtifactSpec::new().source(label.clone());
        spec.role = args.role.clone();
        spec.stage = stage;
        spec.provider = provider;
        match crate::read::region(file, &label, spec, &options, args.top) {
            Ok((region, warnings)) => {
                crate::read::report_warnings(&label, &warnings, args.output.json);
                regions.push(FileRegion {
                    file: label,
                    note: no_device_activity(&region),
                    region,
                })
            }
            Err(e) => {
                e.in_input(label).report(args.output.json);
                status = exit::ERROR;
            }
        }
    }
    let only: Vec<LaunchRegion> = regions.iter().map(|r| r.region.clone()).collect();
    // One capture given twice would count its launches and kernels twice.
    let aggregate = aggregate(&only).map_err(|e| {
        let (a, b) = (&regions[e.positions.0].file, &regions[e.positions.1].file);
        CliError::new(
            e.code(),
            format!(
                "{a} and {b} are one artifact ({}): its launches and kernels would be counted \
                 twice; give each capture once",
                e.artifact
            ),
        )
    })?;
    let doc = LaunchesDocument { aggregate, regions };
    print_answer(args.output.json, &doc, |style| human(&doc, style))?;
    Ok(status)
}

fn opt(v: Option<i64>) -> String {
    v.map_or_else(|| "(none)".into(), |v| format!("{v} ns"))
}

fn human(doc: &LaunchesDocument, style: Style) -> String {
    let mut out = String::new();
    for (i, f) in doc.regions.iter().enumerate() {
        let r = &f.region;
        if i > 0 {
            out.push('\n');
        }
        let mut lines = vec![
            ("file", f.file.clone()),
            ("artifact", r.artifact.to_hex()),
            ("provider", r.provider.as_str().to_owned()),
            (
                "role / stage",
                format!(
                    "{} / {}",
                    r.role.as_deref().unwrap_or("-"),
                    r.stage.as_deref().unwrap_or("-")
                ),
            ),
            ("clock domain", r.clock_domain.clone()),
            ("region duration", opt(r.region_duration_ns)),
            (
                "launches",
                format!(
                    "{} direct ({} ns), {} graph ({} ns)",
                    r.direct_launch_count,
                    r.direct_launch_duration_ns,
                    r.graph_launch_count,
                    r.graph_launch_duration_ns
                ),
            ),
            (
                "kernels",
                format!(
                    "{} ({} ns), {} with a proven launch, {} whose correlation names several launches; {} memory ops",
                    r.kernel_count,
                    r.kernel_duration_ns,
                    r.correlated_kernel_count,
                    r.coverage.ambiguous_correlation_kernel_count,
                    r.memory_op_count
                ),
            ),
            (
                "correlation",
                format!(
                    "ids present: {}, proven: {} (namespace {}), ac2g-linked kernels: {}",
                    r.coverage.correlation_ids_present,
                    r.coverage.host_to_device_correlation_proven,
                    r.coverage.namespace,
                    r.coverage.flow_correlated_kernel_count
                ),
            ),
            (
                "device time",
                format!(
                    "busy {} ns, idle {} ns (no device working) over {} devices",
                    r.device_busy_ns,
                    r.device_idle_ns,
                    r.devices.len()
                ),
            ),
            (
                "idle gaps",
                format!(
                    "{} ns summed over {} streams",
                    r.idle_gap_total_ns,
                    r.streams.len()
                ),
            ),
            (
                "communication",
                format!(
                    "{} collective kernels, busy {} ns: {} ns overlapped with compute, {} ns exposed",
                    r.communication.kernel_count,
                    r.communication.busy_ns,
                    r.communication.overlapped_with_compute_ns,
                    r.communication.exposed_ns
                ),
            ),
        ];
        if let Some(d) = &r.coverage.disagreement {
            lines.push(("note", d.clone()));
        }
        if let Some(n) = &f.note {
            lines.push(("note", n.clone()));
        }
        out.push_str(&facts(&lines, style, ""));
        if !r.top_kernels.is_empty() {
            out.push('\n');
            let mut t = Table::new(&[
                ("count", Align::Right),
                ("device ns", Align::Right),
                ("kernel", Align::Left),
            ]);
            for k in &r.top_kernels {
                t.row(vec![
                    k.count.to_string(),
                    k.duration_ns.to_string(),
                    k.short_name.clone(),
                ]);
            }
            out.push_str(&t.render(style, "  "));
        }
    }
    if doc.regions.len() > 1 {
        let a = &doc.aggregate;
        out.push('\n');
        out.push_str(&facts(
            &[
                (
                    "all files",
                    format!(
                        "{} regions, {} kernels ({} proven), {} direct + {} graph launches, summed durations {} ns",
                        a.region_count,
                        a.kernel_count,
                        a.correlated_kernel_count,
                        a.direct_launch_count,
                        a.graph_launch_count,
                        a.summed_region_duration_ns
                    ),
                ),
                ("note", "times are never compared across files: each is its own clock domain".into()),
            ],
            style,
            "",
        ));
    }
    out
}
