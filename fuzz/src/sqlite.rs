//! SQLite captures: Nsight Systems exports (`opguard-nsys`) and rocpd
//! databases (`opguard-rocprof`), their pages corrupted and cut, read by
//! each reader and through the door (`opguard-formats`). SQLite opens the
//! database in a scratch directory of this process, emptied before every
//! input (so no journal or WAL file of one input meets the next).

use std::path::Path;

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions, TraceModel};

use crate::door::{assert_documented, check_info, door_codes};
use crate::model::{check_model, fingerprint};
use crate::sandbox::scratch;

fn spec() -> ArtifactSpec {
    ArtifactSpec::new().stage("fuzz").source("fuzz-input")
}

/// What a read gave: the model's fingerprint, or the error's code and
/// position as text.
type Answer = Result<String, (&'static str, String)>;

fn answer<E>(read: &Result<TraceModel, E>, code: impl Fn(&E) -> (&'static str, String)) -> Answer {
    match read {
        Ok(model) => Ok(fingerprint(model)),
        Err(e) => Err(code(e)),
    }
}

fn nsys_code(e: &opguard_nsys::Error) -> (&'static str, String) {
    (e.code(), format!("{:?}", e.position()))
}

fn rocprof_code(e: &opguard_rocprof::Error) -> (&'static str, String) {
    (e.code(), format!("{:?}", e.position()))
}

/// The door's `read`: its answer, and the format of the model it built.
fn door_answer(path: &Path) -> (Answer, Option<opguard_model::Format>) {
    let options = opguard_formats::ReadOptions::new(ModelOptions::new());
    match opguard_formats::read(path, spec(), &options) {
        Ok(model) => (Ok(fingerprint(&model)), Some(model.artifact().format)),
        Err(e) => {
            assert_documented(e.code(), &door_codes(), &e);
            let answer = match e.kind() {
                opguard_formats::ErrorKind::Nsys(inner) => nsys_code(inner),
                opguard_formats::ErrorKind::Rocprof(inner) => rocprof_code(inner),
                _ => (e.code(), String::new()),
            };
            (Err(answer), None)
        }
    }
}

/// An Nsight Systems export read whole and as a streamed launch region:
/// a documented code, or a model whose invariants hold and whose launch
/// region is the streamed one.
fn read_nsys(path: &Path, options: &opguard_nsys::ReadOptions) -> Answer {
    let read = opguard_nsys::read_model(path, spec(), &ModelOptions::new(), options);
    match &read {
        Ok(model) => check_model(model),
        Err(e) => assert_documented(e.code(), &[opguard_nsys::ERROR_CODES], e),
    }
    match opguard_nsys::launch_region(path, spec(), options, 3) {
        Ok(streamed) => {
            if read.is_ok() {
                let launches =
                    opguard_nsys::read_model(path, spec(), &ModelOptions::launches_only(), options)
                        .expect("read once, read again");
                assert_eq!(
                    streamed,
                    launch_region(&launches, 3),
                    "the streamed launch region differs from the model's"
                );
            }
        }
        Err(e) => assert_documented(e.code(), &[opguard_nsys::ERROR_CODES], &e),
    }
    answer(&read, nsys_code)
}

/// The size an SQLite header states for its database (page size × page
/// count), when the page count is valid (nonzero, and written with the
/// version-valid-for number: SQLite's file format, 1.3.7). Read here from
/// the format's definition, not from the reader.
fn stated_size(data: &[u8]) -> Option<u64> {
    if !data.starts_with(b"SQLite format 3\0") || data.len() < 100 {
        return None;
    }
    let be32 = |at: usize| u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let page_size = match u16::from_be_bytes([data[16], data[17]]) {
        1 => 65536,
        n => u64::from(n),
    };
    let pages = be32(28);
    (pages != 0 && be32(24) == be32(92)).then(|| page_size * u64::from(pages))
}

/// Bytes as an SQLite database (the seeds: a cut Nsight Systems export and
/// a rocpd database): the door's `detect`, `recognize`, `read`, `info` and
/// `launch_region`, the Nsight Systems reader (verified schemas, then any
/// schema) and the rocpd reader never panic, hang or use memory past the
/// limits; errors carry documented codes (a corrupt or cut page is
/// `sqlite_corrupt`/`sqlite`, or a code of what the bytes still read as); a
/// file shorter than its header states is refused by both readers; an
/// accepted capture's model holds the model's invariants; the door answers
/// as the reader it picks.
pub fn sqlite_capture(data: &[u8]) {
    let dir = scratch("sqlite_capture", &[]);
    for entry in std::fs::read_dir(&dir).expect("scratch dir").flatten() {
        let _ = std::fs::remove_file(entry.path());
    }
    let path = dir.join("capture.sqlite");
    std::fs::write(&path, data).expect("scratch file");

    let detected = opguard_formats::detect(&path);
    if let Err(e) = &detected {
        assert_documented(e.code(), &door_codes(), e);
    }
    let _ = opguard_formats::recognize(&path);

    let verified = opguard_nsys::ReadOptions::new();
    let nsys = read_nsys(&path, &verified);
    let nsys_any_schema = if matches!(&nsys, Err((code, _)) if *code == "schema_unverified") {
        read_nsys(&path, &verified.clone().unverified_schema(true))
    } else {
        nsys.clone()
    };
    // A file shorter than its header says was cut: SQLite would read the
    // missing bytes as zeros, so the reader refuses it before any row
    // (finding 15).
    if let Some(stated) = stated_size(data).filter(|&s| s > data.len() as u64) {
        assert!(
            nsys_any_schema.is_err(),
            "a database of {} bytes whose header states {stated} was read as an export",
            data.len()
        );
    }
    let rocpd = opguard_rocprof::read_model(
        &path,
        spec(),
        &ModelOptions::new(),
        &opguard_rocprof::ReadOptions::new(),
    );
    match &rocpd {
        Ok(model) => check_model(model),
        Err(e) => assert_documented(
            e.code(),
            &[opguard_rocprof::ERROR_CODES, opguard_trace::ERROR_CODES],
            e,
        ),
    }

    if let Some(stated) = stated_size(data).filter(|&s| s > data.len() as u64) {
        assert!(
            rocpd.is_err(),
            "a database of {} bytes whose header states {stated} was read as rocpd",
            data.len()
        );
    }

    let (door, door_format) = door_answer(&path);
    check_info(&path, door_format);
    match detected {
        Ok(opguard_formats::Detected::NsysSqlite) => assert_eq!(
            nsys, door,
            "opguard_formats::read differs from the Nsight Systems reader"
        ),
        Ok(opguard_formats::Detected::RocpdSqlite) => assert_eq!(
            answer(&rocpd, rocprof_code),
            door,
            "opguard_formats::read differs from the rocpd reader"
        ),
        _ => {}
    }
    let region = opguard_formats::launch_region(
        &path,
        spec(),
        &opguard_formats::ReadOptions::default(),
        3,
        &mut |_, _| {},
    );
    if let Err(e) = &region {
        assert_documented(e.code(), &door_codes(), e);
    }
}
