//! Model stage: two frame identities that must never be confused.
//!
//! An occurrence ([`EventRef`](crate::EventRef): artifact digest and
//! occurrence index) names one event of one file. A [`SemanticFrameId`] names what the
//! event *is* — provider, category, normalized name, source location, and for
//! device work the canonical kernel identity — so the same operator in three
//! separately captured files has one semantic id and three occurrences.
//! When the identity cannot be established completely (no name, a
//! degenerate or elided kernel name), the frame says it is partial instead of
//! guessing, and consumers report it as unmatched.

use std::fmt;

use crate::slice::{NameId, SliceClass};
use crate::TraceModel;

/// The version tag hashed into every [`SemanticFrameId`].
///
/// `v3`: names lose CPython's object addresses (`<built-in method
/// run_kernel of PyCapsule object at 0x7f3a10001000>` is `<built-in method
/// run_kernel of PyCapsule object>`), and source paths lose `.` segments
/// and repeated slashes (`./scan.py` is `scan.py`). `v2`: Python source
/// paths are normalized (installed packages below
/// `site-packages`/`dist-packages`, project files relative to the source
/// root), so one function in two checkouts or venvs has one id. The
/// compatibility policy is in the crate README ("Semantic frame ids").
pub const SEMANTIC_FRAME_VERSION: &str = "semantic-frame/v3";

/// The prefix of every [`SemanticFrameId`]'s text; it changes with
/// [`SEMANTIC_FRAME_VERSION`], so ids of two versions never compare equal.
pub const SEMANTIC_FRAME_ID_PREFIX: &str = "sf3:";

/// A versioned semantic frame id: `sf3:` and 32 hex digits of the SHA-256 of
/// the frame's projection: version, provider family, category, then for
/// device work the kernel-name identity scheme and canonical identity,
/// otherwise the normalized name and source location.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct SemanticFrameId(String);

impl SemanticFrameId {
    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SemanticFrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether a frame's identity is complete.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum FrameIdentity {
    /// Complete: frames with equal ids are the same thing.
    Complete,
    /// Partial, with the reason: never merged with other frames.
    Partial(String),
}

/// The semantic projection of one event.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SemanticFrame {
    /// The id, present only when the identity is complete.
    pub id: Option<SemanticFrameId>,
    /// Complete or partial.
    pub identity: FrameIdentity,
    /// The provider (`kineto_cuda`, ...); its family (`kineto`) is what the
    /// id hashes.
    pub provider: &'static str,
    /// The event category.
    pub category: String,
    /// The normalized name: iteration counters such as `#12` become `#N`;
    /// CPython object addresses (` at 0x7f3a10001000` in `<built-in method
    /// run_kernel of PyCapsule object at 0x7f3a10001000>`) are removed,
    /// because they say where an object lived in one process, not what ran
    /// (the event itself, through its occurrence, keeps them); Python
    /// frames lose their location, which moves to `file`/`line`.
    pub name: String,
    /// Source file, when the event names one, normalized so that the same
    /// file in two checkouts or venvs is one path: `\` becomes `/`; `.`
    /// segments and repeated slashes go (`./scan.py` is `scan.py`; `..` is
    /// kept, since resolving it could cross a symbolic link); a path
    /// with a `site-packages/` or `dist-packages/` component keeps what is
    /// below the last one (`torch/nn/modules/linear.py`); an absolute path
    /// under the artifact's source root becomes relative to it; anything else
    /// is kept as written.
    pub file: Option<String>,
    /// Source line, when the event names one.
    pub line: Option<u32>,
    /// Canonical kernel identity for device work (`opguard-kernel-name`).
    pub kernel_identity: Option<String>,
}

/// Removes CPython object addresses and replaces a trailing iteration
/// counter (`ProfilerStep#12`) with `#N` (see [`SemanticFrame::name`]).
fn normalize_name(name: &str) -> String {
    let name = without_addresses(name.trim());
    if let Some((head, tail)) = name.rsplit_once('#') {
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
            return format!("{head}#N");
        }
    }
    name
}

/// How a name of a built-in method without a name starts (pybind11
/// functions, `<built-in method  of ... object at 0x...>`), once the address
/// is gone: nothing but the address told two of them apart.
const UNNAMED_BUILTIN: &str = "<built-in method  of ";

/// What CPython's `repr` puts before an object's address.
const ADDRESS_MARK: &str = " at 0x";

/// `name` without every ` at 0x<hex digits>`, the address CPython's `repr`
/// gives an object (`<built-in method reshape of Tensor object at
/// 0x7f36768de120>`, `<function f at 0x7f...>`).
fn without_addresses(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find(ADDRESS_MARK) {
        let after = &rest[at + ADDRESS_MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        let kept = if digits > 0 {
            at
        } else {
            at + ADDRESS_MARK.len()
        };
        out.push_str(&rest[..kept]);
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// Installed packages live below one of these directory names.
const PACKAGE_DIRS: [&str; 2] = ["site-packages", "dist-packages"];

/// `\` as `/`, without `.` segments or repeated slashes; a leading `/`
/// (or a drive's `C:/`) stays.
fn clean_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    let segments: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let joined = segments.join("/");
    match (path.starts_with('/'), joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => path,
        (false, false) => joined,
    }
}

/// See [`SemanticFrame::file`].
pub fn normalize_source_path(path: &str, source_root: Option<&str>) -> String {
    let path = clean_path(path);
    let below_packages = PACKAGE_DIRS
        .iter()
        .filter_map(|dir| {
            let marker = format!("/{dir}/");
            path.rfind(&marker)
                .map(|i| i + marker.len())
                .or_else(|| path.strip_prefix(&marker[1..]).map(|_| marker.len() - 1))
        })
        .max();
    if let Some(start) = below_packages {
        return path[start..].to_owned();
    }
    if let Some(root) = source_root {
        let root = clean_path(root);
        let root = root.trim_end_matches('/');
        if let Some(rest) = path.strip_prefix(root).and_then(|r| r.strip_prefix('/')) {
            if !root.is_empty() && !rest.is_empty() {
                return rest.to_owned();
            }
        }
    }
    path
}

/// The directory of the program's entry script: the file of the first
/// Python `<module>` frame, when it is an absolute path outside installed
/// packages. `None` when there is no such frame.
pub(crate) fn infer_source_root<'n>(
    slices: impl Iterator<Item = (SliceClass, NameId)>,
    name: impl Fn(NameId) -> &'n str,
) -> Option<String> {
    let entry = slices
        .filter(|(class, _)| *class == SliceClass::PythonFunction)
        .filter_map(|(_, n)| python_location(name(n)))
        .find(|(_, _, function)| function == "<module>")?;
    let file = clean_path(&entry.0);
    let absolute = file.starts_with('/') || file.get(1..3) == Some(":/");
    if !absolute
        || PACKAGE_DIRS
            .iter()
            .any(|d| file.contains(&format!("/{d}/")))
    {
        return None;
    }
    file.rsplit_once('/')
        .map(|(dir, _)| dir.to_owned())
        .filter(|d| !d.is_empty())
}

/// `path/file.py(123): function` as Kineto writes Python frames.
fn python_location(name: &str) -> Option<(String, u32, String)> {
    let (loc, func) = name.split_once("): ")?;
    let (file, line) = loc.rsplit_once('(')?;
    let line = line.parse().ok()?;
    Some((file.to_owned(), line, func.trim().to_owned()))
}

pub(crate) fn semantic_frame(
    model: &TraceModel,
    class: SliceClass,
    name: NameId,
    cat: NameId,
) -> SemanticFrame {
    let provider = model.artifact().provider.as_str();
    let category = model.name(cat).to_owned();
    let raw_name = model.name(name);
    let mut partial: Option<String> = None;
    let (mut name, mut file, mut line, mut kernel_identity) =
        (normalize_name(raw_name), None, None, None);
    if raw_name.trim().is_empty() {
        partial = Some("event has no name".into());
    } else if name.starts_with(UNNAMED_BUILTIN) && raw_name.contains(ADDRESS_MARK) {
        partial = Some(
            "a built-in method without a name: only its object's address, which differs \
             in every process, told it apart"
                .into(),
        );
    }
    if class == SliceClass::PythonFunction {
        if let Some((f, l, func)) = python_location(raw_name) {
            let root = model.artifact().source_root.as_deref();
            (name, file, line) = (func, Some(normalize_source_path(&f, root)), Some(l));
        }
    }
    if class.is_device() && partial.is_none() {
        let canonical = opguard_kernel_name::canonicalize(raw_name);
        match canonical.strict_identity() {
            Ok(_) => kernel_identity = Some(canonical.qualified_identity()),
            Err(e) => partial = Some(format!("kernel identity is partial: {e}")),
        }
    }
    let identity = match &partial {
        None => FrameIdentity::Complete,
        Some(reason) => FrameIdentity::Partial(reason.clone()),
    };
    let id = partial.is_none().then(|| {
        // Device work is what its canonical identity says, however the
        // symbol was spelled (mangled or not); everything else is its
        // normalized name and source location.
        let projection = match &kernel_identity {
            // The identity scheme is hashed too: when the kernel-name rules
            // change, ids change with them instead of silently aliasing.
            Some(kernel) => serde_json::json!([
                SEMANTIC_FRAME_VERSION,
                model.artifact().provider.family(),
                category,
                opguard_kernel_name::IDENTITY_SCHEME,
                kernel,
            ]),
            None => serde_json::json!([
                SEMANTIC_FRAME_VERSION,
                model.artifact().provider.family(),
                category,
                name,
                file,
                line,
            ]),
        };
        let digest = crate::identity::Sha256Digest::of(projection.to_string().as_bytes());
        SemanticFrameId(format!(
            "{SEMANTIC_FRAME_ID_PREFIX}{}",
            &digest.to_hex()[..32]
        ))
    });
    SemanticFrame {
        id,
        identity,
        provider,
        category,
        name,
        file,
        line,
        kernel_identity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_iteration_counters_only() {
        assert_eq!(normalize_name("ProfilerStep#12"), "ProfilerStep#N");
        assert_eq!(normalize_name(" aten::mm "), "aten::mm");
        assert_eq!(normalize_name("a#b"), "a#b");
        assert_eq!(normalize_name("x#"), "x#");
    }

    #[test]
    fn names_lose_object_addresses_and_nothing_else() {
        let capsule = "<built-in method run_kernel of PyCapsule object at 0x7f3a10001000>";
        let elsewhere = "<built-in method run_kernel of PyCapsule object at 0x55d0c0ffee00>";
        assert_eq!(
            normalize_name(capsule),
            "<built-in method run_kernel of PyCapsule object>"
        );
        assert_eq!(normalize_name(capsule), normalize_name(elsewhere));
        assert_eq!(
            normalize_name("<bound method A.f of <A object at 0xdead> at 0xbeef>"),
            "<bound method A.f of <A object>>"
        );
        // Only an address CPython's repr writes: ` at 0x` and hex digits.
        for kept in [
            "sum at 0xg",
            "look at 0x",
            "aten::mm",
            "kernel<0x10>",
            "at 0x12",
        ] {
            assert_eq!(normalize_name(kept), kept);
        }
        assert_eq!(
            normalize_name("<built-in method reshape of Tensor object at 0xAB12>#3"),
            "<built-in method reshape of Tensor object>#N"
        );
    }

    #[test]
    fn dot_segments_and_repeated_slashes_are_one_path() {
        for p in [
            "scan.py",
            "./scan.py",
            ".//scan.py",
            "././scan.py",
            ".\\scan.py",
        ] {
            assert_eq!(normalize_source_path(p, None), "scan.py", "{p}");
        }
        assert_eq!(normalize_source_path("pkg/./a//b.py", None), "pkg/a/b.py");
        assert_eq!(
            normalize_source_path("/srv//proj/./a.py", None),
            "/srv/proj/a.py"
        );
        assert_eq!(
            normalize_source_path("/srv/proj/./m/a.py", Some("/srv/./proj/")),
            "m/a.py"
        );
        assert_eq!(normalize_source_path("C:\\p\\.\\a.py", None), "C:/p/a.py");
        // `..` could cross a symbolic link: kept as written.
        assert_eq!(
            normalize_source_path("pkg/../scan.py", None),
            "pkg/../scan.py"
        );
        assert_eq!(normalize_source_path(".", None), ".");
    }

    #[test]
    fn source_paths_normalize_across_venvs_and_checkouts() {
        let one = "/home/u1/venv/lib/python3.11/site-packages/pkg/scan.py";
        let two = "/opt/conda/lib/python3.10/site-packages/pkg/scan.py";
        let deb = "/usr/lib/python3/dist-packages/pkg/scan.py";
        let win = "C:\\Python311\\Lib\\site-packages\\pkg\\scan.py";
        for p in [
            one,
            two,
            deb,
            win,
            "site-packages/pkg/scan.py",
            "pkg/scan.py",
        ] {
            assert_eq!(normalize_source_path(p, None), "pkg/scan.py", "{p}");
        }
        assert_eq!(
            normalize_source_path("/srv/ci/proj/mymodel/a.py", Some("/srv/ci/proj/")),
            "mymodel/a.py"
        );
        assert_eq!(
            normalize_source_path("/srv/ci/project/a.py", Some("/srv/ci/proj")),
            "/srv/ci/project/a.py",
            "a root is a directory, never a string prefix"
        );
        assert_eq!(normalize_source_path("/x/a.py", None), "/x/a.py");
    }

    #[test]
    fn python_frames_split_their_location() {
        assert_eq!(
            python_location("torch/nn/modules/linear.py(114): forward"),
            Some(("torch/nn/modules/linear.py".into(), 114, "forward".into()))
        );
        assert_eq!(python_location("<built-in method mm>"), None);
    }
}
