//! Every refusal: a binary report, a file that is not SQLite or not an
//! export, a truncated or corrupt database, limits, schemas and columns the
//! reader cannot vouch for.

use std::path::Path;

use opguard_nsys::{Error, ErrorKind, Export, ReadOptions, ERROR_CODES};
use opguard_testdata::shared_file;

use crate::support::{derive, Facts, CLOVERLEAF, TEST_CUDA};

fn refused(path: &Path, options: &ReadOptions) -> Error {
    match Export::open(path, options) {
        Ok(export) => match Facts::read(&export) {
            Ok(facts) => panic!("{} was read: {facts:?}", path.display()),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

#[test]
fn error_codes_follow_the_convention() {
    opguard_document::check_error_codes(ERROR_CODES).expect("conventional codes");
}

#[test]
fn a_binary_report_is_not_sqlite_and_the_message_says_how_to_export_it() {
    // The door (opguard-formats) names the report `nsight_report` before a
    // reader is chosen; read directly, it is one more file that is not SQLite.
    let Some(path) = shared_file("nsys/test-cuda_report1.nsys-rep") else {
        return;
    };
    let e = refused(&path, &ReadOptions::new());
    assert_eq!(e.code(), "not_sqlite");
    assert_eq!(e.path(), Some(path.as_path()));
    let message = e.to_string();
    assert!(message.contains("nsys export --type sqlite"), "{message}");
}

#[test]
fn a_json_trace_is_not_sqlite() {
    let Some(path) = shared_file("traces/hta/call_stack__backward_thread.json") else {
        return;
    };
    assert_eq!(refused(&path, &ReadOptions::new()).code(), "not_sqlite");
}

#[test]
fn an_sqlite_database_without_export_metadata_is_not_an_export() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("other.sqlite");
    let db = rusqlite::Connection::open(&path).expect("creates");
    db.execute_batch("CREATE TABLE test (x INTEGER); INSERT INTO test VALUES (1);")
        .expect("writes");
    drop(db);
    let e = refused(&path, &ReadOptions::new());
    assert_eq!(e.code(), "not_nsys_export");
    assert!(e.to_string().contains("META_DATA_EXPORT"), "{e}");
}

/// An export cut short, as a killed copy leaves it: SQLite finds pages
/// missing while the rows are read, and the error names the file and the
/// table.
#[test]
fn a_truncated_export_is_an_error_not_a_panic() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let cut = dir.path().join("cut.sqlite");
    opguard_testdata::write_cut_copy(&src, &cut);
    let e = refused(&cut, &ReadOptions::new());
    assert_eq!(e.code(), "sqlite_corrupt", "{e}");
    assert_eq!(e.path(), Some(cut.as_path()));
    assert!(e.position().is_some(), "{e:?}");
    assert!(e.to_string().contains("corrupt or truncated"), "{e}");
}

/// Pages overwritten in the middle of the file.
#[test]
fn an_overwritten_export_is_an_error_not_a_panic() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("overwritten.sqlite");
    let mut bytes = std::fs::read(&src).expect("reads");
    let middle = bytes.len() / 2;
    bytes[middle..middle + 64 * 1024].fill(0xA5);
    std::fs::write(&bad, &bytes).expect("writes");
    let e = refused(&bad, &ReadOptions::new());
    assert_eq!(e.code(), "sqlite_corrupt", "{e}");
}

/// The size limits, at the file's size (read) and one byte under (refused
/// before SQLite opens it).
#[test]
fn limits_apply_to_the_file_size() {
    let Some(path) = shared_file(TEST_CUDA) else {
        return;
    };
    let size = std::fs::metadata(&path).expect("stat").len();
    let at = ReadOptions::new()
        .max_encoded_bytes(size)
        .max_decoded_bytes(size);
    assert!(Export::open(&path, &at).is_ok());
    for options in [
        ReadOptions::new().max_encoded_bytes(size - 1),
        ReadOptions::new().max_decoded_bytes(size - 1),
    ] {
        let e = refused(&path, &options);
        assert_eq!(e.code(), "limit_exceeded");
        assert!(matches!(e.kind(), ErrorKind::LimitExceeded { size: s, .. } if *s == size));
    }
}

/// A schema newer than any verified one is refused by default, naming it,
/// and read when asked.
#[test]
fn an_unverified_schema_is_refused_unless_asked_for() {
    let Some(src) = shared_file(TEST_CUDA) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let newer = dir.path().join("newer.sqlite");
    derive(
        &src,
        &newer,
        &["--set-meta", "EXPORT_SCHEMA_VERSION=3.26.0"],
    );
    let e = refused(&newer, &ReadOptions::new());
    assert_eq!(e.code(), "schema_unverified");
    assert!(e.to_string().contains("3.26.0"), "{e}");
    assert!(e.to_string().contains("2.9 to 3.25"), "{e}");
    let export = Export::open(&newer, &ReadOptions::new().unverified_schema(true)).expect("opens");
    assert!(!export.meta().schema_verified);
    assert_eq!(Facts::read(&export).expect("reads").kernels.0, 4);
}

/// Columns the reader needs, dropped from a real export: one error names
/// the schema version and every missing column of every table.
#[test]
fn missing_columns_are_named_with_the_schema_version() {
    let Some(src) = shared_file(CLOVERLEAF) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let lacking = dir.path().join("lacking.sqlite");
    derive(
        &src,
        &lacking,
        &[
            "--drop-column",
            "CUPTI_ACTIVITY_KIND_KERNEL.globalPid",
            "--drop-column",
            "CUPTI_ACTIVITY_KIND_RUNTIME.eventClass",
        ],
    );
    let e = refused(&lacking, &ReadOptions::new());
    assert_eq!(e.code(), "columns_missing");
    let message = e.to_string();
    assert!(message.contains("3.13.2"), "{message}");
    assert!(
        message.contains("CUPTI_ACTIVITY_KIND_KERNEL lacks globalPid"),
        "{message}"
    );
    assert!(
        message.contains("CUPTI_ACTIVITY_KIND_RUNTIME lacks eventClass"),
        "{message}"
    );
    // An optional column may be missing.
    let no_graph = dir.path().join("no_graph_node.sqlite");
    derive(
        &src,
        &no_graph,
        &["--drop-column", "CUPTI_ACTIVITY_KIND_KERNEL.graphNodeId"],
    );
    assert_eq!(
        Facts::read(&crate::support::open(&no_graph))
            .expect("reads")
            .kernels
            .0,
        1312
    );
}

/// An enum value the reader relies on, renamed in the export's own enum
/// table: refused rather than read with another meaning.
#[test]
fn an_enum_that_contradicts_the_reader_is_refused() {
    let Some(src) = shared_file(TEST_CUDA) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let renamed = dir.path().join("renamed.sqlite");
    derive(
        &src,
        &renamed,
        &[
            "--set-enum",
            "ENUM_NSYS_EVENT_CLASS:1=TRACE_PROCESS_EVENT_CUDA_RUNTIME",
        ],
    );
    let e = refused(&renamed, &ReadOptions::new());
    assert_eq!(e.code(), "enum_mismatch");
    assert!(
        e.to_string().contains("TRACE_PROCESS_EVENT_CUDA_DRIVER"),
        "{e}"
    );
}

/// A value of the wrong type in a row is located by table, rowid and column.
#[test]
fn a_bad_value_names_its_row_and_column() {
    let Some(src) = shared_file(TEST_CUDA) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad_value.sqlite");
    std::fs::copy(&src, &bad).expect("copies");
    let db = rusqlite::Connection::open(&bad).expect("opens");
    db.execute(
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid = 3",
        [],
    )
    .expect("writes");
    drop(db);
    let e = refused(&bad, &ReadOptions::new());
    assert_eq!(e.code(), "bad_value");
    let position = e.position().expect("located");
    assert_eq!(position.table, "CUPTI_ACTIVITY_KIND_KERNEL");
    assert_eq!(position.rowid, Some(3));
    assert_eq!(position.column, Some("start"));
}
