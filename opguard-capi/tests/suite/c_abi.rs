//! The C test program (`tests/c/opguard_test.c`), built with
//! `cc -Wall -Wextra -Werror -pedantic` against the shared and the static
//! library, runs the kernel-name parity fixture and one call of every other
//! entry point.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::suite::support::{
    artifact_dir, crate_dir, fixtures, kernel_fixture, native_static_libs, shared_lib_name,
};

const CFLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];

fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_owned())
}

fn build(out: &Path, link: &[String]) {
    let mut cmd = Command::new(cc());
    cmd.args(CFLAGS)
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg("-o")
        .arg(out)
        .arg(crate_dir().join("tests/c/opguard_test.c"))
        .args(link);
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {:?}: {e}", cc()));
    assert!(
        output.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn run(exe: &Path) -> String {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let output = Command::new(exe)
        .arg(fixtures())
        .arg(scratch.path())
        .output()
        .expect("run the C test");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} failed:\n{}\n{}",
        exe.display(),
        stdout
            .lines()
            .filter(|l| !l.starts_with("ok "))
            .collect::<Vec<_>>()
            .join("\n"),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Every fixture case is reported by name, and passed.
fn check_per_case(stdout: &str) {
    let fixture = kernel_fixture();
    let mut n = 0;
    for key in ["symbol_cases", "verdict_cases"] {
        for case in fixture[key].as_array().expect("cases") {
            let id = case["id"].as_str().expect("id");
            let line = format!("ok kernel_symbols.json::{id}");
            assert!(
                stdout.lines().any(|l| l == line),
                "the C runner did not report {line}"
            );
            n += 1;
        }
    }
    assert!(n >= 160, "only {n} cases");
    assert!(stdout.contains("all passed"));
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opguard-capi-c");
    std::fs::create_dir_all(&dir).expect("create the C build dir");
    dir
}

#[test]
fn c_program_against_the_shared_library() {
    let dir = artifact_dir();
    assert!(
        dir.join(shared_lib_name()).is_file(),
        "shared library not built"
    );
    let exe = out_dir().join("opguard_test_shared");
    build(
        &exe,
        &[
            format!("-L{}", dir.display()),
            "-lopguard_capi".to_owned(),
            format!("-Wl,-rpath,{}", dir.display()),
        ],
    );
    check_per_case(&run(&exe));
}

#[test]
fn c_program_against_the_static_library() {
    let lib = artifact_dir().join("libopguard_capi.a");
    assert!(lib.is_file(), "static library not built");
    let exe = out_dir().join("opguard_test_static");
    let mut link = vec![lib.display().to_string()];
    link.extend(native_static_libs().iter().map(|s| (*s).to_owned()));
    build(&exe, &link);
    check_per_case(&run(&exe));
}

/// "One call of every other entry point": the C source calls every function
/// the header declares.
#[test]
fn c_program_calls_every_declared_function() {
    let header = std::fs::read_to_string(crate_dir().join("include/opguard.h")).expect("header");
    let source =
        std::fs::read_to_string(crate_dir().join("tests/c/opguard_test.c")).expect("C source");
    let body = &source[source.find("#include").expect("code")..];
    let mut names = Vec::new();
    for line in header
        .lines()
        .filter(|l| l.ends_with(");") && !l.starts_with('#'))
    {
        if let Some(open) = line.find('(') {
            let name = line[..open].rsplit([' ', '*']).next().unwrap_or("");
            if name.starts_with("opguard_") {
                names.push(name.to_owned());
            }
        }
    }
    assert!(names.len() >= 14, "{names:?}");
    for name in &names {
        let called = body.contains(&format!("{name}(")) || body.contains(&format!("{name},"));
        assert!(called, "the C test never calls {name}");
    }
}
