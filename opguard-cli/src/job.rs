//! `opguard job`: one call to [`opguard_job::run_job`] over the ranks named
//! on the command line.

use std::sync::Mutex;

use opguard_job::{job_inputs, run_job, Job, SummaryOptions};

use crate::cli::JobArgs;
use crate::error::CliError;
use crate::exit;
use crate::out::print_answer;
use crate::progress::Progress;
use crate::read::{report_input_warnings, SkippedFile};
use crate::style::{Align, Style, Table};
use crate::trace_info::duration;

impl From<opguard_job::Error> for CliError {
    fn from(e: opguard_job::Error) -> Self {
        let out = CliError::new(e.code(), e.to_string());
        match e.kind() {
            opguard_job::ErrorKind::Document { source, .. } => out.at_document(source),
            _ => out,
        }
    }
}

/// Runs `opguard job`. Every rank is read; an unreadable one is reported on
/// stderr and in the output, and the status is 2.
pub fn run(args: &JobArgs) -> Result<u8, CliError> {
    let inputs = job_inputs(&args.inputs)?;
    let skipped: Vec<SkippedFile> = inputs
        .skipped
        .iter()
        .map(|f| SkippedFile::new("job_file_skipped", f))
        .collect();
    report_input_warnings(
        skipped.iter().map(|w| (w.path.clone(), w)),
        args.output.json,
    );
    let paths = inputs.ranks;
    if paths.is_empty() {
        return Err(CliError::new(
            "no_ranks",
            "the job names no capture files (the directories given hold no capture opguard reads, recognised by content: Chrome JSON, plain or gzip, an XSpace .xplane.pb, an Nsight Systems SQLite export, rocprofv3 output)",
        ));
    }
    let threads = match args.jobs {
        Some(n) => usize::from(n),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let (workers, decode_thread) = read_plan(threads, paths.len());
    // The reader flags (`--salvage`, limits) apply to every rank.
    let options = SummaryOptions::new()
        .top(args.top)
        .reader(args.reader.options().decode_thread(decode_thread))
        .unverified_schema(args.reader.unverified_schema);
    let progress = Mutex::new(Progress::items("job", paths.len() as u64, "ranks"));
    let job = run_job(&paths, workers, &options, &|done, _| {
        if let Ok(mut p) = progress.lock() {
            p.update(done as u64);
        }
    });
    if let Ok(mut p) = progress.lock() {
        p.finish();
    }
    let job = job?;
    print_answer(args.output.json, &job, |style| {
        human(&job, args.frames, style)
    })?;
    let mut status = exit::OK;
    for rank in job.unreadable() {
        if let Some(e) = &rank.error {
            let mut err =
                CliError::new(e.code.clone(), e.message.clone()).in_input(rank.file.clone());
            err.offset = e.offset;
            err.event_index = e.event_index;
            err.encoded_offset = e.encoded_offset;
            err.json_path = e.json_path.clone();
            err.report(args.output.json);
        }
        status = exit::ERROR;
    }
    Ok(status)
}

/// How `threads` reading threads are spent on `ranks` ranks: one worker per
/// rank, at most `threads` of them; when that leaves a spare thread for
/// every worker (fewer ranks than threads, as for one big rank on a laptop),
/// each worker inflates on a thread of its own, the reader's decode thread,
/// which also scans events ahead. Otherwise every thread is a worker
/// already, and one more per worker would only contend for the cores.
fn read_plan(threads: usize, ranks: usize) -> (usize, bool) {
    let workers = threads.clamp(1, ranks.max(1));
    (workers, threads >= 2 * workers)
}

fn rank_label(rank: Option<i64>) -> String {
    rank.map_or_else(|| "-".to_owned(), |r| r.to_string())
}

fn human(job: &Job, frames: usize, style: Style) -> String {
    let mut t = Table::new(&[
        ("rank", Align::Right),
        ("provider", Align::Left),
        ("device time", Align::Right),
        ("region", Align::Right),
        ("collectives", Align::Right),
        ("exposed", Align::Right),
        ("file", Align::Left),
    ]);
    for r in &job.ranks {
        let (provider, device, region, coll, exposed) = match &r.error {
            Some(e) => (
                format!("error[{}]", e.code),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ),
            None => (
                r.provider.clone().unwrap_or_default(),
                duration(r.device_time_ns),
                r.launch
                    .as_ref()
                    .and_then(|l| l.region_duration_ns)
                    .map_or_else(|| "-".to_owned(), duration),
                duration(r.collectives.iter().map(|c| c.total_ns).sum()),
                r.launch
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), |l| duration(l.communication.exposed_ns)),
            ),
        };
        t.row(vec![
            rank_label(r.rank),
            provider,
            device,
            region,
            coll,
            exposed,
            r.file.clone(),
        ]);
    }
    let mut out = t.render(style, "");
    out.push('\n');
    let mut f = Table::new(&[
        ("max", Align::Right),
        ("median", Align::Right),
        ("slowest", Align::Right),
        ("ranks", Align::Right),
        ("frame", Align::Left),
    ]);
    for frame in job.frames.iter().take(frames) {
        f.row(vec![
            duration(frame.max_ns),
            duration(frame.median_ns),
            rank_label(frame.slowest_rank),
            format!("{}/{}", frame.per_rank.len(), job.ranks.len()),
            frame.label().into_owned(),
        ]);
    }
    out.push_str(&f.render(style, ""));
    if job.frames.len() > frames {
        out.push_str(&format!(
            "... {} more frames (--frames N, or --json for all)\n",
            job.frames.len() - frames
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::read_plan;

    #[test]
    fn spare_threads_inflate_for_the_workers() {
        // (threads, ranks) -> (workers, decode thread)
        for (threads, ranks, plan) in [
            (1, 1, (1, false)),
            (1, 16, (1, false)),
            (2, 1, (1, true)),
            (2, 2, (2, false)),
            (2, 16, (2, false)),
            (3, 2, (2, false)),
            (8, 3, (3, true)),
            (16, 4, (4, true)),
            (7, 4, (4, false)),
        ] {
            assert_eq!(
                read_plan(threads, ranks),
                plan,
                "{threads} threads, {ranks} ranks"
            );
        }
    }
}
