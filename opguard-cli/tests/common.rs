//! Running the binary.

use std::io::Write;
use std::process::{Command, Stdio};

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout as JSON Lines.
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"))
            })
            .collect()
    }

    /// stderr as the single `{"error": {...}}` line, returning the body.
    pub fn json_error(&self) -> serde_json::Value {
        let lines: Vec<_> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "expected one stderr line: {}", self.stderr);
        let v: serde_json::Value = serde_json::from_str(lines[0])
            .unwrap_or_else(|e| panic!("stderr is not JSON ({e}): {}", self.stderr));
        let body = v["error"].clone();
        for key in ["code", "message", "offset", "event_index"] {
            assert!(
                body.get(key).is_some(),
                "error lacks {key}: {}",
                self.stderr
            );
        }
        body
    }
}

/// A command for the binary with a clean color environment.
pub fn opguard(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_opguard"));
    cmd.args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("TERM");
    cmd
}

/// Runs a command, feeding `stdin`.
pub fn run_cmd(cmd: Command, stdin: &str) -> Run {
    run_bytes(cmd, stdin.as_bytes())
}

/// Runs a command, feeding `stdin` (a trace's bytes, say).
pub fn run_bytes(mut cmd: Command, stdin: &[u8]) -> Run {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the opguard binary runs");
    {
        let mut input = child.stdin.take().expect("stdin is piped");
        // The command may exit before reading everything (usage errors).
        let _ = input.write_all(stdin);
    }
    let out = child
        .wait_with_output()
        .expect("the opguard binary finishes");
    Run {
        status: out.status.code().expect("exited, not killed by a signal"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `opguard args...` with empty stdin.
pub fn run(args: &[&str]) -> Run {
    run_cmd(opguard(args), "")
}
