//! Nsight Systems exports through the door: told apart from other SQLite
//! databases by their tables, read into the model, their reader's errors
//! kept with their codes.

use opguard_formats::{detect, info, read, Detected, ErrorKind, Info, ReadOptions};
use opguard_model::{ArtifactSpec, ModelOptions};

fn shared(path: &str) -> Option<std::path::PathBuf> {
    opguard_testdata::shared_file(path)
}

const EXPORT: &str = "nsys/test-cuda_report1.sqlite";

#[test]
fn an_export_is_detected_by_its_tables_whatever_its_name() {
    let Some(export) = shared(EXPORT) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("rank0.json");
    std::fs::copy(&export, &renamed).unwrap();
    assert_eq!(detect(&renamed).unwrap(), Detected::NsysSqlite);
    let model = read(
        &renamed,
        ArtifactSpec::new(),
        &ReadOptions::new(ModelOptions::launches_only()),
    )
    .unwrap();
    assert_eq!(model.artifact().format.as_str(), "nsys_sqlite");
    assert_eq!(model.artifact().provider.as_str(), "nsight_systems");
    assert_eq!(
        model.artifact().producer.as_deref(),
        Some("Nsight Systems 2026.1.1.204")
    );
}

#[test]
fn another_sqlite_database_is_not_an_export() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch("CREATE TABLE runs (id INTEGER); INSERT INTO runs VALUES (1);")
        .unwrap();
    drop(db);
    assert_eq!(detect(&path).unwrap(), Detected::Sqlite);
    let err = read(&path, ArtifactSpec::new(), &ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "unsupported_database");
    assert!(err.message().contains("META_DATA_EXPORT"), "{err}");
    assert_eq!(
        info(&path, &ReadOptions::default()).unwrap_err().code(),
        "unsupported_database"
    );
}

#[test]
fn the_readers_errors_pass_through_with_their_codes() {
    let Some(export) = shared(EXPORT) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The first 64 KiB: SQLite's header and the schema, the rows cut off.
    let cut = dir.path().join("cut.sqlite");
    let bytes = std::fs::read(&export).unwrap();
    std::fs::write(&cut, &bytes[..65_536]).unwrap();
    let err = read(&cut, ArtifactSpec::new(), &ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "sqlite_corrupt", "{err}");
    assert!(matches!(err.kind(), ErrorKind::Nsys(_)));
    assert_eq!(err.file(), Some(cut.as_path()));
    // A limit on bytes: the export's size is both limits.
    let mut small = ReadOptions::new(ModelOptions::launches_only());
    small.reader.max_encoded_bytes = 1024;
    let err = read(&export, ArtifactSpec::new(), &small).unwrap_err();
    assert_eq!(err.code(), "limit_exceeded");
    // A schema outside the verified ones, unless asked for.
    let newer = dir.path().join("newer.sqlite");
    std::fs::copy(&export, &newer).unwrap();
    let db = rusqlite::Connection::open(&newer).unwrap();
    db.execute(
        "UPDATE META_DATA_EXPORT SET value = '3.99.0' WHERE name = 'EXPORT_SCHEMA_VERSION'",
        [],
    )
    .unwrap();
    drop(db);
    let options = ReadOptions::new(ModelOptions::launches_only());
    let err = read(&newer, ArtifactSpec::new(), &options).unwrap_err();
    assert_eq!(err.code(), "schema_unverified");
    let options = options.unverified_schema(true);
    assert!(read(&newer, ArtifactSpec::new(), &options).is_ok());
}

#[test]
fn info_gives_the_exports_own_facts() {
    let Some(export) = shared(EXPORT) else {
        return;
    };
    let facts = info(&export, &ReadOptions::default()).unwrap();
    assert_eq!(facts.format().as_str(), "nsys_sqlite");
    assert_eq!(facts.provider().as_str(), "nsight_systems");
    let Info::NsysSqlite(export_info) = &facts else {
        panic!("{facts:?}");
    };
    assert_eq!(export_info.meta.schema.to_string(), "3.24.14");
    let json = serde_json::to_value(&facts).unwrap();
    assert_eq!(json["format"], "nsys_sqlite");
    assert_eq!(json["meta"]["product_version"], "2026.1.1.204");
}
