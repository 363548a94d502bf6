//! The `opguard` command: a thin front end over the opguard crates.
//!
//! `opguard <group> <command> [--json] ...` parses flags, calls one library
//! function and prints its result: a human-readable table by default, one
//! JSON object per line with `--json`. Errors go to stderr with a stable
//! code. Exit status: 0 ok, 1 a negative verdict, 2 error or bad input,
//! 64 usage error. See README.md for every command's JSON shape.

mod advice;
mod align;
mod census;
mod cli;
mod compare;
mod error;
mod exit;
mod export;
mod fixtures;
mod inspect;
mod install;
mod job;
mod kernel_name;
mod out;
mod progress;
mod read;
mod report;
mod scaling;
mod scratch;
mod select;
mod style;
mod trace_export;
mod trace_info;
mod trace_launches;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::error::ErrorKind as ClapErrorKind;
use clap::FromArgMatches;

use crate::cli::{
    Cli, FixturesCommand, Group, KernelNameCommand, SelectCommand, ToolsCommand, TraceCommand,
};
use crate::error::CliError;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let json = wants_json(&args);
    // Nothing should panic; if something does, the caller still gets the
    // documented error status and a coded message instead of 101.
    let status = std::panic::catch_unwind(|| run(args)).unwrap_or_else(|_| {
        CliError::new(
            "internal",
            "opguard panicked; this is a bug, please report it",
        )
        .report(json);
        exit::ERROR
    });
    ExitCode::from(status)
}

/// Parses `args` and runs the command; returns the exit status.
fn run(args: Vec<OsString>) -> u8 {
    let json = wants_json(&args);
    let parsed = install::command()
        .try_get_matches_from(&args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return usage(e, json),
    };
    let result = match &cli.group {
        Group::Inspect(a) => inspect::run(a),
        Group::Trace(TraceCommand::Info(a)) => trace_info::run(a),
        Group::Trace(TraceCommand::Launches(a)) => trace_launches::run(a),
        Group::Trace(TraceCommand::Export(a)) => trace_export::run(a),
        Group::KernelName(KernelNameCommand::Canonical(a)) => kernel_name::run_canonical(a),
        Group::KernelName(KernelNameCommand::Short(a)) => kernel_name::run_short(a),
        Group::KernelName(KernelNameCommand::Match(a)) => kernel_name::run_match(a),
        Group::Census(a) => census::run(a),
        Group::Scaling(a) => scaling::run(a),
        Group::Select(SelectCommand::Profile(a)) => select::run_profile(a),
        Group::Select(SelectCommand::Verdict(a)) => select::run_verdict(a),
        Group::Export(a) => export::run(a),
        Group::Align(a) => align::run(a),
        Group::Tools(ToolsCommand::Align(a)) => align::run_request(a),
        Group::Job(a) => job::run(a),
        Group::Compare(a) => compare::run(a),
        Group::Fixtures(FixturesCommand::Run(a)) => fixtures::run(a),
        Group::Report(a) => report::run(a),
        Group::Completions(a) => install::run_completions(a),
        Group::Man => install::run_man(),
    };
    match result {
        Ok(status) => status,
        Err(e) if e.code == out::BROKEN_PIPE => exit::OK,
        Err(e) => {
            e.report(json);
            e.status
        }
    }
}

/// Whether `--json` was asked for, read from the raw arguments so a usage
/// error can honour it too.
fn wants_json(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// Help and version print and succeed; anything else clap refuses is a
/// usage error (64).
fn usage(e: clap::Error, json: bool) -> u8 {
    match e.kind() {
        ClapErrorKind::DisplayHelp | ClapErrorKind::DisplayVersion => {
            let _ = e.print();
            exit::OK
        }
        _ if json => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("invalid command line");
            let message = first.strip_prefix("error: ").unwrap_or(first);
            CliError::usage(message).report(true);
            exit::USAGE
        }
        _ => {
            let _ = e.print();
            exit::USAGE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_flag_is_found_before_the_separator_only() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(wants_json(&args(&[
            "opguard", "trace", "info", "--json", "x"
        ])));
        assert!(!wants_json(&args(&[
            "opguard", "trace", "info", "--", "--json"
        ])));
        assert!(!wants_json(&args(&["--json"])));
    }
}
