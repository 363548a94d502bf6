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
    let r = run(&["--version"]);
    assert_eq!(r.status, 0);
    assert_eq!(
        r.stdout.trim(),
        format!("opguard {}", env!("CARGO_PKG_VERSION"))
    );
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
    let Some(trace) = opguard_testdata::hta_traces().into_iter().next() else {
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
