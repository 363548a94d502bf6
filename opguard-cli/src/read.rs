//! Reading traces the way every command does: a path or `-` for stdin, the
//! reader flags, a progress bar, and the reader's warnings on stderr.

use std::io::Read;
use std::path::{Path, PathBuf};

use opguard_formats::ReadOptions;
use opguard_model::analysis::{launch_region, LaunchRegion};
use opguard_model::{ArtifactSpec, ModelStorage, TraceModel};
use opguard_trace::{ReadWarning, ReaderOptions, TraceReader};
use serde::Serialize;

use crate::error::CliError;
use crate::progress::Progress;
use crate::scratch::ScratchDir;
use crate::style::Style;

/// Whether `path` means stdin.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Refuses `-` given more than once: stdin can be read once, and the second
/// reader would see an empty input rather than a trace.
pub fn at_most_one_stdin<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<(), CliError> {
    if paths.into_iter().filter(|p| is_stdin(p)).count() > 1 {
        return Err(CliError::usage(
            "`-` (stdin) is given more than once; stdin can be read once, so give `-` for at most one input",
        ));
    }
    Ok(())
}

/// Copies stdin into a fresh scratch directory, for a command that reads
/// its input twice (stdin can be read once); the copy goes with the
/// returned directory when it is dropped, whatever happened. Returns the
/// directory and the copy's path.
pub fn stdin_to_scratch(purpose: &str) -> Result<(ScratchDir, PathBuf), CliError> {
    let dir = ScratchDir::create(purpose)?;
    let path = dir.path().join("stdin");
    let copy = || -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        std::io::copy(&mut std::io::stdin().lock(), &mut file)?;
        file.sync_all()
    };
    copy().map_err(|e| CliError::new("io", format!("cannot copy stdin: {e}")).in_input("-"))?;
    Ok((dir, path))
}

/// A reader over a file or stdin.
pub type AnyReader = TraceReader<Box<dyn Read + Send>>;

/// Opens `path` (`-` is stdin) and returns the reader and the input's size
/// when known (for the progress bar).
pub fn open(path: &Path, options: ReaderOptions) -> Result<(AnyReader, Option<u64>), CliError> {
    let (input, total): (Box<dyn Read + Send>, Option<u64>) = if is_stdin(path) {
        (Box::new(std::io::stdin()), None)
    } else {
        let file = std::fs::File::open(path).map_err(opguard_trace::Error::from)?;
        let total = file.metadata().ok().map(|m| m.len());
        (Box::new(file), total)
    };
    Ok((TraceReader::sendable(input, options)?, total))
}

/// Reads one capture of any format (`-`, stdin, is Chrome JSON) into a
/// model, with a progress bar.
pub fn model(
    path: &Path,
    label: &str,
    spec: ArtifactSpec,
    options: &ReadOptions,
) -> Result<TraceModel, CliError> {
    let total = (!is_stdin(path))
        .then(|| std::fs::metadata(path).ok().map(|m| m.len()))
        .flatten();
    let mut progress = Progress::new(label, total);
    let mut update = |encoded, _| progress.update(encoded);
    let model = if is_stdin(path) {
        let (reader, _) = open(path, options.reader.clone())?;
        opguard_trace::model_from_reader(reader, spec, &options.model, &mut update)?
    } else {
        opguard_formats::read_reusing(path, spec, options, &mut update, &mut ModelStorage::new())?
    };
    progress.finish();
    Ok(model)
}

/// The launch region of one capture of any format, with a progress bar:
/// an Nsight Systems export streamed row by row, anything else through a
/// model (`-`, stdin, is Chrome JSON). Returns it with the reader's
/// warnings.
pub fn region(
    path: &Path,
    label: &str,
    spec: ArtifactSpec,
    options: &ReadOptions,
    top: usize,
) -> Result<(LaunchRegion, Vec<ReadWarning>), CliError> {
    if is_stdin(path) {
        let model = model(path, label, spec, options)?;
        return Ok((launch_region(&model, top), model.summary().warnings.clone()));
    }
    let total = std::fs::metadata(path).ok().map(|m| m.len());
    let mut progress = Progress::new(label, total);
    let read = opguard_formats::launch_region(path, spec, options, top, &mut |encoded, _| {
        progress.update(encoded)
    })?;
    progress.finish();
    Ok((read.region, read.warnings))
}

/// Reports what the reader accepted on stderr: `warning[<code>]: <message>`
/// and `  --> <input>`, or with `--json` one line `{"warning": {...}}`.
pub fn report_warnings(input: &str, warnings: &[ReadWarning], json: bool) {
    report_input_warnings(warnings.iter().map(|w| (input.to_owned(), w)), json);
}

/// A file of a directory given on the command line that is not read (not
/// a capture, or JAX's JSON view of the XSpace beside it), as a warning
/// under `code`: said on stderr, so that no file the user pointed at goes
/// unmentioned.
pub struct SkippedFile {
    pub path: String,
    code: &'static str,
    message: String,
}

impl SkippedFile {
    pub fn new(code: &'static str, file: &opguard_formats::SkippedFile) -> Self {
        SkippedFile {
            path: file.path.display().to_string(),
            code,
            message: file.reason.describe(),
        }
    }
}

impl WarningLine for SkippedFile {
    fn code(&self) -> &str {
        self.code
    }
    fn message(&self) -> &str {
        &self.message
    }
    fn json(&self, input: &str) -> String {
        serde_json::json!({"code": self.code(), "message": self.message(), "input": input})
            .to_string()
    }
}

/// A reader warning as [`report_input_warnings`] prints it.
pub trait WarningLine {
    /// The stable code.
    fn code(&self) -> &str;
    /// What happened and what was kept.
    fn message(&self) -> &str;
    /// The `--json` body (one JSON object), naming `input`.
    fn json(&self, input: &str) -> String;
}

impl WarningLine for ReadWarning {
    fn code(&self) -> &str {
        self.code
    }
    fn message(&self) -> &str {
        &self.message
    }
    fn json(&self, input: &str) -> String {
        #[derive(Serialize)]
        struct Body<'a> {
            #[serde(flatten)]
            warning: &'a ReadWarning,
            input: &'a str,
        }
        serde_json::to_string(&Body {
            warning: self,
            input,
        })
        .unwrap_or_default()
    }
}

impl WarningLine for opguard_align::InputWarning {
    fn code(&self) -> &str {
        &self.code
    }
    fn message(&self) -> &str {
        &self.message
    }
    fn json(&self, _input: &str) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// [`report_warnings`] over warnings of several inputs, each with its input.
pub fn report_input_warnings<'a, W: WarningLine + 'a>(
    warnings: impl IntoIterator<Item = (String, &'a W)>,
    json: bool,
) {
    use std::io::Write;
    let style = Style::for_stderr();
    let mut err = std::io::stderr().lock();
    for (input, w) in warnings {
        let text = if json {
            format!("{{\"warning\":{}}}", w.json(&input))
        } else {
            format!(
                "{}: {}\n  --> {input}",
                style.warning(&format!("warning[{}]", w.code())),
                w.message()
            )
        };
        let _ = writeln!(err, "{text}");
    }
}
