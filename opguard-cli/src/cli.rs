//! The command line: `opguard <group> <command> [options]`.
//!
//! Only flags live here. Each subcommand's work is one library call in the
//! module named after it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use opguard_model::Provider;

/// `--provider`, on every command that analyses a trace.
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct ProviderArgs {
    /// Override provider detection: kineto_cuda, kineto_rocm, kineto_other,
    /// perfetto_json, opguard_export, viztracer, jax, chrome or unknown. The
    /// provider decides which correlation namespaces exist (unknown claims
    /// none) and what host slices are.
    #[arg(long, value_name = "PROVIDER", value_parser = parse_provider)]
    pub provider: Option<Provider>,
}

fn parse_provider(name: &str) -> Result<Provider, String> {
    Provider::from_name(name).ok_or_else(|| {
        format!(
            "unknown provider {name:?}: expected one of {}",
            Provider::names()
        )
    })
}

const ROOT_AFTER_HELP: &str = "\
Output: human-readable tables by default; --json prints stable machine output (README.md).
Errors go to stderr as `error[<code>]: <message> (at byte N, traceEvents[i])`, or with --json
as one line {\"error\": {\"code\", \"message\", \"offset\", \"event_index\"}}.

Exit status: 0 ok, 1 a negative verdict (no match), 2 error or bad input, 64 usage error.
Color only on a terminal and never with NO_COLOR; a progress bar only when stderr is a terminal.

Examples:
  opguard trace info trace.json.gz
  opguard trace info --json traces/*.json.gz";

/// One trustworthy implementation of the contracts GPU-profiling tools keep
/// getting wrong.
#[derive(Debug, Parser)]
#[command(
    name = "opguard",
    version,
    about = "Inspect profiler traces and the contracts built on them.",
    after_help = ROOT_AFTER_HELP,
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    /// The command group.
    #[command(subcommand)]
    pub group: Group,
}

/// `opguard <group>`.
#[derive(Debug, Subcommand)]
pub enum Group {
    /// The main job: for each trace, its provider and artifact, launch regions, the
    /// profile Top-N with entity kinds and canonical kernel identities, and the seam
    /// verdict when a request is given. With no TRACE, runs on the shipped default input.
    #[command(after_help = INSPECT_AFTER_HELP)]
    Inspect(InspectArgs),
    /// Read traces: Chrome Trace Event Format (Kineto, Perfetto JSON; plain or gzip) and XLA's
    /// XSpace (.xplane.pb), told apart by content.
    #[command(subcommand, arg_required_else_help = true)]
    Trace(TraceCommand),
    /// Canonical kernel identity, display names and the strict matcher (CUDA, ROCm,
    /// Triton, mangled `_Z...` symbols, memory rows).
    #[command(subcommand, name = "kernel-name", arg_required_else_help = true)]
    KernelName(KernelNameCommand),
    /// Symbolic-shape census of a traced step (opguard.census/capture-v1), by operator
    /// family, with an optional two-width comparison.
    #[command(after_help = CENSUS_AFTER_HELP, arg_required_else_help = true)]
    Census(CensusArgs),
    /// Profile Top-N with declared entity kinds, and the seam verdict: did the selected
    /// callable launch the profiled kernel, and is it the innermost one that does.
    #[command(subcommand, arg_required_else_help = true)]
    Select(SelectCommand),
    /// Which operators' cost grows with an experiment's input, across separately
    /// captured trial traces, by semantic frame (Spearman, Benjamini-Hochberg).
    #[command(after_help = SCALING_AFTER_HELP, arg_required_else_help = true)]
    Scaling(ScalingArgs),
    /// Export two runs' operations with their automatic candidate pairs as an
    /// opguard.export/v1 view (a Perfetto-loadable JSON), from an opguard.records/v1
    /// file or from two or more PyTorch profiler traces recorded with shapes.
    #[command(after_help = EXPORT_AFTER_HELP, arg_required_else_help = true)]
    Export(ExportArgs),
    /// Apply an alignment map (reviews of candidate pairs) to an export and write a new,
    /// reviewed view; the export is never modified and nothing is evaluated.
    #[command(after_help = ALIGN_AFTER_HELP, arg_required_else_help = true)]
    Align(AlignArgs),
    /// Request-protocol entry points for agents and scripts: one JSON request file in,
    /// one JSON response out.
    #[command(subcommand, arg_required_else_help = true)]
    Tools(ToolsCommand),
    /// A whole job: every rank's trace read in parallel, summarised, and compared
    /// across ranks by semantic frame (durations only: each rank is its own clock).
    #[command(after_help = JOB_AFTER_HELP, arg_required_else_help = true)]
    Job(JobArgs),
    /// A regression gate: baseline runs against candidate runs (any format, any mix),
    /// per kernel identity and semantic frame, per step; Mann-Whitney tests,
    /// ratio intervals, Benjamini-Hochberg. Exit 1 when something regressed beyond
    /// --fail-above at --fdr.
    #[command(after_help = COMPARE_AFTER_HELP, arg_required_else_help = true)]
    Compare(CompareArgs),
    /// The language-neutral parity fixtures (fixtures/), run through this build.
    #[command(subcommand, arg_required_else_help = true)]
    Fixtures(FixturesCommand),
    /// Write one self-contained HTML report (inline SVG charts, nothing fetched): per
    /// trace its launch timeline, profile Top-N and coverage; across traces the
    /// alignment, the seam verdict and scaling. With no TRACE, the shipped default input.
    #[command(after_help = REPORT_AFTER_HELP)]
    Report(ReportArgs),
    // ---- installing the command (completions, man page) ----
    /// Print a shell completion script for opguard (bash, zsh or fish).
    #[command(after_help = COMPLETIONS_AFTER_HELP, arg_required_else_help = true)]
    Completions(CompletionsArgs),
    /// Print opguard's man page (roff) on stdout.
    #[command(after_help = MAN_AFTER_HELP)]
    Man,
}

const COMPLETIONS_AFTER_HELP: &str = "\
Install the script where your shell looks for completions.

Examples:
  opguard completions bash > ~/.local/share/bash-completion/completions/opguard
  opguard completions zsh > \"${fpath[1]}/_opguard\"
  opguard completions fish > ~/.config/fish/completions/opguard.fish";

const MAN_AFTER_HELP: &str = "\
Examples:
  opguard man > ~/.local/share/man/man1/opguard.1 && man opguard";

/// `opguard completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// A shell `opguard completions` writes for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Shell {
    /// GNU bash (bash-completion).
    Bash,
    /// Z shell.
    Zsh,
    /// fish.
    Fish,
}

const EXPORT_AFTER_HELP: &str = "\
The runs are paired per rank by an order-aware alignment of operator and callsite: an
operation pairs only with one of the same rank in the other run (two ranks of one job have no
pairs: their operations are no_corresponding_trace_file; compare them with `opguard job`).
`opguard inspect` pairs its first two traces by the same rule. A pair is a candidate for
review, never a claim that tensors are equal (verdict: not_evaluated). The output must not
exist (outputs are never overwritten); a name ending in .gz is gzip.

Memory: with --from-profile each trace's records are written, as the trace is read, to a
temporary opguard.records/v1 file beside the output (.<OUT>.opguard-records-*, created
exclusively, removed on success and on failure), which the export then reads twice; memory
is bounded by one trace's operation index, not by the traces (two 258 MB traces: see
benches/RESULTS.md). Reader warnings (a trace without its closing `]`, what --salvage kept)
go to stderr. `-` reads one trace from stdin.

Exit status: 0 ok, 2 error (an unreadable input, an input that yields no operation
(no_operations) or was recorded without shapes (recorded_without_shapes), fewer or more than
two runs, an existing output).

Examples:
  opguard export --records runs.records.jsonl --out view.json
  opguard export --from-profile base.json.gz --from-profile test.json.gz --out view.json.gz --json
  opguard export --from-profile a.json --from-profile b.json --out view.json --max-decoded-bytes 512MiB --max-output-bytes 4GiB
  zcat base.json.gz | opguard export --from-profile - --from-profile test.json.gz --out view.json
  opguard export --from-profile cut.json --from-profile b.json --salvage --provider kineto_cuda --out view.json";

/// `opguard export`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["records", "from_profile"])))]
pub struct ExportArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    #[command(flatten)]
    pub output_limit: OutputLimitArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// An opguard.records/v1 file (JSON Lines; plain or gzip).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// A PyTorch profiler trace recorded with shapes; give it once per run and rank (two
    /// or more). The run label is the file name without .json/.gz (`stdin` for `-`,
    /// which reads one trace from stdin; files of one name are numbered in the order
    /// given, `trace (1)`, `trace (2)`), the rank its distributedInfo.rank. Each
    /// trace's records are spilled to a temporary file beside OUT (removed on success
    /// and failure), so memory is bounded by the operation index, not the traces.
    #[arg(long = "from-profile", value_name = "TRACE")]
    pub from_profile: Vec<PathBuf>,
    /// The view to write; it must not exist.
    #[arg(long, value_name = "OUT")]
    pub out: PathBuf,
}

const ALIGN_AFTER_HELP: &str = "\
The map (version 1) names the artifact by its SHA-256 and each event as <sha256>:<index>;
every rule is checked before anything is written, so a refused map (a stale hash, a bad
reference, conflicting mappings, ...) leaves no output. The response says
verdict: not_evaluated: a reviewed pair is comparable, not equal.

Exit status: 0 ok, 2 error (the error's code names the broken rule).

Examples:
  opguard align --artifact view.json --alignment-map map.json --out reviewed.json
  opguard align --json --artifact view.json --alignment-map map.json --out reviewed.json.gz
  zcat view.json.gz | opguard align --artifact - --alignment-map map.json --out reviewed.json";

/// `opguard align`.
#[derive(Debug, Args)]
pub struct AlignArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub output_limit: OutputLimitArgs,
    /// The opguard.export/v1 view to review (never modified); `-` reads it from stdin
    /// (copied to a scratch file, since it is read twice).
    #[arg(long, value_name = "A")]
    pub artifact: PathBuf,
    /// The alignment map (version 1); `-` reads it from stdin.
    #[arg(long = "alignment-map", value_name = "M")]
    pub alignment_map: PathBuf,
    /// The reviewed view to write; it must not exist.
    #[arg(long, value_name = "O")]
    pub out: PathBuf,
}

/// `opguard tools <command>`.
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// `opguard align` driven by a request document
    /// {"protocol_version": 1, "artifact", "alignment_map", "output"} (paths relative to it).
    #[command(after_help = "\
The response is the same JSON as `opguard align --json`. Errors are one line
{\"error\": {\"code\", \"message\", ...}} with --json.

Exit status: 0 ok, 2 error (a malformed request, an unsupported protocol_version, or any
error of `opguard align`).

Examples:
  opguard tools align --request request.json
  opguard tools align --json --request request.json | jq .output_sha256")]
    Align(ToolsAlignArgs),
}

/// `opguard tools align`.
#[derive(Debug, Args)]
pub struct ToolsAlignArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    /// The request document (protocol_version 1).
    #[arg(long, value_name = "FILE")]
    pub request: PathBuf,
}

/// `opguard fixtures <command>`.
#[derive(Debug, Subcommand)]
pub enum FixturesCommand {
    /// Run every parity case (kernel-name, select, scaling, align) through this build and
    /// print `<file>::<id> ok|FAILED (why)` per case, then `N passed, M failed`.
    #[command(after_help = "\
DIR defaults to ./fixtures, else the fixtures/ of the source tree opguard was built from.
Every fixture file is read and checked before any case runs; a file DIR lacks is listed as
skipped. census/ is not run: its expectations are prose in its README, not a case file.

Exit status: 0 every case passed, 1 a case failed, 2 a fixture file is malformed (or DIR has
none).

Examples:
  opguard fixtures run
  opguard fixtures run path/to/fixtures --json | jq -c 'select(.ok == false)'")]
    Run(FixturesRunArgs),
}

/// `opguard fixtures run`.
#[derive(Debug, Args)]
pub struct FixturesRunArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    /// The fixtures directory.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

const SCALING_AFTER_HELP: &str = "\
The trials document names each trial's id, numeric input, variant and trace files (paths
relative to the document): {\"trials\": [{\"id\": \"t1\", \"input\": 1, \"variant\": \"base\",
\"traces\": [\"t1.json.gz\"]}], \"metric\": \"inclusive_ns\"}. Frames are grouped by semantic
identity, never by an event of one file; frames whose identity is partial are listed as
unmatched, so 'nothing correlates' and 'identity prevented matching' read differently.

Exit status: 0 ok, 2 error (a malformed document, an unreadable trace, mixed units).

Examples:
  opguard scaling --trials trials.json
  opguard scaling --trials trials.json --metric self_ns --json | jq '.hotspots[0]'";

/// `opguard select <command>`.
#[derive(Debug, Subcommand)]
pub enum SelectCommand {
    /// Device rows by total device time, each declaring its entity kind (gpu_kernel,
    /// memory_op, dispatcher_op, python_launcher, unresolved) and its evidence; a
    /// capture without device activity lists its host operations by self time.
    #[command(after_help = "\
Dispatcher aggregates are expanded into the device kernels they launched (External-id
edges), so an aggregate never hides the kernel underneath.

A capture with no device rows (torch.profiler on CPU, viztracer, JAX on CPU) says so and
lists host operations instead: torch cpu_op (with their input shapes), XLA ops by
hlo_op/hlo_module, Python functions, by self and total time, each with its entity kind
and evidence; record_function regions and ProfilerStep#N are listed as regions. JAX's
`end: X` markers are never operations.

Examples:
  opguard select profile trace.json.gz --top 25
  opguard select profile --json trace.json.gz | jq '.rows[] | {short_name, entity_kind}'
  opguard select profile cpu_only.json.gz --json | jq '.host.rows[] | {name, self_ns, entity_kind}'
  opguard select profile --provider jax perfetto_trace.json.gz")]
    Profile(SelectProfileArgs),
    /// The seam verdict for a request: the selected target, its device kernel, the
    /// declared probe candidates, and per capture process its trace and install log.
    #[command(after_help = "\
Launch causality comes only from correlation and External-id edges whose host event sits on
the marker's own thread inside the marker span; only host spans establish nesting; every
declared candidate must be installed and every capture process must pass.

Exit status: 0 the selection is certified (ok), 1 it is refused, 2 a malformed request or an
unreadable trace.

Examples:
  opguard select verdict --seam-request seam-request.json
  opguard select verdict --json --seam-request seam-request.json | jq '.failed'
  zcat rank0.json.gz | opguard select verdict --seam-request seam-request.json   # its trace is \"-\"
  opguard select verdict --seam-request seam-request.json --provider kineto_cuda --salvage")]
    Verdict(SelectVerdictArgs),
}

/// `opguard select profile`.
#[derive(Debug, Args)]
pub struct SelectProfileArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    /// Rows to list.
    #[arg(long, default_value_t = 25, value_name = "N")]
    pub top: usize,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// The trace (plain or gzip JSON, or an XSpace .xplane.pb; `-` for stdin, JSON).
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
}

/// `opguard select verdict`.
#[derive(Debug, Args)]
pub struct SelectVerdictArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// The seam request (protocol_version 1); trace paths are relative to it, and
    /// a process trace written `-` is read from stdin.
    // `--request`, its former name, still works (hidden): one name for the
    // seam request on every command.
    #[arg(long = "seam-request", alias = "request", value_name = "FILE")]
    pub request: PathBuf,
}

/// `opguard scaling`.
#[derive(Debug, Args)]
pub struct ScalingArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    /// The trials document.
    #[arg(long, value_name = "FILE")]
    pub trials: PathBuf,
    /// inclusive_ns, self_ns or count (default: the document's, else inclusive_ns).
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

const INSPECT_AFTER_HELP: &str = "\
The default input is generated by opguard itself (examples/src/default_input.rs): a two-rank
CUDA decode step and a ROCm run, with direct and graph launches and seam markers, plus a seam
request for the two ranks.

Every readable trace is reported even when another fails; the alignment pairs the first two
readable traces and `not_aligned` says why each other trace is not in it.

Exit status: 0 ok, 1 when a seam verdict was asked for and refused, 2 an unreadable input
(after everything readable was printed).

Examples:
  opguard inspect
  opguard inspect trace.json.gz --top 5
  zcat trace.json.gz | opguard inspect --salvage -
  opguard inspect rank0.json.gz rank1.json.gz --seam-request seam-request.json --json";

/// `opguard inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    /// A seam request to evaluate (its trace paths are relative to it).
    #[arg(long, value_name = "FILE")]
    pub seam_request: Option<PathBuf>,
    /// Profile rows per trace.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Traces (`-` for stdin); none means the shipped default input.
    #[arg(value_name = "TRACE")]
    pub traces: Vec<PathBuf>,
}

const CENSUS_AFTER_HELP: &str = "\
Everything is read before anything is printed: a refused capture (a width torch specialises,
error code step_axis_not_symbolic) exits 2 with no record on stdout.

Exit status: 0 ok; 1 when a verdict is negative: an operator no family claims in any capture
(an incomplete census is not a pass; --allow-unclassified reports it without failing),
--compare: the step axis is not a free symbol, --declared-host-resolutions: the log differs
from the declared set; 2 on error.

Examples:
  opguard census clean_sym_w2.json
  opguard census clean_sym_w2.json --compare clean_sym_w8.json --control clean_control_w2.json
  opguard census w2.json --compare w8.json --families my_families.json   # classify your engine's ops
  opguard census hostres_sym_w2.json --declared-host-resolutions declared.json --json";

// --- reader flags (issue 15): one struct flattened into every command that
// reads a trace; other reader-level flags belong here too.

/// How traces are read: the flags every trace-reading command shares.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Reading traces")]
pub struct ReaderArgs {
    /// Keep every complete event of a damaged trace, as Perfetto's importer
    /// does: a file cut mid-event or missing its closing `]}`, trailing commas,
    /// a gzip stream cut short. Each is reported as a warning; a partial event
    /// is never read. Without it such a file is `error[json_truncated]`.
    #[arg(long)]
    pub salvage: bool,
    /// Largest decoded (JSON) size of one trace: plain bytes or with a unit
    /// (KiB, MiB, GiB, TiB), e.g. 512MiB, 4GiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "256MiB")]
    pub max_decoded_bytes: u64,
    /// Largest encoded (file, compressed for gzip) size of one trace: plain
    /// bytes or with a unit, e.g. 512MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "256MiB")]
    pub max_encoded_bytes: u64,
    /// Read an Nsight Systems export whose schema version is outside the
    /// ones opguard was checked against (a newer nsys); every table and
    /// column read is still checked by name and type.
    #[arg(long)]
    pub unverified_schema: bool,
}

impl ReaderArgs {
    /// The reader options these flags ask for.
    pub fn options(&self) -> opguard_trace::ReaderOptions {
        opguard_trace::ReaderOptions::new()
            .salvage(self.salvage)
            .max_decoded_bytes(self.max_decoded_bytes)
            .max_encoded_bytes(self.max_encoded_bytes)
    }

    /// How to read a capture of any format keeping what `model` asks for,
    /// with the reader's second thread when `decode_thread`.
    pub fn read_options(
        &self,
        model: opguard_model::ModelOptions,
        decode_thread: bool,
    ) -> opguard_formats::ReadOptions {
        opguard_formats::ReadOptions::new(model)
            .reader(self.options().decode_thread(decode_thread))
            .unverified_schema(self.unverified_schema)
    }
}

/// The limit on a view a command writes.
#[derive(Debug, Args, Clone, Copy)]
pub struct OutputLimitArgs {
    /// Largest view written, encoded and decoded: plain bytes or with a unit
    /// (KiB, MiB, GiB, TiB), e.g. 1GiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "256MiB")]
    pub max_output_bytes: u64,
}

/// A byte size: `1048576`, `512KiB`, `512MiB`, `4GiB`, `1TiB` (powers of
/// 1024; decimal units are refused rather than guessed).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = t.split_at(digits);
    let n: u64 = number.parse().map_err(|_| {
        format!("{text:?} is not a size: expected bytes such as 1048576, 512MiB or 4GiB")
    })?;
    let shift = match unit {
        "" | "B" => 0,
        "KiB" => 10,
        "MiB" => 20,
        "GiB" => 30,
        "TiB" => 40,
        _ => {
            return Err(format!(
                "unknown unit {unit:?} in {text:?}: use B, KiB, MiB, GiB or TiB (powers of 1024)"
            ))
        }
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("{text:?} does not fit in 64 bits"))
}

// --- end of reader flags

/// Flags every command shares.
#[derive(Debug, Args, Clone, Copy)]
pub struct OutputArgs {
    /// Print machine-readable JSON (one object per line) instead of a table;
    /// errors on stderr become one JSON line.
    #[arg(long)]
    pub json: bool,
}

/// `opguard trace <command>`.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// What the reader established about each file: digest, sizes, form,
    /// metadata keys, time span and event counts by (ph, cat); for an XSpace,
    /// its planes and lines with their events and what is not modeled.
    #[command(after_help = "\
Every file is read to the end, validating every event. A file that fails is reported on
stderr (exit status 2); the other files are still printed. `-` reads stdin. A file cut short
(a killed job) is error[json_truncated] with the number of complete events; --salvage reads
them and lists a `truncated` warning.

Examples:
  opguard trace info trace.json.gz
  opguard trace info --json a.json b.json.gz | jq '.counts[0]'
  opguard trace info --salvage --max-decoded-bytes 1GiB killed-job.json.gz")]
    Info(TraceInfoArgs),
    /// Launch regions, one per file (artifact): launches, kernels, proven
    /// correlations, launch gaps and idle gaps, each inside its own clock domain.
    #[command(after_help = "\
Each file is its own artifact and clock domain: correlation ids are joined only inside one
file, in its provider's namespace, and times are never subtracted across files. The summary
over several files adds counts and durations only.

Exit status: 0 ok, 2 when a file cannot be read (the others are still reported).

Examples:
  opguard trace launches trace.json.gz
  opguard trace launches --stage prefill prefill.json.gz
  opguard trace launches --stage p.json.gz=prefill --stage d.json.gz=decode p.json.gz d.json.gz
  opguard trace launches --json rank0.json.gz rank1.json.gz | jq '.regions[].correlated_kernel_count'")]
    Launches(TraceLaunchesArgs),
    /// The trace as tables (device, host, launches, metadata) in a new directory of
    /// Parquet or Arrow IPC files, one per table, for DuckDB, Spark, pandas, polars.
    #[command(after_help = TRACE_EXPORT_AFTER_HELP)]
    Export(TraceExportArgs),
}

const TRACE_EXPORT_AFTER_HELP: &str = "\
Any format opguard reads: Chrome/Kineto JSON (plain or gzip), rocprofv3 (CSV, JSON, rocpd),
and the other native readers. The tables and their columns are opguard-arrow's (README.md):
device rows with their launch proof, host operations with self time and input shapes,
runtime calls with the device rows they launched, and the capture's metadata.

OUT must not exist: it is created exclusively, the files are written beside it and moved in
with one rename, so a failed run leaves nothing behind and a reader never sees half the
tables. `-` reads the trace from stdin (copied to a scratch file first). For a whole job, give
each rank its own OUT and read them as one dataset, e.g. in DuckDB
`select * from read_parquet('job/*/device.parquet', filename = true)`.

Exit status: 0 written, 2 error (an unreadable trace, an existing OUT).

Examples:
  opguard trace export --format parquet --out rank0 rank0.json.gz
  opguard trace export --format arrow --tables device,launches --out kernels trace.json.gz
  opguard trace export --json --format parquet --out prefill prefill_kernel_trace.csv | jq '.tables[].rows'";

/// A table file format.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TableFormat {
    /// Apache Parquet (`<table>.parquet`).
    Parquet,
    /// Arrow IPC file format, also called Feather v2 (`<table>.arrow`).
    Arrow,
}

/// `opguard trace export`.
#[derive(Debug, Args)]
pub struct TraceExportArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// The file format of the tables.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: TableFormat,
    /// Only these tables (comma-separated: device, host, launches, metadata); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub tables: Vec<String>,
    /// The directory to create; it must not exist.
    #[arg(long, value_name = "OUT")]
    pub out: PathBuf,
    /// The capture (`-` for stdin).
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
}

/// `opguard trace launches`.
#[derive(Debug, Args)]
pub struct TraceLaunchesArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    /// The artifacts' role (e.g. inference_profile), recorded in provenance.
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,
    /// The artifacts' stage (e.g. prefill, decode); stages stay distinct.
    /// `--stage STAGE` sets every file's; `--stage FILE=STAGE` (repeatable,
    /// FILE as given) sets one file's and wins over the plain form.
    #[arg(long, value_name = "[FILE=]STAGE")]
    pub stage: Vec<String>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Kernel identities listed per region.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
    /// Trace files (plain or gzip JSON, or XSpace .xplane.pb; `-` for stdin, JSON).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// `opguard trace info`.
#[derive(Debug, Args)]
pub struct TraceInfoArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Trace files (plain or gzip JSON, or XSpace .xplane.pb; `-` for stdin, JSON).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// `opguard kernel-name <command>`.
#[derive(Debug, Subcommand)]
pub enum KernelNameCommand {
    /// The canonical form of each symbol: base, qualification, template arguments,
    /// annotation, memory op, identity, and the degenerate/truncated flags.
    #[command(after_help = "\
With --stdin, every input line (empty ones included) gives one output, in order, so output
line N answers input line N; a line that is not UTF-8 stops with error[invalid_utf8] (exit 2).
Answers are written as soon as no more input is waiting, so a program on the other end of a
pipe gets each answer before it sends the next symbol.

--json answers are compact by default: base, qualification, short_name, annotation,
truncated, degenerate, memory_op, mangling, identity. --full adds symbol, template,
demangled and identity_scheme (the whole canonical form); --fields picks fields, in order.
Repeated _Z mangled symbols are demangled once (a bounded memo).

Examples:
  opguard kernel-name canonical 'void (anonymous namespace)::clamp_position_kernel<long>(long*, int)'
  opguard kernel-name canonical --json --stdin < kernel_names.txt
  opguard kernel-name canonical --json --full --stdin < kernel_names.txt
  opguard kernel-name canonical --json --fields identity,short_name --stdin < kernel_names.txt")]
    Canonical(CanonicalArgs),
    /// The display name used in profile tables (at most 60 characters).
    #[command(after_help = "\
Examples:
  opguard kernel-name short 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float*)'
  opguard kernel-name short --stdin < kernel_names.txt")]
    Short(SymbolArgs),
    /// Whether WANT and GOT name the same kernel (exit 0), or not (exit 1), with the
    /// basis of a match or the reason for a mismatch.
    #[command(after_help = "\
Exit status: 0 match, 1 no match (with --stdin: 0 when every pair matches, 1 when one does
not), 2 error (a --stdin line without exactly one tab is error[bad_line]), 64 usage.

Examples:
  opguard kernel-name match clamp_position_kernel 'void (anonymous namespace)::clamp_position_kernel<long>(long*, int)'
  printf 'want\\tgot\\n' | opguard kernel-name match --json --stdin")]
    Match(MatchArgs),
}

/// `opguard kernel-name canonical` and `short`.
#[derive(Debug, Args)]
pub struct SymbolArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    /// Read one symbol per line from stdin instead of SYMBOL arguments.
    #[arg(long, conflicts_with = "symbols")]
    pub stdin: bool,
    /// Kernel symbols, as a profiler shows them.
    #[arg(value_name = "SYMBOL", required_unless_present = "stdin")]
    pub symbols: Vec<String>,
}

/// `opguard kernel-name canonical`.
#[derive(Debug, Args)]
pub struct CanonicalArgs {
    #[command(flatten)]
    pub symbols: SymbolArgs,
    /// With --json, the whole canonical form (adds symbol, template, demangled and
    /// identity_scheme to the compact answer).
    #[arg(long, conflicts_with = "fields", requires = "json")]
    pub full: bool,
    /// With --json, only these fields, in this order (comma-separated: symbol, base,
    /// qualification, short_name, template, annotation, truncated, degenerate, memory_op,
    /// mangling, demangled, identity, identity_scheme).
    #[arg(long, value_name = "LIST", value_delimiter = ',', requires = "json")]
    pub fields: Vec<String>,
}

/// `opguard kernel-name match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    /// Read `want<TAB>got` pairs, one per line, from stdin instead of WANT GOT.
    #[arg(long, conflicts_with_all = ["want", "got"])]
    pub stdin: bool,
    /// The kernel asked for (e.g. a profile table's short name).
    #[arg(value_name = "WANT", required_unless_present = "stdin")]
    pub want: Option<String>,
    /// The kernel observed (e.g. a trace's full symbol).
    #[arg(value_name = "GOT", required_unless_present = "stdin")]
    pub got: Option<String>,
}

/// `opguard census`.
#[derive(Debug, Args)]
pub struct CensusArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    /// A capture record (opguard.census/capture-v1 JSON).
    #[arg(value_name = "CAPTURE")]
    pub capture: PathBuf,
    /// A capture of the same step at another width: report whether the step axis is a
    /// free symbol, on named evidence.
    #[arg(long, value_name = "CAPTURE2")]
    pub compare: Option<PathBuf>,
    /// A concrete capture (step_axis null) at one of the compared widths, as control.
    #[arg(long, value_name = "C", requires = "compare")]
    pub control: Option<PathBuf>,
    /// Operator family table (opguard.census/families-v1 JSON) instead of the default.
    #[arg(long, value_name = "F")]
    pub families: Option<PathBuf>,
    /// Declared host resolutions ({"file:line in function": count}) that the log of
    /// CAPTURE (and --compare) must equal, as a multiset.
    #[arg(long, value_name = "D")]
    pub declared_host_resolutions: Option<PathBuf>,
    /// Report operators no family claims without failing: by default an incomplete
    /// census exits 1 (seed 004: unclassified must be empty).
    #[arg(long)]
    pub allow_unclassified: bool,
}

const REPORT_AFTER_HELP: &str = "\
The page works offline: CSS and SVG are inline, nothing is fetched, no script runs; a trace's
names are shown as text, whatever they contain. Large traces are summarised, never embedded.
The output must not exist (a report never replaces a file) and is written only when every
input was read: a failed run leaves nothing behind.

Exit status: 0 written (whatever the verdict says: the page shows it), 2 error (an unreadable
input, an existing output).

Examples:
  opguard report
  opguard report --out decode.html rank0.json.gz rank1.json.gz --seam-request seam-request.json
  opguard report --out scaling.html --trials trials.json base.json.gz
  opguard compare --baseline base/ --candidate test/ --json > cmp.json; opguard report --out cmp.html --compare cmp.json";

/// `opguard report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    /// The HTML file to create; it must not exist.
    #[arg(long, value_name = "FILE", default_value = "opguard-report.html")]
    pub out: PathBuf,
    /// A seam request to evaluate (its trace paths are relative to it).
    // `--request`, its former name, still works (hidden).
    #[arg(long = "seam-request", alias = "request", value_name = "FILE")]
    pub request: Option<PathBuf>,
    /// A trials document (opguard scaling) to draw as scatter plots with rho.
    #[arg(long, value_name = "FILE")]
    pub trials: Option<PathBuf>,
    /// A job document to draw (`opguard job --json`, or examples/ray_job.py):
    /// its ranks, and its most expensive frames with every rank's cost. With
    /// no TRACE, the page shows the job alone.
    #[arg(long, value_name = "FILE")]
    pub job: Option<PathBuf>,
    /// A comparison to draw (`opguard compare --json`): per entity the baseline's
    /// and the candidate's samples side by side, regressions first, and the gate.
    /// With no TRACE, the page shows the comparison alone.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
    /// Profile rows per trace.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
    /// Traces; none means the shipped default input.
    #[arg(value_name = "TRACE")]
    pub traces: Vec<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn sizes_take_binary_units_and_refuse_guesses() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("7B"), Ok(7));
        assert!(parse_size("4GB").unwrap_err().contains("powers of 1024"));
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("99999999999TiB")
            .unwrap_err()
            .contains("64 bits"));
    }

    #[test]
    fn the_command_tree_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_subcommand_has_an_example() {
        fn walk(cmd: &clap::Command, path: &str) {
            let path = format!("{path} {}", cmd.get_name());
            let leaf = !cmd.has_subcommands();
            if leaf {
                let after = cmd
                    .get_after_help()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                assert!(
                    after.contains("Example") && after.contains(path.trim()),
                    "{path} has no example naming itself in after_help"
                );
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &path);
            }
        }
        walk(&Cli::command(), "");
    }
}

// ---- opguard job ----------------------------------------------------------

const JOB_AFTER_HELP: &str = "\
Each worker holds one trace at a time, so memory grows with --jobs, never with the number of
ranks; the output is the same for any --jobs. With at least twice as many --jobs as ranks, each
worker inflates on a second thread (two ranks on a 4-core machine use all 4 cores).

A DIR stands for the captures directly in it, recognised by content (Chrome JSON, plain or
gzip; XSpace .xplane.pb); its other files are named on stderr (warning job_file_skipped) and not
read, and so are the JSON views JAX writes beside an XSpace (<host>.trace.json.gz,
perfetto_trace.json.gz): the XSpace is the rank. A file named on the command line is a rank.
A rank that cannot be read (corrupt, cut off, over a limit) is listed with its error and counted
missing in every frame; the other ranks are still reported and the exit status is 2.

--json prints one opguard.job/v1 document: `ranks` (file, artifact, rank from
distributedInfo.rank, provider, launch durations, device time, Top-N, collectives) and `frames`
(per semantic frame: per_rank costs, max_ns, median_ns, slowest_rank, missing).

Exit status: 0 ok, 2 when a rank cannot be read (the others are still reported).

Examples:
  opguard job traces/
  opguard job --jobs 8 --json rank*.json.gz > job.json
  opguard job --json traces/ | jq '.frames[0] | {name, max_ns, median_ns, slowest_rank}'";

/// `opguard job`.
#[derive(Debug, Args)]
pub struct JobArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    /// Threads that read ranks; default: the machine's cores. Up to N ranks
    /// are read at once; with at least two threads per rank, each rank also
    /// inflates on a thread of its own.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Top-N device rows kept per rank.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
    /// Frames shown in the table (the JSON has them all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub frames: usize,
    /// Rank traces (plain or gzip JSON, or XSpace .xplane.pb), or directories of them.
    #[arg(required = true, value_name = "TRACE|DIR")]
    pub inputs: Vec<PathBuf>,
}

// ---- opguard compare ------------------------------------------------------

const COMPARE_AFTER_HELP: &str = "\
Each side is one or more runs of the same workload, in any format opguard reads (a directory
stands for the captures directly in it, found by content as for opguard job). Samples are steps
when every trace marks them (ProfilerStep#N, ranges named step, or --step NAME), else whole runs:
one trace of eight steps gives eight samples. Device work joins by canonical kernel identity, host work by semantic frame,
never by position or timestamp; per entity and per total (device busy, each stream's busy time,
the launch region, the step) the medians, their ratio, the Hodges-Lehmann ratio interval, a
two-sided Mann-Whitney test and Benjamini-Hochberg over everything tested decide: regressed,
improved, unchanged, insufficient (with why), only_in_baseline, only_in_candidate.

One sample per side is never a regression: with too few samples for the test to ever reach
--fdr, everything is insufficient and the gate is undecided (exit 0, warning compare_undecided
on stderr) instead of guessing. Caveats follow the gate when they apply: single_run (a side is
one run, whose steps share its machine's state), broad_shift (most entities moved one way: more
like machine drift than a change), low_power (a pass that could not have seen a lone regression).

--json prints one opguard.compare/v1 document: settings, sample_unit, baseline and candidate
(runs with provider, format, steps), tested, gate (status, failing, message, caveats), totals,
entities (verdict, why, both sides' samples_ns and median_ns, ratio, ratio_interval, p_value,
q_value, fails_gate), unmatched.

Exit status: 0 passed or undecided, 1 the gate failed (something regressed beyond --fail-above
at --fdr), 2 bad input (an unreadable trace, a missing --step range, an option out of range).

Examples:
  opguard compare --baseline base/ --candidate test/
  opguard compare --baseline base.json.gz --candidate test.json.gz --fail-above 5% --fdr 0.05
  opguard compare --baseline run1.sqlite run2.sqlite --candidate run3.json.gz --step train_step --json | jq .gate";

fn parse_ratio(text: &str) -> Result<f64, String> {
    let (number, scale) = match text.strip_suffix('%') {
        Some(n) => (n, 0.01),
        None => (text, 1.0),
    };
    number
        .trim()
        .parse::<f64>()
        .map(|v| v * scale)
        .map_err(|_| {
            format!("{text:?} is not a ratio: give a percentage (5%) or a fraction (0.05)")
        })
}

/// `opguard compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub reader: ReaderArgs,
    /// Baseline runs: traces of any format, or directories of them.
    #[arg(long, required = true, num_args = 1.., value_name = "TRACE|DIR")]
    pub baseline: Vec<PathBuf>,
    /// Candidate runs, likewise.
    #[arg(long, required = true, num_args = 1.., value_name = "TRACE|DIR")]
    pub candidate: Vec<PathBuf>,
    /// The range that marks one step (NVTX, roctx, record_function), with or without
    /// a counter (train_step takes train_step#3); every trace must have it.
    #[arg(long, value_name = "NAME")]
    pub step: Option<String>,
    /// Fail when something regressed by more than this: a percentage (5%) or a
    /// fraction (0.05) of its baseline median.
    #[arg(long, value_name = "RATIO", default_value = "5%", value_parser = parse_ratio)]
    pub fail_above: f64,
    /// The false discovery rate, over every entity and total tested.
    #[arg(long, value_name = "RATE", default_value_t = opguard_compare::DEFAULT_FDR)]
    pub fdr: f64,
    /// The confidence of each ratio interval.
    #[arg(long, value_name = "LEVEL", default_value_t = opguard_compare::DEFAULT_CONFIDENCE)]
    pub confidence: f64,
    /// Also compare Python functions (by name, file and line): thousands in a trace
    /// recorded with stacks, each one tested lowering what the others can show.
    #[arg(long)]
    pub python_frames: bool,
    /// Entities shown in the table (the JSON has them all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub rows: usize,
}
