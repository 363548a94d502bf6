//! The one loader the Rust tests read `fixtures/` case files through, the
//! counterpart of the bindings' `load_fixture` / `loadFixture`: every case
//! file opens with the header `fixtures/README.md` describes, and a runner
//! that reads a file it does not implement must refuse it rather than pass
//! on whatever cases happen to match.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The committed `fixtures/` folder of the workspace.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// A case file whose header is not the one `fixtures/README.md` describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixtureHeaderError {
    /// The file, as the caller named it (`select/cases.json`).
    pub label: String,
    /// What is wrong with its header.
    pub message: String,
}

impl fmt::Display for FixtureHeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.label, self.message)
    }
}

impl std::error::Error for FixtureHeaderError {}

/// Checks the header every case file opens with: `schema` and
/// `schema_version` are the ones the runner implements, `description` is a
/// string, every case list (`cases`, `<kind>_cases`) is as long as its
/// `case_count` / `<kind>_case_count` says, and every case id is a non-empty
/// string unique across the lists.
///
/// # Errors
/// The first fault found, naming `label`.
pub fn check_fixture_header(
    doc: &Value,
    schema: &str,
    version: u64,
    label: &str,
) -> Result<(), FixtureHeaderError> {
    let refuse = |message: String| {
        Err(FixtureHeaderError {
            label: label.to_owned(),
            message,
        })
    };
    let Some(fields) = doc.as_object() else {
        return refuse("not a JSON object".into());
    };
    if doc["schema"] != schema {
        return refuse(format!(
            "schema is {}, expected {schema:?}",
            shown(fields.get("schema"))
        ));
    }
    if doc["schema_version"] != version {
        return refuse(format!(
            "schema_version {} is not {version}, the version this runner implements",
            shown(fields.get("schema_version"))
        ));
    }
    if !doc["description"].is_string() {
        return refuse("description is missing or not a string".into());
    }
    let mut seen = HashSet::new();
    for (key, cases) in fields.iter().filter(|(k, _)| k.ends_with("cases")) {
        let Some(cases) = cases.as_array() else {
            return refuse(format!("{key} is not an array"));
        };
        let count_key = format!("{}case_count", &key[..key.len() - "cases".len()]);
        if doc[&count_key] != cases.len() {
            return refuse(format!(
                "{count_key} is {} but the file has {} cases",
                shown(fields.get(&count_key)),
                cases.len()
            ));
        }
        for case in cases {
            match case["id"].as_str() {
                Some(id) if !id.is_empty() => {
                    if !seen.insert(id) {
                        return refuse(format!("case id {id:?} is not unique"));
                    }
                }
                _ => return refuse(format!("a case of {key} has no id or an empty one")),
            }
        }
    }
    Ok(())
}

/// `fixtures/<relative>` through [`check_fixture_header`]: the one way every
/// Rust fixture runner reads its case file.
///
/// # Panics
/// When the file cannot be read, is not JSON, or its header is refused.
pub fn load_fixture(relative: &str, schema: &str, version: u64) -> Value {
    let doc = read_json(&fixtures_dir().join(relative));
    check_fixture_header(&doc, schema, version, relative).unwrap_or_else(|e| panic!("{e}"));
    doc
}

/// A JSON file, read whole.
///
/// # Panics
/// When the file cannot be read or is not JSON.
pub fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "missing".to_owned(), Value::to_string)
}

/// A header fault every fixture loader must refuse: a committed case file,
/// how to break its header, and what the refusal must say. One table for the
/// loaders the Rust tests hold to it (this crate's and the CLI's
/// `fixtures run`); the bindings' loaders are held to the same faults.
#[derive(Clone, Copy)]
pub struct HeaderFault {
    /// The case file under `fixtures/`.
    pub file: &'static str,
    /// Breaks the file's header in place.
    pub fault: fn(&mut Value),
    /// A part of the refusal's message.
    pub says: &'static str,
}

/// The header faults of [`HeaderFault`], one per rule of the header.
pub fn header_faults() -> [HeaderFault; 6] {
    [
        // The select header before schema version 2.
        HeaderFault {
            file: "select/cases.json",
            fault: |d| {
                if let Some(m) = d.as_object_mut() {
                    m.remove("schema");
                    m.insert("format".into(), "opguard.select.fixture/v1".into());
                }
            },
            says: "schema is missing",
        },
        HeaderFault {
            file: "scaling/cases.json",
            fault: |d| d["schema_version"] = 1.into(),
            says: "schema_version 1",
        },
        HeaderFault {
            file: "align/map_cases.json",
            fault: |d| d["case_count"] = 0.into(),
            says: "case_count is 0",
        },
        HeaderFault {
            file: "align/map_cases.json",
            fault: |d| {
                if let Some(m) = d.as_object_mut() {
                    m.remove("description");
                }
            },
            says: "description",
        },
        HeaderFault {
            file: "kernel-name/kernel_symbols.json",
            fault: |d| d["verdict_cases"][0]["id"] = d["symbol_cases"][0]["id"].clone(),
            says: "is not unique",
        },
        HeaderFault {
            file: "select/cases.json",
            fault: |d| d["cases"][0]["id"] = "".into(),
            says: "empty",
        },
    ]
}
