//! Next steps the command prints: whole command lines a user can paste,
//! with the paths as given (quoted for a POSIX shell), the reader flags of
//! the run that printed them, and output names that do not exist yet.

use std::path::{Path, PathBuf};

use crate::cli::{ProviderArgs, ReaderArgs};

/// `word` as one word of a POSIX shell command line: unchanged when it is
/// made of characters no shell treats specially, else single-quoted.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./=:@%+,-".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A command line of `opguard` and `args`, each a shell word.
pub fn command_line<S: AsRef<str>>(args: &[S]) -> String {
    let mut line = "opguard".to_owned();
    for a in args {
        line.push(' ');
        line.push_str(&shell_word(a.as_ref()));
    }
    line
}

/// The reader flags (and `--provider`) that differ from the defaults, as
/// arguments: a next step reads the traces the way this run did.
pub fn reader_flags(reader: &ReaderArgs, provider: Option<&ProviderArgs>) -> Vec<String> {
    use opguard_trace::{DEFAULT_MAX_DECODED_BYTES, DEFAULT_MAX_ENCODED_BYTES};
    let mut out = Vec::new();
    if reader.salvage {
        out.push("--salvage".to_owned());
    }
    if reader.max_decoded_bytes != DEFAULT_MAX_DECODED_BYTES {
        out.extend([
            "--max-decoded-bytes".into(),
            reader.max_decoded_bytes.to_string(),
        ]);
    }
    if reader.max_encoded_bytes != DEFAULT_MAX_ENCODED_BYTES {
        out.extend([
            "--max-encoded-bytes".into(),
            reader.max_encoded_bytes.to_string(),
        ]);
    }
    if let Some(p) = provider.and_then(|p| p.provider) {
        out.extend(["--provider".into(), p.as_str().to_owned()]);
    }
    out
}

/// `dir/stem.ext` when nothing is there, else the first free
/// `dir/stem-N.ext` (N from 2): an output name a next step can create.
pub fn fresh_name(dir: &Path, stem: &str, ext: &str) -> PathBuf {
    let taken = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let first = dir.join(format!("{stem}{ext}"));
    if !taken(&first) {
        return first;
    }
    (2u32..)
        .map(|n| dir.join(format!("{stem}-{n}{ext}")))
        .find(|p| !taken(p))
        .unwrap_or(first)
}

/// A path to print: relative to the working directory when it lies
/// inside it, else as it is.
pub fn from_here(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_a_shell_would_split_or_expand_are_quoted() {
        assert_eq!(shell_word("a/b-c_1.json.gz"), "a/b-c_1.json.gz");
        assert_eq!(shell_word("my trace.json"), "'my trace.json'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn a_fresh_name_skips_what_exists() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            fresh_name(dir.path(), "view", ".json"),
            dir.path().join("view.json")
        );
        std::fs::write(dir.path().join("view.json"), "").unwrap();
        std::fs::write(dir.path().join("view-2.json"), "").unwrap();
        assert_eq!(
            fresh_name(dir.path(), "view", ".json"),
            dir.path().join("view-3.json")
        );
    }
}
