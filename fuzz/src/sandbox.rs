//! Which files an input may name. A harness never lets an input read or
//! write where it says: entry points that write take no fuzzed path at all,
//! and those that read traces named inside a document (a seam request, a
//! trials document) get paths confined below the repository's `fixtures/`.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// The repository's `fixtures/` directory (absolute): the only place a
/// fuzzed document's trace paths resolve to.
pub fn fixtures_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        dir.canonicalize().unwrap_or(dir)
    })
}

/// Whether `path`, joined to a directory, stays below it: relative, every
/// component a plain name (no `..`, no root, no `.`-only tricks), no NUL.
/// `fixtures/` holds no symbolic links, so such a path cannot leave it.
pub(crate) fn is_confined(path: &Path) -> bool {
    let text = path.as_os_str().as_encoded_bytes();
    !text.is_empty()
        && !text.contains(&0)
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Whether `path` is below `dir` by plain components (what
/// [`is_confined`] allows, after the library joined it to `dir`).
pub(crate) fn is_below(path: &Path, dir: &Path) -> bool {
    path.strip_prefix(dir).is_ok_and(is_confined)
}

/// A scratch directory of this process for target `name`, holding copies of
/// `fixtures` (paths below `fixtures/`, copied under their file names): the
/// traces a fuzzed document may name besides the ones the input supplies.
pub(crate) fn scratch(name: &str, fixtures: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opguard-fuzz-{name}-{}", std::process::id()));
    if !dir.is_dir() {
        std::fs::create_dir_all(&dir).expect("scratch dir");
        for f in fixtures {
            let from = fixtures_dir().join(f);
            let to = dir.join(from.file_name().expect("a file name"));
            std::fs::copy(&from, &to).expect("fixture copied");
        }
    }
    dir
}

/// Writes `traces` as `t0.json`, `t1.json`, ... in `dir`, and removes the
/// ones a previous input wrote beyond them.
pub(crate) fn write_traces(dir: &Path, traces: &[&[u8]], most: usize) {
    for i in 0..most {
        let path = dir.join(format!("t{i}.json"));
        match traces.get(i) {
            Some(bytes) => std::fs::write(&path, bytes).expect("scratch trace"),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}
