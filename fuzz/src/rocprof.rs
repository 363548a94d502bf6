//! rocprofv3 text captures (`opguard-rocprof`): the CSV capture (a set of
//! files of one prefix, or one `.csv` file) and the JSON document, read by
//! the reader and through the door (`opguard-formats`).

use std::path::Path;

use opguard_model::{ArtifactSpec, ModelOptions, TraceModel};
use opguard_rocprof::{Position, ReadOptions};

use crate::door::check_info;
use crate::model::{check_model, fingerprint};
use crate::sandbox::scratch;

/// The files a CSV input's parts (split at `0xFF`) are written as, in
/// order: one process's capture.
const CSV_FILES: [&str; 4] = [
    "p_kernel_trace.csv",
    "p_hip_api_trace.csv",
    "p_agent_info.csv",
    "p_memory_copy_trace.csv",
];

fn spec() -> ArtifactSpec {
    ArtifactSpec::new().stage("fuzz").source("fuzz-input")
}

/// Small limits, so the value and decoded limits are reached by inputs of
/// a fuzz run's size.
fn options() -> ReadOptions {
    ReadOptions::new()
        .max_encoded_bytes(1 << 20)
        .max_decoded_bytes(1 << 20)
        .max_value_bytes(16 << 10)
}

fn door_options() -> opguard_formats::ReadOptions {
    let reader = opguard_trace::ReaderOptions::new()
        .max_encoded_bytes(1 << 20)
        .max_decoded_bytes(1 << 20)
        .max_value_bytes(16 << 10);
    opguard_formats::ReadOptions::new(ModelOptions::new()).reader(reader)
}

/// What a read gave: the model's fingerprint, or the error's code and
/// position.
type Answer = Result<String, (&'static str, Option<Position>)>;

fn answer(read: &Result<TraceModel, opguard_rocprof::Error>) -> Answer {
    match read {
        Ok(model) => Ok(fingerprint(model)),
        Err(e) => Err((e.code(), e.position().cloned())),
    }
}

/// Holds an error to the reader's contract: a documented code (its own, or
/// opguard-trace's for the byte pipeline), and a position inside the file
/// it names: a CSV line from 1 to the file's last, a JSON offset within
/// the document.
fn check_error(e: &opguard_rocprof::Error, files: &[(&Path, &[u8])]) {
    let code = e.code();
    let documented = opguard_rocprof::ERROR_CODES
        .iter()
        .chain(opguard_trace::ERROR_CODES)
        .any(|(c, _)| *c == code);
    assert!(documented, "undocumented code {code}: {e}");
    let bytes = e
        .file()
        .and_then(|f| files.iter().find(|(p, _)| *p == f))
        .map(|(_, b)| *b);
    match (e.position(), bytes) {
        (Some(Position::Csv { line, .. }), Some(bytes)) => {
            let lines = csv_lines(bytes);
            assert!(
                (1..=lines).contains(line),
                "{code} at line {line} of a file of {lines} lines: {}",
                e.located_message()
            );
        }
        (Some(Position::Json { offset, .. }), Some(bytes)) => assert!(
            *offset <= bytes.len() as u64,
            "{code} at byte {offset} of a {}-byte document: {}",
            bytes.len(),
            e.located_message()
        ),
        _ => {}
    }
}

/// How many lines the CSV reader can number in `bytes`: a line ends at
/// `\n`, `\r\n` or a lone `\r` (the csv crate's terminators; a lone `\r`
/// ends a line as on classic Mac OS), and the text after the last one is a
/// line too.
fn csv_lines(bytes: &[u8]) -> u64 {
    let lone_cr = bytes
        .windows(2)
        .filter(|w| w[0] == b'\r' && w[1] != b'\n')
        .count()
        + usize::from(bytes.last() == Some(&b'\r'));
    (bytes.iter().filter(|&&b| b == b'\n').count() + lone_cr) as u64 + 1
}

/// Reads `path` with the reader and through the door; the door must route
/// it to the reader (a directory with a kernel trace, a `.csv`, or content
/// the rocprofv3 probe names) and answer as the reader does.
fn read_both(path: &Path, files: &[(&Path, &[u8])]) {
    let direct = opguard_rocprof::read_model(path, spec(), &ModelOptions::new(), &options());
    match &direct {
        Ok(model) => check_model(model),
        Err(e) => check_error(e, files),
    }
    // A file that starts with SQLite's header is a database whose tables
    // the door lists (and may refuse); those are the `sqlite_capture`
    // target's.
    let Ok(detected) = opguard_formats::detect(path) else {
        let head = std::fs::read(path).unwrap_or_default();
        assert!(head.starts_with(b"SQLite format 3\0"));
        return;
    };
    let named_csv = path.extension().is_some_and(|e| e == "csv");
    let routed = matches!(
        detected,
        opguard_formats::Detected::RocprofCsv | opguard_formats::Detected::RocprofJson
    ) || (named_csv && detected == opguard_formats::Detected::ChromeJson);
    // The door looks for rocprofv3's header and key only in what its first
    // bytes would hand to the Chrome JSON reader.
    if path.is_file() {
        let head = std::fs::read(path).expect("scratch file");
        let by_prefix = opguard_formats::detect_bytes(&head[..head.len().min(4096)]);
        if by_prefix == opguard_formats::Detected::ChromeJson
            && opguard_rocprof::detect(path).is_some()
        {
            assert!(
                routed,
                "rocprofv3 content detected by the door as {detected:?}"
            );
        }
    } else {
        assert_eq!(detected, opguard_formats::Detected::RocprofCsv);
    }
    if !routed {
        return;
    }
    check_info(path, direct.as_ref().ok().map(|m| m.artifact().format));
    let door = match opguard_formats::read(path, spec(), &door_options()) {
        Ok(model) => Ok(fingerprint(&model)),
        Err(e) => match e.kind() {
            opguard_formats::ErrorKind::Rocprof(inner) => {
                Err((e.code(), inner.position().cloned()))
            }
            _ => panic!("the door's own error for a rocprofv3 capture: {e}"),
        },
    };
    assert_eq!(
        answer(&direct),
        door,
        "opguard_formats::read differs from the rocprofv3 reader"
    );
    // The door's launch region never panics; an accepted capture's is
    // the model's.
    let region = opguard_formats::launch_region(path, spec(), &door_options(), 3, &mut |_, _| {});
    if let (Ok(read), Ok(_)) = (&region, &direct) {
        let launches =
            opguard_rocprof::read_model(path, spec(), &ModelOptions::launches_only(), &options())
                .expect("read once, read again");
        assert_eq!(
            read.region,
            opguard_model::analysis::launch_region(&launches, 3)
        );
    }
}

/// The first byte picks the input's shape: 0, a JSON document
/// (`results.json`); 1, the files of one CSV capture (kernel trace, HIP API
/// trace, agent info, memory copies: the rest split at `0xFF`), read as
/// their directory and as the kernel trace; 2, one file `capture.csv`.
/// Never a panic, a hang or memory past the limits; errors are documented
/// codes at a place inside the file; an accepted capture's model holds the
/// model's invariants; the door answers as the reader, and its `info`
/// gives facts of the same format.
pub fn rocprof_capture(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let dir = scratch("rocprof_capture", &[]);
    for entry in std::fs::read_dir(&dir).expect("scratch dir").flatten() {
        let _ = std::fs::remove_file(entry.path());
    }
    match mode % 3 {
        0 => {
            let path = dir.join("results.json");
            std::fs::write(&path, rest).expect("scratch file");
            read_both(&path, &[(&path, rest)]);
        }
        1 => {
            let parts: Vec<&[u8]> = rest.split(|&b| b == 0xFF).take(CSV_FILES.len()).collect();
            let paths: Vec<_> = CSV_FILES.iter().map(|n| dir.join(n)).collect();
            for (path, part) in paths.iter().zip(&parts) {
                std::fs::write(path, part).expect("scratch file");
            }
            let files: Vec<(&Path, &[u8])> = paths
                .iter()
                .zip(&parts)
                .map(|(p, b)| (p.as_path(), *b))
                .collect();
            read_both(&dir, &files);
            read_both(&paths[0], &files);
        }
        _ => {
            let path = dir.join("capture.csv");
            std::fs::write(&path, rest).expect("scratch file");
            read_both(&path, &[(&path, rest)]);
        }
    }
}
