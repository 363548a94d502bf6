//! Conventions every command shares: exit statuses, usage errors, help,
//! color.

use crate::common::{opguard, run, run_cmd};

#[test]
fn no_arguments_is_a_usage_error_with_help() {
    let r = run(&[]);
    assert_eq!(r.status, 64);
    assert!(r.stderr.contains("Usage: opguard"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn an_unknown_flag_is_a_usage_error() {
    let r = run(&["trace", "info", "--bogus", "x.json"]);
    assert_eq!(r.status, 64);
    assert!(r.stderr.contains("--bogus"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn a_usage_error_with_json_is_one_json_line() {
    let r = run(&["trace", "info", "--json", "--bogus", "x.json"]);
    assert_eq!(r.status, 64);
    let e = r.json_error();
    assert_eq!(e["code"], "usage");
    assert!(e["message"].as_str().unwrap().contains("--bogus"));
}

#[test]
fn help_and_version_succeed_on_stdout() {
    let r = run(&["--help"]);
    assert_eq!(r.status, 0);
    assert!(r.stdout.contains("Exit status: 0 ok, 1"), "{}", r.stdout);
    let r = run(&["-V"]);
    assert_eq!(r.status, 0);
    assert_eq!(
        r.stdout.trim(),
        format!("opguard {}", package_version("opguard-cli"))
    );
}

/// The `[package]` version of a workspace crate, read from its Cargo.toml.
fn package_version(crate_dir: &str) -> String {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(crate_dir)
        .join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let package = text.split("[package]").nth(1).unwrap();
    let line = package
        .lines()
        .take_while(|l| !l.starts_with('['))
        .find(|l| l.starts_with("version = "))
        .unwrap_or_else(|| panic!("no version in {}", manifest.display()));
    line.trim_start_matches("version = ")
        .trim_matches('"')
        .to_owned()
}

#[test]
fn version_names_the_cli_and_every_opguard_crate_it_is_built_with() {
    // The crates are the opguard-* entries of the CLI's [dependencies]; each
    // version is the one in that crate's own Cargo.toml.
    let cli_manifest = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"),
    )
    .unwrap();
    let dependencies = cli_manifest.split("\n[dependencies]\n").nth(1).unwrap();
    let expected: Vec<String> = dependencies
        .lines()
        .take_while(|l| !l.starts_with('['))
        .filter(|l| l.starts_with("opguard-"))
        .map(|l| l.split(['.', ' ', '=']).next().unwrap().to_owned())
        .map(|name| format!("{name} {}", package_version(&name)))
        .collect();
    assert!(expected.len() >= 6, "{expected:?}");

    let r = run(&["--version"]);
    assert_eq!(r.status, 0);
    let mut lines = r.stdout.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("opguard {}", package_version("opguard-cli"))
    );
    let built_with = lines.next().unwrap().strip_prefix("built with ").unwrap();
    let mut reported: Vec<&str> = built_with.split(", ").collect();
    let mut expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    reported.sort_unstable();
    expected.sort_unstable();
    assert_eq!(reported, expected);
    assert_eq!(lines.next(), None);
}

#[test]
fn completions_and_man_page_are_generated_for_the_real_command() {
    for (shell, marker) in [
        ("bash", "_opguard()"),
        ("zsh", "#compdef opguard"),
        ("fish", "complete -c opguard"),
    ] {
        let r = run(&["completions", shell]);
        assert_eq!(r.status, 0, "{shell}: {}", r.stderr);
        assert!(
            r.stdout.contains(marker),
            "{shell}: {}",
            &r.stdout[..200.min(r.stdout.len())]
        );
        // Every group is offered, including ones added later.
        for group in ["inspect", "kernel-name", "census", "select", "completions"] {
            assert!(r.stdout.contains(group), "{shell} completion lacks {group}");
        }
    }
    let r = run(&["completions", "powershell"]);
    assert_eq!(r.status, 64);
    let r = run(&["man"]);
    assert_eq!(r.status, 0);
    assert!(
        r.stdout.contains(".TH opguard 1"),
        "{}",
        &r.stdout[..200.min(r.stdout.len())]
    );
    assert!(r.stdout.contains(r"opguard\-kernel\-name(1)"));
}

/// Every wired leaf command.
const LEAVES: &[&[&str]] = &[
    &["trace", "info"],
    &["kernel-name", "canonical"],
    &["kernel-name", "short"],
    &["kernel-name", "match"],
    &["census"],
    &["export"],
    &["align"],
    &["tools", "align"],
    &["fixtures", "run"],
    &["completions"],
    &["man"],
];

#[test]
fn every_leaf_help_ends_with_an_example_of_itself() {
    for path in LEAVES {
        let mut args = path.to_vec();
        args.push("--help");
        let r = run(&args);
        assert_eq!(r.status, 0, "{args:?}");
        let example = format!("opguard {}", path.join(" "));
        let tail = r.stdout.split("Example").nth(1).unwrap_or_default();
        assert!(
            tail.contains(&example),
            "{args:?} help has no example:\n{}",
            r.stdout
        );
    }
}

/// Output that is not a terminal has no escapes; `CLICOLOR_FORCE` proves
/// the check can see them, and `NO_COLOR` beats it.
#[test]
fn no_color_when_not_a_terminal_or_no_color_is_set() {
    let Some(trace) = opguard_testdata::hta_traces().and_then(|t| t.into_iter().next()) else {
        return;
    };
    let trace = trace.to_str().unwrap().to_owned();
    let args = ["trace", "info", trace.as_str(), "missing-file.json"];

    let plain = run(&args);
    assert_eq!(plain.status, 2);
    assert!(!plain.stdout.contains('\x1b') && !plain.stderr.contains('\x1b'));

    let mut forced = opguard(&args);
    forced.env("CLICOLOR_FORCE", "1");
    let forced = run_cmd(forced, "");
    assert!(
        forced.stdout.contains('\x1b'),
        "forcing color changes nothing"
    );
    assert!(forced.stderr.contains('\x1b'));

    let mut no_color = opguard(&args);
    no_color.env("CLICOLOR_FORCE", "1").env("NO_COLOR", "1");
    let no_color = run_cmd(no_color, "");
    assert!(!no_color.stdout.contains('\x1b'), "{}", no_color.stdout);
    assert!(!no_color.stderr.contains('\x1b'), "{}", no_color.stderr);
    assert_eq!(no_color.stdout, plain.stdout);
}
