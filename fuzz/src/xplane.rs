//! The XSpace reader (`opguard-xplane`): bytes as an `.xplane.pb`, in
//! memory, from a file, and through the door (`opguard-formats`).

use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions, ModelStorage, TraceModel};
use opguard_xplane::{ReadOptions, XSpaceFile, XSpaceInfo};

use crate::door::check_info;
use crate::model::{check_model, fingerprint};
use crate::sandbox::scratch;

/// Codes an error may carry without a byte offset: what is about the whole
/// file, not a place in it.
const WHOLE_FILE_CODES: [&str; 3] = ["limit_exceeded", "empty_input", "io"];

/// Room the decoded-byte limit of the second read leaves above the file's
/// size: a compressed stat inflating past it must stop the read there.
const TIGHT_DECODED_ROOM: u64 = 64;

fn spec() -> ArtifactSpec {
    ArtifactSpec::new().stage("fuzz").source("fuzz-input")
}

/// What one read gave: the model's fingerprint, or the error's code and
/// offset.
type Answer = Result<String, (&'static str, Option<u64>)>;

fn answer(read: &Result<TraceModel, opguard_xplane::Error>) -> Answer {
    match read {
        Ok(model) => Ok(fingerprint(model)),
        Err(e) => Err((e.code(), e.offset())),
    }
}

/// Holds an error to the reader's contract: a documented code and, unless
/// it is about the whole file, the byte offset of a place inside it.
fn check_error(e: &opguard_xplane::Error, len: usize) {
    let code = e.code();
    assert!(
        opguard_xplane::ERROR_CODES.iter().any(|(c, _)| *c == code),
        "undocumented code {code}: {e}"
    );
    if WHOLE_FILE_CODES.contains(&code) {
        return;
    }
    let offset = e
        .offset()
        .unwrap_or_else(|| panic!("{code} without a byte offset: {e}"));
    assert!(
        offset < len as u64,
        "{code} at byte {offset} of a {len}-byte input: {e}"
    );
}

fn read_in_memory(data: &[u8], options: &ReadOptions) -> Result<TraceModel, opguard_xplane::Error> {
    let space = XSpaceFile::from_vec(data.to_vec(), options)?;
    opguard_xplane::model_of(
        &space,
        spec(),
        &ModelOptions::new(),
        &mut ModelStorage::new(),
    )
}

/// Bytes as an XSpace: never a panic, a hang or memory past the limits;
/// an error is a documented code at a byte of the input; an accepted file
/// gives a model whose invariants hold, the same model read from a file
/// and through `opguard_formats::read` (whenever the door detects an
/// XSpace, which it must for binary bytes the reader accepts), facts of
/// the same format from `opguard_formats::info`, and the same launch
/// region through `opguard_formats::launch_region`; with the decoded
/// limit a few bytes above the file's size, the read is the same or stops
/// with `limit_exceeded` having inflated past it.
pub fn xspace_reader(data: &[u8]) {
    let options = ReadOptions::default();
    let direct = read_in_memory(data, &options);
    match &direct {
        Ok(model) => check_model(model),
        Err(e) => check_error(e, data.len()),
    }
    // `info` walks the same file: it never panics, and refuses what the
    // model refuses for the file's structure.
    if let Ok(space) = XSpaceFile::from_vec(data.to_vec(), &options) {
        match XSpaceInfo::of(&space) {
            Ok(info) => {
                serde_json::to_string(&info).expect("info serializes");
            }
            Err(e) => check_error(&e, data.len()),
        }
    }

    let tight_limit = data.len() as u64 + TIGHT_DECODED_ROOM;
    let tight = read_in_memory(data, &options.clone().max_decoded_bytes(tight_limit));
    match (&direct, &tight) {
        (_, Err(e)) if e.code() == "limit_exceeded" => {
            let decoded = match &direct {
                Ok(model) => model.summary().decoded_bytes,
                // The default limit refused too, or refused later: only a
                // read that got further can say how much it inflated.
                Err(_) => u64::MAX,
            };
            assert!(
                decoded > tight_limit,
                "limit_exceeded at {tight_limit} decoded bytes where the read decodes {decoded}"
            );
        }
        _ => assert_eq!(
            answer(&direct).map_err(|e| e.0),
            answer(&tight).map_err(|e| e.0),
            "a lower decoded limit changed the read without exceeding it"
        ),
    }

    let dir = scratch("xspace_reader", &[]);
    let path = dir.join("input.xplane.pb");
    std::fs::write(&path, data).expect("scratch file");
    let from_file = opguard_xplane::read_model(&path, spec(), &ModelOptions::new(), &options);
    assert_eq!(
        answer(&direct),
        answer(&from_file),
        "the file reads differently from the same bytes in memory"
    );

    // Bytes that start with SQLite's header are a database whose tables
    // the door lists (and may refuse); those are the `sqlite_capture`
    // target's.
    let Ok(detected) = opguard_formats::detect(&path) else {
        assert!(data.starts_with(b"SQLite format 3\0"));
        return;
    };
    if direct.is_ok() && opguard_xplane::starts_like_xspace(data) {
        assert_eq!(
            detected,
            opguard_formats::Detected::Xspace,
            "binary bytes the XSpace reader accepts are detected as another format"
        );
    }
    let door_options = opguard_formats::ReadOptions::new(ModelOptions::new());
    if detected == opguard_formats::Detected::Xspace {
        let door = opguard_formats::read(&path, spec(), &door_options);
        let door = match &door {
            Ok(model) => Ok(fingerprint(model)),
            Err(e) => {
                let opguard_formats::ErrorKind::Xplane(inner) = e.kind() else {
                    panic!("the door's own error for an XSpace: {e}");
                };
                Err((e.code(), inner.offset()))
            }
        };
        assert_eq!(
            answer(&direct),
            door,
            "opguard_formats::read differs from the XSpace reader"
        );
        check_info(&path, direct.as_ref().ok().map(|m| m.artifact().format));
    }
    let region = opguard_formats::launch_region(&path, spec(), &door_options, 3, &mut |_, _| {});
    if detected == opguard_formats::Detected::Xspace {
        let launches =
            opguard_xplane::read_model(&path, spec(), &ModelOptions::launches_only(), &options);
        match (&region, &launches) {
            (Ok(read), Ok(model)) => assert_eq!(
                read.region,
                launch_region(model, 3),
                "the door's launch region differs from the model's"
            ),
            (Err(e), Err(inner)) => assert_eq!(e.code(), inner.code()),
            _ => panic!(
                "the door's launch region and the reader disagree on accepting the file: {:?} / {:?}",
                region.as_ref().err(),
                launches.as_ref().err()
            ),
        }
    }
}
