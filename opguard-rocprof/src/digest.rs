//! Identity: the SHA-256 of a capture, one file or several.

use std::path::Path;

use opguard_trace::Sha256Digest;

use crate::record::CaptureFile;

/// The files a capture was read from, in reading order.
#[derive(Debug, Default)]
pub(crate) struct FileSet {
    files: Vec<CaptureFile>,
}

impl FileSet {
    pub(crate) fn add(&mut self, path: &Path, kind: &str, sha256: Sha256Digest, bytes: u64) {
        self.files.push(CaptureFile {
            path: path.display().to_string(),
            kind: kind.to_owned(),
            sha256,
            bytes,
        });
    }

    /// The capture's identity and its files. One file is named by its own
    /// digest, so a capture and the file it is stay one artifact; several by
    /// the digest of `<kind> <sha256 hex>\n` per file, in reading order (the
    /// kinds, not the paths: a copied or renamed capture keeps its
    /// identity).
    pub(crate) fn finish(self) -> (Sha256Digest, Vec<CaptureFile>) {
        let digest = match self.files.as_slice() {
            [one] => one.sha256,
            files => {
                let mut lines = String::new();
                for f in files {
                    lines.push_str(&format!("{} {}\n", f.kind, f.sha256));
                }
                Sha256Digest::of(lines.as_bytes())
            }
        };
        (digest, self.files)
    }
}
