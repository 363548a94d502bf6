//! The top README's walkthrough, run as written: every command of its `sh`
//! blocks, in order, in one shell (a variable one line sets is there for
//! the next), from the root of a copy of the files git tracks (what a fresh
//! clone has), with this build's `opguard` first on PATH. Each must exit as
//! the README says: 0, or the `# exit N` its comment names.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The commands of the README's Walkthrough section, continuation lines
/// joined, each with the exit status it is documented to have.
fn walkthrough_commands(readme: &str) -> Vec<(String, i32)> {
    let section = readme
        .split("\n## Walkthrough")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("README.md has a Walkthrough section");
    let mut commands = Vec::new();
    let mut in_block = false;
    let mut current = String::new();
    for line in section.lines() {
        if line.starts_with("```") {
            in_block = line.starts_with("```sh");
            continue;
        }
        if !in_block || line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
            continue;
        }
        current.push_str(line);
        let status = current
            .split("# exit ")
            .nth(1)
            .map(|s| s.split(|c: char| !c.is_ascii_digit()).next().unwrap())
            .map_or(0, |n| n.parse().unwrap());
        commands.push((std::mem::take(&mut current), status));
    }
    commands
}

/// A copy of the files git tracks in the workspace, as a fresh clone has
/// them (untracked and ignored files left out); `None` outside a git
/// checkout.
fn fresh_clone(into: &Path) -> Option<()> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(workspace())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    for name in out.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).unwrap();
        let (from, to) = (workspace().join(name), into.join(name));
        // A file deleted in the working tree but still in the index.
        if !from.exists() {
            continue;
        }
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
    Some(())
}

#[test]
fn the_readme_walkthrough_runs_as_written_from_a_fresh_clone() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let commands = walkthrough_commands(&readme);
    assert!(commands.len() >= 10, "{commands:#?}");
    let clone = tempfile::tempdir().unwrap();
    if fresh_clone(clone.path()).is_none() {
        opguard_testdata::skipped("needs git to list the files a fresh clone has");
        return;
    }
    // One shell for all: after each command its status goes to fd 3.
    let mut script = String::new();
    for (command, _) in &commands {
        script.push_str(command);
        script.push_str("\necho $? >&3\n");
    }
    let statuses = clone.path().join(".statuses");
    let bin = Path::new(env!("CARGO_BIN_EXE_opguard")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-c", &format!("exec 3>{}\n{script}", statuses.display())])
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .current_dir(clone.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let got: Vec<i32> = std::fs::read_to_string(&statuses)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(
        got.len(),
        commands.len(),
        "the script stopped early: {stderr}"
    );
    for ((command, want), got) in commands.iter().zip(&got) {
        assert_eq!(
            got, want,
            "`{command}` exited {got}, the README says {want}\n{stderr}"
        );
    }
    // Nothing was written into the clone: outputs went to mktemp's folder.
    std::fs::remove_file(&statuses).unwrap();
    let mut written = Vec::new();
    let mut stack = vec![clone.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !workspace()
                .join(p.strip_prefix(clone.path()).unwrap())
                .exists()
            {
                written.push(p);
            }
        }
    }
    assert!(
        written.is_empty(),
        "the walkthrough wrote into the checkout: {written:?}"
    );
}

#[test]
fn exit_statuses_are_read_from_the_comments() {
    let readme = "intro\n## Walkthrough\n```sh\na \\\n  b\nc   # exit 1: why\n# note\n```\n```text\nd\n```\n## Next\n```sh\ne\n```\n";
    assert_eq!(
        walkthrough_commands(readme),
        [
            ("a    b".to_owned(), 0),
            ("c   # exit 1: why".to_owned(), 1)
        ]
    );
}
