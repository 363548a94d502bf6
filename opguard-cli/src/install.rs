//! What an installed command offers its shell: `--version` with the crates
//! it was built with, `opguard completions <shell>` and `opguard man`.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, Shell};
use crate::error::CliError;
use crate::exit;
use crate::out::Out;

/// The library crates this build of the command links, with their versions
/// (each crate's own `VERSION`, so a version bump in one shows here).
pub const BUILT_WITH: &[(&str, &str)] = &[
    ("opguard-model", opguard_model::VERSION),
    ("opguard-document", opguard_document::VERSION),
    ("opguard-trace", opguard_trace::VERSION),
    ("opguard-formats", opguard_formats::VERSION),
    ("opguard-arrow", opguard_arrow::VERSION),
    ("opguard-xplane", opguard_xplane::VERSION),
    ("opguard-nsys", opguard_nsys::VERSION),
    ("opguard-rocprof", opguard_rocprof::VERSION),
    ("opguard-kernel-name", opguard_kernel_name::VERSION),
    ("opguard-select", opguard_select::VERSION),
    ("opguard-align", opguard_align::VERSION),
    ("opguard-census", opguard_census::VERSION),
    ("opguard-scaling", opguard_scaling::VERSION),
    ("opguard-report", opguard_report::VERSION),
    ("opguard-job", opguard_job::VERSION),
    ("opguard-compare", opguard_compare::VERSION),
];

/// `--version`'s text after the command name: the CLI crate's version, then
/// on a second line the crates it was built with.
pub fn long_version() -> String {
    let crates: Vec<String> = BUILT_WITH
        .iter()
        .map(|(name, version)| format!("{name} {version}"))
        .collect();
    format!(
        "{}\nbuilt with {}",
        env!("CARGO_PKG_VERSION"),
        crates.join(", ")
    )
}

/// The command's full definition, as the parser and the generators see it.
pub fn command() -> clap::Command {
    // Leaked once per process: clap keeps `&'static str` without its
    // `string` feature, and the text is built from the crates' constants.
    let long_version: &'static str = Box::leak(long_version().into_boxed_str());
    Cli::command().long_version(long_version)
}

/// `opguard completions <shell>`: the completion script on stdout.
pub fn run_completions(args: &CompletionsArgs) -> Result<u8, CliError> {
    let mut cmd = command();
    let mut script = Vec::new();
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(shell, &mut cmd, "opguard", &mut script);
    write_stdout(&script)
}

/// `opguard man`: the man page (roff) on stdout.
pub fn run_man() -> Result<u8, CliError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command())
        .render(&mut page)
        .map_err(|e| CliError::new("internal", format!("rendering the man page: {e}")))?;
    write_stdout(&page)
}

fn write_stdout(generated: &[u8]) -> Result<u8, CliError> {
    let mut out = Out::new();
    out.text(&String::from_utf8_lossy(generated))?;
    out.flush()?;
    Ok(exit::OK)
}
