//! Reading traces the way every command does: a path or `-` for stdin, the
//! reader flags, a progress bar, and the reader's warnings on stderr.

use std::io::Read;
use std::path::Path;

use opguard_trace::model::{ArtifactSpec, ModelOptions, TraceModel};
use opguard_trace::{ReadWarning, ReaderOptions, TraceReader};
use serde::Serialize;

use crate::error::CliError;
use crate::progress::Progress;
use crate::style::Style;

/// Whether `path` means stdin.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
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
    Ok((TraceReader::with_thread(input, options)?, total))
}

/// Reads one trace (`-` is stdin) into a model, with a progress bar.
pub fn model(
    path: &Path,
    label: &str,
    spec: ArtifactSpec,
    options: &ModelOptions,
) -> Result<TraceModel, CliError> {
    let (reader, total) = open(path, options.reader.clone())?;
    let mut progress = Progress::new(label, total);
    let model = TraceModel::from_reader(reader, spec, options, &mut |encoded, _| {
        progress.update(encoded)
    })?;
    progress.finish();
    Ok(model)
}

/// Reports what the reader accepted on stderr: `warning[<code>]: <message>`
/// and `  --> <input>`, or with `--json` one line `{"warning": {...}}`.
pub fn report_warnings(input: &str, warnings: &[ReadWarning], json: bool) {
    use std::io::Write;
    #[derive(Serialize)]
    struct Line<'a> {
        warning: Body<'a>,
    }
    #[derive(Serialize)]
    struct Body<'a> {
        #[serde(flatten)]
        warning: &'a ReadWarning,
        input: &'a str,
    }
    let style = Style::for_stderr();
    let mut err = std::io::stderr().lock();
    for w in warnings {
        let text = if json {
            serde_json::to_string(&Line {
                warning: Body { warning: w, input },
            })
            .unwrap_or_default()
        } else {
            format!(
                "{}: {}\n  --> {input}",
                style.warning(&format!("warning[{}]", w.code)),
                w.message
            )
        };
        let _ = writeln!(err, "{text}");
    }
}
